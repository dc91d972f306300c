/* Script checks of a whole block against the outputs it spends: the flags Core applies at a
 * height (GetBlockScriptFlags), resolving each input's spent output from an external view
 * plus the block's own earlier outputs, and verifying every input script.
 *
 * Pure: the caller reads blocks and spent-output files; nothing here does I/O.
 */
#ifndef BITNODE_SCRIPT_BLOCK_VERIFY_H
#define BITNODE_SCRIPT_BLOCK_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "primitives/block.h"
#include "primitives/tx.h"
#include "script/script_error.h"

struct sigcache;

/** Core's GetBlockScriptFlags: P2SH, WITNESS and TAPROOT always (except for the chain's
 *  script-flag exception blocks, which get exactly their listed flags), plus DERSIG, CLTV,
 *  CSV and NULLDUMMY from their buried activation heights.
 *  In: hash32: the block hash, internal order. */
uint32_t script_block_flags(const struct chain_params *p, int height, const uint8_t hash32[32]);

/* One spent output known from outside the block (a UTXO-view entry). */
struct spent_entry {
    struct outpoint prevout;
    struct tx_out out; /* borrowed */
};

/** Resolves the output spent by every non-coinbase input of b, in block order, from an
 *  external view (any order) and from outputs created earlier in the block itself.
 *  Returns: 0 with *spent (new array of *n_spent tx_outs whose scripts are borrowed from
 *           view or b; caller frees the array only), or RC_NOT_FOUND with *missing_tx and
 *           *missing_in naming the first input that has no source.
 */
int script_block_resolve_spent(const struct block *b, const struct spent_entry *view,
                               size_t view_count, struct tx_out **spent, size_t *n_spent,
                               size_t *missing_tx, size_t *missing_in);

/* Called for each failing input (tx index in the block, input index in the tx). */
typedef void (*script_block_fail_fn)(void *ctx, size_t tx_idx, size_t in_idx,
                                     enum script_error err);

struct script_block_result {
    size_t inputs_checked;
    size_t inputs_failed;
};

/** Verifies every input script of every non-coinbase transaction of b.
 *  Returns: 0 with *res filled (a verdict, not an error: see inputs_failed); RC_USAGE if
 *           n_spent is not the number of non-coinbase inputs.
 *  In:      spent: one output per non-coinbase input in block order (e.g. from
 *           script_block_resolve_spent or a spent-outputs file). flags: from
 *           script_block_flags. sigcache: may be NULL; sigcache_store: 1 to remember
 *           successful checks (Core stores for mempool checks, not for blocks).
 *           on_fail: may be NULL.
 */
int script_verify_block(const struct block *b, const struct tx_out *spent, size_t n_spent,
                        uint32_t flags, struct sigcache *sigcache, int sigcache_store,
                        script_block_fail_fn on_fail, void *ctx, struct script_block_result *res);

/** Core's GetBlockSigOpCost-style total: the sum of tx_sigop_cost over every transaction
 *  (the coinbase counts legacy sigops only). spent as for script_verify_block.
 *  Returns the cost, or -1 if n_spent does not match the block's inputs. */
int64_t script_block_sigop_cost(const struct block *b, const struct tx_out *spent,
                                size_t n_spent, uint32_t flags);

/** Verifies every input of one transaction (verify-tx). spent: one output per input.
 *  Returns the number of failing inputs; errs (may be NULL, vin_count entries) receives
 *  each input's result (SCRIPT_ERR_OK when it passes). sigcache may be NULL. */
size_t script_verify_tx(const struct tx *tx, const struct tx_out *spent, uint32_t flags,
                        struct sigcache *sigcache, enum script_error *errs);

#endif
