/* Names of verification flags and script errors. */
#include "script/script_error.h"

#include <string.h>

#include "util/rc.h"

static const struct {
    const char *name;
    uint32_t bit;
} flag_names[] = {
    {"P2SH", SCRIPT_VERIFY_P2SH},
    {"STRICTENC", SCRIPT_VERIFY_STRICTENC},
    {"DERSIG", SCRIPT_VERIFY_DERSIG},
    {"LOW_S", SCRIPT_VERIFY_LOW_S},
    {"NULLDUMMY", SCRIPT_VERIFY_NULLDUMMY},
    {"SIGPUSHONLY", SCRIPT_VERIFY_SIGPUSHONLY},
    {"MINIMALDATA", SCRIPT_VERIFY_MINIMALDATA},
    {"DISCOURAGE_UPGRADABLE_NOPS", SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS},
    {"CLEANSTACK", SCRIPT_VERIFY_CLEANSTACK},
    {"CHECKLOCKTIMEVERIFY", SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY},
    {"CHECKSEQUENCEVERIFY", SCRIPT_VERIFY_CHECKSEQUENCEVERIFY},
    {"WITNESS", SCRIPT_VERIFY_WITNESS},
    {"DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM", SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM},
    {"MINIMALIF", SCRIPT_VERIFY_MINIMALIF},
    {"NULLFAIL", SCRIPT_VERIFY_NULLFAIL},
    {"WITNESS_PUBKEYTYPE", SCRIPT_VERIFY_WITNESS_PUBKEYTYPE},
    {"CONST_SCRIPTCODE", SCRIPT_VERIFY_CONST_SCRIPTCODE},
    {"TAPROOT", SCRIPT_VERIFY_TAPROOT},
    {"DISCOURAGE_UPGRADABLE_TAPROOT_VERSION", SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION},
    {"DISCOURAGE_OP_SUCCESS", SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS},
    {"DISCOURAGE_UPGRADABLE_PUBKEYTYPE", SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE},
};

int script_flags_parse(uint32_t *flags, const char *names)
{
    uint32_t f = 0;
    const char *p = names;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        if (n == 4 && memcmp(p, "NONE", 4) == 0) {
            found = 1;
        }
        for (size_t i = 0; !found && i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
            if (strlen(flag_names[i].name) == n && memcmp(flag_names[i].name, p, n) == 0) {
                f |= flag_names[i].bit;
                found = 1;
            }
        }
        if (!found && n > 0) {
            return RC_INVALID;
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    *flags = f;
    return RC_OK;
}

const char *script_flag_name(uint32_t bit)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
        if (flag_names[i].bit == bit) {
            return flag_names[i].name;
        }
    }
    return NULL;
}

