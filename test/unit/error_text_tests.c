/* The error texts Core's callers and tests read, each from one table: script errors
 * (script/script_error.c), consensus reject reasons (consensus/reject.h) and RPC error codes
 * (rpc/protocol.h), compared with Core's, re-typed here as data from Bitcoin Core v31.99's
 * script_error.cpp, validation.cpp / consensus/tx_check.cpp / tx_verify.cpp and protocol.h. */
#include <string.h>

#include "consensus/reject.h"
#include "rpc/protocol.h"
#include "script/script_error.h"
#include "test.h"

/* Core's ScriptErrorString, every case. */
static const struct {
    enum script_error err;
    const char *text;
} core_script_errors[] = {
    {SCRIPT_ERR_OK, "No error"},
    {SCRIPT_ERR_EVAL_FALSE, "Script evaluated without error but finished with a false/empty top stack element"},
    {SCRIPT_ERR_VERIFY, "Script failed an OP_VERIFY operation"},
    {SCRIPT_ERR_EQUALVERIFY, "Script failed an OP_EQUALVERIFY operation"},
    {SCRIPT_ERR_CHECKMULTISIGVERIFY, "Script failed an OP_CHECKMULTISIGVERIFY operation"},
    {SCRIPT_ERR_CHECKSIGVERIFY, "Script failed an OP_CHECKSIGVERIFY operation"},
    {SCRIPT_ERR_NUMEQUALVERIFY, "Script failed an OP_NUMEQUALVERIFY operation"},
    {SCRIPT_ERR_SCRIPT_SIZE, "Script is too big"},
    {SCRIPT_ERR_PUSH_SIZE, "Push value size limit exceeded"},
    {SCRIPT_ERR_OP_COUNT, "Operation limit exceeded"},
    {SCRIPT_ERR_STACK_SIZE, "Stack size limit exceeded"},
    {SCRIPT_ERR_SIG_COUNT, "Signature count negative or greater than pubkey count"},
    {SCRIPT_ERR_PUBKEY_COUNT, "Pubkey count negative or limit exceeded"},
    {SCRIPT_ERR_BAD_OPCODE, "Opcode missing or not understood"},
    {SCRIPT_ERR_DISABLED_OPCODE, "Attempted to use a disabled opcode"},
    {SCRIPT_ERR_INVALID_STACK_OPERATION, "Operation not valid with the current stack size"},
    {SCRIPT_ERR_INVALID_ALTSTACK_OPERATION, "Operation not valid with the current altstack size"},
    {SCRIPT_ERR_OP_RETURN, "OP_RETURN was encountered"},
    {SCRIPT_ERR_UNBALANCED_CONDITIONAL, "Invalid OP_IF construction"},
    {SCRIPT_ERR_NEGATIVE_LOCKTIME, "Negative locktime"},
    {SCRIPT_ERR_UNSATISFIED_LOCKTIME, "Locktime requirement not satisfied"},
    {SCRIPT_ERR_SIG_HASHTYPE, "Signature hash type missing or not understood"},
    {SCRIPT_ERR_SIG_DER, "Non-canonical DER signature"},
    {SCRIPT_ERR_MINIMALDATA, "Data push larger than necessary"},
    {SCRIPT_ERR_SIG_PUSHONLY, "Only push operators allowed in signatures"},
    {SCRIPT_ERR_SIG_HIGH_S, "Non-canonical signature: S value is unnecessarily high"},
    {SCRIPT_ERR_SIG_NULLDUMMY, "Dummy CHECKMULTISIG argument must be zero"},
    {SCRIPT_ERR_MINIMALIF, "OP_IF/NOTIF argument must be minimal"},
    {SCRIPT_ERR_SIG_NULLFAIL, "Signature must be zero for failed CHECK(MULTI)SIG operation"},
    {SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS, "NOPx reserved for soft-fork upgrades"},
    {SCRIPT_ERR_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM, "Witness version reserved for soft-fork upgrades"},
    {SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION, "Taproot version reserved for soft-fork upgrades"},
    {SCRIPT_ERR_DISCOURAGE_OP_SUCCESS, "OP_SUCCESSx reserved for soft-fork upgrades"},
    {SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE, "Public key version reserved for soft-fork upgrades"},
    {SCRIPT_ERR_PUBKEYTYPE, "Public key is neither compressed or uncompressed"},
    {SCRIPT_ERR_CLEANSTACK, "Stack size must be exactly one after execution"},
    {SCRIPT_ERR_WITNESS_PROGRAM_WRONG_LENGTH, "Witness program has incorrect length"},
    {SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY, "Witness program was passed an empty witness"},
    {SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH, "Witness program hash mismatch"},
    {SCRIPT_ERR_WITNESS_MALLEATED, "Witness requires empty scriptSig"},
    {SCRIPT_ERR_WITNESS_MALLEATED_P2SH, "Witness requires only-redeemscript scriptSig"},
    {SCRIPT_ERR_WITNESS_UNEXPECTED, "Witness provided for non-witness script"},
    {SCRIPT_ERR_WITNESS_PUBKEYTYPE, "Using non-compressed keys in segwit"},
    {SCRIPT_ERR_SCHNORR_SIG_SIZE, "Invalid Schnorr signature size"},
    {SCRIPT_ERR_SCHNORR_SIG_HASHTYPE, "Invalid Schnorr signature hash type"},
    {SCRIPT_ERR_SCHNORR_SIG, "Invalid Schnorr signature"},
    {SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE, "Invalid Taproot control block size"},
    {SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT, "Too much signature validation relative to witness weight"},
    {SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG, "OP_CHECKMULTISIG(VERIFY) is not available in tapscript"},
    {SCRIPT_ERR_TAPSCRIPT_MINIMALIF, "OP_IF/NOTIF argument must be minimal in tapscript"},
    {SCRIPT_ERR_TAPSCRIPT_EMPTY_PUBKEY, "Empty public key in tapscript"},
    {SCRIPT_ERR_OP_CODESEPARATOR, "Using OP_CODESEPARATOR in non-witness script"},
    {SCRIPT_ERR_SIG_FINDANDDELETE, "Signature is found in scriptCode"},
    {SCRIPT_ERR_SCRIPTNUM, "Script number overflowed or is non-minimally encoded"},
};

