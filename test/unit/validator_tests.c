/* The validation thread (validator.h): the pipeline gives the verdicts and the state of
 * serial checking on a chain with a block whose signature is wrong; readers read a
 * consistent tip while it connects; jobs from several threads; the bounded queue; stopping.
 * Runs under TSan too (contrib/check.sh). */
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "consensus/merkle.h"
#include "crypto/hash.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"
#include "validation/chainstate.h"
#include "validation/import.h"
#include "validation/validator.h"

static char datadir[200];

static void wipe(void)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", datadir, datadir);
    CHECK_EQ_INT(system(cmd), 0);
}

static struct chainstate *open_cs_stop(int par, int64_t stop_at_height)
{
    struct chainstate *cs = NULL;
    struct chainstate_options o = {
        .params = chain_params_get("regtest"),
        .datadir = datadir,
        .dbcache_bytes = 16u << 20,
        .par = par,
        .stop_at_height = stop_at_height,
    };
    char err[512] = "";
    if (chainstate_open(&cs, &o, err, sizeof(err)) != RC_OK) {
        printf("# chainstate_open: %s\n", err);
        return NULL;
    }
    return cs;
}

static struct chainstate *open_cs(int par)
{
    return open_cs_stop(par, 0);
}

/* ---- a chain with a bad signature ------------------------------------------------------ */

/* Regtest proof of work (bits 0x207fffff): a hash whose top byte is below 0x7f is enough. */
static void mine(struct block *b)
{
    uint8_t h[32];
    for (;; b->header.nonce++) {
        block_header_hash(&b->header, h);
        if (h[31] < 0x7f) {
            memcpy(b->hash, h, 32);
            return;
        }
    }
}

/* The BIP141 commitment of b's coinbase written again for its current witnesses. */
static void recommit(struct block *b)
{
    int idx = merkle_witness_commitment_index(b);
    if (idx < 0) {
        return;
    }
    uint8_t root[32], buf[64], commit[32];
    int mutated;
    merkle_block_witness_root(root, &mutated, b);
    memcpy(buf, root, 32);
    memset(buf + 32, 0, 32); /* the reserved value Core's miner uses */
    if (b->txs[0].vin[0].witness_count == 1 && b->txs[0].vin[0].witness[0].len == 32) {
        memcpy(buf + 32, b->txs[0].vin[0].witness[0].data, 32);
    }
    hash_sha256d(commit, buf, 64);
    memcpy(b->txs[0].vout[idx].script_pubkey.data + 6, commit, 32);
    tx_compute_hashes(&b->txs[0]);
}

static void append_record(struct buf *file, const uint8_t magic[4], const struct block *b)
{
    struct buf raw;
    buf_init(&raw);
    block_serialize(b, &raw, 1);
    uint8_t frame[8];
    memcpy(frame, magic, 4);
    for (int i = 0; i < 4; i++) {
        frame[4 + i] = (uint8_t)(raw.len >> (8 * i));
    }
    buf_append(file, frame, 8);
    buf_append(file, raw.data, raw.len);
    buf_clear(&raw);
}

enum breakage {
    BAD_SIGNATURE,     /* found when the scripts are joined (connect_finish) */
    BAD_COINBASE_PAYS, /* the coinbase pays 1 sat too much: found when the block is begun */
};

/* Writes regtest-small's first `count` blocks to path with the first block at or above
 * height 150 that spends something broken (how), and every later block mined again on top
 * of it. *bad_height, bad_hash: that block. Returns 0 or -1. */
