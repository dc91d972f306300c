/* The consensus checks of one transaction against the coins it spends and the chain it goes
 * into (Core's consensus/tx_verify: CheckTxInputs, CalculateSequenceLocks and
 * EvaluateSequenceLocks). Block connection (connect.c) and the mempool (mempool/accept.c)
 * both use these, so a rule exists once. Pure functions: no lock, no I/O. */
#ifndef BITNODE_VALIDATION_TX_VERIFY_H
#define BITNODE_VALIDATION_TX_VERIFY_H

#include <stdint.h>

#include "blockstore/blockindex.h"
#include "coins/coin.h"
#include "consensus/params.h"
#include "consensus/vstate.h"
#include "primitives/tx.h"

/* BIP68's fields of an input's nSequence (Core's CTxIn). */
#define SEQUENCE_LOCKTIME_DISABLE_FLAG (1u << 31)
#define SEQUENCE_LOCKTIME_TYPE_FLAG (1u << 22)
#define SEQUENCE_LOCKTIME_MASK 0x0000ffffu
#define SEQUENCE_LOCKTIME_GRANULARITY 9

/** Whether coin c may be spent in a block at spend_height: a coinbase output only
 *  COINBASE_MATURITY blocks after its own (any other coin always). */
static inline int tx_verify_coin_mature(const struct coin *c, int32_t spend_height)
{
    return !c->coinbase || spend_height - (int32_t)c->height >= COINBASE_MATURITY;
}

/** Core's Consensus::CheckTxInputs for tx (not a coinbase), whose inputs spend spent[i]
 *  (one coin per input, all present), in a block at spend_height: every coinbase coin
 *  mature, every value and their sum in range, value in >= value out, and the fee in range.
 *  Returns 0 with *fee set, or RC_INVALID with st filled with Core's reason and detail:
 *  "bad-txns-premature-spend-of-coinbase" ("tried to spend coinbase at depth N"; result
 *  VRESULT_TX_PREMATURE_SPEND: the same transaction may be valid later), and with result
 *  VRESULT_CONSENSUS "bad-txns-inputvalues-outofrange", "bad-txns-in-belowout" ("value in
 *  (X) < value out (Y)", amounts as Core's FormatMoney) and "bad-txns-fee-outofrange". */
int tx_verify_inputs(const struct tx *tx, const struct coin *spent, int32_t spend_height,
                     struct vstate *st, int64_t *fee);

/** Core's SequenceLocks (CalculateSequenceLocks, then EvaluateSequenceLocks) with BIP68
 *  enforced: whether tx, whose inputs spend coins created at prev_heights[i] (one per
 *  input), may be in the block after parent, whose median time past is parent_mtp (passed
 *  in: a block's transactions share it). A transaction of version < 2, or whose inputs all
 *  have the disable flag, always may. Reads the ancestors of parent; the caller keeps the
 *  block tree from changing (the chain lock, or the validation thread). */
int tx_verify_sequence_locks(const struct tx *tx, const uint32_t *prev_heights,
                             struct block_index *parent, int64_t parent_mtp);

#endif
