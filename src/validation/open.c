/* Opening the chainstate (its stores, the block index, the coins' tip, a flush cut short
 * replayed, the transaction index caught up) and closing it (a last flush, the summary the
 * benchmarks read, everything freed): the top of the chainstate's files, calling the others
 * and called by none of them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blockstore/indexdb.h"
#include "script/sigcache.h"
#include "script/sigcheck.h"
#include "util/hex.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"
#include "validation/checkqueue.h"
#include "validation/txindex.h"

static const struct kv_ops *store_ops(const struct chainstate *cs, const char *name)
{
    return strcmp(name, "chainstate") == 0 && cs->opt.coins_kv_ops ? cs->opt.coins_kv_ops
                                                                   : cs->opt.kv_ops;
}

static int open_store(struct kv **kv, const struct chainstate *cs, const char *name,
                      size_t cache_bytes, char *err, size_t err_len)
{
    char path[4200];
    struct kv_options o;
    kv_options_init(&o);
    o.cache_bytes = cache_bytes;
    if (cs->opt.bloom_bits) {
        o.bloom_bits_per_key = cs->opt.bloom_bits > 0 ? cs->opt.bloom_bits : 0;
    }
    snprintf(path, sizeof(path), "%s/%s", cs->datadir, name);
    int rc = kv_open(kv, store_ops(cs, name), path, &o);
    if (rc) {
        snprintf(err, err_len, "cannot open %s: %s", path, kv_last_error(NULL));
    }
    return rc;
}

/* A store's wipe (-reindex, -reindex-chainstate) is marked by a file beside it,
 * <datadir>/<name>.wiping, from before the first file is deleted until the new store is
 * open (and, for the block index, holds the reindex flag): a kill in between, which would
 * leave a store with files missing or an empty block index without the flag, has the next
 * start wipe it again (chainstate_open), with no operator action. */
static void wipe_marker_path(const struct chainstate *cs, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s.wiping", cs->datadir, name);
}

static int wipe_pending(const char *datadir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.wiping", datadir, name);
    return access(path, F_OK) == 0;
}

static int wipe_mark(const struct chainstate *cs, const char *name, char *err, size_t err_len)
{
    char path[4200];
    wipe_marker_path(cs, name, path, sizeof(path));
    return fs_touch_synced(path, err, err_len);
}

static void wipe_done(const struct chainstate *cs, const char *name)
{
    char path[4200];
    wipe_marker_path(cs, name, path, sizeof(path));
    (void)unlink(path);
}

static int destroy_store(const struct chainstate *cs, const char *name, char *err, size_t err_len)
{
    char path[4200];
    int rc = wipe_mark(cs, name, err, err_len);
    if (rc) {
        return rc;
    }
    snprintf(path, sizeof(path), "%s/%s", cs->datadir, name);
    rc = kv_destroy(store_ops(cs, name), path);
    if (rc) {
        snprintf(err, err_len, "cannot remove %s: %s", path, kv_last_error(NULL));
    }
    return rc;
}

struct collect {
    struct block_index **v;
    size_t n;
};

static int collect_entry(void *ctx, struct block_index *e)
{
    struct collect *c = ctx;
    c->v[c->n++] = e;
    return 0;
}

static int by_height(const void *a, const void *b)
{
    const struct block_index *x = *(const struct block_index *const *)a;
    const struct block_index *y = *(const struct block_index *const *)b;
    return (x->height > y->height) - (x->height < y->height);
}

