/* The check pool (src/validation/checkqueue.c) against serial checking
 * (script_verify_block) on real mainnet blocks with their spent outputs: same verdicts with
 * -par 1, 2, 4 and 8, a bad signature in the last or the first input named exactly, many
 * blocks in a row on one pool, and an interrupted pool that still shuts down cleanly.
 * Runs under ThreadSanitizer (--enable-sanitizers=thread). */
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consensus/params.h"
#include "primitives/block.h"
#include "script/block_verify.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sigcache.h"
#include "test.h"
#include "util/file.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/checkqueue.h"

#define DATA_DIR "/data/mainnet-blocks-with-spent-outputs"

struct real_block {
    int height;
    struct block b;
    struct tx_out *spent; /* scripts point into scripts.data */
    size_t n_spent;
    struct buf scripts;
    uint32_t flags;
};

static struct real_block blocks[8];
static size_t nblocks;

/* The pool sizes under test: -par=1, 2, 4, 8. */
static const int pars[] = {1, 2, 4, 8};

static char *read_xz(const char *path)
{
    struct buf b;
    buf_init(&b);
    if (file_read_all(&b, path, NULL, 0) != RC_OK) {
        buf_clear(&b);
        return NULL;
    }
    return (char *)b.data; /* NUL-terminated; ownership passes */
}

/* Loads <dir>/<name> (a .bin) and its .spent.json.xz. Returns 1 on success. */
static int load_block(struct real_block *rb, const char *dir, const char *name)
{
    char path[1024], err[200] = "";
    size_t len;
    int ok = 0;
    json_t *j = NULL;
    char *text = NULL;

    memset(rb, 0, sizeof(*rb));
    block_init(&rb->b);
    buf_init(&rb->scripts);
    rb->height = atoi(name);
    uint8_t *raw = NULL;
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
        goto out;
    }
    raw = test_read_file(path, &len);
    if (!raw || block_parse(&rb->b, raw, len, err, sizeof(err)) != 0) {
        printf("# %s: cannot read or parse: %s\n", name, err);
        goto out;
    }
    if (snprintf(path, sizeof(path), "%s/%.*s.spent.json.xz", dir, (int)(strlen(name) - 4), name) >=
        (int)sizeof(path)) {
        goto out;
    }
    text = read_xz(path);
    j = text ? json_loads(text, 0, NULL) : NULL;
    if (!j) {
        printf("# %s: no spent outputs\n", path);
        goto out;
    }
    size_t nj = json_array_size(j);
    size_t *offs = xcalloc(nj + 1, sizeof(size_t));
    rb->spent = xcalloc(nj + 1, sizeof(struct tx_out));
    ok = 1;
    for (size_t k = 0; ok && k < nj; k++) {
        json_t *o = json_object_get(json_array_get(j, k), "txout");
        const char *hex = json_string_value(json_object_get(o, "script_pubkey"));
        offs[k] = rb->scripts.len;
        ok = hex && hex_decode(&rb->scripts, hex) == 0;
        rb->spent[k].value_sat = (int64_t)json_integer_value(json_object_get(o, "value"));
    }
    offs[nj] = rb->scripts.len;
    for (size_t k = 0; ok && k < nj; k++) {
        rb->spent[k].script_pubkey.data = rb->scripts.data + offs[k];
        rb->spent[k].script_pubkey.len = offs[k + 1] - offs[k];
    }
    free(offs);
    rb->n_spent = nj;
    rb->flags = script_block_flags(chain_params_get("main"), rb->height, rb->b.hash);
out:
    free(raw);
    free(text);
    json_decref(j);
    return ok;
}

static void free_block(struct real_block *rb)
{
    block_clear(&rb->b);
    free(rb->spent);
    buf_clear(&rb->scripts);
}

static int load_all(void)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s%s", test_shared_dir(), DATA_DIR);
    char *names[8];
    int n = test_list_dir(dir, ".bin", names, 8);
    if (n < 0) {
        return 0;
    }
    int ok = n > 0;
    for (int i = 0; i < n; i++) {
        if (ok && load_block(&blocks[nblocks], dir, names[i])) {
            nblocks++;
        } else {
            ok = 0;
        }
        free(names[i]);
    }
    return ok;
}

static struct real_block *find_block(int height)
{
    for (size_t i = 0; i < nblocks; i++) {
        if (blocks[i].height == height) {
            return &blocks[i];
        }
    }
    return NULL;
}

/* The serial verdict: the first failing input in block order. */
struct serial_verdict {
    size_t failed;
    size_t tx, in;
    enum script_error err;
};

