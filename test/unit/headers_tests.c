/* Header acceptance and the block index against real header chains: mainnet 0-10236 from
 * genesis (chain work equal to the recorded values at every retarget boundary), mainnet
 * 822528-830592 across four real retargets plus a real stale header, signet 0-2015, and a
 * testnet4 period that validates only under its own (BIP94) rule. Then one rejection per
 * header rule, and the index's ancestor, median-time and fork-point queries. */
#include "test.h"

#include "blockstore/blockindex.h"
#include "consensus/params.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/headers.h"

struct headers {
    struct block_header *h;
    size_t n;
};

static int load_headers(struct headers *out, const char *rel)
{
    char path[4200];
    size_t len;
    snprintf(path, sizeof(path), "%s/data/%s", test_shared_dir(), rel);
    uint8_t *p = test_read_file(path, &len);
    if (!p || len % 80) {
        free(p);
        return RC_IO;
    }
    out->n = len / 80;
    out->h = xmalloc(out->n * sizeof(*out->h));
    struct reader r;
    reader_init(&r, p, len);
    for (size_t i = 0; i < out->n; i++) {
        block_header_parse(&out->h[i], &r);
    }
    free(p);
    return RC_OK;
}

/* A file that starts mid-chain: its first header becomes an anchor and the next ten are
 * added as trusted, so that every header validated after them has the 11 ancestors its
 * median time past is taken over. Returns the last trusted entry. */
static struct block_index *anchor_chain(struct block_tree *t, const struct headers *hs,
                                        int32_t height)
{
    struct u256 zero = {{0}};
    struct block_index *e = block_tree_add_anchor(t, &hs->h[0], height, &zero);
    for (size_t i = 1; i <= 10; i++) {
        e = block_tree_add(t, &hs->h[i], e, BLOCK_VALID_TREE);
    }
    return e;
}

/* Accepts headers[from..] in order; returns how many were accepted before a rejection. */
static size_t accept_all(struct block_tree *t, const struct headers *hs, size_t from,
                         const struct chain_params *p, struct block_index **last, char *why,
                         size_t why_len)
{
    size_t i;
    for (i = from; i < hs->n; i++) {
        struct vstate st;
        vstate_init(&st);
        int64_t now = (int64_t)hs->h[hs->n - 1].time + 60;
        int rc = headers_accept(t, &st, last, &hs->h[i], p, now);
        if (rc) {
            snprintf(why, why_len, "header %zu: rc %d %s (%.200s)", i, rc, st.reject, st.debug);
            break;
        }
    }
    return i - from;
}

static void test_mainnet_from_genesis(void)
{
    struct headers hs;
    const struct chain_params *p = chain_params_get("main");
    char why[512] = "";
    CHECK_EQ_INT(load_headers(&hs, "mainnet-headers-0-10236/headers-mainnet-0-10236.bin"), RC_OK);
    if (!hs.n) {
        return;
    }
    struct block_tree *t = block_tree_new();
    struct block_index *g = block_tree_add(t, &hs.h[0], NULL, BLOCK_VALID_TREE);
    CHECK_EQ_MEM(g->hash, p->genesis_hash, 32);
    struct block_index *tip = g;
    size_t n = accept_all(t, &hs, 1, p, &tip, why, sizeof(why));
    test_report(n == hs.n - 1, "mainnet headers 1..10236 accepted (%zu) %s", n, why);
    char hx[65];
    hex_encode_rev(hx, tip->hash, 32);
    CHECK_EQ_STR(hx, "000000004f74d42205b9d7ae1cb5c1591e723894a71358fce73b7e0919628161");
    CHECK_EQ_INT(tip->height, 10236);

    /* Chain work at each retarget boundary equals the recorded value. */
    char path[4200], line[1024];
    snprintf(path, sizeof(path), "%s/data/mainnet-retarget-headers/retarget-headers-mainnet-0-415296.tsv",
             test_shared_dir());
    FILE *f = fopen(path, "r");
    int compared = 0;
    while (f && fgets(line, sizeof(line), f)) {
        int height;
        char hash[80], hdr[200], work[80];
        if (sscanf(line, "%d %79s %199s %79s", &height, hash, hdr, work) != 4 || height > 10236) {
            continue;
        }
        struct block_index *e = block_index_ancestor(tip, height);
        char got_hash[65], got_work[65];
        hex_encode_rev(got_hash, e->hash, 32);
        u256_to_hex(got_work, &e->chain_work);
        CHECK_EQ_STR(got_hash, hash);
        CHECK_EQ_STR(got_work, work);
        compared++;
    }
    if (f) {
        fclose(f);
    }
    test_report(compared == 11, "chain work equals the record at %d boundaries up to 10236",
                compared);

    /* Ancestor lookups agree with the file at every height; median time past. */
    int bad = 0;
    for (int h = 0; h <= 10236; h += 1) {
        struct block_index *e = block_index_ancestor(tip, h);
        uint8_t want[32];
        block_header_hash(&hs.h[h], want);
        bad += !e || memcmp(e->hash, want, 32) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(block_index_ancestor(tip, 10237) == NULL);
    CHECK(block_index_ancestor(tip, -1) == NULL);
    {
        int64_t v[11];
        for (int i = 0; i < 11; i++) {
            v[i] = hs.h[10236 - i].time;
        }
        for (int i = 1; i < 11; i++) {
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                int64_t x = v[j];
                v[j] = v[j - 1];
                v[j - 1] = x;
            }
        }
        CHECK_EQ_INT(block_index_median_time_past(tip), v[5]);
        CHECK_EQ_INT(block_index_median_time_past(g), hs.h[0].time);
    }
    CHECK_EQ_INT(block_tree_size(t), 10237);
    block_tree_free(t);
    free(hs.h);
}