/* After loading: chain_tx, failed-child marks, candidates, best header. */
static void index_derive(struct chainstate *cs)
{
    struct collect c = {xmalloc((block_tree_size(cs->tree) + 1) * sizeof(*c.v)), 0};
    block_tree_foreach(cs->tree, collect_entry, &c);
    qsort(c.v, c.n, sizeof(*c.v), by_height);
    for (size_t i = 0; i < c.n; i++) {
        struct block_index *e = c.v[i];
        e->sequence_id = CANDIDATES_SEQ_FROM_DISK;
        if (e->prev && block_index_failed(e->prev) && !block_index_failed(e)) {
            e->status |= BLOCK_FAILED_CHILD;
        }
        /* A pruned block keeps its transaction count, and so its chain total (Core). A
         * snapshot's base has the chain parameters' total, whatever lies below it. */
        if (e == cs->snapshot_base) {
            const struct chain_assumeutxo *au = chain_params_assumeutxo_for_hash(cs->p, e->hash);
            e->chain_tx = au ? au->chain_tx : 0;
        } else if (e->tx_count > 0) {
            if (!e->prev || e->prev->chain_tx) {
                e->chain_tx = (e->prev ? e->prev->chain_tx : 0) + e->tx_count;
            } else if (e->prev && (e->status & BLOCK_HAVE_DATA)) {
                candidates_add_unlinked(&cs->cand, e);
            }
        }
        chainstate_note_header(cs, e);
    }
    struct block_index *tip = chainstate_tip(cs);
    /* The chain that was active wins every tie over a restart (Core's
     * SEQ_ID_BEST_CHAIN_FROM_DISK). */
    for (struct block_index *a = tip; a; a = a->prev) {
        a->sequence_id = CANDIDATES_SEQ_BEST_FROM_DISK;
    }
    for (size_t i = 0; i < c.n; i++) {
        struct block_index *e = c.v[i];
        if (e->chain_tx && (e->status & BLOCK_HAVE_DATA) && !block_index_failed(e) &&
            (!tip || u256_cmp(&e->chain_work, &tip->chain_work) >= 0)) {
            candidates_add(&cs->cand, e);
        }
    }
    free(c.v);
}

/* The chainstate's own fields from opt, its lock, the check pool and the signature cache
 * its workers share, and -assumevalid's block. */
