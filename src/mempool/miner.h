/* Block assembly (Bitcoin Core's BlockAssembler under its cluster mempool): the pool's chunks
 * in fee rate order while they fit the weight and sigop limits and are final, a coinbase with
 * the BIP34 height, the subsidy plus the fees collected exactly, and the BIP141 witness
 * commitment; the header's version (BIP9 signalling), time and bits for the tip's child. */
#ifndef BITNODE_MEMPOOL_MINER_H
#define BITNODE_MEMPOOL_MINER_H

#include <stddef.h>
#include <stdint.h>

#include "mempool/mempool.h"
#include "primitives/block.h"

struct chainstate;
struct chain_params;
struct block_index;

struct miner_options {
    int64_t block_max_weight;      /* -blockmaxweight (default 4,000,000) */
    int64_t block_reserved_weight; /* -blockreservedweight (default 8,000) */
    int64_t block_min_feerate;     /* -blockmintxfee, sat/kvB (default 1) */
    int64_t coinbase_sigops;       /* sigops kept for the coinbase's outputs (400) */
    int use_mempool;               /* 0: coinbase only (generateblock's own list) */
    int have_block_version;        /* -blockversion (regtest): the header's version */
    int32_t block_version;
};

void miner_options_default(struct miner_options *o);

/* A block for the tip's child, not yet solved (nonce 0). */
struct block_template {
    struct block b;  /* txs[0] the coinbase; every transaction owns its pieces */
    int64_t *fees;   /* per transaction; fees[0] = -(the total), as Core's template */
    int64_t *sigops; /* per transaction (sigop cost) */
    int32_t height;
    int64_t coinbase_value;
    int64_t min_time;       /* the earliest time the header may carry */
    uint8_t commitment[38]; /* the witness commitment output script, if any */
    size_t commitment_len;
    int64_t weight;   /* of the block (the coinbase included) */
    int64_t assembled_weight; /* Core's counter: the reserved weight plus the transactions' */
    size_t n_mempool; /* transactions from the pool */
};

/** Builds a template on the current tip paying the coinbase to spk (borrowed), taking extra
 *  transactions `extra` (n_extra, copied, placed first and in order: generateblock) and, if
 *  o->use_mempool, the pool's chunks. now: the clock in seconds.
 *  Thread: any; the caller holds the chain's read lock and the pool's read lock (or is the
 *  validation thread).
 *  Returns 0, or RC_NOT_FOUND when there is no tip. */
int miner_create(struct block_template *t, struct chainstate *cs, struct mempool *mp,
                 const uint8_t *spk, size_t spk_len, const struct tx *extra, size_t n_extra,
                 const struct miner_options *o, int64_t now);

/** Frees what t holds. */
void block_template_clear(struct block_template *t);

/** Recomputes the coinbase's witness commitment and the merkle root after t's transactions
 *  changed (Core's RegenerateCommitments). */
void miner_regenerate_commitments(struct block_template *t, int segwit);

/** Tries nonces from the header's until the hash meets its bits or max_tries run out
 *  (Core's GenerateBlock loop). Returns 1 when solved. */
int miner_solve(struct block *b, const struct chain_params *p, uint64_t *max_tries);

/** Core's ComputeBlockVersion: the version-bits top bits and the bit of each deployment
 *  started or locked in for the child of prev. */
int32_t miner_block_version(struct chainstate *cs, struct block_index *prev);

#endif
