/* The chainstate's options from the options (chainstate_args.h). */
#include "node/chainstate_args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kv/kv.h"
#include "util/hex.h"
#include "util/rc.h"

/* -dbcache in MiB, clamped as Core does to at least 4 MiB. */
static size_t dbcache_bytes(const struct args *a)
{
    int64_t mib = args_get_int(a, "dbcache", 450);
    if (mib < 4) {
        mib = 4;
    }
    if (mib > (int64_t)1 << 20) {
        mib = (int64_t)1 << 20;
    }
    return (size_t)mib << 20;
}

/* -par: script check threads, the validation thread included (checkqueue.h has the rule). */
static int script_threads(const struct args *a)
{
    int64_t par = args_get_int(a, "par", 0);
    if (par < -1024) {
        par = -1024;
    }
    if (par > 1024) {
        par = 1024;
    }
    return (int)par;
}

/* -maxsigcachesize in MiB (Core's default 32), clamped to 0..16 GiB; 0 turns it off. */
static size_t sigcache_bytes(const struct args *a)
{
    int64_t mib = args_get_int(a, "maxsigcachesize", 32);
    if (mib < 0) {
        mib = 0;
    }
    if (mib > (int64_t)16 << 10) {
        mib = (int64_t)16 << 10;
    }
    return (size_t)mib << 20;
}

/* -assumevalid as Core's uint256::FromUserHex reads it: an optional 0x, then up to 64 hex
 * digits, zero-padded on the left (so 0 disables). Returns 0 with *set and hash32 (internal
 * order), or RC_INVALID. */
static int assume_valid(const struct args *a, int *set, uint8_t hash32[32])
{
    const char *v = args_get(a, "assumevalid", NULL);
    char padded[65];
    *set = v != NULL;
    memset(hash32, 0, 32);
    if (!v) {
        return RC_OK;
    }
    if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        v += 2;
    }
    size_t len = strlen(v);
    if (len > 64) {
        return RC_INVALID;
    }
    memset(padded, '0', 64 - len);
    memcpy(padded + 64 - len, v, len + 1);
    return hex_decode_hash32_rev(hash32, padded) == 0 ? RC_OK : RC_INVALID;
}

int node_maxmempool(const struct args *a, int64_t *mb, char *err, size_t err_len)
{
    int64_t v = args_get_int(a, "maxmempool", 300);
    if (v > ((int64_t)1 << 40) / 1000000) {
        snprintf(err, err_len, "-maxmempool is set to %" PRId64 " but can't be over %" PRId64 " MB",
                 v, ((int64_t)1 << 40) / 1000000);
        return RC_INVALID;
    }
    if (v < 0 || (v > 0 && v * 1000000 < 4040000)) {
        snprintf(err, err_len, "-maxmempool must be at least 5 MB");
        return RC_INVALID;
    }
    *mb = v;
    return RC_OK;
}

int node_prune_target(const struct args *a, uint64_t *target, char *err, size_t err_len)
{
    int64_t mib = args_get_int(a, "prune", 0);
    *target = 0;
    /* Core checks what -prune excludes first (its step 2), then the value (step 3). */
    if (mib != 0) {
        const char *excl = args_get_bool(a, "txindex", false)           ? "-txindex"
                           : args_get_bool(a, "txospenderindex", false) ? "-txospenderindex"
                                                                        : NULL;
        if (excl) {
            snprintf(err, err_len, "Prune mode is incompatible with %s.", excl);
            return RC_INVALID;
        }
        if (args_get_bool(a, "reindex-chainstate", false)) {
            snprintf(err, err_len, "Prune mode is incompatible with -reindex-chainstate. Use full "
                                   "-reindex instead.");
            return RC_INVALID;
        }
    }
    if (mib < 0) {
        snprintf(err, err_len, "Prune cannot be configured with a negative value.");
        return RC_INVALID;
    }
    if (mib == 1) {
        *target = CHAINSTATE_PRUNE_MANUAL;
    } else if (mib > 0) {
        if (mib < PRUNE_MIN_MIB) {
            snprintf(err, err_len,
                     "Prune configured below the minimum of %d MiB.  Please use a higher number.",
                     PRUNE_MIN_MIB);
            return RC_INVALID;
        }
        *target = mib > (int64_t)(UINT64_MAX >> 21) ? UINT64_MAX - 1 : (uint64_t)mib << 20;
    }
    return RC_OK;
}

int node_chainstate_options(struct chainstate_options *o, const struct args *a,
                            const struct chain_params *p, const char *net_dir, char *err,
                            size_t err_len)
{
    int64_t bloom = args_get_int(a, "dbbloombits", 10);
    if (bloom < 0 || bloom > 64) {
        snprintf(err, err_len, "-dbbloombits must be in 0-64");
        return RC_INVALID;
    }
    if (args_get_int(a, "dbbatchsize", 0) < 0 || args_get_int(a, "dbcrashratio", 0) < 0 ||
        args_get_int(a, "dbcrashratio", 0) > 32767) {
        snprintf(err, err_len,
                 "-dbbatchsize must not be negative, -dbcrashratio must be in 0-32767");
        return RC_INVALID;
    }
    int64_t maxmempool;
    uint64_t prune;
    int rc = node_maxmempool(a, &maxmempool, err, err_len);
    if (rc || (rc = node_prune_target(a, &prune, err, err_len))) {
        return rc;
    }
    *o = (struct chainstate_options){
        .params = p,
        .datadir = net_dir,
        .dbcache_bytes = dbcache_bytes(a),
        .mempool_bytes = (size_t)maxmempool * 1000000,
        .reindex = args_get_bool(a, "reindex", false),
        .reindex_chainstate = args_get_bool(a, "reindex-chainstate", false),
        .stop_at_height = args_get_int(a, "stopatheight", 0),
        .flush_every_blocks = (int)args_get_int(a, "testflushblocks", 0),
        .txindex = args_get_bool(a, "txindex", false),
        .par = script_threads(a),
        .sigcache_bytes = sigcache_bytes(a),
        .coins_batch_bytes = (size_t)args_get_int(a, "dbbatchsize", 0),
        .coins_kv_ops = args_get_bool(a, "dbchainstatemem", false) ? &kv_mem_ops : NULL,
        /* On by default: measured, it ends the multi-second stall of each flush of a full
         * cache at about the same import time, for up to half the cache more memory while
         * a generation is written (doc/benchmarks-history.md). */
        .background_flush = args_get_bool(a, "dbbackgroundflush", true),
        /* 0 in the option is no filter; 0 in the field is kv's default. */
        .bloom_bits = bloom ? (int)bloom : -1,
        .db_crash_ratio = (uint32_t)args_get_int(a, "dbcrashratio", 0),
        .max_tip_age = args_get_int(a, "maxtipage", 24 * 60 * 60),
        .prune_target = prune,
        .fast_prune = args_get_bool(a, "fastprune", false),
        .blocks_plain = !args_get_bool(a, "blocksxor", true),
    };
    if (assume_valid(a, &o->assume_valid_set, o->assume_valid) != RC_OK) {
        snprintf(err, err_len,
                 "Invalid assumevalid block hash specified (%s), must be up to 64 hex digits "
                 "(or 0 to disable)",
                 args_get(a, "assumevalid", ""));
        return RC_INVALID;
    }
    return RC_OK;
}
