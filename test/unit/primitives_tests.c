/* Transactions, blocks and merkle roots against real chains, Bitcoin Core's vectors and
 * malformed input. */
#include <dirent.h>
#include <jansson.h>

#include "consensus/merkle.h"
#include "crypto/hash.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "test.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"

/* ---------------------------------------------------------------------------------------- */
/* Helpers */

static char *shared_path(const char *rel)
{
    static char path[8192];
    snprintf(path, sizeof(path), "%s/%s", test_shared_dir(), rel);
    return path;
}

static uint8_t *read_shared(const char *rel, size_t *len)
{
    return test_read_file(shared_path(rel), len);
}

/* Decodes hex into b (reset first). Returns 0 or RC_INVALID. */
static int unhex(struct buf *b, const char *hex)
{
    buf_reset(b);
    return hex_decode(b, hex);
}

static int hash_eq_hex(const uint8_t h[32], const char *display_hex)
{
    uint8_t want[32];
    return display_hex && hex_decode_hash32_rev(want, display_hex) == 0 && memcmp(h, want, 32) == 0;
}

static void print_hash(const char *label, const uint8_t h[32])
{
    char s[65];
    hex_encode_rev(s, h, 32);
    printf("#   %s: %s\n", label, s);
}

/* Sorted names in dir ending in suffix. Returns the count; *names is a malloc'd array of
 * malloc'd strings. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t list_dir(const char *dir, const char *suffix, char ***names)
{
    DIR *d = opendir(dir);
    size_t n = 0, cap = 0;
    *names = NULL;
    if (!d) {
        return 0;
    }
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < sl || strcmp(e->d_name + l - sl, suffix) != 0) {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            *names = realloc(*names, cap * sizeof(**names));
        }
        (*names)[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n) {
        qsort(*names, n, sizeof(**names), cmp_str);
    }
    return n;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
}

/* Finds the BIP141 witness commitment in the coinbase (the last output whose script starts
 * 6a24aa21a9ed and is at least 38 bytes, as Core's GetWitnessCommitmentIndex). Returns the
 * 32-byte commitment or NULL. */
static const uint8_t *witness_commitment(const struct tx *cb)
{
    static const uint8_t prefix[6] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
    const uint8_t *found = NULL;
    for (size_t i = 0; i < cb->vout_count; i++) {
        const struct bytes *s = &cb->vout[i].script_pubkey;
        if (s->len >= 38 && memcmp(s->data, prefix, 6) == 0) {
            found = s->data + 6;
        }
    }
    return found;
}

/* What check_block() found, for the caller's counts. */
struct block_stats {
    size_t commitments;           /* blocks whose witness commitment was verified */
    size_t unchecked_commitments; /* commitments without a coinbase nonce (pre-activation) */
    size_t witness_txs;           /* transactions with a witness */
};

/* Every structural property of one parsed-and-reserialized block. Prints diagnostics for
 * the first few failures; returns 1 if all hold. */
static int check_block(const uint8_t *p, size_t len, const char *label, struct block *b,
                       struct block_stats *st)
{
    char err[256];
    int ok = 1;
    int rc = block_parse(b, p, len, err, sizeof(err));
    if (rc != 0) {
        printf("# %s: block_parse failed (%s): %s\n", label, rc_str(rc), err);
        return 0;
    }
    struct buf out;
    buf_init(&out);
    block_serialize(b, &out, 1);
    if (out.len != len || memcmp(out.data, p, len) != 0) {
        printf("# %s: witness re-serialization differs (%zu vs %zu bytes)\n", label, out.len, len);
        ok = 0;
    }
    buf_reset(&out);
    block_serialize(b, &out, 0);
    if (out.len != b->size_stripped || b->size_total != len) {
        printf("# %s: sizes stripped %zu (serialized %zu) total %zu (input %zu)\n", label,
               b->size_stripped, out.len, b->size_total, len);
        ok = 0;
    }
    buf_clear(&out);

    uint8_t h[32];
    block_header_hash(&b->header, h);
    if (memcmp(h, b->hash, 32) != 0) {
        printf("# %s: block_header_hash differs from block_parse's hash\n", label);
        ok = 0;
    }

    /* Hashes computed while parsing (from the input bytes) must equal those computed by
     * serializing the fields again. */
    size_t wit = 0;
    for (size_t i = 0; i < b->tx_count; i++) {
        struct tx *t = &b->txs[i];
        struct tx again = *t;
        tx_compute_hashes(&again);
        if (memcmp(again.txid, t->txid, 32) || memcmp(again.wtxid, t->wtxid, 32) ||
            again.size_stripped != t->size_stripped || again.size_total != t->size_total) {
            printf("# %s: tx %zu: parse-time hashes/sizes differ from tx_compute_hashes\n", label,
                   i);
            ok = 0;
        }
        if (tx_has_witness(t)) {
            wit++;
            if (memcmp(t->txid, t->wtxid, 32) == 0 || t->size_total <= t->size_stripped) {
                printf("# %s: tx %zu has a witness but txid == wtxid or no extra size\n", label, i);
                ok = 0;
            }
        } else if (memcmp(t->txid, t->wtxid, 32) != 0 || t->size_total != t->size_stripped) {
            printf("# %s: tx %zu has no witness but txid != wtxid\n", label, i);
            ok = 0;
        }
        if ((i == 0) != tx_is_coinbase(t)) {
            printf("# %s: tx %zu: tx_is_coinbase %d\n", label, i, tx_is_coinbase(t));
            ok = 0;
        }
    }

    int mutated = -1;
    merkle_block_root(h, &mutated, b);
    if (memcmp(h, b->header.merkle_root, 32) != 0 || mutated != 0) {
        printf("# %s: merkle root mismatch or mutated (%d)\n", label, mutated);
        print_hash("computed", h);
        print_hash("header", b->header.merkle_root);
        ok = 0;
    }

    const uint8_t *commit = b->tx_count ? witness_commitment(&b->txs[0]) : NULL;
    if (commit) {
        const struct tx *cb = &b->txs[0];
        uint8_t both[64], c[32];
        if (cb->vin_count != 1 || cb->vin[0].witness_count != 1 ||
            cb->vin[0].witness[0].len != 32) {
            /* Miners signalled segwit with a commitment before activation (481815): without a
             * nonce there is nothing to check, and there must be no witness data. */
            if (wit) {
                printf("# %s: witness commitment without a 32-byte coinbase nonce\n", label);
                ok = 0;
            }
            st->unchecked_commitments++;
        } else {
            merkle_block_witness_root(both, &mutated, b);
            memcpy(both + 32, cb->vin[0].witness[0].data, 32);
            hash_sha256d(c, both, 64);
            if (memcmp(c, commit, 32) != 0) {
                printf("# %s: witness commitment mismatch\n", label);
                ok = 0;
            } else {
                st->commitments++;
            }
        }
    } else if (wit) {
        printf("# %s: %zu witness txs but no witness commitment\n", label, wit);
        ok = 0;
    }
    st->witness_txs += wit;
    return ok;
}

/* Walks a blk*.dat image: [magic][LE length][block]..., stopping at a zero magic (Core's
 * pre-allocated padding) or the end. Calls check_block on each; counts into the out
 * parameters. Returns 1 if the framing and every block were fine. */