static void test_mainnet_retargets_and_stale(void)
{
    struct headers hs;
    const struct chain_params *p = chain_params_get("main");
    char why[512] = "";
    CHECK_EQ_INT(load_headers(&hs, "mainnet-headers-822528-830592/headers-mainnet-822528-830592.bin"),
                 RC_OK);
    if (!hs.n) {
        return;
    }
    struct block_tree *t = block_tree_new();
    struct block_index *tip = anchor_chain(t, &hs, 822528);
    size_t n = accept_all(t, &hs, 11, p, &tip, why, sizeof(why));
    test_report(n == hs.n - 11, "mainnet headers 822539..830592 accepted across 4 retargets (%zu) %s",
                n, why);
    CHECK_EQ_INT(tip->height, 830592);

    /* A changed difficulty at the next boundary is refused; so is keeping the old one. */
    struct vstate st;
    struct block_index *e;
    struct block_header h = hs.h[830592 - 822528];
    struct block_index *parent = block_index_ancestor(tip, 830591);
    struct block_tree *t2 = t; /* same tree: the real 830592 is in it, the variant is not */
    h.bits = hs.h[830591 - 822528].bits;
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t2, &st, &e, &h, p, (int64_t)h.time + 60), RC_INVALID);
    /* The variant's pow may fail first (harder target); either way it is refused. */
    CHECK(strcmp(st.reject, "bad-diffbits") == 0 || strcmp(st.reject, "high-hash") == 0);
    (void)parent;

    /* The real stale block at 823226: valid, a fork of equal height and work. */
    char path[4200], line[2048];
    snprintf(path, sizeof(path), "%s/data/mainnet-headers-822528-830592/stale-header-823226.tsv",
             test_shared_dir());
    FILE *f = fopen(path, "r");
    int seen = 0;
    while (f && fgets(line, sizeof(line), f)) {
        int height, ph;
        char hash[80], hdr[200], mainhash[80];
        if (sscanf(line, "%d %79s %199s %d %79s", &height, hash, hdr, &ph, mainhash) != 5) {
            continue;
        }
        struct buf b;
        struct reader r;
        buf_init(&b);
        hex_decode(&b, hdr);
        reader_init(&r, b.data, b.len);
        block_header_parse(&h, &r);
        buf_clear(&b);
        vstate_init(&st);
        int rc = headers_accept(t, &st, &e, &h, p, (int64_t)hs.h[hs.n - 1].time);
        test_report(rc == RC_OK, "stale header %d accepted as a fork %s", height, st.reject);
        if (rc == RC_OK) {
            struct block_index *main_e = block_index_ancestor(tip, height);
            char hx[65];
            hex_encode_rev(hx, main_e->hash, 32);
            CHECK_EQ_STR(hx, mainhash);
            CHECK(e != main_e);
            CHECK_EQ_INT(e->height, height);
            CHECK_EQ_INT(u256_cmp(&e->chain_work, &main_e->chain_work), 0);
            CHECK(block_index_fork_point(e, tip) == block_index_ancestor(tip, height - 1));
            CHECK(block_index_fork_point(tip, e) == e->prev);
        }
        seen++;
    }
    if (f) {
        fclose(f);
    }
    CHECK_EQ_INT(seen, 1);
    CHECK_EQ_INT(block_tree_size(t), hs.n + 1);
    block_tree_free(t);
    free(hs.h);
}

static void test_signet(void)
{
    struct headers hs;
    const struct chain_params *p = chain_params_get("signet");
    char why[512] = "";
    CHECK_EQ_INT(load_headers(&hs, "signet-headers-0-2015/headers-signet-0-2015.bin"), RC_OK);
    if (!hs.n) {
        return;
    }
    struct block_tree *t = block_tree_new();
    struct block_index *tip = block_tree_add(t, &hs.h[0], NULL, BLOCK_VALID_TREE);
    CHECK_EQ_MEM(tip->hash, p->genesis_hash, 32);
    size_t n = accept_all(t, &hs, 1, p, &tip, why, sizeof(why));
    test_report(n == 2015, "signet headers 1..2015 accepted (%zu) %s", n, why);
    block_tree_free(t);
    free(hs.h);
}