static void on_fail(void *ctx, size_t tx_idx, size_t in_idx, enum script_error err)
{
    struct serial_verdict *v = ctx;
    if (v->failed++ == 0) {
        v->tx = tx_idx;
        v->in = in_idx;
        v->err = err;
    }
}

static void serial_verify(const struct real_block *rb, struct serial_verdict *v, size_t *checked)
{
    struct script_block_result r;
    memset(v, 0, sizeof(*v));
    CHECK_EQ_INT(
        script_verify_block(&rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0, on_fail, v, &r), 0);
    *checked = r.inputs_checked;
}

/* Checks that the pool's result is the serial verdict. */
static int same_verdict(const struct checkqueue_result *r, const struct serial_verdict *v)
{
    if (!v->failed) {
        return !r->failed;
    }
    return r->failed && r->fail_tx == v->tx && r->fail_in == v->in && r->err == v->err;
}

/* A byte inside R of the DER signature pushed by input in's scriptSig or held in its
 * witness, or NULL. */
static uint8_t *sig_byte(struct tx_in *in)
{
    for (size_t w = 0; w < in->witness_count; w++) {
        struct bytes *b = &in->witness[w];
        if (b->len >= 9 && b->len <= 73 && b->data[0] == 0x30) {
            return b->data + 6;
        }
    }
    size_t pc = 0;
    uint8_t op;
    const uint8_t *d;
    size_t dl;
    while (script_get_op(in->script_sig.data, in->script_sig.len, &pc, &op, &d, &dl)) {
        if (dl >= 9 && dl <= 73 && d[0] == 0x30) {
            return (uint8_t *)d + 6;
        }
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_workers_for_par(void)
{
    /* Core: -par counts the validation thread; 0 is one per core, negative leaves cores
     * free; at most 15 workers. */
    CHECK_EQ_INT(checkqueue_workers_for_par(1, 8), 0);
    CHECK_EQ_INT(checkqueue_workers_for_par(2, 8), 1);
    CHECK_EQ_INT(checkqueue_workers_for_par(8, 2), 7);
    CHECK_EQ_INT(checkqueue_workers_for_par(0, 2), 1);
    CHECK_EQ_INT(checkqueue_workers_for_par(0, 1), 0);
    CHECK_EQ_INT(checkqueue_workers_for_par(-1, 4), 2);
    CHECK_EQ_INT(checkqueue_workers_for_par(-7, 4), 0);
    CHECK_EQ_INT(checkqueue_workers_for_par(100, 4), CHECKQUEUE_MAX_WORKERS);
    CHECK(checkqueue_ncores() >= 1);
    struct checkqueue *q = checkqueue_new(3);
    CHECK_EQ_INT(checkqueue_workers(q), 3);
    checkqueue_free(q); /* workers that never saw work */
    checkqueue_free(NULL);
    /* No pool: the caller checks alone (an empty block here). */
    struct block b;
    block_init(&b);
    struct checkqueue_result r;
    CHECK_EQ_INT(checkqueue_verify_block(NULL, &r, &b, NULL, 0, 0, NULL, 0), 0);
    CHECK_EQ_INT(r.failed, 0);
    CHECK_EQ_INT(r.inputs_checked, 0);
}

/* Every real block is valid, with every pool size, and every input is checked. */
static void test_real_blocks_valid(void)
{
    for (size_t i = 0; i < nblocks; i++) {
        struct real_block *rb = &blocks[i];
        struct serial_verdict v;
        size_t serial_checked;
        double t0 = now_s();
        serial_verify(rb, &v, &serial_checked);
        double ts = now_s() - t0;
        test_report(!v.failed && serial_checked == rb->n_spent,
                    "block %d serial: %zu inputs, %zu failing (%.2f s)", rb->height, serial_checked,
                    v.failed, ts);
        for (size_t p = 0; p < ARRAY_LEN(pars); p++) {
            struct checkqueue *q = checkqueue_new(checkqueue_workers_for_par(pars[p], 1));
            struct checkqueue_result r;
            t0 = now_s();
            int rc =
                checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0);
            double tp = now_s() - t0;
            struct checkqueue_stats st;
            checkqueue_get_stats(q, &st);
            test_report(rc == 0 && same_verdict(&r, &v) && r.inputs_checked == rb->n_spent &&
                            st.inputs == rb->n_spent &&
                            (pars[p] > 1 || st.master_checks == rb->n_spent),
                        "block %d -par=%d: %zu inputs checked, verdict %s (%.2f s, %llu "
                        "batches, %llu by the caller)",
                        rb->height, pars[p], r.inputs_checked,
                        r.failed ? script_error_name(r.err) : "valid", tp,
                        (unsigned long long)st.batches, (unsigned long long)st.master_checks);
            checkqueue_free(q);
        }
    }
}

/* Flips one signature byte of input (t, i) of rb (returns NULL if it has none). */
static uint8_t *tamper(struct real_block *rb, size_t t, size_t i)
{
    uint8_t *p = sig_byte(&rb->b.txs[t].vin[i]);
    if (p) {
        *p ^= 0x01;
    }
    return p;
}

/* A tampered input is found and named by every pool size, as serial checking names it. */
static void check_tampered(struct real_block *rb, const char *what, size_t want_tx, size_t want_in)
{
    struct serial_verdict v;
    size_t checked;
    serial_verify(rb, &v, &checked);
    test_report(v.failed >= 1 && v.tx == want_tx && v.in == want_in,
                "block %d, bad signature in the %s input %zu:%zu: serial names %zu:%zu (%s)",
                rb->height, what, want_tx, want_in, v.tx, v.in, script_error_name(v.err));
    for (size_t p = 0; p < ARRAY_LEN(pars); p++) {
        struct checkqueue *q = checkqueue_new(checkqueue_workers_for_par(pars[p], 1));
        struct checkqueue_result r;
        int rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0);
        test_report(rc == 0 && same_verdict(&r, &v) && r.fail_tx == want_tx && r.fail_in == want_in,
                    "block %d -par=%d: %s input named %zu:%zu (%s), %zu of %zu checks ran",
                    rb->height, pars[p], what, r.fail_tx, r.fail_in, script_error_name(r.err),
                    r.inputs_checked, rb->n_spent);
        checkqueue_free(q);
    }
}