struct chain_scan {
    size_t blocks, txs;
    uint8_t tip[32];
    size_t bad_links, bad_blocks;
    struct block_stats st;
    size_t *ntx; /* optional: tx count per height */
    size_t ntx_cap;
    uint8_t (*hashes)[32]; /* optional: block hash per height */
};

static int scan_blk(const uint8_t *f, size_t flen, const uint8_t magic[4], struct chain_scan *cs)
{
    size_t pos = 0;
    uint8_t prev[32] = {0};
    while (pos + 8 <= flen) {
        if (memcmp(f + pos, "\0\0\0\0", 4) == 0) {
            /* Padding: the rest must be zeros. */
            for (size_t i = pos; i < flen; i++) {
                if (f[i] != 0) {
                    printf("# non-zero byte at %zu after padding began at %zu\n", i, pos);
                    return 0;
                }
            }
            memcpy(cs->tip, prev, 32);
            return 1;
        }
        if (memcmp(f + pos, magic, 4) != 0) {
            printf("# bad magic at offset %zu\n", pos);
            return 0;
        }
        size_t len = rd_u32le(f + pos + 4);
        if (len > flen - pos - 8) {
            printf("# record at %zu overruns the file\n", pos);
            return 0;
        }
        char label[64];
        snprintf(label, sizeof(label), "block at height %zu", cs->blocks);
        struct block b;
        if (!check_block(f + pos + 8, len, label, &b, &cs->st)) {
            if (cs->bad_blocks++ > 5) {
                block_clear(&b);
                return 0;
            }
        }
        if (cs->blocks > 0 && memcmp(b.header.prev_hash, prev, 32) != 0) {
            cs->bad_links++;
        }
        if (cs->ntx && cs->blocks < cs->ntx_cap) {
            cs->ntx[cs->blocks] = b.tx_count;
            memcpy(cs->hashes[cs->blocks], b.hash, 32);
        }
        memcpy(prev, b.hash, 32);
        cs->blocks++;
        cs->txs += b.tx_count;
        block_clear(&b);
        pos += 8 + len;
    }
    if (pos != flen) {
        printf("# %zu stray bytes at the end\n", flen - pos);
        return 0;
    }
    memcpy(cs->tip, prev, 32);
    return 1;
}

/* ---------------------------------------------------------------------------------------- */
/* Real chains and blocks */

static void test_regtest_small_chain(void)
{
    static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda};
    size_t flen;
    uint8_t *f = read_shared("data/regtest-small/blk00000.dat", &flen);
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    struct chain_scan cs;
    memset(&cs, 0, sizeof(cs));
    cs.ntx_cap = 2000;
    cs.ntx = calloc(cs.ntx_cap, sizeof(*cs.ntx));
    cs.hashes = calloc(cs.ntx_cap, 32);
    CHECK(scan_blk(f, flen, magic, &cs));
    CHECK_EQ_INT(cs.bad_blocks, 0);
    CHECK_EQ_INT(cs.bad_links, 0);
    CHECK_EQ_INT(cs.blocks, 1301);
    CHECK_EQ_INT(cs.txs, 6541);
    /* Every block but genesis carries a commitment (README: 1,300 coinbase commitments). */
    CHECK_EQ_INT(cs.st.commitments, 1300);
    CHECK(cs.st.witness_txs > 1300);
    CHECK(hash_eq_hex(cs.tip, "455f3c7d919db04f3b049c860c965f119ca34fe05291f7b22a56d432f5793a00"));
    CHECK(hash_eq_hex(cs.hashes[0],
                      "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"));

    /* Per-height tx counts and every 100th hash against Core's answers. */
    json_error_t jerr;
    json_t *exp = json_load_file(shared_path("data/regtest-small/expected.json"), 0, &jerr);
    CHECK(exp != NULL);
    if (exp) {
        json_t *ntx = json_object_get(exp, "block_ntx");
        CHECK_EQ_INT(json_array_size(ntx), 1301);
        size_t bad = 0;
        for (size_t h = 0; h < json_array_size(ntx) && h < cs.blocks; h++) {
            if ((size_t)json_integer_value(json_array_get(ntx, h)) != cs.ntx[h]) {
                bad++;
            }
        }
        CHECK_EQ_INT(bad, 0);
        json_t *every = json_object_get(exp, "getblockhash_every_100");
        const char *key;
        json_t *val;
        size_t seen = 0;
        json_object_foreach(every, key, val)
        {
            size_t h = (size_t)strtoul(key, NULL, 10);
            CHECK(h < cs.blocks);
            if (h < cs.blocks) {
                CHECK(hash_eq_hex(cs.hashes[h], json_string_value(val)));
                seen++;
            }
        }
        CHECK_EQ_INT(seen, 14);
        json_decref(exp);
    }
    free(cs.ntx);
    free(cs.hashes);
    free(f);
}

static void test_mainnet_0_438(void)
{
    static const uint8_t magic[4] = {0xf9, 0xbe, 0xb4, 0xd9};
    size_t flen;
    uint8_t *f = read_shared("data/mainnet-blocks-0-438/blk-mainnet-0-438.dat", &flen);
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    struct chain_scan cs;
    memset(&cs, 0, sizeof(cs));
    CHECK(scan_blk(f, flen, magic, &cs));
    CHECK_EQ_INT(cs.bad_blocks, 0);
    CHECK_EQ_INT(cs.bad_links, 0);
    CHECK_EQ_INT(cs.blocks, 439);
    CHECK_EQ_INT(cs.txs, 446);
    CHECK_EQ_INT(cs.st.commitments, 0);
    CHECK(hash_eq_hex(cs.tip, "0000000025c6b644f8add734be7e666fa4afa43ca0204d623a0c0b1fd2104c7a"));

    /* The genesis block: one transaction, whose txid is the merkle root. */
    struct block g;
    char err[200];
    size_t glen = rd_u32le(f + 4);
    CHECK_EQ_INT(block_parse(&g, f + 8, glen, err, sizeof(err)), 0);
    CHECK_EQ_INT(g.tx_count, 1);
    CHECK_EQ_INT(glen, 285);
    CHECK(hash_eq_hex(g.hash, "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"));
    if (g.tx_count == 1) {
        CHECK(hash_eq_hex(g.txs[0].txid,
                          "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"));
        CHECK_EQ_MEM(g.txs[0].txid, g.txs[0].wtxid, 32);
        CHECK_EQ_MEM(g.txs[0].txid, g.header.merkle_root, 32);
        CHECK(tx_is_coinbase(&g.txs[0]));
        CHECK_EQ_INT(g.txs[0].size_total, 204);
        CHECK_EQ_INT(tx_weight(&g.txs[0]), 816);
        CHECK_EQ_INT(tx_vsize(&g.txs[0]), 204);
        CHECK_EQ_U64(g.txs[0].vout[0].value_sat, 5000000000ULL);
        CHECK_EQ_INT(g.header.version, 1);
        CHECK_EQ_U64(g.header.time, 1231006505);
        CHECK_EQ_U64(g.header.bits, 0x1d00ffff);
        CHECK_EQ_U64(g.header.nonce, 2083236893);
        uint8_t root[32];
        int mutated = -1;
        merkle_block_root(root, &mutated, &g);
        CHECK_EQ_MEM(root, g.txs[0].txid, 32);
        CHECK_EQ_INT(mutated, 0);
        /* A single leaf is its own root; in the witness tree it is the coinbase's zero. */
        static const uint8_t zero[32];
        merkle_block_witness_root(root, &mutated, &g);
        CHECK_EQ_MEM(root, zero, 32);
        CHECK_EQ_INT(mutated, 0);
        CHECK_EQ_INT(block_weight(&g), 285 * 4);
    }
    block_clear(&g);
    CHECK_EQ_INT(g.tx_count, 0);
    CHECK(g.txs == NULL);
    free(f);
}