static int write_bad_chain(const char *path, int count, enum breakage how, int *bad_height,
                           uint8_t bad_hash[32])
{
    char src[4200];
    size_t len = 0;
    snprintf(src, sizeof(src), "%s/regtest-small/blk00000.dat", test_data_dir());
    uint8_t *raw = test_read_file(src, &len);
    if (!raw) {
        return -1;
    }
    const struct chain_params *p = chain_params_get("regtest");
    struct buf out;
    buf_init(&out);
    uint8_t prev[32];
    int broken = 0;
    *bad_height = -1;
    size_t off = 0;
    for (int h = 0; h < count && off + 8 <= len; h++) {
        uint32_t n = (uint32_t)raw[off + 4] | (uint32_t)raw[off + 5] << 8 |
                     (uint32_t)raw[off + 6] << 16 | (uint32_t)raw[off + 7] << 24;
        struct block b;
        char err[128];
        if (block_parse(&b, raw + off + 8, n, err, sizeof(err)) != RC_OK) {
            free(raw);
            buf_clear(&out);
            return -1;
        }
        off += 8 + n;
        int changed = 0;
        if (!broken && h >= 150 && b.tx_count >= 2 && how == BAD_COINBASE_PAYS) {
            b.txs[0].vout[0].value_sat += 1;
            tx_compute_hashes(&b.txs[0]);
            broken = changed = 1;
            *bad_height = h;
        }
        if (!broken && h >= 150 && b.tx_count >= 2) {
            struct tx_in *in = &b.txs[1].vin[0];
            struct bytes *sig = in->witness_count ? &in->witness[0] : &in->script_sig;
            if (sig->len > 20) {
                sig->data[sig->len / 2] ^= 0x01; /* inside the signature's r or s */
                tx_compute_hashes(&b.txs[1]);
                recommit(&b);
                broken = changed = 1;
                *bad_height = h;
            }
        }
        if (broken && !changed) {
            memcpy(b.header.prev_hash, prev, 32); /* on top of the changed chain */
        }
        if (broken) {
            int mutated;
            merkle_block_root(b.header.merkle_root, &mutated, &b);
            mine(&b);
        }
        if (changed) {
            memcpy(bad_hash, b.hash, 32);
        }
        memcpy(prev, b.hash, 32);
        append_record(&out, p->magic, &b);
        block_clear(&b);
    }
    free(raw);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(out.data, 1, out.len, f) == out.len;
    if (f) {
        ok &= fclose(f) == 0;
    }
    buf_clear(&out);
    return ok && broken ? 0 : -1;
}

/* Serial checking, the reference: every record accepted, then the best chain activated,
 * on this thread, before the next one. */
static int import_serial(struct chainstate *cs, const char *path, uint64_t *rejected)
{
    size_t len = 0;
    uint8_t *raw = test_read_file(path, &len);
    if (!raw) {
        return RC_IO;
    }
    int rc = RC_OK;
    for (size_t off = 0; off + 8 <= len && rc == RC_OK;) {
        uint32_t n = (uint32_t)raw[off + 4] | (uint32_t)raw[off + 5] << 8 |
                     (uint32_t)raw[off + 6] << 16 | (uint32_t)raw[off + 7] << 24;
        struct vstate st;
        vstate_init(&st);
        rc = chainstate_accept_block(cs, raw + off + 8, n, NULL, &st, NULL);
        if (rc == RC_INVALID) {
            (*rejected)++;
            rc = RC_OK;
        }
        if (rc == RC_OK) {
            rc = chainstate_activate_best_chain(cs);
        }
        off += 8 + n;
    }
    free(raw);
    return rc;
}

struct halts {
    atomic_int calls;
    atomic_int last_rc;
};

static void count_halt(void *ctx, int rc)
{
    struct halts *h = ctx;
    atomic_fetch_add(&h->calls, 1);
    atomic_store(&h->last_rc, rc);
}