static const struct {
    const char *name;
    const char *text;
} error_names[SCRIPT_ERR_ERROR_COUNT] = {
    [SCRIPT_ERR_OK] = {"OK", "No error"},
    [SCRIPT_ERR_UNKNOWN_ERROR] = {"UNKNOWN_ERROR", "unknown error"},
    [SCRIPT_ERR_EVAL_FALSE] = {"EVAL_FALSE",
                               "Script evaluated without error but finished with a false/empty "
                               "top stack element"},
    [SCRIPT_ERR_OP_RETURN] = {"OP_RETURN", "OP_RETURN was encountered"},
    [SCRIPT_ERR_SCRIPT_SIZE] = {"SCRIPT_SIZE", "Script is too big"},
    [SCRIPT_ERR_PUSH_SIZE] = {"PUSH_SIZE", "Push value size limit exceeded"},
    [SCRIPT_ERR_OP_COUNT] = {"OP_COUNT", "Operation limit exceeded"},
    [SCRIPT_ERR_STACK_SIZE] = {"STACK_SIZE", "Stack size limit exceeded"},
    [SCRIPT_ERR_SIG_COUNT] = {"SIG_COUNT", "Signature count negative or greater than pubkey count"},
    [SCRIPT_ERR_PUBKEY_COUNT] = {"PUBKEY_COUNT", "Pubkey count negative or limit exceeded"},
    [SCRIPT_ERR_VERIFY] = {"VERIFY", "Script failed an OP_VERIFY operation"},
    [SCRIPT_ERR_EQUALVERIFY] = {"EQUALVERIFY", "Script failed an OP_EQUALVERIFY operation"},
    [SCRIPT_ERR_CHECKMULTISIGVERIFY] = {"CHECKMULTISIGVERIFY",
                                        "Script failed an OP_CHECKMULTISIGVERIFY operation"},
    [SCRIPT_ERR_CHECKSIGVERIFY] = {"CHECKSIGVERIFY",
                                   "Script failed an OP_CHECKSIGVERIFY operation"},
    [SCRIPT_ERR_NUMEQUALVERIFY] = {"NUMEQUALVERIFY",
                                   "Script failed an OP_NUMEQUALVERIFY operation"},
    [SCRIPT_ERR_BAD_OPCODE] = {"BAD_OPCODE", "Opcode missing or not understood"},
    [SCRIPT_ERR_DISABLED_OPCODE] = {"DISABLED_OPCODE", "Attempted to use a disabled opcode"},
    [SCRIPT_ERR_INVALID_STACK_OPERATION] = {"INVALID_STACK_OPERATION",
                                            "Operation not valid with the current stack size"},
    [SCRIPT_ERR_INVALID_ALTSTACK_OPERATION] = {"INVALID_ALTSTACK_OPERATION",
                                               "Operation not valid with the current altstack "
                                               "size"},
    [SCRIPT_ERR_UNBALANCED_CONDITIONAL] = {"UNBALANCED_CONDITIONAL", "Invalid OP_IF construction"},
    [SCRIPT_ERR_NEGATIVE_LOCKTIME] = {"NEGATIVE_LOCKTIME", "Negative locktime"},
    [SCRIPT_ERR_UNSATISFIED_LOCKTIME] = {"UNSATISFIED_LOCKTIME", "Locktime requirement not "
                                                                 "satisfied"},
    [SCRIPT_ERR_SIG_HASHTYPE] = {"SIG_HASHTYPE", "Signature hash type missing or not "
                                                 "understood"},
    [SCRIPT_ERR_SIG_DER] = {"SIG_DER", "Non-canonical DER signature"},
    [SCRIPT_ERR_MINIMALDATA] = {"MINIMALDATA", "Data push larger than necessary"},
    [SCRIPT_ERR_SIG_PUSHONLY] = {"SIG_PUSHONLY", "Only push operators allowed in signatures"},
    [SCRIPT_ERR_SIG_HIGH_S] = {"SIG_HIGH_S",
                               "Non-canonical signature: S value is unnecessarily high"},
    [SCRIPT_ERR_SIG_NULLDUMMY] = {"SIG_NULLDUMMY", "Dummy CHECKMULTISIG argument must be zero"},
    [SCRIPT_ERR_PUBKEYTYPE] = {"PUBKEYTYPE", "Public key is neither compressed or "
                                             "uncompressed"},
    [SCRIPT_ERR_CLEANSTACK] = {"CLEANSTACK", "Stack size must be exactly one after execution"},
    [SCRIPT_ERR_MINIMALIF] = {"MINIMALIF", "OP_IF/NOTIF argument must be minimal"},
    [SCRIPT_ERR_SIG_NULLFAIL] = {"NULLFAIL",
                                 "Signature must be zero for failed CHECK(MULTI)SIG operation"},
    [SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS] = {"DISCOURAGE_UPGRADABLE_NOPS",
                                               "NOPx reserved for soft-fork upgrades"},
    [SCRIPT_ERR_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM] =
        {"DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM",
         "Witness version reserved for soft-fork upgrades"},
    [SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION] =
        {"DISCOURAGE_UPGRADABLE_TAPROOT_VERSION",
         "Taproot version reserved for soft-fork upgrades"},
    [SCRIPT_ERR_DISCOURAGE_OP_SUCCESS] = {"DISCOURAGE_OP_SUCCESS",
                                          "OP_SUCCESSx reserved for soft-fork upgrades"},
    [SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE] = {"DISCOURAGE_UPGRADABLE_PUBKEYTYPE",
                                                     "Public key version reserved for "
                                                     "soft-fork upgrades"},
    [SCRIPT_ERR_WITNESS_PROGRAM_WRONG_LENGTH] = {"WITNESS_PROGRAM_WRONG_LENGTH",
                                                 "Witness program has incorrect length"},
    [SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY] = {"WITNESS_PROGRAM_WITNESS_EMPTY",
                                                  "Witness program was passed an empty "
                                                  "witness"},
    [SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH] = {"WITNESS_PROGRAM_MISMATCH",
                                             "Witness program hash mismatch"},
    [SCRIPT_ERR_WITNESS_MALLEATED] = {"WITNESS_MALLEATED", "Witness requires empty scriptSig"},
    [SCRIPT_ERR_WITNESS_MALLEATED_P2SH] = {"WITNESS_MALLEATED_P2SH",
                                           "Witness requires only-redeemscript scriptSig"},
    [SCRIPT_ERR_WITNESS_UNEXPECTED] = {"WITNESS_UNEXPECTED", "Witness provided for "
                                                             "non-witness script"},
    [SCRIPT_ERR_WITNESS_PUBKEYTYPE] = {"WITNESS_PUBKEYTYPE", "Using non-compressed keys in "
                                                             "segwit"},
    [SCRIPT_ERR_SCHNORR_SIG_SIZE] = {"SCHNORR_SIG_SIZE", "Invalid Schnorr signature size"},
    [SCRIPT_ERR_SCHNORR_SIG_HASHTYPE] = {"SCHNORR_SIG_HASHTYPE",
                                         "Invalid Schnorr signature hash type"},
    [SCRIPT_ERR_SCHNORR_SIG] = {"SCHNORR_SIG", "Invalid Schnorr signature"},
    [SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE] = {"TAPROOT_WRONG_CONTROL_SIZE",
                                               "Invalid Taproot control block size"},
    [SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT] = {"TAPSCRIPT_VALIDATION_WEIGHT",
                                                "Too much signature validation relative to "
                                                "witness weight"},
    [SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG] = {"TAPSCRIPT_CHECKMULTISIG",
                                            "OP_CHECKMULTISIG(VERIFY) is not available in "
                                            "tapscript"},
    [SCRIPT_ERR_TAPSCRIPT_MINIMALIF] = {"TAPSCRIPT_MINIMALIF",
                                        "OP_IF/NOTIF argument must be minimal in tapscript"},
    [SCRIPT_ERR_TAPSCRIPT_EMPTY_PUBKEY] = {"TAPSCRIPT_EMPTY_PUBKEY",
                                           "Empty public key in tapscript"},
    [SCRIPT_ERR_OP_CODESEPARATOR] = {"OP_CODESEPARATOR",
                                     "Using OP_CODESEPARATOR in non-witness script"},
    [SCRIPT_ERR_SIG_FINDANDDELETE] = {"SIG_FINDANDDELETE", "Signature is found in scriptCode"},
    [SCRIPT_ERR_SCRIPTNUM] = {"SCRIPTNUM", "Script number overflowed or is non-minimally encoded"},
};

const char *script_error_name(enum script_error err)
{
    if ((unsigned)err >= SCRIPT_ERR_ERROR_COUNT || !error_names[err].name) {
        return "UNKNOWN_ERROR";
    }
    return error_names[err].name;
}

const char *script_error_string(enum script_error err)
{
    if ((unsigned)err >= SCRIPT_ERR_ERROR_COUNT || !error_names[err].text) {
        return "unknown error";
    }
    return error_names[err].text;
}

int script_error_parse(enum script_error *err, const char *name)
{
    for (int i = 0; i < SCRIPT_ERR_ERROR_COUNT; i++) {
        if (error_names[i].name && strcmp(error_names[i].name, name) == 0) {
            *err = (enum script_error)i;
            return RC_OK;
        }
    }
    return RC_INVALID;
}