/* Every <height>-<hash>.bin in a folder: parses, hash equals the name, merkle root and
 * witness commitment hold, round-trips. One TAP line per file. */
static void run_block_dir(const char *rel, size_t expect_files)
{
    char **names;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", shared_path(rel));
    size_t n = list_dir(dir, ".bin", &names);
    test_report(n == expect_files, "%s: %zu block files (expected %zu)", rel, n, expect_files);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        size_t len = 0;
        uint8_t *p = test_read_file(path, &len);
        int ok = p != NULL;
        struct block b;
        struct block_stats st = {0, 0, 0};
        if (ok) {
            ok = check_block(p, len, names[i], &b, &st);
            const char *dash = strchr(names[i], '-');
            char hash_hex[65] = "";
            if (dash && strlen(dash + 1) >= 64) {
                memcpy(hash_hex, dash + 1, 64);
                hash_hex[64] = '\0';
            }
            if (b.tx_count == 0 || !hash_eq_hex(b.hash, hash_hex)) {
                printf("# %s: hash differs from the file name\n", names[i]);
                print_hash("computed", b.hash);
                ok = 0;
            }
            block_clear(&b);
        }
        test_report(ok, "%s/%s (%zu bytes, %zu witness txs, commitment %s)", rel, names[i], len,
                    st.witness_txs,
                    st.commitments             ? "checked"
                    : st.unchecked_commitments ? "without nonce (pre-activation)"
                                               : "none");
        free(p);
    }
    free_names(names, n);
}

static void test_block_dirs(void)
{
    run_block_dir("data/mainnet-sample-blocks", 14);
    run_block_dir("data/mainnet-edge-case-blocks", 10);
    run_block_dir("data/mainnet-blocks-with-spent-outputs", 3);
}

static void test_block413567_vector(void)
{
    size_t len;
    uint8_t *p = read_shared("vectors/block413567.raw", &len);
    CHECK(p != NULL);
    if (!p) {
        return;
    }
    struct block b;
    struct block_stats st = {0, 0, 0};
    CHECK(check_block(p, len, "block413567.raw", &b, &st));
    CHECK_EQ_INT(len, 999887);
    CHECK_EQ_INT(b.tx_count, 1557);
    CHECK(hash_eq_hex(b.hash, "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069"));
    CHECK_EQ_INT(st.witness_txs, 0);
    CHECK_EQ_INT(b.size_stripped, len);
    CHECK_EQ_INT(block_weight(&b), len * 4);
    block_clear(&b);
    free(p);
}

/* Core's getrawtransaction answers: txid, hash (wtxid), size, vsize, weight. */
static int check_tx_json(json_t *j, const char *label, int *segwit)
{
    struct buf raw;
    struct tx t;
    char err[200];
    int ok = 1;
    buf_init(&raw);
    const char *hex = json_string_value(json_object_get(j, "hex"));
    if (!hex || unhex(&raw, hex) != 0) {
        printf("# %s: no hex\n", label);
        buf_clear(&raw);
        return 0;
    }
    int rc = tx_deserialize(&t, raw.data, raw.len, err, sizeof(err));
    if (rc) {
        printf("# %s: %s\n", label, err);
        buf_clear(&raw);
        return 0;
    }
    if (!hash_eq_hex(t.txid, json_string_value(json_object_get(j, "txid"))) ||
        !hash_eq_hex(t.wtxid, json_string_value(json_object_get(j, "hash")))) {
        printf("# %s: txid or wtxid differs\n", label);
        print_hash("txid", t.txid);
        print_hash("wtxid", t.wtxid);
        ok = 0;
    }
    if ((json_int_t)t.size_total != json_integer_value(json_object_get(j, "size")) ||
        (json_int_t)tx_vsize(&t) != json_integer_value(json_object_get(j, "vsize")) ||
        (json_int_t)tx_weight(&t) != json_integer_value(json_object_get(j, "weight"))) {
        printf("# %s: size %zu vsize %zu weight %zu differ from Core's\n", label, t.size_total,
               tx_vsize(&t), tx_weight(&t));
        ok = 0;
    }
    if ((json_int_t)t.version != json_integer_value(json_object_get(j, "version")) ||
        (json_int_t)t.locktime != json_integer_value(json_object_get(j, "locktime")) ||
        t.vin_count != json_array_size(json_object_get(j, "vin")) ||
        t.vout_count != json_array_size(json_object_get(j, "vout"))) {
        printf("# %s: version/locktime/vin/vout count differ\n", label);
        ok = 0;
    }
    struct buf out;
    buf_init(&out);
    tx_serialize(&t, &out, 1);
    if (out.len != raw.len || memcmp(out.data, raw.data, raw.len) != 0) {
        printf("# %s: re-serialization differs\n", label);
        ok = 0;
    }
    buf_clear(&out);
    if (memcmp(t.txid, t.wtxid, 32) != 0) {
        (*segwit)++;
    }
    tx_clear(&t);
    buf_clear(&raw);
    return ok;
}

static void test_regtest_sample_txs(void)
{
    char **names;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", shared_path("data/regtest-small/txs"));
    size_t n = list_dir(dir, ".json", &names);
    int segwit = 0;
    test_report(n == 23, "regtest-small/txs: %zu sample files (expected 23)", n);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        json_error_t jerr;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        json_t *j = json_load_file(path, 0, &jerr);
        int ok = j != NULL && check_tx_json(j, names[i], &segwit);
        test_report(ok, "regtest-small/txs/%s", names[i]);
        json_decref(j);
    }
    /* The samples include segwit spends, whose txid and wtxid differ. */
    test_report(segwit >= 10, "regtest-small/txs: %d samples with txid != wtxid", segwit);
    free_names(names, n);
}

