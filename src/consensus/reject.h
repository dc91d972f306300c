/* Core's reject reasons for blocks and the transactions in them (BlockValidationState and
 * TxValidationState, validation.cpp, consensus/tx_check.cpp and tx_verify.cpp), word for
 * word: the one table every consensus verdict's reason comes from (vstate_reject).
 * test/unit/error_text_tests.c compares it with the reasons Core gives. Two entries are
 * formats (the reason carries a value); "bad-blk-serialization" is bitnode's own, for a
 * block that does not parse (Core's deserializer throws instead). Mempool policy reasons
 * live with the mempool (src/mempool/). */
#ifndef BITNODE_CONSENSUS_REJECT_H
#define BITNODE_CONSENSUS_REJECT_H

/* The two entries that carry a value, as printf formats (literal, for the format checks). */
#define REJECT_FMT_BAD_VERSION "bad-version(0x%08x)"
#define REJECT_FMT_BLOCK_SCRIPT_VERIFY_FLAG_FAILED "block-script-verify-flag-failed (%s)"

#define CONSENSUS_REJECT_TABLE(X) \
    X(BAD_BLK_LENGTH, "bad-blk-length") \
    X(BAD_BLK_SIGOPS, "bad-blk-sigops") \
    X(BAD_BLK_WEIGHT, "bad-blk-weight") \
    X(BAD_CB_AMOUNT, "bad-cb-amount") \
    X(BAD_CB_HEIGHT, "bad-cb-height") \
    X(BAD_CB_LENGTH, "bad-cb-length") \
    X(BAD_CB_MISSING, "bad-cb-missing") \
    X(BAD_CB_MULTIPLE, "bad-cb-multiple") \
    X(BAD_DIFFBITS, "bad-diffbits") \
    X(BAD_PREVBLK, "bad-prevblk") \
    X(BAD_SIGNET_BLKSIG, "bad-signet-blksig") \
    X(BAD_TXNMRKLROOT, "bad-txnmrklroot") \
    X(BAD_TXNS_BIP30, "bad-txns-BIP30") \
    X(BAD_TXNS_ACCUMULATED_FEE_OUTOFRANGE, "bad-txns-accumulated-fee-outofrange") \
    X(BAD_TXNS_DUPLICATE, "bad-txns-duplicate") \
    X(BAD_TXNS_FEE_OUTOFRANGE, "bad-txns-fee-outofrange") \
    X(BAD_TXNS_IN_BELOWOUT, "bad-txns-in-belowout") \
    X(BAD_TXNS_INPUTS_DUPLICATE, "bad-txns-inputs-duplicate") \
    X(BAD_TXNS_INPUTS_MISSINGORSPENT, "bad-txns-inputs-missingorspent") \
    X(BAD_TXNS_INPUTVALUES_OUTOFRANGE, "bad-txns-inputvalues-outofrange") \
    X(BAD_TXNS_NONFINAL, "bad-txns-nonfinal") \
    X(BAD_TXNS_OVERSIZE, "bad-txns-oversize") \
    X(BAD_TXNS_PREMATURE_SPEND_OF_COINBASE, "bad-txns-premature-spend-of-coinbase") \
    X(BAD_TXNS_PREVOUT_NULL, "bad-txns-prevout-null") \
    X(BAD_TXNS_TXOUTTOTAL_TOOLARGE, "bad-txns-txouttotal-toolarge") \
    X(BAD_TXNS_VIN_EMPTY, "bad-txns-vin-empty") \
    X(BAD_TXNS_VOUT_EMPTY, "bad-txns-vout-empty") \
    X(BAD_TXNS_VOUT_NEGATIVE, "bad-txns-vout-negative") \
    X(BAD_TXNS_VOUT_TOOLARGE, "bad-txns-vout-toolarge") \
    X(BAD_WITNESS_MERKLE_MATCH, "bad-witness-merkle-match") \
    X(BAD_WITNESS_NONCE_SIZE, "bad-witness-nonce-size") \
    X(DUPLICATE_INVALID, "duplicate-invalid") \
    X(HIGH_HASH, "high-hash") \
    X(INCONCLUSIVE_NOT_BEST_PREVBLK, "inconclusive-not-best-prevblk") \
    X(PREV_BLK_NOT_FOUND, "prev-blk-not-found") \
    X(TIME_TIMEWARP_ATTACK, "time-timewarp-attack") \
    X(TIME_TOO_NEW, "time-too-new") \
    X(TIME_TOO_OLD, "time-too-old") \
    X(UNEXPECTED_WITNESS, "unexpected-witness") \
    X(BAD_VERSION, REJECT_FMT_BAD_VERSION) \
    X(BLOCK_SCRIPT_VERIFY_FLAG_FAILED, REJECT_FMT_BLOCK_SCRIPT_VERIFY_FLAG_FAILED) \
    X(BAD_BLK_SERIALIZATION, "bad-blk-serialization")

enum consensus_reject {
#define CONSENSUS_REJECT_ENUM(id, text) REJECT_##id,
    CONSENSUS_REJECT_TABLE(CONSENSUS_REJECT_ENUM)
#undef CONSENSUS_REJECT_ENUM
    REJECT_COUNT
};

/** The reason's text (a printf format for BAD_VERSION and BLOCK_SCRIPT_VERIFY_FLAG_FAILED);
 *  NULL for a value out of range. */
const char *consensus_reject_text(enum consensus_reject r);

#endif
