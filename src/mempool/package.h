/* A package into the pool (Bitcoin Core's AcceptPackage, its child-with-parents core): each
 * transaction alone first, then those refused only for their fee rate (or for inputs a
 * parent in the package provides) together, judged on the package's fee rate. submitpackage
 * and the P2P code's 1-parent-1-child packages share it.
 *
 * Thread: the validation thread (a VALIDATOR_CALL job).
 */
#ifndef BITNODE_MEMPOOL_PACKAGE_H
#define BITNODE_MEMPOOL_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/vstate.h"
#include "mempool/accept.h"
#include "primitives/tx.h"

struct chainstate;
struct mempool;

/* At most this many transactions in a package (Core's MAX_PACKAGE_COUNT). */
#define MEMPOOL_MAX_PACKAGE_COUNT 25

enum pkg_tx_state { PKG_NOT_VALIDATED, PKG_VALID, PKG_IN_POOL, PKG_OTHER_WITNESS, PKG_INVALID };

/* The package-wide verdict (Core's PackageValidationResult): a transaction failed (PCKG_TX),
 * or the package as a whole broke a rule (PCKG_POLICY: testmempoolaccept's
 * "package-error"). */
enum pkg_state { PKG_STATE_OK, PKG_STATE_TX, PKG_STATE_POLICY };

/* The job's context: the caller fills mp, txs, n, now, max_feerate and each r[i]'s txid and
 * wtxid (and vsize_bip141 if it reports it); the job fills the rest. */
struct mempool_package {
    struct mempool *mp;
    struct tx *txs; /* moved into the pool as accepted */
    size_t n;
    int64_t now, max_feerate;
    struct {
        enum pkg_tx_state state;
        struct mempool_accept_result res; /* the caller clears each */
        uint8_t txid[32], wtxid[32], other_wtxid[32];
        int64_t vsize_bip141;
        int in_package_rate; /* effective fee rate is the subpackage's */
    } * r;
    int64_t pkg_fee, pkg_vsize;
    enum pkg_state pstate;                               /* Core's PackageValidationResult */
    char msg[VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 4]; /* Core's package_msg */
};

/** The job's fn (job.ctx = a struct mempool_package): every transaction judged, r[] and msg
 *  filled. Returns 0, or a system error (a coin could not be read). Validation thread. */
int mempool_accept_package(struct chainstate *cs, void *ctx);

/** testmempoolaccept's job for several transactions (Core's ProcessNewPackage with
 *  test_accept, the package already well formed): all of them checked together, in order,
 *  each against the outputs of those before it, nothing replaced, nothing added. A failure
 *  leaves the rest PKG_NOT_VALIDATED; a rule of the whole package (pstate
 *  PKG_STATE_POLICY, msg its text) leaves them all so. Validation thread. */
int mempool_test_package(struct chainstate *cs, void *ctx);

#endif