static void test_regtest_getblock_json(void)
{
    char **names;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", shared_path("data/regtest-small/blocks"));
    size_t n = list_dir(dir, ".json", &names);
    test_report(n == 16, "regtest-small/blocks: %zu getblock files (expected 16)", n);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        json_error_t jerr;
        int ok = 1;
        int segwit = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        json_t *j = json_load_file(path, 0, &jerr);
        /* getblock_NNNNNN.json goes with block_NNNNNN.hex */
        snprintf(path, sizeof(path), "%s/block_%s", dir, names[i] + strlen("getblock_"));
        strcpy(path + strlen(path) - strlen(".json"), ".hex");
        size_t hexlen;
        char *hex = (char *)test_read_file(path, &hexlen);
        struct buf raw;
        buf_init(&raw);
        struct block b;
        block_init(&b);
        if (!j || !hex) {
            ok = 0;
        } else {
            while (hexlen && (hex[hexlen - 1] == '\n' || hex[hexlen - 1] == '\r')) {
                hex[--hexlen] = '\0';
            }
            struct block_stats st = {0, 0, 0};
            ok = unhex(&raw, hex) == 0 && check_block(raw.data, raw.len, names[i], &b, &st);
        }
        if (ok) {
            json_t *txs = json_object_get(j, "tx");
            if (!hash_eq_hex(b.hash, json_string_value(json_object_get(j, "hash"))) ||
                !hash_eq_hex(b.header.merkle_root,
                             json_string_value(json_object_get(j, "merkleroot"))) ||
                (json_int_t)b.size_total != json_integer_value(json_object_get(j, "size")) ||
                (json_int_t)b.size_stripped !=
                    json_integer_value(json_object_get(j, "strippedsize")) ||
                (json_int_t)block_weight(&b) != json_integer_value(json_object_get(j, "weight")) ||
                b.tx_count != json_array_size(txs)) {
                printf("# %s: hash/merkleroot/size/strippedsize/weight/nTx differ\n", names[i]);
                ok = 0;
            }
            for (size_t k = 0; ok && k < b.tx_count; k++) {
                char label[128];
                snprintf(label, sizeof(label), "%s tx %zu", names[i], k);
                ok = check_tx_json(json_array_get(txs, k), label, &segwit);
            }
        }
        test_report(ok, "regtest-small/blocks/%s (%zu txs)", names[i], b.tx_count);
        block_clear(&b);
        buf_clear(&raw);
        free(hex);
        json_decref(j);
    }
    free_names(names, n);
}

/* ---------------------------------------------------------------------------------------- */
/* Core's JSON vectors: the serialized transactions parse and round-trip byte for byte. */

static void run_tx_vector_file(const char *rel, size_t hex_index, size_t expect)
{
    json_error_t jerr;
    json_t *all = json_load_file(shared_path(rel), 0, &jerr);
    size_t count = 0, bad = 0, witness = 0;
    if (!all) {
        test_report(0, "%s: unreadable: %s", rel, jerr.text);
        return;
    }
    struct buf raw, out;
    buf_init(&raw);
    buf_init(&out);
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *e = json_array_get(all, i);
        json_t *h = json_array_get(e, hex_index);
        if (json_array_size(e) == 1 || !json_is_string(h)) {
            continue; /* a comment */
        }
        count++;
        struct tx t;
        char err[200];
        if (unhex(&raw, json_string_value(h)) != 0 ||
            tx_deserialize(&t, raw.data, raw.len, err, sizeof(err)) != 0) {
            if (bad++ < 5) {
                printf("# %s entry %zu: %s\n", rel, i, err);
            }
            continue;
        }
        buf_reset(&out);
        tx_serialize(&t, &out, 1);
        struct tx again = t;
        tx_compute_hashes(&again);
        if (out.len != raw.len || memcmp(out.data, raw.data, raw.len) != 0 ||
            memcmp(again.txid, t.txid, 32) || memcmp(again.wtxid, t.wtxid, 32) ||
            t.size_total != raw.len) {
            if (bad++ < 5) {
                printf("# %s entry %zu: round trip or hashes differ\n", rel, i);
            }
        }
        witness += tx_has_witness(&t);
        tx_clear(&t);
    }
    buf_clear(&raw);
    buf_clear(&out);
    json_decref(all);
    test_report(bad == 0 && count == expect,
                "%s: %zu transactions parse and round-trip (%zu with witness), %zu bad", rel, count,
                witness, bad);
}

static void test_vectors(void)
{
    run_tx_vector_file("vectors/tx_valid.json", 1, 121);
    run_tx_vector_file("vectors/tx_invalid.json", 1, 93);
    run_tx_vector_file("vectors/sighash.json", 0, 500);
}

/* ---------------------------------------------------------------------------------------- */
/* Malformed input */

/* A real segwit transaction (regtest-small payment sample) and a real segwit block. */
static int load_sample_tx(struct buf *raw)
{
    json_error_t jerr;
    json_t *j = json_load_file(
        shared_path("data/regtest-small/txs/"
                    "getrawtransaction_rawkey_spend_p2pkh+p2sh-p2wpkh+p2tr_79a3b2663958dca2.json"),
        0, &jerr);
    int ok = j && unhex(raw, json_string_value(json_object_get(j, "hex"))) == 0;
    json_decref(j);
    return ok;
}

static void test_truncated_tx(void)
{
    struct buf raw;
    buf_init(&raw);
    CHECK(load_sample_tx(&raw));
    if (raw.len == 0) {
        buf_clear(&raw);
        return;
    }
    struct tx t;
    char err[256];
    CHECK_EQ_INT(tx_deserialize(&t, raw.data, raw.len, err, sizeof(err)), 0);
    CHECK(tx_has_witness(&t));
    CHECK_EQ_INT(t.vin_count, 3);
    tx_clear(&t);
    size_t bad = 0;
    for (size_t n = 0; n < raw.len; n++) {
        /* A copy of exactly n bytes, so that ASan sees any read past the end. */
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, raw.data, n);
        int rc = tx_deserialize(&t, p, n, err, sizeof(err));
        if (rc != RC_TRUNCATED || t.vin != NULL || t.vin_count != 0 ||
            strncmp(err, "truncated reading ", 18) != 0) {
            if (bad++ < 5) {
                printf("# prefix of %zu bytes: rc %d: %s\n", n, rc, err);
            }
        }
        free(p);
    }
    CHECK_EQ_INT(bad, 0);

    /* The message names the field and the index. Layout: version 4, marker+flag 2, count 1,
     * input 0 = 32 + 4 + scriptSig length 1 + 107 (P2PKH) + 4. */
    tx_deserialize(&t, raw.data, 4 + 2 + 1 + 36 + 1 + 10, err, sizeof(err));
    CHECK_EQ_STR(err, "truncated reading input 0 scriptSig at offset 44: need 107 bytes, 10 left");
    tx_deserialize(&t, raw.data, 2, err, sizeof(err));
    CHECK_EQ_STR(err, "truncated reading version at offset 0: need 4 bytes, 2 left");
    tx_deserialize(&t, raw.data, raw.len - 1, err, sizeof(err));
    char want[128];
    snprintf(want, sizeof(want), "truncated reading locktime at offset %zu: need 4 bytes, 3 left",
             raw.len - 4);
    CHECK_EQ_STR(err, want);
    buf_clear(&raw);
}

