/* BIP158 block filters (src/index/blockfilter.c): BIP158's own vectors
 * (../shared/vectors/blockfilters.json: testnet blocks with the scripts they spend, their
 * basic filters and filter headers), Golomb-coded sets round-tripped, and malformed sets. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index/blockfilter.h"
#include "primitives/block.h"
#include "test.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"

static struct bytes hex_bytes(struct buf *keep, const char *hex)
{
    buf_init(keep);
    CHECK_EQ_INT(hex_decode(keep, hex), RC_OK);
    return (struct bytes){keep->data, keep->len};
}

/* One row: [height, block hash, block, [spent scripts], previous header, filter, header,
 * notes]. */
static void check_row(json_t *row)
{
    const char *notes = json_string_value(json_array_get(row, 7));
    printf("# %lld: %s\n", (long long)json_integer_value(json_array_get(row, 0)), notes);
    struct buf raw, want;
    buf_init(&raw);
    CHECK_EQ_INT(hex_decode(&raw, json_string_value(json_array_get(row, 2))), RC_OK);
    struct block b;
    block_init(&b);
    char err[128];
    CHECK_EQ_INT(block_parse(&b, raw.data, raw.len, err, sizeof(err)), RC_OK);
    uint8_t hash[32];
    CHECK_EQ_INT(hex_decode_hash32_rev(hash, json_string_value(json_array_get(row, 1))), RC_OK);
    CHECK_EQ_MEM(b.hash, hash, 32);

    json_t *scripts = json_array_get(row, 3);
    size_t n_prev = json_array_size(scripts);
    struct bytes *prev = calloc(n_prev + 1, sizeof(*prev));
    struct buf *keep = calloc(n_prev + 1, sizeof(*keep));
    for (size_t i = 0; i < n_prev; i++) {
        prev[i] = hex_bytes(&keep[i], json_string_value(json_array_get(scripts, i)));
    }
    struct buf f;
    buf_init(&f);
    CHECK_EQ_INT(blockfilter_basic(&b, prev, n_prev, &f), RC_OK);
    buf_init(&want);
    CHECK_EQ_INT(hex_decode(&want, json_string_value(json_array_get(row, 5))), RC_OK);
    CHECK_EQ_INT((int)f.len, (int)want.len);
    CHECK_EQ_MEM(f.data, want.data, want.len < f.len ? want.len : f.len);

    uint8_t prev_header[32], header[32], got[32], fh[32];
    CHECK_EQ_INT(hex_decode_hash32_rev(prev_header, json_string_value(json_array_get(row, 4))),
                 RC_OK);
    CHECK_EQ_INT(hex_decode_hash32_rev(header, json_string_value(json_array_get(row, 6))), RC_OK);
    blockfilter_hash(f.data, f.len, fh);
    blockfilter_header(fh, prev_header, got);
    CHECK_EQ_MEM(got, header, 32);

    /* Every element it was built from is in it; scripts it was not built from are not (at
     * 1/784931 a false positive among these few would be a bug). */
    struct gcs_params p;
    blockfilter_basic_params(b.hash, &p);
    int match;
    for (size_t i = 0; i < n_prev; i++) {
        if (prev[i].len) {
            CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &prev[i], 1, &match), RC_OK);
            CHECK_EQ_INT(match, 1);
        }
    }
    for (size_t t = 0; t < b.tx_count; t++) {
        for (size_t o = 0; o < b.txs[t].vout_count; o++) {
            const struct bytes *s = &b.txs[t].vout[o].script_pubkey;
            CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, s, 1, &match), RC_OK);
            CHECK_EQ_INT(match, s->len > 0 && s->data[0] != 0x6a);
        }
    }
    uint8_t other[25] = {0x76, 0xa9, 0x14};
    for (int i = 0; i < 16; i++) {
        other[3] = (uint8_t)i;
        struct bytes s = {other, sizeof(other)};
        CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &s, 1, &match), RC_OK);
        CHECK_EQ_INT(match, 0);
    }
    for (size_t i = 0; i < n_prev; i++) {
        buf_clear(&keep[i]);
    }
    free(keep);
    free(prev);
    buf_clear(&f);
    buf_clear(&want);
    buf_clear(&raw);
    block_clear(&b);
}