/* Every consensus reject reason Core gives for a block or a transaction in one. */
static const char *const core_rejects[] = {
    "bad-blk-length",
    "bad-blk-sigops",
    "bad-blk-weight",
    "bad-cb-amount",
    "bad-cb-height",
    "bad-cb-length",
    "bad-cb-missing",
    "bad-cb-multiple",
    "bad-diffbits",
    "bad-prevblk",
    "bad-signet-blksig",
    "bad-txnmrklroot",
    "bad-txns-BIP30",
    "bad-txns-accumulated-fee-outofrange",
    "bad-txns-duplicate",
    "bad-txns-fee-outofrange",
    "bad-txns-in-belowout",
    "bad-txns-inputs-duplicate",
    "bad-txns-inputs-missingorspent",
    "bad-txns-inputvalues-outofrange",
    "bad-txns-nonfinal",
    "bad-txns-oversize",
    "bad-txns-premature-spend-of-coinbase",
    "bad-txns-prevout-null",
    "bad-txns-txouttotal-toolarge",
    "bad-txns-vin-empty",
    "bad-txns-vout-empty",
    "bad-txns-vout-negative",
    "bad-txns-vout-toolarge",
    "bad-version(0x%08x)",
    "bad-witness-merkle-match",
    "bad-witness-nonce-size",
    "block-script-verify-flag-failed (%s)",
    "duplicate-invalid",
    "high-hash",
    "inconclusive-not-best-prevblk",
    "prev-blk-not-found",
    "time-timewarp-attack",
    "time-too-new",
    "time-too-old",
    "unexpected-witness",
};

/* The reasons Core's functional tests wait for (feature_block, p2p_invalid_block,
 * feature_taproot, feature_dersig, feature_cltv, p2p_segwit, mining_basic, rpc_invalidateblock,
 * feature_block's TestBlockValidity lines): each must be in the table. */
