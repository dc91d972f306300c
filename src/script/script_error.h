/* Script verification flags and script errors, named as Bitcoin Core and its test vectors
 * name them (SCRIPT_VERIFY_* without the prefix; SCRIPT_ERR_* as in script_tests.json).
 */
#ifndef BITNODE_SCRIPT_SCRIPT_ERROR_H
#define BITNODE_SCRIPT_SCRIPT_ERROR_H

#include <stdint.h>

/* Verification flags. Bit values equal Core's, so flag words are interchangeable with
 * Core's in logs and test data. */
enum script_verify_flag {
    SCRIPT_VERIFY_NONE = 0,
    SCRIPT_VERIFY_P2SH = 1u << 0,
    SCRIPT_VERIFY_STRICTENC = 1u << 1,
    SCRIPT_VERIFY_DERSIG = 1u << 2,
    SCRIPT_VERIFY_LOW_S = 1u << 3,
    SCRIPT_VERIFY_NULLDUMMY = 1u << 4,
    SCRIPT_VERIFY_SIGPUSHONLY = 1u << 5,
    SCRIPT_VERIFY_MINIMALDATA = 1u << 6,
    SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS = 1u << 7,
    SCRIPT_VERIFY_CLEANSTACK = 1u << 8,
    SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY = 1u << 9,
    SCRIPT_VERIFY_CHECKSEQUENCEVERIFY = 1u << 10,
    SCRIPT_VERIFY_WITNESS = 1u << 11,
    SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM = 1u << 12,
    SCRIPT_VERIFY_MINIMALIF = 1u << 13,
    SCRIPT_VERIFY_NULLFAIL = 1u << 14,
    SCRIPT_VERIFY_WITNESS_PUBKEYTYPE = 1u << 15,
    SCRIPT_VERIFY_CONST_SCRIPTCODE = 1u << 16,
    SCRIPT_VERIFY_TAPROOT = 1u << 17,
    SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION = 1u << 18,
    SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS = 1u << 19,
    SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE = 1u << 20,
};

/* Core's MANDATORY_SCRIPT_VERIFY_FLAGS: consensus rules once their soft fork is active (BIP16,
 * BIP66, BIP65, BIP112, BIP141/147, BIP341/342). Everything else is policy only. */
#define SCRIPT_FLAGS_CONSENSUS                                                                     \
    (SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_DERSIG | SCRIPT_VERIFY_NULLDUMMY |                         \
     SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY | SCRIPT_VERIFY_CHECKSEQUENCEVERIFY |                       \
     SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_TAPROOT)

/* Policy-only flags: Core's STANDARD_SCRIPT_VERIFY_FLAGS minus the consensus ones.
 * SIGPUSHONLY is in neither set (standardness checks push-only scriptSigs separately). */
#define SCRIPT_FLAGS_POLICY_ONLY                                                                   \
    (SCRIPT_VERIFY_STRICTENC | SCRIPT_VERIFY_LOW_S | SCRIPT_VERIFY_MINIMALDATA |                   \
     SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS | SCRIPT_VERIFY_CLEANSTACK |                         \
     SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM | SCRIPT_VERIFY_MINIMALIF |               \
     SCRIPT_VERIFY_NULLFAIL | SCRIPT_VERIFY_WITNESS_PUBKEYTYPE | SCRIPT_VERIFY_CONST_SCRIPTCODE |  \
     SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION | SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS |   \
     SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE)

/* Core's STANDARD_SCRIPT_VERIFY_FLAGS (mempool policy). */
#define SCRIPT_FLAGS_STANDARD (SCRIPT_FLAGS_CONSENSUS | SCRIPT_FLAGS_POLICY_ONLY)

/* Every defined flag. */
#define SCRIPT_FLAGS_ALL ((1u << 21) - 1)

/** Parses a comma-separated list of flag names ("P2SH,WITNESS"; "" and "NONE" are 0).
 *  Returns 0 with *flags set, or RC_INVALID naming nothing (unknown name). */
int script_flags_parse(uint32_t *flags, const char *names);
/** Name of a single flag bit ("P2SH"), or NULL if bit is not exactly one known flag. */
const char *script_flag_name(uint32_t bit);