static void test_bip158_vectors(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/blockfilters.json", test_shared_dir());
    if (!test_have_shared_file(path)) {
        return;
    }
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    CHECK(j != NULL);
    size_t rows = 0;
    for (size_t i = 1; j && i < json_array_size(j); i++) {
        check_row(json_array_get(j, i));
        rows++;
    }
    CHECK_EQ_INT((int)rows, 10);
    json_decref(j);
}

/* Core's gcs_filter_test: a set of 100 random 32-byte elements under P=10, M=1024 holds
 * each of them; asking for all of them together, or for them among strangers, matches. */
static void test_gcs_roundtrip(void)
{
    struct gcs_params p = {.k0 = 0, .k1 = 0, .p = 10, .m = 1 << 10};
    uint8_t data[100][32], strangers[100][32];
    struct bytes in[100], out[100];
    uint32_t x = 12345;
    for (int i = 0; i < 100; i++) {
        for (int k = 0; k < 32; k++) {
            x = x * 1103515245u + 12345u;
            data[i][k] = (uint8_t)(x >> 16);
            strangers[i][k] = (uint8_t)(x >> 8);
        }
        in[i] = (struct bytes){data[i], 32};
        out[i] = (struct bytes){strangers[i], 32};
    }
    struct buf f;
    buf_init(&f);
    CHECK_EQ_INT(gcs_encode(&p, in, 100, &f), RC_OK);
    int match, misses = 0;
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &in[i], 1, &match), RC_OK);
        CHECK_EQ_INT(match, 1);
        CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &out[i], 1, &match), RC_OK);
        misses += !match;
    }
    CHECK(misses >= 90); /* false positives at 1/1024 */
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, in, 100, &match), RC_OK);
    CHECK_EQ_INT(match, 1);
    struct bytes mix[3] = {out[0], out[1], in[57]};
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, mix, 3, &match), RC_OK);
    CHECK_EQ_INT(match, 1);
    buf_clear(&f);
}

/* Exactly an encoded set, or refused: truncated bits, a byte too many, a count past 32 bits;
 * the empty set is one zero byte and matches nothing. */
static void test_malformed(void)
{
    struct gcs_params p = {.k0 = 1, .k1 = 2, .p = 19, .m = 784931};
    uint8_t e1[] = {1, 2, 3}, e2[] = {4, 5};
    struct bytes in[2] = {{e1, 3}, {e2, 2}};
    struct buf f;
    buf_init(&f);
    CHECK_EQ_INT(gcs_encode(&p, in, 2, &f), RC_OK);
    int match = -1;
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &in[1], 1, &match), RC_OK);
    CHECK_EQ_INT(match, 1);
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len - 1, &in[1], 1, &match), RC_INVALID);
    CHECK_EQ_INT(match, 0);
    buf_put_u8(&f, 0);
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, &in[1], 1, &match), RC_INVALID);
    CHECK_EQ_INT(gcs_match_any(&p, f.data, 0, &in[1], 1, &match), RC_INVALID);
    uint8_t huge[] = {0xff, 0, 0, 0, 0, 1, 0, 0, 0};
    CHECK_EQ_INT(gcs_match_any(&p, huge, sizeof(huge), &in[1], 1, &match), RC_INVALID);
    buf_reset(&f);
    CHECK_EQ_INT(gcs_encode(&p, NULL, 0, &f), RC_OK);
    CHECK_EQ_INT((int)f.len, 1);
    CHECK_EQ_INT(f.data[0], 0);
    CHECK_EQ_INT(gcs_match_any(&p, f.data, f.len, in, 2, &match), RC_OK);
    CHECK_EQ_INT(match, 0);
    buf_clear(&f);
}

int main(void)
{
    TEST(test_bip158_vectors);
    TEST(test_gcs_roundtrip);
    TEST(test_malformed);
    return test_done();
}