static void test_bad_last_and_first(void)
{
    struct real_block *rb = find_block(367891);
    if (!rb) {
        test_report(0, "block 367891 missing");
        return;
    }
    /* The last input that carries a signature (in this 2015 block: the very last one). */
    size_t lt = rb->b.tx_count - 1, li = rb->b.txs[lt].vin_count - 1;
    uint8_t *last = tamper(rb, lt, li);
    CHECK(last != NULL);
    if (!last) {
        return;
    }
    check_tampered(rb, "last", lt, li);

    uint8_t *first = tamper(rb, 1, 0);
    CHECK(first != NULL);
    if (first) {
        /* Both bad: the first one is the verdict, whatever thread finds which first. */
        check_tampered(rb, "first", 1, 0);
        *first ^= 0x01;
    }
    *last ^= 0x01;

    /* A bad one in the middle, with a shared signature cache filled by a good pass: the
     * cache must not hide it. */
    struct sigcache *cache = sigcache_new(8 << 20, NULL);
    struct checkqueue *q = checkqueue_new(3);
    struct checkqueue_result r;
    int rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, cache, 1);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(r.failed, 0);
    size_t mt = rb->b.tx_count / 2;
    uint8_t *mid = tamper(rb, mt, 0);
    CHECK(mid != NULL);
    if (mid) {
        rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, cache, 0);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(r.failed, 1);
        CHECK_EQ_INT(r.fail_tx, (int)mt);
        CHECK_EQ_INT(r.fail_in, 0);
        *mid ^= 0x01;
    }
    rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, cache, 0);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(r.failed, 0);
    checkqueue_free(q);
    sigcache_free(cache);

    /* The last signature of the modern block (ECDSA and Schnorr checks that cost). */
    struct real_block *modern = find_block(866342);
    if (modern) {
        uint8_t *p = NULL;
        size_t t = modern->b.tx_count, i = 0;
        while (!p && t-- > 1) {
            for (i = modern->b.txs[t].vin_count; !p && i-- > 0;) {
                p = tamper(modern, t, i);
            }
        }
        CHECK(p != NULL);
        if (p) {
            check_tampered(modern, "last signed", t, i);
            *p ^= 0x01;
        }
    }

    /* A wrong number of spent outputs is the caller's mistake. */
    q = checkqueue_new(1);
    CHECK_EQ_INT(
        checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent - 1, rb->flags, NULL, 0),
        RC_USAGE);
    checkqueue_free(q);
}