static int import_pipelined_halts(struct chainstate *cs, const char *path,
                                  struct import_stats *ist, struct halts *h)
{
    struct validator *v = NULL;
    int rc = validator_new(&v, cs, 0, h ? count_halt : NULL, h);
    if (rc) {
        return rc;
    }
    struct validator_job act = {.work = VALIDATOR_ACTIVATE};
    rc = validator_run(v, &act);
    struct importer *im = importer_new(v, 0);
    if (rc == RC_OK) {
        rc = importer_add_file(im, path, 0);
    }
    int rc2 = importer_finish(im, ist);
    importer_free(im);
    if (h) {
        /* A job that waits for the chain to settle, after connecting stopped for good: it
         * must still be done (it hung once). */
        struct validator_job late = {.work = VALIDATOR_ACTIVATE};
        rc2 = rc2 ? rc2 : validator_run(v, &late);
    }
    validator_free(v);
    return rc ? rc : rc2;
}

static int import_pipelined(struct chainstate *cs, const char *path, struct import_stats *ist)
{
    return import_pipelined_halts(cs, path, ist, NULL);
}

struct outcome {
    int height;
    uint8_t tip[32];
    uint8_t muhash[32];
    uint64_t failed;
    struct vstate verdict;
    int have_verdict;
    int best_header_is_tip; /* everything above it known invalid */
};

static void outcome_of(struct chainstate *cs, const uint8_t bad_hash[32], struct outcome *o)
{
    struct coins_stats st;
    struct chainstate_counters c;
    memset(o, 0, sizeof(*o));
    struct block_index *tip = chainstate_tip(cs);
    o->height = tip ? tip->height : -1;
    if (tip) {
        memcpy(o->tip, tip->hash, 32);
    }
    if (chainstate_utxo_stats(cs, COINS_STATS_MUHASH, &st, o->muhash) == RC_OK) {
        coins_stats_clear(&st);
    }
    chainstate_get_counters(cs, &c);
    o->failed = c.blocks_failed;
    o->have_verdict = chainstate_last_invalid(cs, bad_hash, &o->verdict);
    o->best_header_is_tip = chainstate_best_header(cs) == tip;
}

static void pipeline_same_as_serial(enum breakage how, const char *want_reject)
{
    char path[400];
    int bad_height = -1;
    uint8_t bad_hash[32];
    snprintf(path, sizeof(path), "%s-badsig.dat", datadir);
    CHECK_EQ_INT(write_bad_chain(path, 260, how, &bad_height, bad_hash), 0);
    if (bad_height < 0) {
        return;
    }
    struct outcome serial, piped[2];
    wipe();
    struct chainstate *cs = open_cs(1); /* no workers: the checks on this thread */
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    uint64_t rejected = 0;
    CHECK_EQ_INT(import_serial(cs, path, &rejected), RC_OK);
    outcome_of(cs, bad_hash, &serial);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    test_report(serial.height == bad_height - 1 && serial.have_verdict && serial.failed == 1 &&
                    serial.best_header_is_tip &&
                    strncmp(serial.verdict.reject, want_reject, strlen(want_reject)) == 0,
                "serial: the broken block at %d fails (%s), tip %d", bad_height,
                serial.verdict.reject, serial.height);

    const int pars[2] = {1, 2};
    for (int i = 0; i < 2; i++) {
        struct import_stats ist;
        wipe();
        cs = open_cs(pars[i]);
        CHECK(cs != NULL);
        if (!cs) {
            return;
        }
        CHECK_EQ_INT(import_pipelined(cs, path, &ist), RC_OK);
        outcome_of(cs, bad_hash, &piped[i]);
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
        struct outcome *o = &piped[i];
        test_report(o->height == serial.height && memcmp(o->tip, serial.tip, 32) == 0 &&
                        memcmp(o->muhash, serial.muhash, 32) == 0 && o->failed == 1 &&
                        o->have_verdict &&
                        strcmp(o->verdict.reject, serial.verdict.reject) == 0 &&
                        o->best_header_is_tip &&
                        /* The block after the bad one may be stored while the bad one's
                         * scripts are checked (then it is marked, not refused when read). */
                        (ist.invalid == rejected + 1 || ist.invalid == rejected),
                    "pipelined, -par=%d: the same tip, UTXO set (muhash), failed block and "
                    "verdict as serial checking (%llu invalid; serial: %llu refused + 1)",
                    pars[i], (unsigned long long)ist.invalid, (unsigned long long)rejected);
    }
    unlink(path);
}