static void init_state(struct chainstate *cs, const struct chainstate_options *opt)
{
    /* Writers first: a stream of readers must not hold the validation thread off. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&cs->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    cs->opt = *opt;
    if (!cs->opt.kv_ops) {
        cs->opt.kv_ops = kv_default_ops();
    }
    cs->p = opt->params;
    cs->max_tip_age = opt->max_tip_age > 0 ? opt->max_tip_age : 24 * 60 * 60;
    atomic_init(&cs->left_ibd, 0);
    snprintf(cs->datadir, sizeof(cs->datadir), "%s", opt->datadir);
    active_chain_init(&cs->active);
    cs->tree = block_tree_new();
    block_init(&cs->recent);
    readahead_coins_init(&cs->ra_coins);
    candidates_init(&cs->cand);
    cs->last_flush_time = (int64_t)time(NULL);

    pthread_mutex_init(&cs->prune_lock_mu, NULL);
    cs->checkq = checkqueue_new(checkqueue_workers_for_par(opt->par, checkqueue_ncores()));
    if (opt->sigcache_bytes) {
        cs->sigcache = sigcache_new(opt->sigcache_bytes, NULL);
    }
    LOG_INFO("script verification uses %d additional threads, signature cache %zu entries",
             checkqueue_workers(cs->checkq), cs->sigcache ? sigcache_capacity(cs->sigcache) : 0);
    memcpy(cs->assume_valid,
           opt->assume_valid_set ? opt->assume_valid : opt->params->default_assume_valid, 32);
    for (int i = 0; i < 32; i++) {
        cs->have_assume_valid |= cs->assume_valid[i] != 0;
    }
    if (cs->have_assume_valid) {
        char hx[65];
        hex_encode_rev(hx, cs->assume_valid, 32);
        LOG_INFO("Assuming ancestors of block %s have valid signatures.", hx);
    } else {
        LOG_INFO("Validating signatures for all blocks.");
    }
}

/* Core's split of -dbcache: a little for the block index store, up to a quarter plus 8 MiB
 * for the chainstate store's own cache, the rest for the coins cache (cs->coins_limit). */
static void split_dbcache(struct chainstate *cs, const struct chainstate_options *opt,
                          size_t *index_cache, size_t *coins_db_cache)
{
    size_t total = opt->dbcache_bytes ? opt->dbcache_bytes : (size_t)450 << 20;
    *index_cache = total / 8 < ((size_t)2 << 20) ? total / 8 : (size_t)2 << 20;
    size_t rest = total - *index_cache;
    *coins_db_cache =
        rest / 2 < rest / 4 + ((size_t)8 << 20) ? rest / 2 : rest / 4 + ((size_t)8 << 20);
    /* As Core: the unused part of the mempool's budget is the coins cache's too. */
    cs->coins_limit = rest - *coins_db_cache + opt->mempool_bytes;
    cs->dbcache_total = total;
    cs->coins_db_cache = *coins_db_cache;
    LOG_INFO("Cache configuration: %.1f MiB for the block index store, %.1f MiB for the "
             "chainstate store, %.1f MiB for the in-memory UTXO set (plus up to %.1f MiB of "
             "unused mempool space)",
             (double)*index_cache / 1048576.0, (double)*coins_db_cache / 1048576.0,
             (double)(rest - *coins_db_cache) / 1048576.0, (double)opt->mempool_bytes / 1048576.0);
    cs->counters.coins_cache_limit = cs->coins_limit;
}

/* A store that fails at start-up: Core's words for the stage (its ChainstateLoadStatus
 * messages), then ours, which say what and where. RC_CORRUPT: the node suggests -reindex. */
static int startup_failure(char *err, size_t err_len, const char *core_words)
{
    char detail[1024];
    snprintf(detail, sizeof(detail), "%s", err);
    snprintf(err, err_len, "%s (%s)", core_words, detail);
    return RC_CORRUPT;
}

/* Core's "Checking all blk files are present": every block file that entries say holds a
 * block must be there (a missing one is "Error loading block database", not a failure
 * later when a block is read). */
static int check_blk_files(struct chainstate *cs, char *err, size_t err_len)
{
    LOG_INFO("Checking all blk files are present...");
    struct collect c = {xmalloc((block_tree_size(cs->tree) + 1) * sizeof(*c.v)), 0};
    block_tree_foreach(cs->tree, collect_entry, &c);
    int max_file = -1;
    for (size_t i = 0; i < c.n; i++) {
        if ((c.v[i]->status & BLOCK_HAVE_DATA) && c.v[i]->file > max_file) {
            max_file = c.v[i]->file;
        }
    }
    uint8_t *seen = xcalloc((size_t)max_file + 2, 1);
    int rc = RC_OK;
    for (size_t i = 0; i < c.n && rc == RC_OK; i++) {
        const struct block_index *e = c.v[i];
        if (!(e->status & BLOCK_HAVE_DATA) || e->file < 0 || seen[e->file]) {
            continue;
        }
        seen[e->file] = 1;
        char path[4300];
        snprintf(path, sizeof(path), "%s/blk%05d.dat", cs->blocks_dir, e->file);
        if (access(path, R_OK) != 0) {
            snprintf(err, err_len, "block file %s, which holds the block at height %d, cannot "
                     "be read: %s", path, e->height, strerror(errno));
            rc = startup_failure(err, err_len, "Error loading block database");
        }
    }
    free(seen);
    free(c.v);
    return rc;
}

/* The block index and chainstate stores (wiped first for -reindex, -reindex-chainstate),
 * the block tree and the blk/rev files they record, the block reader, and the coins views
 * over the chainstate store. */
static int open_stores(struct chainstate *cs, const struct chainstate_options *opt, char *err,
                       size_t err_len)
{
    struct blockfile_info *infos = NULL;
    int nfiles = 0, rc;
    size_t index_cache, coins_db_cache;
    split_dbcache(cs, opt, &index_cache, &coins_db_cache);
    snprintf(cs->blocks_dir, sizeof(cs->blocks_dir), "%s/blocks", cs->datadir);
    /* datadir/blocks holds the block index's store, and the block files unless -blocksdir
     * puts them elsewhere. */
    if (mkdir(cs->blocks_dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "cannot create %s: %s", cs->blocks_dir, strerror(errno));
        return RC_IO;
    }
    if (opt->blocks_dir) {
        snprintf(cs->blocks_dir, sizeof(cs->blocks_dir), "%s", opt->blocks_dir);
        if ((rc = fs_mkdir_p(cs->blocks_dir, err, err_len))) {
            return rc;
        }
    }
    /* The block files' XOR key (Core's BlockManager does this first, before -reindex
     * deletes anything or the block index is created beside the files). */
    uint8_t xor_key[OBFUSCATION_KEY_SIZE];
    if ((rc = blockstore_init_xor_key(cs->blocks_dir, !opt->blocks_plain, xor_key, err,
                                      err_len))) {
        char detail[1024];
        snprintf(detail, sizeof(detail), "%s", err);
        snprintf(err, err_len, "Failed to initialize ChainstateManager: %s", detail);
        return rc == RC_IO ? RC_IO : RC_USAGE;
    }
    if (opt->reindex && (rc = destroy_store(cs, "blocks/index", err, err_len))) {
        return rc;
    }
    if ((opt->reindex || opt->reindex_chainstate) &&
        (rc = destroy_store(cs, "chainstate", err, err_len))) {
        return rc;
    }
    if ((rc = chainstate_snapshot_prepare(cs, err, err_len))) {
        return rc;
    }
    /* The chainstate first: a Bitcoin Core datadir is known by its chainstate (kv_open
     * refuses it), before anything has opened Core's block index. */
    if ((rc = open_store(&cs->coins_kv, cs, "chainstate", coins_db_cache, err, err_len))) {
        return rc == RC_FOREIGN ? rc
                                : startup_failure(err, err_len, "Error opening coins database");
    }
    if ((rc = open_store(&cs->index_kv, cs, "blocks/index", index_cache, err, err_len))) {
        return rc == RC_FOREIGN ? rc
                                : startup_failure(err, err_len, "Error opening block database");
    }
    /* The wiped stores are open: a reindex's flag first (a kill from here on resumes it),
     * then the markers go. */
    if (opt->reindex && (rc = indexdb_set_reindexing(cs->index_kv, 1))) {
        snprintf(err, err_len, "cannot write the block index: %s", kv_last_error(cs->index_kv));
        return rc;
    }
    wipe_done(cs, "chainstate");
    wipe_done(cs, "blocks/index");
    if ((rc = indexdb_load_tree(cs->index_kv, cs->tree, err, err_len))) {
        return rc == RC_FOREIGN ? rc
                                : startup_failure(err, err_len, "Error loading block database");
    }
    if ((rc = indexdb_load_files(cs->index_kv, &infos, &nfiles))) {
        snprintf(err, err_len, "block file records do not load (%s)", rc_str(rc));
        return startup_failure(err, err_len, "Error loading block database");
    }
    if (opt->reindex && opt->prune_target) {
        LOG_INFO("Removing unusable blk?????.dat and rev?????.dat files for -reindex with -prune");
        if ((rc = blockstore_cleanup_for_reindex(cs->blocks_dir))) {
            snprintf(err, err_len, "cannot clean up %s for -reindex", cs->blocks_dir);
            free(infos);
            return rc;
        }
    }
    if (opt->reindex) { /* every file is read again */
        free(infos);
        infos = NULL;
        nfiles = 0;
    }
    rc = blockstore_open(&cs->store, cs->blocks_dir, cs->p->magic, infos, nfiles, err, err_len);
    free(infos);
    if (rc || (!opt->reindex && (rc = check_blk_files(cs, err, err_len)))) {
        return rc;
    }
    blockstore_set_xor_key(cs->store, xor_key);
    cs->ra = readahead_new(cs->blocks_dir, cs->p->magic);
    readahead_set_obfuscation(cs->ra, blockstore_obfuscation(cs->store));
    cs->coins_db = coins_db_new(cs->coins_kv);
    coins_db_set_batch(cs->coins_db, opt->coins_batch_bytes, opt->db_crash_ratio);
    cs->coins = coins_cache_new(coins_db_view(cs->coins_db));
    /* A cache that must drop coins keeps a filter of those it holds (1/64 of its limit:
     * about 12 bits a coin), so that the reader thread reads only the others ahead. */
    coins_cache_keep_presence(cs->coins, cs->coins_limit / 64);
    readahead_set_coins(cs->ra, cs->coins_db, cs->coins);
    /* A UTXO snapshot's coins replace these, which validate the blocks below it. */
    return chainstate_snapshot_open(cs, coins_db_cache, err, err_len);
}

/* The active chain is the coins' best block and its ancestors. A flush cut short between
 * its parts left the head-blocks marker instead: replay to its new end first. A store with
 * neither (a new datadir) leaves the chain empty. */
static int load_tip(struct chainstate *cs, char *err, size_t err_len)
{
    uint8_t best[32], old[32];
    int rc = coins_cache_best_block(cs->coins, best);
    if (rc == RC_NOT_FOUND && (rc = coins_db_head_blocks(cs->coins_db, best, old)) == RC_OK) {
        if ((rc = chainstate_replay_blocks(cs, best, old, err, err_len))) {
            return rc;
        }
    }
    if (rc == RC_NOT_FOUND) {
        return RC_OK;
    }
    if (rc) {
        snprintf(err, err_len, "cannot read the chainstate: %s", kv_last_error(NULL));
        return startup_failure(err, err_len, "Error opening coins database");
    }
    struct block_index *tip = block_tree_find(cs->tree, best);
    if (!tip) {
        char hx[65];
        hex_encode_rev(hx, best, 32);
        /* Core's LoadChainTip failing: its words on stderr, ours in the log. */
        LOG_ERROR("the chainstate's best block %s is not in the block index", hx);
        snprintf(err, err_len, "Error initializing block database");
        return RC_CORRUPT;
    }
    chainstate_set_tip(cs, tip);
    return RC_OK;
}

/* -txindex: the store under indexes/txindex (wiped with the chainstate's on a reindex), its
 * best block, and the blocks the chainstate connected that it never recorded. */
struct txidx_job {
    struct chainstate *cs;
    int rc;
};

static void *txidx_main(void *arg)
{
    struct txidx_job *j = arg;
    log_thread_start("txidx");
    j->rc = chainstate_txindex_catch_up(j->cs);
    log_thread_exit("txidx");
    return NULL;
}

static int open_txindex(struct chainstate *cs, const struct chainstate_options *opt, char *err,
                        size_t err_len)
{
    char ipath[4200];
    int rc;
    snprintf(ipath, sizeof(ipath), "%s/indexes", cs->datadir);
    if (mkdir(ipath, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "cannot create %s: %s", ipath, strerror(errno));
        return RC_IO;
    }
    if ((opt->reindex || opt->reindex_chainstate || wipe_pending(cs->datadir, "indexes/txindex")) &&
        (rc = destroy_store(cs, "indexes/txindex", err, err_len))) {
        return rc;
    }
    snprintf(ipath, sizeof(ipath), "%s/indexes/txindex", cs->datadir);
    if ((rc = txindex_open(&cs->txindex, cs->opt.kv_ops, ipath, err, err_len))) {
        return rc;
    }
    wipe_done(cs, "indexes/txindex");
    uint8_t ib[32];
    rc = txindex_best(cs->txindex, ib);
    if (rc == RC_OK) {
        cs->txindex_best = block_tree_find(cs->tree, ib);
    } else if (rc != RC_NOT_FOUND) {
        snprintf(err, err_len, "the transaction index does not read: restart with -reindex");
        return rc;
    }
    /* The catch-up on a thread of Core's name for its transaction index's (which syncs the
     * index in the background); waited for here, since blocks connected later add to the
     * index themselves. */
    struct txidx_job job = {cs, RC_OK};
    pthread_t t;
    if (pthread_create(&t, NULL, txidx_main, &job) == 0) {
        pthread_join(t, NULL);
    } else {
        job.rc = chainstate_txindex_catch_up(cs);
    }
    if ((rc = job.rc)) {
        snprintf(err, err_len, "cannot bring the transaction index up to date (%s)", rc_str(rc));
        return rc;
    }
    return RC_OK;
}

/* Pruning at start-up: a datadir that has pruned runs pruned (Core's check), files whose
 * pruning a crash cut short before their deletion are deleted, and the first flush looks
 * at the target (Core prunes at start-up too). */
static int open_pruning(struct chainstate *cs, char *err, size_t err_len)
{
    int rc = indexdb_get_pruned(cs->index_kv, &cs->have_pruned);
    if (rc) {
        snprintf(err, err_len, "cannot read the block index: %s", kv_last_error(cs->index_kv));
        return rc;
    }
    if (cs->have_pruned) {
        LOG_INFO("Loading block index db: Block files have previously been pruned");
    }
    if (cs->have_pruned && !cs->opt.prune_target) {
        snprintf(err, err_len,
                 "You need to rebuild the database using -reindex to go back to unpruned "
                 "mode.  This will redownload the entire blockchain");
        return RC_INVALID;
    }
    if (cs->opt.fast_prune) {
        blockstore_set_fast_prune(cs->store);
    }
    if (cs->opt.prune_target) {
        if (cs->have_pruned && !cs->opt.reindex) {
            (void)blockstore_unlink_already_pruned(cs->store, chainstate_log_unlinked, NULL);
        }
        blockstore_request_check_for_pruning(cs->store);
    }
    return RC_OK;
}

/* Core's NeedsRedownload: a block of the active chain at or above segwit's height that was
 * stored while segwit was not active there (the chain's activation height moved down, e.g.
 * -testactivationheight) had its witness data unchecked: start-up stops, in Core's words.
 * Blocks without data (pruned, below a UTXO snapshot) cannot be checked again and are
 * passed over. */
static int check_witness_validated(struct chainstate *cs, char *err, size_t err_len)
{
    for (struct block_index *e = chainstate_tip(cs); e && e->height >= cs->p->segwit_height;
         e = e->prev) {
        if ((e->status & BLOCK_HAVE_DATA) && !(e->status & BLOCK_OPT_WITNESS)) {
            snprintf(err, err_len,
                     "Witness data for blocks after height %d requires validation. Please "
                     "restart with -reindex.",
                     cs->p->segwit_height);
            return RC_CORRUPT;
        }
    }
    return RC_OK;
}

int chainstate_open(struct chainstate **out, const struct chainstate_options *opt, char *err,
                    size_t err_len)
{
    struct chainstate *cs = xcalloc(1, sizeof(*cs));
    int rc;
    /* A wipe a kill cut short is done again, as the option that began it would (see
     * wipe_mark). */
    struct chainstate_options resumed = *opt;
    if (!opt->reindex && wipe_pending(opt->datadir, "blocks/index")) {
        LOG_INFO("-reindex: the block index was being wiped when the node stopped; wiping "
                 "it again");
        resumed.reindex = 1;
    }
    if (!resumed.reindex && !opt->reindex_chainstate && wipe_pending(opt->datadir, "chainstate")) {
        LOG_INFO("-reindex-chainstate: the chainstate was being wiped when the node stopped; "
                 "wiping it again");
        resumed.reindex_chainstate = 1;
    }
    opt = &resumed;
    init_state(cs, opt);
    if ((rc = open_stores(cs, opt, err, err_len)) || (rc = load_tip(cs, err, err_len))) {
        goto fail;
    }
    index_derive(cs);
    if ((rc = open_pruning(cs, err, err_len)) || (rc = check_witness_validated(cs, err, err_len))) {
        goto fail;
    }
    if (opt->txindex && (rc = open_txindex(cs, opt, err, err_len))) {
        goto fail;
    }
    cs->settled_tip = chainstate_tip(cs); /* the tip loaded is not news (Core's INIT state) */
    if (cs->opt.stop_at_height && cs->settled_tip &&
        cs->settled_tip->height >= cs->opt.stop_at_height) {
        /* Loaded (or replayed after a crash) at or past -stopatheight: Core's blockTip at
         * load stops the node too; no block would connect to trigger it. */
        atomic_store(&cs->stop_requested, 1);
    }
    *out = cs;
    return RC_OK;
fail:
    chainstate_close(cs);
    return rc;
}

int chainstate_close(struct chainstate *cs)
{
    int rc = RC_OK;
    if (!cs) {
        return RC_OK;
    }
    if (cs->store && cs->coins && cs->index_kv) {
        rc = chainstate_flush(cs, FLUSH_ALWAYS);
    }
    if (cs->checkq && cs->counters.blocks_connected) {
        /* Where the threads spent the time from the first block begun to the last one
         * finished, so that an idle share shows what holds the pool back. The validation
         * thread:
         * preparing the next block (overlap), preparing the open block's transactions for
         * the pool (its UTXO work and hashes; also the parent's commit, which runs once the
         * block is begun), checking beside the workers, waiting for their last batches. */
        struct checkqueue_stats q;
        checkqueue_get_stats(cs->checkq, &q);
        double span = (double)(cs->counters.last_finish_ns - cs->counters.first_begin_ns);
        int workers = checkqueue_workers(cs->checkq);
        /* The pool counts the overlap work inside its 'preparing' window: take it out. */
        uint64_t prepare = q.prepare_ns > cs->counters.overlap_pooled_ns
                               ? q.prepare_ns - cs->counters.overlap_pooled_ns
                               : 0;
        double busy = workers && span > 0 ? (double)q.worker_busy_ns / (span * workers) : 0.0;
        LOG_INFO("check pool: %llu blocks, %llu inputs in %.2f s of connecting; validation "
                 "thread: %.1f%% reading the next block, %.1f%% preparing, %.1f%% checking, "
                 "%.1f%% waiting for workers; %d worker(s): busy %.1f%%, idle %.1f%%",
                 (unsigned long long)q.blocks, (unsigned long long)q.inputs, span / 1e9,
                 span > 0 ? 100.0 * (double)cs->counters.overlap_ns / span : 0.0,
                 span > 0 ? 100.0 * (double)prepare / span : 0.0,
                 span > 0 ? 100.0 * (double)q.check_ns / span : 0.0,
                 span > 0 ? 100.0 * (double)q.wait_ns / span : 0.0, workers, 100.0 * busy,
                 workers ? 100.0 - 100.0 * busy : 0.0);
        struct script_verify_counts vc;
        script_verify_counts_get(&vc);
        LOG_INFO("signature verifies: %llu ECDSA, %llu Schnorr, %llu taproot tweak checks",
                 (unsigned long long)vc.ecdsa, (unsigned long long)vc.schnorr,
                 (unsigned long long)vc.tweak);
    }
    if (cs->coins) {
        /* What the memory bound is made of: the cache -dbcache sizes, and the parts that do
         * not grow with the chain's UTXO set (benchmarks report peak RSS against these). */
        LOG_INFO("memory: coins cache peak %.1f MiB of its %.1f MiB limit (-dbcache %.1f MiB "
                 "with the database caches); signature cache %.1f MiB; block index %zu entries",
                 (double)cs->counters.coins_cache_peak / 1048576.0,
                 (double)cs->coins_limit / 1048576.0, (double)cs->dbcache_total / 1048576.0,
                 cs->sigcache ? (double)sigcache_memory(cs->sigcache) / 1048576.0 : 0.0,
                 block_tree_size(cs->tree));
    }
    if (cs->coins && cs->counters.blocks_connected) {
        uint64_t hits, misses, reads, writes, deletes, batches, freezes, frozen_ns;
        coins_cache_counters(cs->coins, &hits, &misses);
        coins_cache_freeze_counters(cs->coins, &freezes, &frozen_ns);
        coins_db_counters(cs->coins_db, &reads, &writes, &deletes, &batches);
        /* The hit rate is of the coins that exist: a lookup of an outpoint nobody has (the
         * BIP30 check of each new output) misses by its nature. */
        LOG_INFO("coins: %llu flushes in %.2f s (%llu of them frozen generations, written "
                 "in the background in %.2f s); cache hits %.1f%% (%llu of the coins looked "
                 "up, %llu lookups in all); store %llu reads, %llu writes, %llu deletes; "
                 "longest gap between two connected blocks %.1f ms (before height %d)",
                 (unsigned long long)cs->counters.flushes, (double)cs->counters.flush_ns / 1e9,
                 (unsigned long long)freezes, (double)frozen_ns / 1e9,
                 hits + reads ? 100.0 * (double)hits / (double)(hits + reads) : 0.0,
                 (unsigned long long)hits, (unsigned long long)(hits + misses),
                 (unsigned long long)reads, (unsigned long long)writes, (unsigned long long)deletes,
                 (double)cs->counters.max_gap_ns / 1e6, cs->counters.max_gap_height);
    }
    /* The stores as the close finds them (files per level, compaction time): what a
     * storage benchmark reads. */
    struct kv *stores[2] = {cs->index_kv, cs->coins_kv};
    for (int i = 0; i < 2; i++) {
        struct kv_stats st;
        if (stores[i] && kv_stats(stores[i], &st) == RC_OK) {
            LOG_INFO("kv %s: %s", i ? "chainstate" : "block index", st.text);
        }
    }
    if (cs->connect_hist.n) {
        /* Per-block times (the storage benchmark reads this line). */
        const struct histo *c = &cs->connect_hist, *g = &cs->gap_hist;
        LOG_INFO("block times: connect p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms, "
                 "mean %.3f ms over %llu blocks; gap between blocks p50 %.3f ms, p99 %.3f ms, "
                 "max %.3f ms; flushes %llu, %.3f s in all",
                 histo_percentile(c, 50) / 1e6, histo_percentile(c, 90) / 1e6,
                 histo_percentile(c, 99) / 1e6, c->max_ns / 1e6,
                 (double)c->sum_ns / (double)c->n / 1e6, (unsigned long long)c->n,
                 histo_percentile(g, 50) / 1e6, histo_percentile(g, 99) / 1e6, g->max_ns / 1e6,
                 (unsigned long long)cs->counters.flushes, (double)cs->counters.flush_ns / 1e9);
    }
    if (cs->ra && cs->counters.blocks_connected) {
        uint64_t nb, ns;
        readahead_counters(cs->ra, &nb, &ns);
        uint64_t lookups, found, wait;
        readahead_coin_counters(cs->ra, &lookups, &found, &wait);
        LOG_INFO("block reader thread: %llu blocks read and parsed ahead in %.2f s (waited for "
                 "%.2f s); %llu coins looked up in the store, %llu found, %llu put in the cache "
                 "(%llu sets dropped after a flush)",
                 (unsigned long long)nb, (double)ns / 1e9, (double)wait / 1e9,
                 (unsigned long long)lookups, (unsigned long long)found,
                 (unsigned long long)cs->ra_primed, (unsigned long long)cs->ra_stale);
    }
    readahead_free(cs->ra);
    readahead_coins_clear(&cs->ra_coins);
    checkqueue_free(cs->checkq);
    sigcache_free(cs->sigcache);
    block_clear(&cs->recent);
    txindex_close(cs->txindex);
    coins_cache_free(cs->coins);
    coins_db_free(cs->coins_db);
    blockstore_close(cs->store);
    if (cs->coins_kv) {
        int r = kv_close(cs->coins_kv);
        rc = rc ? rc : r;
        cs->coins_kv = NULL;
    }
    chainstate_snapshot_close(cs);
    if (cs->index_kv) {
        int r = kv_close(cs->index_kv);
        rc = rc ? rc : r;
    }
    block_tree_free(cs->tree);
    active_chain_clear(&cs->active);
    candidates_clear(&cs->cand);
    free(cs->dirty);
    free(cs->vbwarn.boundary);
    free(cs->vbwarn.state);
    pthread_rwlock_destroy(&cs->lock);
    pthread_mutex_destroy(&cs->prune_lock_mu);
    free(cs);
    return rc;
}