static void test_truncated_block(void)
{
    size_t len;
    uint8_t *full = read_shared("data/mainnet-sample-blocks/"
                                "482683-000000000000000000c238240ef6dcb26c37e75e16514e6ffc0aef7eee7"
                                "3e747.bin",
                                &len);
    CHECK(full != NULL);
    if (!full) {
        return;
    }
    struct block b;
    char err[256];
    size_t bad = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, full, n);
        int rc = block_parse(&b, p, n, err, sizeof(err));
        if (rc != RC_TRUNCATED || b.txs != NULL || b.tx_count != 0) {
            if (bad++ < 5) {
                printf("# block prefix of %zu bytes: rc %d: %s\n", n, rc, err);
            }
        }
        free(p);
    }
    CHECK_EQ_INT(bad, 0);

    block_parse(&b, full, 79, err, sizeof(err));
    CHECK_EQ_STR(err, "truncated reading block header at offset 0: need 80 bytes, 79 left");
    /* Inside the second transaction's first input: "tx 1: " then the reader's message. */
    CHECK_EQ_INT(block_parse(&b, full, len, err, sizeof(err)), 0);
    size_t tx1 = 80 + 1 + b.txs[0].size_total;
    /* version, the marker and flag if it has a witness, the input count, then the txid. */
    size_t txid_pos = tx1 + 4 + (tx_has_witness(&b.txs[1]) ? 2 : 0) + 1;
    block_clear(&b);
    CHECK_EQ_INT(block_parse(&b, full, txid_pos + 10, err, sizeof(err)), RC_TRUNCATED);
    char want[200];
    snprintf(want, sizeof(want),
             "tx 1: truncated reading input 0 prevout txid at offset %zu: need 32 bytes, 10 left",
             txid_pos);
    CHECK_EQ_STR(err, want);

    /* Trailing garbage after a complete block. */
    uint8_t *more = malloc(len + 1);
    memcpy(more, full, len);
    more[len] = 0;
    CHECK_EQ_INT(block_parse(&b, more, len + 1, err, sizeof(err)), RC_TRAILING);
    CHECK(b.txs == NULL);
    CHECK_EQ_STR(err, "1 bytes of trailing data after block at offset 9288");
    free(more);
    free(full);
}

/* Builds a small legacy tx: 1 input (scriptSig 51), 1 output (script 51). */
static void build_simple_tx(struct buf *b)
{
    buf_put_u32le(b, 1);
    buf_put_u8(b, 1);
    buf_append_fill(b, 0x11, 32);
    buf_put_u32le(b, 7);
    buf_put_u8(b, 1);
    buf_put_u8(b, 0x51);
    buf_put_u32le(b, 0xfffffffe);
    buf_put_u8(b, 1);
    buf_put_u64le(b, 1000);
    buf_put_u8(b, 1);
    buf_put_u8(b, 0x51);
    buf_put_u32le(b, 99);
}

static void test_malformed_tx(void)
{
    struct buf b;
    struct tx t;
    char err[256];
    buf_init(&b);

    /* The simple tx parses; trailing garbage is refused. */
    build_simple_tx(&b);
    CHECK_EQ_INT(b.len, 62);
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), 0);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_INT(t.version, 1);
    CHECK_EQ_INT(t.vin_count, 1);
    CHECK_EQ_U64(t.vin[0].prevout.n, 7);
    CHECK_EQ_U64(t.vin[0].sequence, 0xfffffffe);
    CHECK_EQ_INT(t.vin[0].script_sig.len, 1);
    CHECK(t.vin[0].witness == NULL);
    CHECK_EQ_INT(t.vout_count, 1);
    CHECK_EQ_U64(t.vout[0].value_sat, 1000);
    CHECK_EQ_U64(t.locktime, 99);
    CHECK(!tx_is_coinbase(&t));
    CHECK_EQ_INT(t.size_total, 62);
    CHECK_EQ_INT(t.size_stripped, 62);
    CHECK_EQ_INT(tx_weight(&t), 248);
    tx_clear(&t);
    buf_put_u8(&b, 0xab);
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), RC_TRAILING);
    CHECK_EQ_STR(err, "1 bytes of trailing data after transaction at offset 62");
    CHECK(t.vin == NULL && t.vout == NULL);

    /* A reader may hold more than one tx: tx_parse stops after the locktime. */
    struct reader r;
    reader_init(&r, b.data, b.len);
    CHECK_EQ_INT(tx_parse(&t, &r, 1), 0);
    CHECK_EQ_INT(r.pos, 62);
    tx_clear(&t);

    /* Non-canonical CompactSize for the input count (fd 0100) and a script length. */
    buf_reset(&b);
    buf_put_u32le(&b, 1);
    buf_put_u8(&b, 0xfd);
    buf_put_u16le(&b, 1);
    buf_append_fill(&b, 0, 60);
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), RC_NONCANONICAL);
    CHECK_EQ_STR(err, "non-canonical ReadCompactSize(): input count at offset 4");
    buf_reset(&b);
    build_simple_tx(&b);
    /* scriptSig length at offset 41: replace "01 51" by "fd 0100 51". */
    {
        struct buf c;
        buf_init(&c);
        buf_append(&c, b.data, 41);
        buf_put_u8(&c, 0xfd);
        buf_put_u16le(&c, 1);
        buf_append(&c, b.data + 42, b.len - 42);
        CHECK_EQ_INT(tx_deserialize(&t, c.data, c.len, err, sizeof(err)), RC_NONCANONICAL);
        CHECK_EQ_STR(err, "non-canonical ReadCompactSize(): input 0 scriptSig length at offset 41");
        buf_clear(&c);
    }

    /* Absurd counts: 2^25 inputs with 10 bytes left fails at once, without allocating for
     * them (the allocation is bounded by what the input could hold; ASan would report a
     * 2.5 GB calloc), naming the first field that does not fit. */
    buf_reset(&b);
    buf_put_u32le(&b, 1);
    buf_put_u8(&b, 0xfe);
    buf_put_u32le(&b, 0x02000000);
    buf_append_fill(&b, 0x01, 10);
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), RC_TRUNCATED);
    CHECK_EQ_STR(err, "truncated reading input 0 prevout txid at offset 9: need 32 bytes, 10 left");
    /* One past Core's MAX_SIZE is out of range before anything else. */
    b.data[5] = 0x01;
    b.data[8] = 0x02;
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), RC_TOO_LARGE);
    /* The largest 64-bit count too. */
    buf_reset(&b);
    buf_put_u32le(&b, 1);
    buf_put_u8(&b, 0xff);
    buf_put_u64le(&b, UINT64_MAX);
    CHECK_EQ_INT(tx_deserialize(&t, b.data, b.len, err, sizeof(err)), RC_TOO_LARGE);
    /* Output count 65535 with 100 zero bytes: 11 empty outputs of 9 bytes, then the end. */
    buf_reset(&b);
    build_simple_tx(&b);
    b.len -= 4 + 10 + 1; /* drop locktime, the output and the output count */
    buf_put_u8(&b, 0xfd);
    buf_put_u16le(&b, 0xffff);
    buf_append_fill(&b, 0, 100);
    CHECK_EQ_INT(tx_deserialize(&t, b.data + 0, b.len, err, sizeof(err)), RC_TRUNCATED);
    CHECK_EQ_STR(err, "truncated reading output 11 value at offset 149: need 8 bytes, 1 left");

    /* Witness records. Layout: version, 00 marker, flags, vin (1 input), vout (1 output),
     * witness, locktime. */
    struct buf w;
    buf_init(&w);
    buf_reset(&b);
    build_simple_tx(&b);
    /* Extended format with flags f and a witness stack given by wit/wlen for input 0. */