static void test_pipeline_same_as_serial(void)
{
    pipeline_same_as_serial(BAD_SIGNATURE, "block-script-verify-flag-failed");
    pipeline_same_as_serial(BAD_COINBASE_PAYS, "bad-cb-amount");
}

/* ---- readers while the validation thread connects ---------------------------------- */

struct reader_ctx {
    struct chainstate *cs;
    atomic_int stop;
    uint64_t reads, bad;
    uint64_t max_wait_ns; /* the longest wait for the read lock (printed, not asserted) */
    int last_height;
};

/* Reads as an RPC thread does: the tip, its ancestors, its block from disk, its coinbase's
 * first output from the UTXO set; all must agree with one another. */
static void *reader_main(void *arg)
{
    struct reader_ctx *r = arg;
    struct buf raw;
    buf_init(&raw);
    while (!atomic_load(&r->stop)) {
        uint64_t t0 = time_mono_ns();
        chainstate_read_lock(r->cs);
        uint64_t waited = time_mono_ns() - t0;
        if (waited > r->max_wait_ns) {
            r->max_wait_ns = waited;
        }
        struct block_index *tip = chainstate_tip(r->cs);
        if (tip) {
            if (tip->height < r->last_height || chainstate_at_height(r->cs, tip->height) != tip ||
                (tip->prev && chainstate_at_height(r->cs, tip->height - 1) != tip->prev)) {
                r->bad++;
            }
            r->last_height = tip->height;
            struct block b;
            char err[128];
            if (chainstate_read_block(r->cs, tip, &raw) != RC_OK ||
                block_parse(&b, raw.data, raw.len, err, sizeof(err)) != RC_OK) {
                r->bad++;
            } else {
                if (memcmp(b.hash, tip->hash, 32) != 0) {
                    r->bad++;
                }
                /* The tip's coinbase output 0 is unspent at the tip (a coinbase matures
                 * after 100 blocks), unless it cannot be spent at all. */
                struct outpoint op;
                struct coin c;
                memcpy(op.txid, b.txs[0].txid, 32);
                op.n = 0;
                const struct bytes *spk = &b.txs[0].vout[0].script_pubkey;
                int unspendable = spk->len && spk->data[0] == 0x6a;
                int rc = chainstate_get_coin(r->cs, &op, &c);
                if (rc == RC_OK) {
                    coin_clear(&c);
                } else if (!unspendable && tip->height > 0) {
                    r->bad++;
                }
                block_clear(&b);
            }
        }
        chainstate_read_unlock(r->cs);
        r->reads++;
    }
    buf_clear(&raw);
    return NULL;
}

static void test_readers_during_import(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    wipe();
    struct chainstate *cs = open_cs(2);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    struct reader_ctx r[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].cs = cs;
        CHECK_EQ_INT(pthread_create(&th[i], NULL, reader_main, &r[i]), 0);
    }
    struct import_stats ist;
    CHECK_EQ_INT(import_pipelined(cs, path, &ist), RC_OK);
    for (int i = 0; i < 2; i++) {
        atomic_store(&r[i].stop, 1);
        pthread_join(th[i], NULL);
    }
    test_report(r[0].bad == 0 && r[1].bad == 0 && r[0].reads > 0 && r[1].reads > 0,
                "two readers saw a consistent, advancing tip throughout the import (%llu and "
                "%llu reads, %llu and %llu inconsistent; longest wait for the lock %.1f ms)",
                (unsigned long long)r[0].reads, (unsigned long long)r[1].reads,
                (unsigned long long)r[0].bad, (unsigned long long)r[1].bad,
                (double)(r[0].max_wait_ns > r[1].max_wait_ns ? r[0].max_wait_ns
                                                              : r[1].max_wait_ns) /
                    1e6);
    CHECK_EQ_INT(chainstate_tip(cs)->height, 1300);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
}