static const char *const tested_rejects[] = {
    "bad-blk-length",
    "bad-blk-sigops",
    "bad-cb-amount",
    "bad-cb-height",
    "bad-cb-length",
    "bad-cb-missing",
    "bad-cb-multiple",
    "bad-diffbits",
    "bad-txnmrklroot",
    "bad-txns-BIP30",
    "bad-txns-duplicate",
    "bad-txns-in-belowout",
    "bad-txns-inputs-missingorspent",
    "bad-txns-nonfinal",
    "bad-txns-premature-spend-of-coinbase",
    "high-hash",
    "time-too-new",
    "time-too-old",
    "bad-witness-nonce-size",
    "bad-witness-merkle-match",
    "unexpected-witness",
    "bad-blk-weight",
    "bad-txns-inputs-duplicate",
    "bad-txns-vin-empty",
    "bad-txns-prevout-null",
    "bad-prevblk",
    "duplicate-invalid",
    "inconclusive-not-best-prevblk",
    "time-timewarp-attack",
    "bad-txns-vout-negative",
    "bad-txns-txouttotal-toolarge",
};

static void test_script_errors(void)
{
    size_t n = sizeof(core_script_errors) / sizeof(core_script_errors[0]);
    CHECK_EQ_INT((int)n, SCRIPT_ERR_ERROR_COUNT - 1); /* all but UNKNOWN_ERROR */
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_STR(script_error_string(core_script_errors[i].err), core_script_errors[i].text);
    }
    CHECK_EQ_STR(script_error_string(SCRIPT_ERR_UNKNOWN_ERROR), "unknown error");
}

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s, list[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static void test_reject_table(void)
{
    size_t ncore = sizeof(core_rejects) / sizeof(core_rejects[0]);
    const char *ours[REJECT_COUNT];
    for (int r = 0; r < REJECT_COUNT; r++) {
        ours[r] = consensus_reject_text((enum consensus_reject)r);
        CHECK(ours[r] != NULL);
        /* bitnode's own: a block that does not parse (Core's deserializer throws) */
        if (r != REJECT_BAD_BLK_SERIALIZATION && !in_list(ours[r], core_rejects, ncore)) {
            CHECK_EQ_STR(ours[r], "(a reason Core does not give)");
        }
    }
    for (size_t i = 0; i < ncore; i++) {
        if (!in_list(core_rejects[i], ours, REJECT_COUNT)) {
            CHECK_EQ_STR("(missing from consensus/reject.h)", core_rejects[i]);
        }
    }
    for (size_t i = 0; i < sizeof(tested_rejects) / sizeof(tested_rejects[0]); i++) {
        CHECK(in_list(tested_rejects[i], ours, REJECT_COUNT));
    }
    CHECK(consensus_reject_text(REJECT_COUNT) == NULL);
}

/* Core's RPCErrorCode values. */
static void test_rpc_codes(void)
{
    static const struct {
        int ours, core;
    } codes[] = {
        {RPC_INVALID_REQUEST, -32600}, {RPC_METHOD_NOT_FOUND, -32601},
        {RPC_INVALID_PARAMS, -32602}, {RPC_INTERNAL_ERROR, -32603}, {RPC_PARSE_ERROR, -32700},
        {RPC_MISC_ERROR, -1}, {RPC_TYPE_ERROR, -3}, {RPC_INVALID_ADDRESS_OR_KEY, -5},
        {RPC_OUT_OF_MEMORY, -7}, {RPC_INVALID_PARAMETER, -8}, {RPC_DATABASE_ERROR, -20},
        {RPC_DESERIALIZATION_ERROR, -22}, {RPC_VERIFY_ERROR, -25}, {RPC_VERIFY_REJECTED, -26},
        {RPC_VERIFY_ALREADY_IN_UTXO_SET, -27}, {RPC_IN_WARMUP, -28},
        {RPC_METHOD_DEPRECATED, -32}, {RPC_LIMIT_EXCEEDED, -37},
        {RPC_CLIENT_NOT_CONNECTED, -9}, {RPC_CLIENT_IN_INITIAL_DOWNLOAD, -10},
        {RPC_CLIENT_NODE_ALREADY_ADDED, -23}, {RPC_CLIENT_NODE_NOT_ADDED, -24},
        {RPC_CLIENT_NODE_NOT_CONNECTED, -29}, {RPC_CLIENT_INVALID_IP_OR_SUBNET, -30},
        {RPC_CLIENT_P2P_DISABLED, -31}, {RPC_CLIENT_MEMPOOL_DISABLED, -33},
        {RPC_CLIENT_NODE_CAPACITY_REACHED, -34},
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK_EQ_INT(codes[i].ours, codes[i].core);
    }
}

int main(void)
{
    TEST(test_script_errors);
    TEST(test_reject_table);
    TEST(test_rpc_codes);
    return test_done();
}