/* One pool, many blocks in a row: valid and invalid ones interleaved. */
static void test_many_blocks(void)
{
    struct real_block *small = find_block(300025), *modern = find_block(866342);
    if (!small || !modern) {
        test_report(0, "blocks 300025 / 866342 missing");
        return;
    }
    struct serial_verdict vs, vm;
    size_t c;
    serial_verify(small, &vs, &c);
    serial_verify(modern, &vm, &c);
    struct checkqueue *q = checkqueue_new(3);
    int bad = 0;
    size_t rounds = 24;
    for (size_t k = 0; k < rounds; k++) {
        struct real_block *rb = (k % 3 == 2) ? modern : small;
        /* Every fourth round, a bad signature somewhere in the block. */
        uint8_t *p = NULL;
        size_t t = 0;
        if (k % 4 == 3) {
            for (t = 1 + (k * 37) % (rb->b.tx_count - 1); t < rb->b.tx_count && !p; t++) {
                p = tamper(rb, t, 0);
            }
            t--;
        }
        struct checkqueue_result r;
        int rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0);
        if (p) {
            struct serial_verdict v;
            serial_verify(rb, &v, &c);
            if (rc != 0 || !same_verdict(&r, &v) || r.fail_tx != t || r.fail_in != 0) {
                printf("# round %zu: block %d, tampered %zu:0, pool says %d %zu:%zu\n", k,
                       rb->height, t, r.failed, r.fail_tx, r.fail_in);
                bad++;
            }
            *p ^= 0x01;
        } else if (rc != 0 || !same_verdict(&r, rb == small ? &vs : &vm) ||
                   r.inputs_checked != rb->n_spent) {
            printf("# round %zu: block %d, pool says %d\n", k, rb->height, r.failed);
            bad++;
        }
    }
    struct checkqueue_stats st;
    checkqueue_get_stats(q, &st);
    CHECK_EQ_INT(st.blocks, (int)rounds);
    test_report(bad == 0, "%zu blocks in a row on one pool of 3 workers: %d wrong verdicts", rounds,
                bad);
    checkqueue_free(q);
}

/* The step-by-step API, as connect would use it: each transaction's spent outputs in an
 * allocation of its own, handed over one by one with other work in between. */
static void run_incremental(struct checkqueue *q, struct real_block *rb,
                            struct checkqueue_result *r, int *rc)
{
    size_t ntx = rb->b.tx_count, k = 0;
    struct tx_out **own = xcalloc(ntx, sizeof(*own));
    *rc = checkqueue_block_begin(q, &rb->b, rb->flags, NULL, 0);
    CHECK_EQ_INT(*rc, 0);
    for (size_t t = 1; t < ntx; t++) {
        size_t nin = rb->b.txs[t].vin_count;
        own[t] = xmalloc(nin * sizeof(struct tx_out));
        memcpy(own[t], rb->spent + k, nin * sizeof(struct tx_out));
        k += nin;
        /* The validation thread's own work on the transaction (UTXO lookups...). */
        volatile uint32_t x = 0;
        for (size_t w = 0; w < 2000; w++) {
            x = x * 31u + (uint32_t)w;
        }
        CHECK_EQ_INT(checkqueue_block_add_tx(q, t, own[t], nin), 0);
    }
    *rc = checkqueue_block_finish(q, r);
    for (size_t t = 1; t < ntx; t++) {
        free(own[t]);
    }
    free(own);
}