#define BUILD_EXT(flags_, wit_, wlen_)                                                             \
    do {                                                                                           \
        buf_reset(&w);                                                                             \
        buf_append(&w, b.data, 4);                                                                 \
        buf_put_u8(&w, 0x00);                                                                      \
        buf_put_u8(&w, (flags_));                                                                  \
        buf_append(&w, b.data + 4, b.len - 8);                                                     \
        buf_append(&w, (wit_), (wlen_));                                                           \
        buf_append(&w, b.data + b.len - 4, 4);                                                     \
    } while (0)

    static const uint8_t wit_one[] = {0x02, 0x01, 0xaa, 0x00}; /* 2 items: "aa", "" */
    static const uint8_t wit_none[] = {0x00};
    static const uint8_t wit_huge[] = {0xfd, 0x00, 0x10};
    BUILD_EXT(0x01, wit_one, sizeof(wit_one));
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), 0);
    CHECK(tx_has_witness(&t));
    CHECK_EQ_INT(t.vin[0].witness_count, 2);
    CHECK_EQ_INT(t.vin[0].witness[0].len, 1);
    CHECK_EQ_INT(t.vin[0].witness[0].data[0], 0xaa);
    CHECK_EQ_INT(t.vin[0].witness[1].len, 0);
    CHECK(t.vin[0].witness[1].data == NULL);
    CHECK_EQ_INT(t.size_total, 68);
    CHECK_EQ_INT(t.size_stripped, 62);
    CHECK_EQ_INT(tx_weight(&t), 254);
    CHECK_EQ_INT(tx_vsize(&t), 64);
    {
        uint8_t h[32];
        hash_sha256d(h, b.data, b.len);
        CHECK_EQ_MEM(t.txid, h, 32);
        hash_sha256d(h, w.data, w.len);
        CHECK_EQ_MEM(t.wtxid, h, 32);
    }
    tx_clear(&t);
    /* Without witness support the same bytes read as an empty vin, then the flags byte as a
     * count of one output (value 01 11 11 ..., a 0x11-byte script), then a locktime. */
    reader_init(&r, w.data, w.len);
    CHECK_EQ_INT(tx_parse(&t, &r, 0), 0);
    CHECK_EQ_INT(t.vin_count, 0);
    CHECK_EQ_INT(t.vout_count, 1);
    CHECK_EQ_U64(t.vout[0].value_sat, 0x1111111111111101ULL);
    CHECK_EQ_INT(t.vout[0].script_pubkey.len, 0x11);
    CHECK_EQ_INT(r.pos, 4 + 1 + 1 + 8 + 1 + 17 + 4);
    tx_clear(&t);
    /* Serialization without witness gives the legacy bytes. */
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), 0);
    {
        struct buf o;
        buf_init(&o);
        tx_serialize(&t, &o, 0);
        CHECK_EQ_INT(o.len, b.len);
        CHECK_EQ_MEM(o.data, b.data, b.len);
        buf_reset(&o);
        tx_serialize(&t, &o, 1);
        CHECK_EQ_INT(o.len, w.len);
        CHECK_EQ_MEM(o.data, w.data, w.len);
        buf_clear(&o);
    }
    tx_clear(&t);

    BUILD_EXT(0x01, wit_none, sizeof(wit_none));
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Superfluous witness record at offset 61");
    BUILD_EXT(0x02, wit_none, 0);
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Unknown transaction optional data (flags 0x02)");
    BUILD_EXT(0x03, wit_one, sizeof(wit_one));
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Unknown transaction optional data (flags 0x02)");
    BUILD_EXT(0x01, wit_huge, sizeof(wit_huge));
    CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), RC_TRUNCATED);
    /* 4096 items: item 0's length is the locktime's first byte (0x63). */
    CHECK_EQ_STR(err,
                 "truncated reading input 0 witness item 0 at offset 64: need 99 bytes, 3 left");
    {
        static const uint8_t wit_short[] = {0x03, 0x01, 0xaa, 0x00, 0x09, 0x01};
        BUILD_EXT(0x01, wit_short, sizeof(wit_short));
        CHECK_EQ_INT(tx_deserialize(&t, w.data, w.len, err, sizeof(err)), RC_TRUNCATED);
        CHECK_EQ_STR(err, "truncated reading input 0 witness item 2 at offset 65: need 9 bytes, "
                          "5 left");
    }
#undef BUILD_EXT
    buf_clear(&w);

    /* Core's empty-vin cases: "version 00 00 locktime" is an empty vin, the flags byte 0, no
     * vout read; it round-trips (the legacy encoding of an empty vin and vout). */
    static const uint8_t empty[] = {2, 0, 0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11};
    CHECK_EQ_INT(tx_deserialize(&t, empty, sizeof(empty), err, sizeof(err)), 0);
    CHECK_EQ_INT(t.vin_count, 0);
    CHECK_EQ_INT(t.vout_count, 0);
    CHECK_EQ_U64(t.locktime, 0x11223344);
    CHECK_EQ_INT(t.size_total, 10);
    {
        struct buf o;
        buf_init(&o);
        tx_serialize(&t, &o, 1);
        CHECK_EQ_INT(o.len, sizeof(empty));
        CHECK_EQ_MEM(o.data, empty, sizeof(empty));
        buf_clear(&o);
    }
    tx_clear(&t);
    /* Legacy mode reads an empty vin and then the vout normally. */
    static const uint8_t empty_vin_legacy[] = {1, 0, 0, 0, 0, 1, 5, 0, 0, 0,
                                               0, 0, 0, 0, 0, 9, 9, 9, 9};
    reader_init(&r, empty_vin_legacy, sizeof(empty_vin_legacy));
    CHECK_EQ_INT(tx_parse(&t, &r, 0), 0);
    CHECK_EQ_INT(t.vin_count, 0);
    CHECK_EQ_INT(t.vout_count, 1);
    CHECK_EQ_U64(t.vout[0].value_sat, 5);
    CHECK_EQ_U64(t.locktime, 0x09090909);
    CHECK_EQ_INT(r.pos, sizeof(empty_vin_legacy));
    tx_clear(&t);
    /* With witness allowed, the output count 1 there is read as the flags byte instead. */
    CHECK(tx_deserialize(&t, empty_vin_legacy, sizeof(empty_vin_legacy), err, sizeof(err)) != 0);
    buf_clear(&b);
}