/* -stopatheight during an import: connecting stops at the height, the halt callback is told
 * once with 0, and the importer's jobs (its final ACTIVATE too) are all done. */
static void test_stop_at_height(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    for (int round = 0; round < 3; round++) {
        wipe();
        struct chainstate *cs = open_cs_stop(2, 700);
        CHECK(cs != NULL);
        if (!cs) {
            return;
        }
        struct halts h = {0};
        struct import_stats ist;
        CHECK_EQ_INT(import_pipelined_halts(cs, path, &ist, &h), RC_OK);
        test_report(chainstate_tip(cs)->height == 700 && atomic_load(&h.calls) == 1 &&
                        atomic_load(&h.last_rc) == 0,
                    "-stopatheight=700: tip %d, halt told %d time(s); the import and a later "
                    "activate job returned",
                    chainstate_tip(cs)->height, atomic_load(&h.calls));
        CHECK_EQ_INT(chainstate_close(cs), RC_OK);
    }
}

/* ---- jobs from several threads ------------------------------------------------------ */

struct flipper {
    struct validator *v;
    uint8_t hash[32];
    int rounds, failures;
};

static void *flip_main(void *arg)
{
    struct flipper *f = arg;
    for (int i = 0; i < f->rounds; i++) {
        struct validator_job a = {.work = VALIDATOR_INVALIDATE};
        struct validator_job b = {.work = VALIDATOR_RECONSIDER};
        memcpy(a.hash, f->hash, 32);
        memcpy(b.hash, f->hash, 32);
        f->failures += validator_run(f->v, &a) != RC_OK;
        f->failures += validator_run(f->v, &b) != RC_OK;
    }
    return NULL;
}

static int tip_height_call(struct chainstate *cs, void *ctx)
{
    struct block_index *t = chainstate_tip(cs);
    *(int *)ctx = t ? t->height : -1;
    return RC_OK;
}