static void test_testnet4_bip94(void)
{
    struct headers hs;
    const struct chain_params *p = chain_params_get("testnet4");
    char why[512] = "";
    CHECK_EQ_INT(load_headers(&hs, "testnet4-headers-141120-143136/headers-testnet4-141120-143136.bin"),
                 RC_OK);
    if (!hs.n) {
        return;
    }
    struct block_tree *t = block_tree_new();
    struct block_index *tip = anchor_chain(t, &hs, 141120);
    size_t n = accept_all(t, &hs, 11, p, &tip, why, sizeof(why));
    test_report(n == 2006, "testnet4 headers 141131..143136 accepted under BIP94 (%zu) %s", n, why);
    block_tree_free(t);

    /* The same headers under the legacy rule: the retarget block is refused. */
    struct chain_params legacy = *p;
    legacy.enforce_bip94 = 0;
    t = block_tree_new();
    tip = anchor_chain(t, &hs, 141120);
    n = accept_all(t, &hs, 11, &legacy, &tip, why, sizeof(why));
    test_report(n == 2005 && strstr(why, "bad-diffbits") != NULL,
                "testnet4's retarget block fails the legacy rule (%zu accepted): %s", n, why);
    block_tree_free(t);
    free(hs.h);
}

static void test_header_rejections(void)
{
    struct headers hs;
    const struct chain_params *p = chain_params_get("main");
    char why[512];
    CHECK_EQ_INT(load_headers(&hs, "mainnet-headers-0-10236/headers-mainnet-0-10236.bin"), RC_OK);
    if (!hs.n) {
        return;
    }
    struct block_tree *t = block_tree_new();
    struct block_index *tip = block_tree_add(t, &hs.h[0], NULL, BLOCK_VALID_TREE), *e;
    hs.n = 2000;
    accept_all(t, &hs, 1, p, &tip, why, sizeof(why));
    struct vstate st;
    struct block_header h;

    /* Proof of work. */
    h = hs.h[1];
    h.nonce ^= 1;
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &e, &h, p, h.time), RC_INVALID);
    CHECK_EQ_STR(st.reject, "high-hash");

    /* Unknown parent. */
    h = hs.h[2500 - 2000 + 2000]; /* height 2500: its parent 2499 is not in the tree */
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &e, &h, p, h.time), RC_INVALID);
    CHECK_EQ_STR(st.reject, "prev-blk-not-found");
    CHECK_EQ_INT(st.result, VRESULT_MISSING_PREV);

    /* Too far in the future for the node's clock. */
    h = hs.h[2000];
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &e, &h, p, (int64_t)h.time - 7201), RC_INVALID);
    CHECK_EQ_STR(st.reject, "time-too-new");
    CHECK_EQ_INT(st.result, VRESULT_TIME_FUTURE);
    /* ... and fine once the clock has caught up. */
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &e, &h, p, (int64_t)h.time - 7200), RC_OK);
    CHECK_EQ_INT(e->height, 2000);

    /* Known valid header again: the same entry. */
    struct block_index *again;
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &again, &h, p, h.time), RC_OK);
    CHECK(again == e);

    /* A failed block: itself "duplicate-invalid", its children "bad-prevblk". */
    e->status |= BLOCK_FAILED_VALID;
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &again, &h, p, h.time), RC_INVALID);
    CHECK_EQ_STR(st.reject, "duplicate-invalid");
    h = hs.h[2001];
    vstate_init(&st);
    CHECK_EQ_INT(headers_accept(t, &st, &again, &h, p, h.time), RC_INVALID);
    CHECK_EQ_STR(st.reject, "bad-prevblk");
    CHECK(!block_index_is_valid(e, BLOCK_VALID_TREE));
    CHECK_EQ_INT(block_index_raise_validity(e, BLOCK_VALID_SCRIPTS), 0);

    /* Validity levels only go up. */
    struct block_index *b1 = block_index_ancestor(tip, 1);
    CHECK(block_index_is_valid(b1, BLOCK_VALID_TREE));
    CHECK(!block_index_is_valid(b1, BLOCK_VALID_SCRIPTS));
    CHECK_EQ_INT(block_index_raise_validity(b1, BLOCK_VALID_SCRIPTS), 1);
    CHECK_EQ_INT(block_index_raise_validity(b1, BLOCK_VALID_TREE), 0);
    CHECK(block_index_is_valid(b1, BLOCK_VALID_SCRIPTS));
    block_tree_free(t);
    free(hs.h);
}

int main(void)
{
    char probe[4200];
    size_t len;
    snprintf(probe, sizeof(probe), "%s/data/signet-headers-0-2015/README.md", test_shared_dir());
    uint8_t *p = test_read_file(probe, &len);
    if (!p) {
        return test_missing_shared("data/signet-headers-0-2015");
    }
    free(p);
    TEST(test_mainnet_from_genesis);
    TEST(test_mainnet_retargets_and_stale);
    TEST(test_signet);
    TEST(test_testnet4_bip94);
    TEST(test_header_rejections);
    return test_done();
}
