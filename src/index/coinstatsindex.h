/* -coinstatsindex: the UTXO set statistics after every block of the active chain, as Core's
 * coinstatsindex keeps them (its MuHash3072 of the set, the output count, bogosize, the
 * amount, and the running totals behind gettxoutsetinfo's block_info), so that
 * gettxoutsetinfo answers at once and for any height. Kept on the shared index thread
 * (base.h) in a store under indexes/coinstatsindex (doc/files.md "Coin statistics index");
 * a reorg reverts the blocks that left the chain with their undo data, as Core does.
 */
#ifndef BITNODE_INDEX_COINSTATSINDEX_H
#define BITNODE_INDEX_COINSTATSINDEX_H

#include <stddef.h>
#include <stdint.h>

struct chainstate;
struct kv_ops;
struct coinstats_index;

/* Running totals that can outgrow 63 bits (Core keeps them in arith_uint256). */
__extension__ typedef unsigned __int128 coinstats_u128;

/* The statistics after one block (Core's DBVal). Amounts in satoshis. */
struct coinstats_entry {
    int32_t height;
    uint8_t muhash[32]; /* the set's MuHash3072, internal byte order */
    uint64_t txouts;
    uint64_t bogosize;
    int64_t total_amount;
    int64_t total_subsidy;
    coinstats_u128 prevout_spent;           /* every spent output's value, summed */
    coinstats_u128 new_outputs_ex_coinbase; /* every spendable non-coinbase output */
    coinstats_u128 coinbase;                /* every spendable coinbase output */
    int64_t unspendable_genesis;            /* the genesis block's subsidy */
    int64_t unspendable_bip30;              /* the two coinbases BIP30 overwrote */
    int64_t unspendable_scripts;            /* outputs to unspendable scripts */
    int64_t unspendable_unclaimed;          /* subsidy and fees no coinbase claimed */
};

/** Opens (creating) the index at dir over cs (borrowed; it outlives the index) and starts its
 *  thread (index_base_start's rules). ops: the store's backend (NULL: the configured one).
 *  0, or an error with a message in err. */
int coinstats_index_start(struct coinstats_index **out, struct chainstate *cs,
                          const struct kv_ops *ops, const char *dir, char *err, size_t err_len);
/** Stops the thread (what it indexed is written) and closes the store. NULL: no-op. */
void coinstats_index_stop(struct coinstats_index *x);

/** The statistics after the block hash (of the active chain, or one that left it after the
 *  index had it). 0, RC_NOT_FOUND (not indexed), or a store error. Any thread. */
int coinstats_index_lookup(struct coinstats_index *x, const uint8_t hash[32],
                           struct coinstats_entry *out);
/** getindexinfo's synced and best_block_height (index_base_summary). Any thread. */
void coinstats_index_summary(struct coinstats_index *x, int *synced, int *best_height);
/** Core's BlockUntilSyncedToCurrentChain (index_base_wait_synced). Not from the validation
 *  thread. */
int coinstats_index_wait_synced(struct coinstats_index *x);

#endif