static void test_jobs_from_threads(void)
{
    /* regtest-small is imported by the previous case into datadir. */
    struct chainstate *cs = open_cs(2);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    struct validator *v = NULL;
    CHECK_EQ_INT(validator_new(&v, cs, 2, NULL, NULL), RC_OK);
    struct flipper f[2];
    pthread_t th[2];
    const int at[2] = {1290, 1200};
    for (int i = 0; i < 2; i++) {
        memset(&f[i], 0, sizeof(f[i]));
        f[i].v = v;
        f[i].rounds = 3;
        memcpy(f[i].hash, chainstate_at_height(cs, at[i])->hash, 32);
    }
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(pthread_create(&th[i], NULL, flip_main, &f[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
    }
    int height = -2;
    struct validator_job q = {.work = VALIDATOR_CALL, .fn = tip_height_call, .ctx = &height};
    CHECK_EQ_INT(validator_run(v, &q), RC_OK);
    test_report(f[0].failures == 0 && f[1].failures == 0 && height == 1300,
                "invalidate/reconsider from two threads at once: all done, tip back at %d",
                height);
    struct validator_job unknown = {.work = VALIDATOR_INVALIDATE};
    memset(unknown.hash, 0x42, 32);
    CHECK_EQ_INT(validator_run(v, &unknown), RC_NOT_FOUND);
    struct validator_job genesis = {.work = VALIDATOR_INVALIDATE};
    memcpy(genesis.hash, chain_params_get("regtest")->genesis_hash, 32);
    CHECK_EQ_INT(validator_run(v, &genesis), RC_USAGE);
    struct validator_job header = {.work = VALIDATOR_HEADERS, .data = (const uint8_t *)"short",
                                   .len = 5};
    CHECK_EQ_INT(validator_run(v, &header), RC_OK); /* no whole header: nothing to do */
    validator_free(v);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
}

/* ---- the bounded queue, and stopping ------------------------------------------------ */

struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open, entered;
};

static int wait_at_gate(struct chainstate *cs, void *ctx)
{
    struct gate *g = ctx;
    pthread_mutex_lock(&g->mu);
    g->entered = 1;
    pthread_cond_broadcast(&g->cv);
    while (!g->open) {
        pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    return RC_OK;
}

static int noop(struct chainstate *cs, void *ctx)
{
    atomic_fetch_add((atomic_int *)ctx, 1);
    return RC_OK;
}

struct submitter {
    struct validator *v;
    struct validator_job jobs[4];
    atomic_int submitted;
    atomic_int *ran;
};

static void *submit_main(void *arg)
{
    struct submitter *s = arg;
    for (int i = 0; i < 4; i++) {
        s->jobs[i] = (struct validator_job){.work = VALIDATOR_CALL, .fn = noop, .ctx = s->ran};
        validator_submit(s->v, &s->jobs[i]);
        atomic_fetch_add(&s->submitted, 1);
    }
    return NULL;
}

static void *free_main(void *arg)
{
    validator_free(arg);
    return NULL;
}

static void test_bounded_queue_and_stop(void)
{
    struct chainstate *cs = open_cs(1);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    struct gate g = {.open = 0};
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    atomic_int ran = 0;
    struct validator *v = NULL;
    CHECK_EQ_INT(validator_new(&v, cs, 2, NULL, NULL), RC_OK);
    struct validator_job held = {.work = VALIDATOR_CALL, .fn = wait_at_gate, .ctx = &g};
    CHECK_EQ_INT(validator_submit(v, &held), RC_OK);
    pthread_mutex_lock(&g.mu);
    while (!g.entered) {
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    /* The thread is busy: a submitter gets two jobs into the queue of two, then waits. */
    struct submitter s = {.v = v, .ran = &ran};
    pthread_t th, fr;
    CHECK_EQ_INT(pthread_create(&th, NULL, submit_main, &s), 0);
    for (int i = 0; i < 200 && atomic_load(&s.submitted) < 2; i++) {
        usleep(5000);
    }
    usleep(50000);
    test_report(atomic_load(&s.submitted) == 2,
                "a full queue of 2 holds the third submitter (%d submitted)",
                atomic_load(&s.submitted));
    /* Open the gate: every job runs. */
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    pthread_join(th, NULL);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(validator_wait(v, &s.jobs[i]), RC_OK);
    }
    CHECK_EQ_INT(atomic_load(&ran), 4);
    /* Stopping: the job running finishes, the queued ones end RC_STOPPED. */
    pthread_mutex_lock(&g.mu);
    g.open = 0;
    g.entered = 0;
    pthread_mutex_unlock(&g.mu);
    held = (struct validator_job){.work = VALIDATOR_CALL, .fn = wait_at_gate, .ctx = &g};
    struct validator_job q1 = {.work = VALIDATOR_CALL, .fn = noop, .ctx = &ran};
    CHECK_EQ_INT(validator_submit(v, &held), RC_OK);
    pthread_mutex_lock(&g.mu);
    while (!g.entered) {
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    CHECK_EQ_INT(validator_submit(v, &q1), RC_OK);
    CHECK_EQ_INT(pthread_create(&fr, NULL, free_main, v), 0);
    usleep(100000); /* validator_free has asked the thread to stop */
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    pthread_join(fr, NULL);
    test_report(held.done_ && held.rc == RC_OK && q1.done_ && q1.rc == RC_STOPPED &&
                    atomic_load(&ran) == 4,
                "stopping: the running job finished, the queued one ended '%s'",
                rc_str(q1.rc));
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
}

/* on_done: called once per job, after its results are readable, also for a job the
 * validator never ran (stopped); try_submit never waits for room. */
struct done_log {
    pthread_mutex_t mu;
    struct validator_job *seen[8];
    int rc[8];
    int n;
};

static void log_done(void *ctx, struct validator_job *job)
{
    struct done_log *d = ctx;
    pthread_mutex_lock(&d->mu);
    if (d->n < 8) {
        d->rc[d->n] = job->rc;
        d->seen[d->n++] = job;
    }
    pthread_mutex_unlock(&d->mu);
}

static void test_try_submit_and_on_done(void)
{
    struct chainstate *cs = open_cs(1);
    CHECK(cs != NULL);
    if (!cs) {
        return;
    }
    struct gate g = {.open = 0};
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    struct done_log d = {.n = 0};
    pthread_mutex_init(&d.mu, NULL);
    atomic_int ran = 0;
    struct validator *v = NULL;
    CHECK_EQ_INT(validator_new(&v, cs, 1, NULL, NULL), RC_OK);
    struct validator_job held = {.work = VALIDATOR_CALL, .fn = wait_at_gate, .ctx = &g,
                                 .on_done = log_done, .done_ctx = &d};
    CHECK_EQ_INT(validator_try_submit(v, &held), RC_OK);
    pthread_mutex_lock(&g.mu);
    while (!g.entered) {
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    struct validator_job q1 = {.work = VALIDATOR_CALL, .fn = noop, .ctx = &ran,
                               .on_done = log_done, .done_ctx = &d};
    struct validator_job q2 = q1;
    CHECK_EQ_INT(validator_try_submit(v, &q1), RC_OK);
    CHECK_EQ_INT(validator_queued(v), 1);
    /* The queue of one is full: refused at once, the job untouched. */
    CHECK_EQ_INT(validator_try_submit(v, &q2), RC_TOO_LARGE);
    CHECK_EQ_INT(q2.done_, 0);
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    CHECK_EQ_INT(validator_wait(v, &q1), RC_OK);
    for (int i = 0; i < 400; i++) { /* the callback runs just after done is set */
        pthread_mutex_lock(&d.mu);
        int n = d.n;
        pthread_mutex_unlock(&d.mu);
        if (n >= 2) {
            break;
        }
        usleep(5000);
    }
    pthread_mutex_lock(&d.mu);
    CHECK_EQ_INT(d.n, 2);
    CHECK(d.seen[0] == &held && d.seen[1] == &q1);
    CHECK_EQ_INT(d.rc[1], RC_OK);
    pthread_mutex_unlock(&d.mu);
    /* A job still queued when the validator stops is called back with RC_STOPPED. */
    g.open = 0;
    g.entered = 0;
    held = (struct validator_job){.work = VALIDATOR_CALL, .fn = wait_at_gate, .ctx = &g};
    CHECK_EQ_INT(validator_submit(v, &held), RC_OK);
    pthread_mutex_lock(&g.mu);
    while (!g.entered) {
        pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    CHECK_EQ_INT(validator_try_submit(v, &q2), RC_OK);
    pthread_t fr;
    CHECK_EQ_INT(pthread_create(&fr, NULL, free_main, v), 0);
    usleep(100000);
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    pthread_join(fr, NULL);
    CHECK_EQ_INT(d.n, 3);
    CHECK(d.seen[2] == &q2);
    CHECK_EQ_INT(d.rc[2], RC_STOPPED);
    pthread_mutex_destroy(&d.mu);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
    CHECK_EQ_INT(chainstate_close(cs), RC_OK);
}

int main(void)
{
    snprintf(datadir, sizeof(datadir), "/tmp/bitnode-validator-test-%d", (int)getpid());
    alarm(600); /* a job never done would hang the suite: end it instead (SIGALRM fails it) */
    TEST(test_pipeline_same_as_serial);
    TEST(test_readers_during_import);
    TEST(test_jobs_from_threads);
    TEST(test_stop_at_height);
    TEST(test_bounded_queue_and_stop);
    TEST(test_try_submit_and_on_done);
    wipe();
    rmdir(datadir);
    return test_done();
}