enum script_error {
    SCRIPT_ERR_OK = 0,
    SCRIPT_ERR_UNKNOWN_ERROR,
    SCRIPT_ERR_EVAL_FALSE,
    SCRIPT_ERR_OP_RETURN,

    /* Max sizes */
    SCRIPT_ERR_SCRIPT_SIZE,
    SCRIPT_ERR_PUSH_SIZE,
    SCRIPT_ERR_OP_COUNT,
    SCRIPT_ERR_STACK_SIZE,
    SCRIPT_ERR_SIG_COUNT,
    SCRIPT_ERR_PUBKEY_COUNT,

    /* Failed verify operations */
    SCRIPT_ERR_VERIFY,
    SCRIPT_ERR_EQUALVERIFY,
    SCRIPT_ERR_CHECKMULTISIGVERIFY,
    SCRIPT_ERR_CHECKSIGVERIFY,
    SCRIPT_ERR_NUMEQUALVERIFY,

    /* Logical/Format/Canonical errors */
    SCRIPT_ERR_BAD_OPCODE,
    SCRIPT_ERR_DISABLED_OPCODE,
    SCRIPT_ERR_INVALID_STACK_OPERATION,
    SCRIPT_ERR_INVALID_ALTSTACK_OPERATION,
    SCRIPT_ERR_UNBALANCED_CONDITIONAL,

    /* CHECKLOCKTIMEVERIFY and CHECKSEQUENCEVERIFY */
    SCRIPT_ERR_NEGATIVE_LOCKTIME,
    SCRIPT_ERR_UNSATISFIED_LOCKTIME,

    /* Malleability */
    SCRIPT_ERR_SIG_HASHTYPE,
    SCRIPT_ERR_SIG_DER,
    SCRIPT_ERR_MINIMALDATA,
    SCRIPT_ERR_SIG_PUSHONLY,
    SCRIPT_ERR_SIG_HIGH_S,
    SCRIPT_ERR_SIG_NULLDUMMY,
    SCRIPT_ERR_PUBKEYTYPE,
    SCRIPT_ERR_CLEANSTACK,
    SCRIPT_ERR_MINIMALIF,
    SCRIPT_ERR_SIG_NULLFAIL,

    /* softfork safeness */
    SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS,
    SCRIPT_ERR_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM,
    SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION,
    SCRIPT_ERR_DISCOURAGE_OP_SUCCESS,
    SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE,

    /* segregated witness */
    SCRIPT_ERR_WITNESS_PROGRAM_WRONG_LENGTH,
    SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY,
    SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH,
    SCRIPT_ERR_WITNESS_MALLEATED,
    SCRIPT_ERR_WITNESS_MALLEATED_P2SH,
    SCRIPT_ERR_WITNESS_UNEXPECTED,
    SCRIPT_ERR_WITNESS_PUBKEYTYPE,

    /* Taproot */
    SCRIPT_ERR_SCHNORR_SIG_SIZE,
    SCRIPT_ERR_SCHNORR_SIG_HASHTYPE,
    SCRIPT_ERR_SCHNORR_SIG,
    SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE,
    SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT,
    SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG,
    SCRIPT_ERR_TAPSCRIPT_MINIMALIF,
    SCRIPT_ERR_TAPSCRIPT_EMPTY_PUBKEY,

    /* Constant scriptCode */
    SCRIPT_ERR_OP_CODESEPARATOR,
    SCRIPT_ERR_SIG_FINDANDDELETE,

    /* A CScriptNum operand too long or not minimal */
    SCRIPT_ERR_SCRIPTNUM,

    SCRIPT_ERR_ERROR_COUNT
};

/** The error's name as the vector files spell it ("EVAL_FALSE", "NULLFAIL"). Static. */
const char *script_error_name(enum script_error err);
/** Parses a vector-file error name. Returns 0 with *err set, or RC_INVALID. */
int script_error_parse(enum script_error *err, const char *name);
/** A human-readable description (Core's ScriptErrorString). Static. */
const char *script_error_string(enum script_error err);

#endif