static void test_incremental(void)
{
    struct real_block *modern = find_block(866342), *wide = find_block(367891);
    if (!modern || !wide) {
        test_report(0, "blocks 866342 / 367891 missing");
        return;
    }
    struct real_block *list[2] = {modern, wide};
    for (size_t bi = 0; bi < 2; bi++) {
        struct real_block *rb = list[bi];
        size_t mt = rb->b.tx_count * 2 / 3;
        for (int bad = 0; bad < 2; bad++) {
            uint8_t *p = NULL;
            size_t t = mt;
            for (; bad && !p && t < rb->b.tx_count; t++) {
                p = tamper(rb, t, 0);
            }
            t = p ? t - 1 : 0;
            struct serial_verdict v;
            size_t c;
            serial_verify(rb, &v, &c);
            for (size_t pi = 0; pi < ARRAY_LEN(pars); pi++) {
                struct checkqueue *q = checkqueue_new(checkqueue_workers_for_par(pars[pi], 1));
                struct checkqueue_result r;
                int rc;
                run_incremental(q, rb, &r, &rc);
                test_report(rc == 0 && same_verdict(&r, &v) && (!p || r.fail_tx == t) &&
                                (p || r.inputs_checked == rb->n_spent),
                            "block %d step by step, -par=%d, %s: %s %zu:%zu", rb->height, pars[pi],
                            p ? "one bad signature" : "valid",
                            r.failed ? script_error_name(r.err) : "valid", r.fail_tx, r.fail_in);
                checkqueue_free(q);
            }
            if (p) {
                *p ^= 0x01;
            }
        }
    }

    /* Misuse and cancellation; the pool stays usable after each. */
    struct real_block *rb = find_block(300025);
    struct checkqueue *q = checkqueue_new(3);
    struct checkqueue_result r;
    CHECK_EQ_INT(checkqueue_block_begin(q, &rb->b, rb->flags, NULL, 0), 0);
    CHECK_EQ_INT(checkqueue_block_add_tx(q, 2, rb->spent, rb->b.txs[2].vin_count), RC_USAGE);
    CHECK_EQ_INT(checkqueue_block_add_tx(q, 1, rb->spent, rb->b.txs[1].vin_count + 1), RC_USAGE);
    CHECK_EQ_INT(checkqueue_block_add_tx(q, 1, rb->spent, rb->b.txs[1].vin_count), 0);
    CHECK_EQ_INT(checkqueue_block_finish(q, &r), RC_USAGE); /* the other txs never came */
    /* Half a block handed over, then abandoned while the workers are on it. */
    CHECK_EQ_INT(checkqueue_block_begin(q, &modern->b, modern->flags, NULL, 0), 0);
    size_t k = 0;
    for (size_t t = 1; t < modern->b.tx_count / 2; t++) {
        CHECK_EQ_INT(checkqueue_block_add_tx(q, t, modern->spent + k, modern->b.txs[t].vin_count),
                     0);
        k += modern->b.txs[t].vin_count;
    }
    checkqueue_block_cancel(q);
    int rc = checkqueue_verify_block(q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(r.failed, 0);
    CHECK_EQ_INT(r.inputs_checked, (int)rb->n_spent);
    checkqueue_free(q);
}

struct bg_verify {
    struct checkqueue *q;
    struct real_block *rb;
    int rc;
    struct checkqueue_result r;
};

static void *bg_main(void *arg)
{
    struct bg_verify *bg = arg;
    bg->rc = checkqueue_verify_block(bg->q, &bg->r, &bg->rb->b, bg->rb->spent, bg->rb->n_spent,
                                     bg->rb->flags, NULL, 0);
    return NULL;
}

/* Shutdown while a large block's checks are queued: the interrupted call returns without a
 * verdict, and the pool then stops and joins its workers. */
static void test_shutdown_with_queued_work(void)
{
    struct real_block *rb = find_block(866342); /* the slowest: about 0.5 s of checks */
    if (!rb) {
        test_report(0, "block 866342 missing");
        return;
    }
    struct bg_verify bg = {checkqueue_new(3), rb, 1, {0}};
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, bg_main, &bg), 0);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    checkqueue_interrupt(bg.q);
    pthread_join(th, NULL);
    /* A machine fast enough to finish in 20 ms would give a (correct) verdict instead. */
    CHECK(bg.rc == CHECKQUEUE_INTERRUPTED || (bg.rc == 0 && !bg.r.failed));
    test_report(bg.rc == CHECKQUEUE_INTERRUPTED,
                "interrupted after 20 ms: %zu of %zu checks ran, no verdict", bg.r.inputs_checked,
                rb->n_spent);
    /* Later blocks are refused at once. */
    struct checkqueue_result r;
    CHECK_EQ_INT(
        checkqueue_verify_block(bg.q, &r, &rb->b, rb->spent, rb->n_spent, rb->flags, NULL, 0),
        CHECKQUEUE_INTERRUPTED);
    double t0 = now_s();
    checkqueue_free(bg.q);
    test_report(now_s() - t0 < 5.0, "the interrupted pool joins its workers");
}

int main(void)
{
    TEST(test_workers_for_par);
    if (!load_all()) {
        /* The cases below need the real blocks: a failure in CI, a skip elsewhere. */
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s%s", test_shared_dir(), DATA_DIR);
        if (test_have_shared_file(dir)) {
            test_report(0, "the blocks under %s load", dir);
        }
        return test_done();
    }
    TEST(test_real_blocks_valid);
    TEST(test_bad_last_and_first);
    TEST(test_many_blocks);
    TEST(test_incremental);
    TEST(test_shutdown_with_queued_work);
    for (size_t i = 0; i < nblocks; i++) {
        free_block(&blocks[i]);
    }
    return test_done();
}