static void test_malformed_block(void)
{
    uint8_t blk[80 + 5 + 10];
    struct block b;
    char err[256];
    memset(blk, 0, sizeof(blk));
    /* Absurd tx count: 2^25 with 10 bytes left. */
    blk[80] = 0xfe;
    wr_u32le(blk + 81, 0x02000000);
    CHECK_EQ_INT(block_parse(&b, blk, sizeof(blk), err, sizeof(err)), RC_TRUNCATED);
    /* The 10 zero bytes are tx 0 (version 0, empty vin, flags 0, locktime 0). */
    CHECK_EQ_STR(err, "tx 1: truncated reading version at offset 95: need 4 bytes, 0 left");
    /* Non-canonical count. */
    blk[80] = 0xfd;
    blk[81] = 1;
    blk[82] = 0;
    CHECK_EQ_INT(block_parse(&b, blk, 83, err, sizeof(err)), RC_NONCANONICAL);
    /* A block with no transactions parses (CheckBlock refuses it later). */
    blk[80] = 0;
    CHECK_EQ_INT(block_parse(&b, blk, 81, err, sizeof(err)), 0);
    CHECK_EQ_INT(b.tx_count, 0);
    CHECK_EQ_INT(b.size_stripped, 81);
    uint8_t root[32], zero[32] = {0};
    int mutated = -1;
    merkle_block_root(root, &mutated, &b);
    CHECK_EQ_MEM(root, zero, 32);
    CHECK_EQ_INT(mutated, 0);
    block_clear(&b);
    /* One tx ("version 00 00 locktime"), then a bad second tx reported with its index. */
    static const uint8_t tx10[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t two[80 + 1 + 10 + 6];
    memset(two, 0, 80);
    two[80] = 2;
    memcpy(two + 81, tx10, 10);
    memcpy(two + 91, tx10, 4);
    two[95] = 0x00;
    two[96] = 0x04; /* unknown flags */
    CHECK_EQ_INT(block_parse(&b, two, sizeof(two), err, sizeof(err)), RC_TRUNCATED);
    CHECK_EQ_STR(err, "tx 1: truncated reading input count at offset 97: need 1 bytes, 0 left");
    CHECK(b.txs == NULL);
    /* err may be NULL. */
    CHECK_EQ_INT(block_parse(&b, two, sizeof(two), NULL, 0), RC_TRUNCATED);
}

/* Deterministic random mutations of a real tx and a real block: whatever parses must
 * re-serialize to exactly the input (every encoding is canonical) with parse-time hashes
 * equal to tx_compute_hashes; whatever fails must fail cleanly (ASan checks the reads). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void mutate(uint8_t *p, size_t len)
{
    static const uint8_t special[] = {0x00, 0x01, 0xfc, 0xfd, 0xfe, 0xff};
    int k = 1 + (int)(rng_next() % 3);
    for (int i = 0; i < k; i++) {
        size_t at = (size_t)(rng_next() % len);
        p[at] = (rng_next() & 1) ? special[rng_next() % sizeof(special)] : (uint8_t)rng_next();
    }
}

static void test_random_mutations(void)
{
    struct buf raw, out;
    buf_init(&raw);
    buf_init(&out);
    CHECK(load_sample_tx(&raw));
    size_t blen;
    uint8_t *blk = read_shared("data/mainnet-sample-blocks/"
                               "482683-000000000000000000c238240ef6dcb26c37e75e16514e6ffc0aef7eee7"
                               "3e747.bin",
                               &blen);
    CHECK(blk != NULL);
    if (!blk || raw.len == 0) {
        free(blk);
        buf_clear(&raw);
        return;
    }
    size_t parsed = 0, failed = 0, bad = 0;
    char err[256];
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t *p = malloc(raw.len);
        memcpy(p, raw.data, raw.len);
        mutate(p, raw.len);
        struct tx t;
        if (tx_deserialize(&t, p, raw.len, err, sizeof(err)) == 0) {
            parsed++;
            struct tx again = t;
            tx_compute_hashes(&again);
            buf_reset(&out);
            tx_serialize(&t, &out, 1);
            if (out.len != raw.len || memcmp(out.data, p, raw.len) != 0 ||
                memcmp(again.txid, t.txid, 32) || memcmp(again.wtxid, t.wtxid, 32) ||
                again.size_stripped != t.size_stripped) {
                bad++;
            }
            tx_clear(&t);
        } else {
            failed++;
            if (t.vin != NULL || t.vout != NULL || err[0] == '\0') {
                bad++;
            }
        }
        free(p);
    }
    for (int iter = 0; iter < 300; iter++) {
        uint8_t *p = malloc(blen);
        memcpy(p, blk, blen);
        mutate(p + 80, blen - 80);
        struct block b;
        if (block_parse(&b, p, blen, err, sizeof(err)) == 0) {
            parsed++;
            buf_reset(&out);
            block_serialize(&b, &out, 1);
            if (out.len != blen || memcmp(out.data, p, blen) != 0) {
                bad++;
            }
            block_clear(&b);
        } else {
            failed++;
            if (b.txs != NULL || err[0] == '\0') {
                bad++;
            }
        }
        free(p);
    }
    printf("# mutations: %zu parsed, %zu refused, %zu bad\n", parsed, failed, bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(parsed > 1000 && failed > 1000);
    free(blk);
    buf_clear(&raw);
    buf_clear(&out);
}

/* ---------------------------------------------------------------------------------------- */
/* Merkle trees */

static void test_merkle(void)
{
    uint8_t leaves[8][32];
    uint8_t root[32], root2[32], want[32], ab[32], cc[32], cd[32], ef[32], abcd[32];
    int mutated = -1;
    for (int i = 0; i < 8; i++) {
        memset(leaves[i], 0, 32);
        leaves[i][0] = (uint8_t)(i + 1);
        leaves[i][31] = (uint8_t)(0xf0 + i);
    }

    /* Zero leaves: zero root. One leaf: itself. */
    merkle_root(root, &mutated, leaves, 0);
    CHECK_EQ_MEM(root, (uint8_t[32]){0}, 32);
    CHECK_EQ_INT(mutated, 0);
    merkle_root(root, &mutated, leaves, 1);
    CHECK_EQ_MEM(root, leaves[0], 32);
    CHECK_EQ_INT(mutated, 0);

    /* Two: sha256d(a || b); mutated is optional. */
    hash_sha256d_64(ab, leaves[0], leaves[1]);
    merkle_root(root, NULL, leaves, 2);
    CHECK_EQ_MEM(root, ab, 32);

    /* [a, b, c] = H(H(a,b), H(c,c)); [a, b, c, c] has the same root but is mutated. */
    hash_sha256d_64(cc, leaves[2], leaves[2]);
    hash_sha256d_64(want, ab, cc);
    merkle_root(root, &mutated, leaves, 3);
    CHECK_EQ_MEM(root, want, 32);
    CHECK_EQ_INT(mutated, 0);
    uint8_t abcc[4][32];
    memcpy(abcc, leaves, 3 * 32);
    memcpy(abcc[3], leaves[2], 32);
    merkle_root(root2, &mutated, (const uint8_t(*)[32])abcc, 4);
    CHECK_EQ_MEM(root2, want, 32);
    CHECK_EQ_INT(mutated, 1);

    /* Two equal adjacent leaves. */
    uint8_t aa[2][32];
    memcpy(aa[0], leaves[0], 32);
    memcpy(aa[1], leaves[0], 32);
    merkle_root(root, &mutated, (const uint8_t(*)[32])aa, 2);
    CHECK_EQ_INT(mutated, 1);
    /* Equal leaves at an odd position (b == c) are not a mutation. */
    uint8_t abbd[4][32];
    memcpy(abbd[0], leaves[0], 32);
    memcpy(abbd[1], leaves[1], 32);
    memcpy(abbd[2], leaves[1], 32);
    memcpy(abbd[3], leaves[3], 32);
    merkle_root(root, &mutated, (const uint8_t(*)[32])abbd, 4);
    CHECK_EQ_INT(mutated, 0);

    /* A duplicated subtree one level up: [a..f] vs [a..f, e, f]. */
    hash_sha256d_64(cd, leaves[2], leaves[3]);
    hash_sha256d_64(ef, leaves[4], leaves[5]);
    hash_sha256d_64(abcd, ab, cd);
    {
        uint8_t efef[32];
        hash_sha256d_64(efef, ef, ef);
        hash_sha256d_64(want, abcd, efef);
    }
    merkle_root(root, &mutated, leaves, 6);
    CHECK_EQ_MEM(root, want, 32);
    CHECK_EQ_INT(mutated, 0);
    uint8_t eight[8][32];
    memcpy(eight, leaves, 6 * 32);
    memcpy(eight[6], leaves[4], 32);
    memcpy(eight[7], leaves[5], 32);
    merkle_root(root2, &mutated, (const uint8_t(*)[32])eight, 8);
    CHECK_EQ_MEM(root2, want, 32);
    CHECK_EQ_INT(mutated, 1);
    /* Seven distinct leaves: not mutated; the root differs from six. */
    merkle_root(root2, &mutated, leaves, 7);
    CHECK_EQ_INT(mutated, 0);
    CHECK(memcmp(root2, want, 32) != 0);
}

/* A block whose last transaction is listed twice (CVE-2012-2459): same root, flagged. */
static void test_merkle_block_mutation(void)
{
    size_t len;
    uint8_t *p = read_shared("data/mainnet-sample-blocks/"
                             "169482-0000000000000756935f1ee9d5987857b604046f846d3df56d024cdb5f368"
                             "665.bin",
                             &len);
    CHECK(p != NULL);
    if (!p) {
        return;
    }
    struct block b;
    char err[200];
    CHECK_EQ_INT(block_parse(&b, p, len, err, sizeof(err)), 0);
    CHECK_EQ_INT(b.tx_count, 14);
    /* 14 leaves give a level of 7 nodes, which repeats its last node H(tx12, tx13); listing
     * txs 12 and 13 twice (16 leaves) gives the same root, and must be flagged. */
    struct buf raw;
    buf_init(&raw);
    uint8_t hdr[80];
    block_header_serialize(&b.header, hdr);
    buf_append(&raw, hdr, 80);
    buf_put_u8(&raw, 16);
    for (size_t i = 0; i < 14; i++) {
        tx_serialize(&b.txs[i], &raw, 1);
    }
    tx_serialize(&b.txs[12], &raw, 1);
    tx_serialize(&b.txs[13], &raw, 1);
    struct block m;
    CHECK_EQ_INT(block_parse(&m, raw.data, raw.len, err, sizeof(err)), 0);
    CHECK_EQ_INT(m.tx_count, 16);
    CHECK_EQ_MEM(m.hash, b.hash, 32); /* same header, so the same block hash */
    uint8_t r1[32], r2[32];
    int mut1 = -1, mut2 = -1;
    merkle_block_root(r1, &mut1, &b);
    merkle_block_root(r2, &mut2, &m);
    CHECK_EQ_MEM(r1, b.header.merkle_root, 32);
    CHECK_EQ_MEM(r2, b.header.merkle_root, 32);
    CHECK_EQ_INT(mut1, 0);
    CHECK_EQ_INT(mut2, 1);
    block_clear(&m);
    buf_clear(&raw);
    block_clear(&b);
    free(p);
}

/* ---------------------------------------------------------------------------------------- */
/* Lifecycle */

static void test_tx_copy(void)
{
    struct buf raw, a, c;
    buf_init(&raw);
    buf_init(&a);
    buf_init(&c);
    CHECK(load_sample_tx(&raw));
    struct tx t, u;
    char err[200];
    CHECK_EQ_INT(tx_deserialize(&t, raw.data, raw.len, err, sizeof(err)), 0);
    tx_copy(&u, &t);
    tx_serialize(&t, &a, 1);
    CHECK(u.vin != t.vin && u.vin[0].script_sig.data != t.vin[0].script_sig.data);
    tx_clear(&t);
    CHECK(t.vin == NULL && t.vin_count == 0 && t.vout == NULL);
    tx_serialize(&u, &c, 1);
    CHECK_EQ_INT(c.len, a.len);
    CHECK_EQ_MEM(c.data, a.data, a.len);
    CHECK_EQ_MEM(c.data, raw.data, raw.len);
    /* Edited fields: tx_compute_hashes brings the hashes up to date. */
    uint8_t old[32];
    memcpy(old, u.txid, 32);
    u.locktime ^= 1;
    tx_compute_hashes(&u);
    CHECK(memcmp(old, u.txid, 32) != 0);
    buf_reset(&c);
    tx_serialize(&u, &c, 0);
    uint8_t h[32];
    hash_sha256d(h, c.data, c.len);
    CHECK_EQ_MEM(u.txid, h, 32);
    CHECK_EQ_INT(u.size_stripped, c.len);
    tx_clear(&u);
    /* Clearing an empty tx is harmless; so is copying one. */
    tx_init(&t);
    tx_copy(&u, &t);
    CHECK(u.vin == NULL && u.vout == NULL);
    tx_clear(&u);
    tx_clear(&t);
    buf_clear(&raw);
    buf_clear(&a);
    buf_clear(&c);

    struct outpoint o;
    memset(&o, 0, sizeof(o));
    o.n = 0xffffffffu;
    CHECK(outpoint_is_null(&o));
    o.txid[31] = 1;
    CHECK(!outpoint_is_null(&o));
    o.txid[31] = 0;
    o.n = 0;
    CHECK(!outpoint_is_null(&o));
}

/* A parsed block's transactions keep their pieces in the block's arena; a copy owns its
 * own; a transaction of a parsed block replaced by hand (tx_clear, then heap pieces) is
 * freed by block_clear with the rest (ASan would see a leak or a bad free). */
static void test_block_arena(void)
{
    size_t len;
    uint8_t *f = read_shared("data/regtest-small/blk00000.dat", &len);
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    /* The second block of the file (the first with a coinbase paying somebody else is as
     * good; any block with a transaction will do). */
    uint32_t blen;
    memcpy(&blen, f + 4, 4);
    struct block b;
    char err[200];
    CHECK_EQ_INT(block_parse(&b, f + 8, blen, err, sizeof(err)), 0);
    CHECK(b.arena != NULL && b.tx_count >= 1);
    CHECK_EQ_INT(b.txs[0].pooled, 1);
    struct tx copy;
    tx_copy(&copy, &b.txs[0]);
    CHECK_EQ_INT(copy.pooled, 0);
    struct buf x, y;
    buf_init(&x);
    buf_init(&y);
    tx_serialize(&b.txs[0], &x, 1);
    tx_serialize(&copy, &y, 1);
    CHECK_EQ_INT(x.len, y.len);
    CHECK_EQ_MEM(x.data, y.data, x.len);
    tx_clear(&b.txs[0]);
    CHECK(b.txs[0].vin == NULL && b.txs[0].pooled == 0);
    b.txs[0] = copy; /* heap pieces in a pooled block */
    block_clear(&b);
    CHECK(b.arena == NULL && b.txs == NULL);
    buf_clear(&x);
    buf_clear(&y);
    free(f);
}

int main(void)
{
    size_t len;
    uint8_t *probe = read_shared("data/regtest-small/blk00000.dat", &len);
    if (!probe) {
        return test_missing_shared("data/regtest-small/blk00000.dat");
    }
    free(probe);

    TEST(test_merkle);
    TEST(test_tx_copy);
    TEST(test_block_arena);
    TEST(test_malformed_tx);
    TEST(test_malformed_block);
    TEST(test_truncated_tx);
    TEST(test_truncated_block);
    TEST(test_random_mutations);
    TEST(test_merkle_block_mutation);
    TEST(test_regtest_small_chain);
    TEST(test_mainnet_0_438);
    TEST(test_block413567_vector);
    test_block_dirs();
    test_regtest_sample_txs();
    test_regtest_getblock_json();
    test_vectors();
    return test_done();
}
