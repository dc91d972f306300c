/* Unit tests for src/consensus: arith256, amount, params, pow.
 *
 * Vectors: Bitcoin Core's arith_uint256_tests (SetCompact table, R1/R2 arithmetic),
 * pow_tests, util_tests (ParseFixedPoint), rpc_tests (ValueFromAmount), main_tests
 * (subsidy). Real data: ../shared/data/mainnet-retarget-headers (one line per retarget),
 * mainnet-headers-0-10236, mainnet-headers-822528-830592, testnet4-headers-141120-143136
 * (BIP94), signet-headers-0-2015, and the genesis blocks in the mainnet/regtest block files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "consensus/arith256.h"
#include "consensus/params.h"
#include "consensus/pow.h"
#include "primitives/block.h"
#include "test.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

/* ---------- helpers ---------- */

static struct u256 u256_hex(const char *hex)
{
    struct u256 x;
    CHECK_EQ_INT(u256_from_hex(&x, hex), RC_OK);
    return x;
}

static struct u256 u256_u64(uint64_t v)
{
    struct u256 x;
    u256_set_u64(&x, v);
    return x;
}

#define CHECK_U256_HEX(x, hex)                                                                     \
    do {                                                                                           \
        char h_[65];                                                                               \
        u256_to_hex(h_, (x));                                                                      \
        CHECK_EQ_STR(h_, (hex));                                                                   \
    } while (0)

#define CHECK_U256_EQ(a, b) CHECK_EQ_INT(u256_cmp((a), (b)), 0)

static int header_from80(struct block_header *h, const uint8_t *p80)
{
    struct reader r;
    reader_init(&r, p80, 80);
    return block_header_parse(h, &r);
}

static void hash_display(char out65[65], const uint8_t hash32[32])
{
    hex_encode_rev(out65, hash32, 32);
}

static char *shared_path(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", test_shared_dir(), rel);
    return path;
}

/* An ancestor lookup over a contiguous array of headers starting at height base. */
struct header_run {
    const struct block_header *h;
    int base;
    int count;
    int calls;
};

static int run_ancestor(void *ctx, int height, struct pow_block_info *out)
{
    struct header_run *run = ctx;
    run->calls++;
    if (height < run->base || height >= run->base + run->count) {
        return RC_NOT_FOUND;
    }
    const struct block_header *h = &run->h[height - run->base];
    out->height = height;
    out->bits = h->bits;
    out->time = h->time;
    return RC_OK;
}

static struct pow_block_info info_of(const struct block_header *h, int height)
{
    struct pow_block_info b = {height, h->bits, (int64_t)h->time};
    return b;
}

/* ---------- arith256 ---------- */

/* R1 and R2 of Core's arith_uint256_tests, as the little-endian byte arrays there. */
static const char r1_le_hex[] = "9c524adbcf5611122b29125e5d35d2d22281aab533f00832d556b1f9eae51d7d";
static const char r2_le_hex[] = "70321d7c47a56b40267e0ac3a69cb6bf133047a3192dda71491372f0b4ca81d7";

static struct u256 from_le_hex(const char *hex)
{
    uint8_t b[32];
    struct u256 x;
    CHECK_EQ_INT(hex_decode_fixed(b, 32, hex), RC_OK);
    u256_from_le32(&x, b);
    return x;
}

static void test_arith_basics(void)
{
    struct u256 r1 = from_le_hex(r1_le_hex), r2 = from_le_hex(r2_le_hex), t, one = u256_u64(1);
    struct u256 zero = u256_u64(0), max, half;
    uint8_t le[32], le_expect[32];

    u256_not(&max, &zero);
    u256_shl(&half, &one, 255);

    CHECK_U256_HEX(&r1, "7d1de5eaf9b156d53208f033b5aa8122d2d2355d5e12292b121156cfdb4a529c");
    CHECK_EQ_U64(u256_low64(&r1), 0x121156cfdb4a529cULL);
    CHECK_EQ_U64(u256_low64(&half), 0);
    /* Round trips through bytes and hex. */
    u256_to_le32(le, &r1);
    CHECK_EQ_INT(hex_decode_fixed(le_expect, 32, r1_le_hex), RC_OK);
    CHECK_EQ_MEM(le, le_expect, 32);
    t = u256_hex("7D1DE5EAF9B156D53208F033B5AA8122D2d2355d5e12292b121156cfdb4a529c");
    CHECK_U256_EQ(&t, &r1);
    CHECK_EQ_INT(u256_from_hex(&t, "7d1d"), RC_INVALID);
    CHECK_EQ_INT(
        u256_from_hex(&t, "0x1de5eaf9b156d53208f033b5aa8122d2d2355d5e12292b121156cfdb4a529c"),
        RC_INVALID);
    CHECK_EQ_INT(
        u256_from_hex(&t, "7d1de5eaf9b156d53208f033b5aa8122d2d2355d5e12292b121156cfdb4a529c0"),
        RC_INVALID);

    /* Comparison and bits. */
    CHECK_EQ_INT(u256_cmp(&r1, &r2), -1);
    CHECK_EQ_INT(u256_cmp(&r2, &r1), 1);
    CHECK_EQ_INT(u256_cmp(&max, &max), 0);
    CHECK_EQ_INT(u256_bits(&zero), 0);
    CHECK_EQ_INT(u256_bits(&one), 1);
    CHECK_EQ_INT(u256_bits(&half), 256);
    CHECK_EQ_INT(u256_bits(&r1), 255);
    CHECK(u256_is_zero(&zero));
    CHECK(!u256_is_zero(&half));

    /* Addition and subtraction wrap. */
    u256_add(&t, &r1, &r2);
    CHECK_U256_HEX(&t, "549fb09fea236a1ea3e31d4d58f1b1369288d204211ca751527cfc175767850c");
    u256_add(&t, &max, &one);
    CHECK(u256_is_zero(&t));
    u256_sub(&t, &zero, &one);
    CHECK_U256_EQ(&t, &max);
    u256_add(&t, &r1, &r2);
    u256_sub(&t, &t, &r2);
    CHECK_U256_EQ(&t, &r1);
    for (unsigned i = 1; i < 256; i++) {
        struct u256 a, b;
        u256_shr(&a, &max, i);
        u256_add(&a, &a, &one);
        u256_shr(&b, &half, i - 1);
        CHECK_U256_EQ(&a, &b);
    }
    t = u256_u64(0xbedc77e27940a7ULL);
    u256_add_u64(&t, &t, 0xee8d836fce66fbULL);
    CHECK_EQ_U64(u256_low64(&t), 0xbedc77e27940a7ULL + 0xee8d836fce66fbULL);

    /* Multiplication. */
    u256_mul(&t, &r1, &r1);
    CHECK_U256_HEX(&t, "62a38c0486f01e45879d7910a7761bf30d5237e9873f9bff3642a732c4d84f10");
    u256_mul(&t, &r1, &r2);
    CHECK_U256_HEX(&t, "de37805e9986996cfba76ff6ba51c008df851987d9dd323f0e5de07760529c40");
    u256_mul(&t, &r2, &r2);
    CHECK_U256_HEX(&t, "ac8c010096767d3cae5005dec28bb2b45a1d85ab7996ccd3e102a650f74ff100");
    u256_mul(&t, &max, &max);
    CHECK_U256_EQ(&t, &one);
    u256_mul(&t, &r1, &max); /* == -r1 */
    struct u256 neg_r1;
    u256_sub(&neg_r1, &zero, &r1);
    CHECK_U256_EQ(&t, &neg_r1);
    u256_mul_u32(&t, &r1, 3);
    CHECK_U256_HEX(&t, "7759b1c0ed14047f961ad09b20ff83687876a0181a367b813634046f91def7d4");
    u256_mul_u32(&t, &r2, 0x87654321u);
    CHECK_U256_HEX(&t, "23f7816e30c4ae2017257b7a0fa64d60402f5234d46e746b61c960d09a26d070");
    u256_mul_u32(&t, &r1, 0);
    CHECK(u256_is_zero(&t));

    /* Division. */
    struct u256 d1 = u256_hex("00000000000000000000000000000000000000000000000ad7133ac1977fa2b7");
    struct u256 d2 = u256_hex("0000000000000000000000000000000000000000000000000000000ecd751716");
    u256_div(&t, &r1, &d1);
    CHECK_U256_HEX(&t, "00000000000000000b8ac01106981635d9ed112290f8895545a7654dde28fb3a");
    u256_div(&t, &r1, &d2);
    CHECK_U256_HEX(&t, "000000000873ce8efec5b67150bad3aa8c5fcb70e947586153bf2cec7c37c57a");
    u256_div(&t, &r2, &d1);
    CHECK_U256_HEX(&t, "000000000000000013e1665895a1cc981de6d93670105a6b3ec3b73141b3a3c5");
    u256_div(&t, &r2, &d2);
    CHECK_U256_HEX(&t, "000000000e8f0abe753bb0afe2e9437ee85d280be60882cf0bd1aaf7fa3cc2c4");
    u256_div(&t, &r1, &one);
    CHECK_U256_EQ(&t, &r1);
    u256_div(&t, &r1, &max);
    CHECK(u256_is_zero(&t));
    u256_div(&t, &max, &r1);
    CHECK_EQ_U64(u256_low64(&t), 2);
    u256_div(&t, &max, &r2);
    CHECK_EQ_U64(u256_low64(&t), 1);
    u256_div(&t, &r1, &r1);
    CHECK_U256_EQ(&t, &one);
}

/* Reference shifts on the little-endian byte array (Core's shiftArrayLeft/Right). */
static void shift_bytes_left(uint8_t *to, const uint8_t *from, unsigned n)
{
    for (unsigned t = 0; t < 32; t++) {
        if (t >= n / 8) {
            unsigned f = t - n / 8;
            to[t] = (uint8_t)(from[f] << (n % 8));
            if (t >= n / 8 + 1 && n % 8) {
                to[t] |= (uint8_t)(from[f - 1] >> (8 - n % 8));
            }
        } else {
            to[t] = 0;
        }
    }
}

static void shift_bytes_right(uint8_t *to, const uint8_t *from, unsigned n)
{
    for (unsigned t = 0; t < 32; t++) {
        unsigned f = t + n / 8;
        to[t] = f < 32 ? (uint8_t)(from[f] >> (n % 8)) : 0;
        if (f + 1 < 32 && n % 8) {
            to[t] |= (uint8_t)(from[f + 1] << (8 - n % 8));
        }
    }
}

static void test_arith_shifts(void)
{
    struct u256 r1 = from_le_hex(r1_le_hex), t, one = u256_u64(1);
    uint8_t r1b[32], expect[32], got[32];

    u256_to_le32(r1b, &r1);
    for (unsigned i = 0; i < 256; i++) {
        shift_bytes_left(expect, r1b, i);
        u256_shl(&t, &r1, i);
        u256_to_le32(got, &t);
        CHECK_EQ_MEM(got, expect, 32);
        shift_bytes_right(expect, r1b, i);
        u256_shr(&t, &r1, i);
        u256_to_le32(got, &t);
        CHECK_EQ_MEM(got, expect, 32);
        u256_shl(&t, &one, i);
        CHECK_EQ_INT(u256_bits(&t), i + 1);
    }
    u256_shl(&t, &one, 256);
    CHECK(u256_is_zero(&t));
    u256_shr(&t, &r1, 256);
    CHECK(u256_is_zero(&t));
    u256_shl(&t, &r1, 5000);
    CHECK(u256_is_zero(&t));
    struct u256 c1 = u256_u64(0x0123456789abcdefULL), c2, a, b;
    u256_shl(&c2, &c1, 128);
    for (unsigned i = 0; i < 128; i++) {
        u256_shl(&a, &c1, i);
        u256_shr(&b, &c2, 128 - i);
        CHECK_U256_EQ(&a, &b);
    }
}

/* Core's bignum_SetCompact table: compact in, hex out, GetCompact(negative) back. */
static const struct {
    uint32_t compact;
    const char *hex;
    uint32_t back; /* GetCompact(negative) */
    int negative;
    int overflow;
} compact_vectors[] = {
    {0, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x00123456, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x01003456, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x02000056, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x03000000, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x04000000, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x00923456, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x01803456, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x02800056, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x03800000, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x04800000, "0000000000000000000000000000000000000000000000000000000000000000", 0, 0, 0},
    {0x01123456, "0000000000000000000000000000000000000000000000000000000000000012", 0x01120000, 0,
     0},
    {0x01fedcba, "000000000000000000000000000000000000000000000000000000000000007e", 0x01fe0000, 1,
     0},
    {0x02123456, "0000000000000000000000000000000000000000000000000000000000001234", 0x02123400, 0,
     0},
    {0x03123456, "0000000000000000000000000000000000000000000000000000000000123456", 0x03123456, 0,
     0},
    {0x04123456, "0000000000000000000000000000000000000000000000000000000012345600", 0x04123456, 0,
     0},
    {0x04923456, "0000000000000000000000000000000000000000000000000000000012345600", 0x04923456, 1,
     0},
    {0x05009234, "0000000000000000000000000000000000000000000000000000000092340000", 0x05009234, 0,
     0},
    {0x20123456, "1234560000000000000000000000000000000000000000000000000000000000", 0x20123456, 0,
     0},
    /* Real targets. */
    {0x1d00ffff, "00000000ffff0000000000000000000000000000000000000000000000000000", 0x1d00ffff, 0,
     0},
    {0x207fffff, "7fffff0000000000000000000000000000000000000000000000000000000000", 0x207fffff, 0,
     0},
    {0x1e0377ae, "00000377ae000000000000000000000000000000000000000000000000000000", 0x1e0377ae, 0,
     0},
};

static void test_arith_compact_vectors(void)
{
    for (size_t i = 0; i < ARRAY_LEN(compact_vectors); i++) {
        int saved = test_case_failed;
        test_case_failed = 0;
        struct u256 x;
        int negative = -1, overflow = -1;
        u256_set_compact(&x, compact_vectors[i].compact, &negative, &overflow);
        CHECK_U256_HEX(&x, compact_vectors[i].hex);
        CHECK_EQ_INT(negative, compact_vectors[i].negative);
        CHECK_EQ_INT(overflow, compact_vectors[i].overflow);
        CHECK_EQ_INT(u256_get_compact(&x, negative), compact_vectors[i].back);
        test_report(!test_case_failed, "SetCompact/GetCompact 0x%08" PRIx32,
                    compact_vectors[i].compact);
        test_case_failed = saved;
    }
}

static void test_arith_compact_edges(void)
{
    struct u256 x;
    int negative, overflow;

    /* Never a mantissa with the sign bit: 0x80 is written with one more exponent byte. */
    x = u256_u64(0x80);
    CHECK_EQ_INT(u256_get_compact(&x, 0), 0x02008000);
    u256_set_compact(&x, 0xff123456, &negative, &overflow);
    CHECK_EQ_INT(negative, 0);
    CHECK_EQ_INT(overflow, 1);
    /* Overflow boundaries: a 1-byte mantissa fits up to 34 bytes, 2 bytes up to 33, 3 bytes
     * up to 32. */
    u256_set_compact(&x, 0x230000ff, NULL, &overflow);
    CHECK_EQ_INT(overflow, 1);
    u256_set_compact(&x, 0x220000ff, NULL, &overflow);
    CHECK_EQ_INT(overflow, 0);
    CHECK_U256_HEX(&x, "ff00000000000000000000000000000000000000000000000000000000000000");
    u256_set_compact(&x, 0x2200ffff, NULL, &overflow);
    CHECK_EQ_INT(overflow, 1);
    u256_set_compact(&x, 0x2100ffff, NULL, &overflow);
    CHECK_EQ_INT(overflow, 0);
    CHECK_U256_HEX(&x, "ffff000000000000000000000000000000000000000000000000000000000000");
    u256_set_compact(&x, 0x207fffff, NULL, &overflow);
    CHECK_EQ_INT(overflow, 0);
    u256_set_compact(&x, 0x21010000, NULL, &overflow);
    CHECK_EQ_INT(overflow, 1);
    /* A zero mantissa is never negative nor overflowing, whatever the exponent. */
    u256_set_compact(&x, 0xff800000, &negative, &overflow);
    CHECK_EQ_INT(negative, 0);
    CHECK_EQ_INT(overflow, 0);
    CHECK(u256_is_zero(&x));
    /* Round trip of every power of two. */
    for (unsigned i = 0; i < 256; i++) {
        struct u256 one = u256_u64(1), y;
        u256_shl(&x, &one, i);
        u256_set_compact(&y, u256_get_compact(&x, 0), &negative, &overflow);
        CHECK_U256_EQ(&y, &x);
        CHECK_EQ_INT(negative, 0);
        CHECK_EQ_INT(overflow, 0);
    }
}

/* ---------- amount ---------- */

static void test_amount_subsidy(void)
{
    CHECK_EQ_INT(amount_block_subsidy(0, 210000), 50 * COIN);
    CHECK_EQ_INT(amount_block_subsidy(209999, 210000), 50 * COIN);
    CHECK_EQ_INT(amount_block_subsidy(210000, 210000), 25 * COIN);
    CHECK_EQ_INT(amount_block_subsidy(420000, 210000), 1250000000LL);
    CHECK_EQ_INT(amount_block_subsidy(840000, 210000), 312500000LL);
    CHECK_EQ_INT(amount_block_subsidy(32 * 210000, 210000), 1);
    CHECK_EQ_INT(amount_block_subsidy(33 * 210000, 210000), 0);
    CHECK_EQ_INT(amount_block_subsidy(64 * 210000, 210000), 0);
    CHECK_EQ_INT(amount_block_subsidy(2000000000, 210000), 0);
    CHECK_EQ_INT(amount_block_subsidy(149, 150), 50 * COIN);
    CHECK_EQ_INT(amount_block_subsidy(150, 150), 25 * COIN);
    CHECK_EQ_INT(amount_block_subsidy(64 * 150, 150), 0);
    /* Core's main_tests subsidy_limit_test. */
    int64_t sum = 0;
    for (int h = 0; h < 14000000; h += 1000) {
        int64_t s = amount_block_subsidy(h, 210000);
        CHECK(s <= 50 * COIN);
        sum += s * 1000;
        CHECK(amount_in_range(sum));
    }
    CHECK_EQ_INT(sum, 2099999997690000LL);
    /* Core's GetBlockSubsidy halving test: halves exactly each interval until 0. */
    int64_t prev = 50 * COIN;
    for (int i = 1; i < 64; i++) {
        int64_t s = amount_block_subsidy(i * 210000, 210000);
        CHECK(s <= 50 * COIN);
        CHECK_EQ_INT(s, prev / 2);
        prev = s;
    }
}

static void test_amount_range(void)
{
    CHECK(amount_in_range(0));
    CHECK(amount_in_range(MAX_MONEY));
    CHECK(!amount_in_range(MAX_MONEY + 1));
    CHECK(!amount_in_range(-1));
    CHECK_EQ_INT(MAX_MONEY, 2100000000000000LL);
}

static void test_amount_format(void)
{
    static const struct {
        int64_t sat;
        const char *s;
    } v[] = {
        {0, "0.00000000"},
        {1, "0.00000001"},
        {17622195, "0.17622195"},
        {50000000, "0.50000000"},
        {89898989, "0.89898989"},
        {100000000, "1.00000000"},
        {2099999999999990LL, "20999999.99999990"},
        {2099999999999999LL, "20999999.99999999"},
        {MAX_MONEY, "21000000.00000000"},
        {-1, "-0.00000001"},
        {-17622195, "-0.17622195"},
        {-100000000, "-1.00000000"},
        {-2099999999999999LL, "-20999999.99999999"},
        {INT64_MAX, "92233720368.54775807"},
        {INT64_MIN, "-92233720368.54775808"},
    };
    char out[AMOUNT_FORMAT_LEN];
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        amount_format(out, v[i].sat);
        CHECK_EQ_STR(out, v[i].s);
    }
}

static void test_amount_parse_fixed_point(void)
{
    static const struct {
        const char *s;
        int64_t v;
    } ok[] = {
        {"0", 0},
        {"1", 100000000LL},
        {"0.0", 0},
        {"-0.1", -10000000LL},
        {"1.1", 110000000LL},
        {"1.10000000000000000", 110000000LL},
        {"1.1e1", 1100000000LL},
        {"1.1e-1", 11000000LL},
        {"1000", 100000000000LL},
        {"-1000", -100000000000LL},
        {"0.00000001", 1},
        {"0.0000000100000000000", 1},
        {"-0.00000001", -1},
        {"1000000000.00000001", 100000000000000001LL},
        {"9999999999.99999999", 999999999999999999LL},
        {"-9999999999.99999999", -999999999999999999LL},
        {"1e-8", 1},
        {"1E+2", 10000000000LL},
        {"0.1e+1", 100000000LL},
        {"21000000", MAX_MONEY},
    };
    static const char *bad[] = {
        "",
        "-",
        "a-1000",
        "-a1000",
        "-1000a",
        "-01000",
        "00.1",
        ".1",
        "--0.1",
        "0.000000001",
        "-0.000000001",
        "0.00000001000000001",
        "-10000000000.00000000",
        "10000000000.00000000",
        "-10000000000.00000001",
        "10000000000.00000001",
        "-10000000000.00000009",
        "10000000000.00000009",
        "-99999999999.99999999",
        "99999909999.09999999",
        "92233720368.54775807",
        "92233720368.54775808",
        "-92233720368.54775808",
        "-92233720368.54775809",
        "1.1e",
        "1.1e-",
        "1.",
        " 1",
        "1 ",
        "+1",
        "1e-9",
        "0x10",
    };
    int64_t v;
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        v = 12345;
        CHECK_EQ_INT(amount_parse_fixed_point(&v, ok[i].s, 8), RC_OK);
        CHECK_EQ_INT(v, ok[i].v);
        if (v != ok[i].v) {
            printf("#   input \"%s\"\n", ok[i].s);
        }
    }
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        v = 12345;
        int rc = amount_parse_fixed_point(&v, bad[i], 8);
        CHECK_EQ_INT(rc, RC_INVALID);
        CHECK_EQ_INT(v, 12345);
        if (rc != RC_INVALID) {
            printf("#   input \"%s\" parsed\n", bad[i]);
        }
    }
    /* Three decimals (fee rates in sat/vB). */
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "0.001", 3), RC_OK);
    CHECK_EQ_INT(v, 1);
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "0.0009", 3), RC_INVALID);
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "31.00100001", 3), RC_INVALID);
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "31.0011", 3), RC_INVALID);
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "31.99999999", 3), RC_INVALID);
    CHECK_EQ_INT(amount_parse_fixed_point(&v, "31.999999999999999999999", 3), RC_INVALID);
}

static void test_amount_parse(void)
{
    int64_t v = 7;
    CHECK_EQ_INT(amount_parse(&v, "0.1"), RC_OK);
    CHECK_EQ_INT(v, 10000000);
    CHECK_EQ_INT(amount_parse(&v, "1e-8"), RC_OK);
    CHECK_EQ_INT(v, 1);
    CHECK_EQ_INT(amount_parse(&v, "21000000"), RC_OK);
    CHECK_EQ_INT(v, MAX_MONEY);
    CHECK_EQ_INT(amount_parse(&v, "0"), RC_OK);
    CHECK_EQ_INT(v, 0);
    v = 7;
    CHECK_EQ_INT(amount_parse(&v, "21000000.00000001"), RC_TOO_LARGE);
    CHECK_EQ_INT(amount_parse(&v, "-0.00000001"), RC_TOO_LARGE);
    CHECK_EQ_INT(amount_parse(&v, "1e-9"), RC_INVALID);
    CHECK_EQ_INT(amount_parse(&v, "abc"), RC_INVALID);
    CHECK_EQ_INT(amount_parse(&v, "100000000000"), RC_INVALID);
    CHECK_EQ_INT(v, 7);
}

/* ---------- params ---------- */

static const struct {
    const char *name;
    enum chain_id id;
    const char *genesis;
    const char *merkle;
    uint32_t bits;
    const char *subdir;
    uint8_t magic[4];
    int port, rpc_port;
    const char *hrp;
} chain_vectors[] = {
    {"main",
     CHAIN_MAIN,
     "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
     "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
     0x1d00ffff,
     "",
     {0xf9, 0xbe, 0xb4, 0xd9},
     8333,
     8332,
     "bc"},
    {"test",
     CHAIN_TESTNET3,
     "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
     "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
     0x1d00ffff,
     "testnet3",
     {0x0b, 0x11, 0x09, 0x07},
     18333,
     18332,
     "tb"},
    {"testnet4",
     CHAIN_TESTNET4,
     "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
     "7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e",
     0x1d00ffff,
     "testnet4",
     {0x1c, 0x16, 0x3f, 0x28},
     48333,
     48332,
     "tb"},
    {"signet",
     CHAIN_SIGNET,
     "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
     "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
     0x1e0377ae,
     "signet",
     {0x0a, 0x03, 0xcf, 0x40},
     38333,
     38332,
     "tb"},
    {"regtest",
     CHAIN_REGTEST,
     "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
     "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
     0x207fffff,
     "regtest",
     {0xfa, 0xbf, 0xb5, 0xda},
     18444,
     18443,
     "bcrt"},
};

static void test_params_chains(void)
{
    for (size_t i = 0; i < ARRAY_LEN(chain_vectors); i++) {
        int saved = test_case_failed;
        test_case_failed = 0;
        const struct chain_params *p = chain_params_get(chain_vectors[i].name);
        CHECK(p != NULL);
        if (p) {
            char h[65];
            CHECK(p == chain_params_by_id(chain_vectors[i].id));
            CHECK_EQ_INT(p->id, chain_vectors[i].id);
            CHECK_EQ_STR(p->name, chain_vectors[i].name);
            CHECK_EQ_STR(p->datadir_subdir, chain_vectors[i].subdir);
            CHECK_EQ_MEM(p->magic, chain_vectors[i].magic, 4);
            CHECK_EQ_INT(p->default_port, chain_vectors[i].port);
            CHECK_EQ_INT(p->rpc_port, chain_vectors[i].rpc_port);
            CHECK_EQ_STR(p->bech32_hrp, chain_vectors[i].hrp);
            /* The genesis block, rebuilt from its fields and hashed. */
            struct block g;
            chain_params_genesis_block(&g, p);
            hash_display(h, g.hash);
            CHECK_EQ_STR(h, chain_vectors[i].genesis);
            uint8_t hh[32];
            block_header_hash(&g.header, hh);
            CHECK_EQ_MEM(hh, g.hash, 32);
            hash_display(h, g.header.merkle_root);
            CHECK_EQ_STR(h, chain_vectors[i].merkle);
            hash_display(h, g.txs[0].txid);
            CHECK_EQ_STR(h, chain_vectors[i].merkle);
            CHECK_EQ_INT(g.tx_count, 1);
            CHECK(tx_is_coinbase(&g.txs[0]));
            CHECK_EQ_INT(g.txs[0].vout[0].value_sat, 50 * COIN);
            CHECK_EQ_INT(g.header.bits, chain_vectors[i].bits);
            hash_display(h, p->genesis_hash);
            CHECK_EQ_STR(h, chain_vectors[i].genesis);
            CHECK_EQ_MEM(&p->genesis_header, &g.header, sizeof(g.header));
            block_clear(&g);
            /* Every genesis is mined at the easiest target, and meets it. */
            CHECK_EQ_INT(p->pow_limit_bits, chain_vectors[i].bits);
            CHECK(pow_check(p->genesis_hash, p->genesis_header.bits, p));
            CHECK_EQ_INT(p->coinbase_maturity, 100);
            CHECK_EQ_INT(p->pow_target_spacing, 600);
        }
        test_report(!test_case_failed, "chain params %s: genesis %s", chain_vectors[i].name,
                    chain_vectors[i].genesis);
        test_case_failed = saved;
    }
}

static void test_params_fields(void)
{
    const struct chain_params *m = chain_params_get("main");
    const struct chain_params *t3 = chain_params_get("test");
    const struct chain_params *t4 = chain_params_get("testnet4");
    const struct chain_params *s = chain_params_get("signet");
    const struct chain_params *r = chain_params_get("regtest");
    char h[65];

    CHECK(chain_params_get("testnet3") == t3);
    CHECK(chain_params_get("Main") == NULL);
    CHECK(chain_params_get("mainnet") == NULL);
    CHECK(chain_params_get("") == NULL);
    CHECK(chain_params_get(NULL) == NULL);

    CHECK_EQ_INT(chain_params_retarget_interval(m), 2016);
    CHECK_EQ_INT(chain_params_retarget_interval(t4), 2016);
    CHECK_EQ_INT(chain_params_retarget_interval(r), 144);
    CHECK_EQ_INT(m->subsidy_halving_interval, 210000);
    CHECK_EQ_INT(r->subsidy_halving_interval, 150);
    CHECK(!m->pow_allow_min_difficulty_blocks && !m->pow_no_retargeting && !m->enforce_bip94);
    CHECK(t3->pow_allow_min_difficulty_blocks && !t3->enforce_bip94);
    CHECK(t4->pow_allow_min_difficulty_blocks && t4->enforce_bip94);
    CHECK(!s->pow_allow_min_difficulty_blocks && !s->pow_no_retargeting);
    CHECK(r->pow_allow_min_difficulty_blocks && r->pow_no_retargeting);

    CHECK_U256_HEX(&m->pow_limit,
                   "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
    CHECK_U256_HEX(&s->pow_limit,
                   "00000377ae000000000000000000000000000000000000000000000000000000");
    CHECK_U256_HEX(&r->pow_limit,
                   "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");

    /* Buried deployments. */
    CHECK_EQ_INT(m->bip34_height, 227931);
    hash_display(h, m->bip34_hash);
    CHECK_EQ_STR(h, "000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8");
    CHECK_EQ_INT(m->bip65_height, 388381);
    CHECK_EQ_INT(m->bip66_height, 363725);
    CHECK_EQ_INT(m->csv_height, 419328);
    CHECK_EQ_INT(m->segwit_height, 481824);
    CHECK_EQ_INT(m->taproot_height, 709632);
    CHECK_EQ_INT(t3->bip34_height, 21111);
    CHECK_EQ_INT(t3->bip65_height, 581885);
    CHECK_EQ_INT(t3->bip66_height, 330776);
    CHECK_EQ_INT(t3->csv_height, 770112);
    CHECK_EQ_INT(t3->segwit_height, 834624);
    CHECK_EQ_INT(r->bip34_height, 1);
    CHECK_EQ_INT(r->segwit_height, 0);
    CHECK_EQ_INT(t4->segwit_height, 1);

    /* Script-flag exceptions and BIP30 exceptions. */
    uint8_t hash[32];
    uint32_t flags = 12345;
    CHECK_EQ_INT(hex_decode_hash32_rev(
                     hash, "00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22"),
                 RC_OK);
    CHECK(chain_params_script_exception(m, hash, &flags));
    CHECK_EQ_INT(flags, CHAIN_SCRIPT_VERIFY_NONE);
    CHECK(!chain_params_script_exception(t3, hash, &flags));
    CHECK_EQ_INT(hex_decode_hash32_rev(
                     hash, "0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad"),
                 RC_OK);
    CHECK(chain_params_script_exception(m, hash, &flags));
    CHECK_EQ_INT(flags, CHAIN_SCRIPT_VERIFY_P2SH | CHAIN_SCRIPT_VERIFY_WITNESS);
    CHECK_EQ_INT(flags, 0x801);
    CHECK_EQ_INT(hex_decode_hash32_rev(
                     hash, "00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105"),
                 RC_OK);
    CHECK(chain_params_script_exception(t3, hash, &flags));
    CHECK(!chain_params_script_exception(m, hash, &flags));
    CHECK(!chain_params_script_exception(r, m->genesis_hash, &flags));

    CHECK_EQ_INT(hex_decode_hash32_rev(
                     hash, "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec"),
                 RC_OK);
    CHECK(chain_params_is_bip30_exception(m, 91842, hash));
    CHECK(!chain_params_is_bip30_exception(m, 91880, hash));
    CHECK(!chain_params_is_bip30_exception(t3, 91842, hash));
    CHECK_EQ_INT(hex_decode_hash32_rev(
                     hash, "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721"),
                 RC_OK);
    CHECK(chain_params_is_bip30_exception(m, 91880, hash));

    /* Hints. */
    CHECK_U256_HEX(&m->minimum_chain_work, m->minimum_chain_work_hex);
    CHECK(!u256_is_zero(&m->minimum_chain_work));
    CHECK(u256_is_zero(&r->minimum_chain_work));
    hash_display(h, m->default_assume_valid);
    CHECK_EQ_STR(h, m->default_assume_valid_hex);

    /* Base58 prefixes. */
    CHECK_EQ_INT(m->base58[BASE58_PUBKEY_ADDRESS].bytes[0], 0);
    CHECK_EQ_INT(m->base58[BASE58_SCRIPT_ADDRESS].bytes[0], 5);
    CHECK_EQ_INT(m->base58[BASE58_SECRET_KEY].bytes[0], 128);
    CHECK_EQ_INT(m->base58[BASE58_EXT_PUBLIC_KEY].len, 4);
    CHECK_EQ_MEM(m->base58[BASE58_EXT_PUBLIC_KEY].bytes, "\x04\x88\xb2\x1e", 4);
    CHECK_EQ_MEM(m->base58[BASE58_EXT_SECRET_KEY].bytes, "\x04\x88\xad\xe4", 4);
    const struct chain_params *testish[] = {t3, t4, s, r};
    for (size_t i = 0; i < ARRAY_LEN(testish); i++) {
        CHECK_EQ_INT(testish[i]->base58[BASE58_PUBKEY_ADDRESS].bytes[0], 111);
        CHECK_EQ_INT(testish[i]->base58[BASE58_SCRIPT_ADDRESS].bytes[0], 196);
        CHECK_EQ_INT(testish[i]->base58[BASE58_SECRET_KEY].bytes[0], 239);
        CHECK_EQ_MEM(testish[i]->base58[BASE58_EXT_PUBLIC_KEY].bytes, "\x04\x35\x87\xcf", 4);
        CHECK_EQ_MEM(testish[i]->base58[BASE58_EXT_SECRET_KEY].bytes, "\x04\x35\x83\x94", 4);
    }

    /* Signet challenge (BIP325 default signet: a 1-of-2 multisig). */
    CHECK(s->signet_blocks);
    CHECK(!m->signet_blocks);
    CHECK_EQ_INT(s->signet_challenge_len, 71);
    char ch[2 * 71 + 1];
    hex_encode(ch, s->signet_challenge, s->signet_challenge_len);
    CHECK_EQ_STR(ch, s->signet_challenge_hex);
}

/* The genesis block serialized must equal the first block of the real block files. */
static void check_genesis_against_blk(const struct chain_params *p, const char *rel)
{
    size_t len = 0;
    uint8_t *f = test_read_file(shared_path(rel), &len);
    CHECK(f != NULL);
    if (!f) {
        return;
    }
    CHECK(len > 8);
    CHECK_EQ_MEM(f, p->magic, 4);
    uint32_t size = rd_u32le(f + 4);
    CHECK(8 + (size_t)size <= len);
    struct block g;
    struct buf ser;
    chain_params_genesis_block(&g, p);
    buf_init(&ser);
    block_serialize(&g, &ser, 1);
    CHECK_EQ_INT(ser.len, size);
    CHECK_EQ_INT(g.size_total, size);
    CHECK_EQ_INT(g.size_stripped, size);
    if (ser.len == size) {
        CHECK_EQ_MEM(ser.data, f + 8, size);
    }
    buf_clear(&ser);
    block_clear(&g);
    free(f);
}

/* The snapshots each chain vouches for (Core's m_assumeutxo_data), by hash and by height;
 * a chain by its network magic. */
static void test_params_assumeutxo(void)
{
    const struct chain_params *reg = chain_params_get("regtest"), *main = chain_params_get("main");
    uint8_t h[32];
    CHECK_EQ_INT(hex_decode_hash32_rev(
                     h, "0c552ced4721c249a389eb9b08cb8da261cd46f0e7b5f9d064d48f3113406853"),
                 RC_OK);
    const struct chain_assumeutxo *au = chain_params_assumeutxo_for_hash(reg, h);
    CHECK(au != NULL);
    CHECK_EQ_INT(au->height, 299);
    CHECK_EQ_U64(au->chain_tx, 334);
    CHECK(chain_params_assumeutxo_for_hash(main, h) == NULL);
    CHECK(chain_params_assumeutxo_for_height(reg, 298) == NULL);
    au = chain_params_assumeutxo_for_height(main, 840000);
    CHECK(au != NULL);
    CHECK_EQ_STR(au->blockhash_hex,
                 "0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5");
    CHECK_EQ_U64(au->chain_tx, 991032194);
    CHECK_EQ_INT((int)main->assumeutxo_count, 4);
    CHECK_EQ_INT((int)chain_params_get("testnet4")->assumeutxo_count, 2);
    CHECK_EQ_INT((int)chain_params_get("signet")->assumeutxo_count, 2);
    struct chain_params custom;
    static const uint8_t challenge[] = {0x51};
    CHECK_EQ_INT(chain_params_signet_custom(&custom, challenge, 1), RC_OK);
    CHECK_EQ_INT((int)custom.assumeutxo_count, 0);
    CHECK(chain_params_by_magic(reg->magic) == reg);
    CHECK(chain_params_by_magic(main->magic) == main);
    static const uint8_t none[4] = {0, 0, 0, 0};
    CHECK(chain_params_by_magic(none) == NULL);
}

/* The programs' chain options: -chain=NAME and the shorthands, an unknown name, others. */
static void test_params_option(void)
{
    const struct chain_params *p;
    const char *name;
    CHECK_EQ_INT(chain_params_option("chain=testnet4", &p, &name), 1);
    CHECK(p == chain_params_get("testnet4"));
    CHECK_EQ_INT(chain_params_option("testnet", &p, &name), 1);
    CHECK(p == chain_params_get("test"));
    CHECK_EQ_STR(name, "test");
    CHECK_EQ_INT(chain_params_option("regtest", &p, &name), 1);
    CHECK(p == chain_params_get("regtest"));
    CHECK_EQ_INT(chain_params_option("chain=foo", &p, &name), 1);
    CHECK(p == NULL);
    CHECK_EQ_STR(name, "foo");
    CHECK_EQ_INT(chain_params_option("datadir=x", &p, &name), 0);
    CHECK_EQ_INT(chain_params_option("regtestx", &p, &name), 0);
}

static void test_params_genesis_blocks(void)
{
    check_genesis_against_blk(chain_params_get("main"),
                              "data/mainnet-blocks-0-438/blk-mainnet-0-438.dat");
    check_genesis_against_blk(chain_params_get("regtest"), "data/regtest-small/blk00000.dat");
}

/* ---------- pow ---------- */

static void test_pow_check(void)
{
    const struct chain_params *m = chain_params_get("main");
    const struct chain_params *r = chain_params_get("regtest");
    uint8_t hash[32];

    CHECK(pow_check(m->genesis_hash, 0x1d00ffff, m));
    /* The same hash against a harder target fails. */
    CHECK(!pow_check(m->genesis_hash, 0x1a00ffff, m));
    /* Range checks: above the limit, negative, zero, overflow. */
    memset(hash, 0, 32);
    CHECK(pow_check(hash, 0x1d00ffff, m));
    CHECK(!pow_check(hash, 0x1d01ffff, m)); /* above pow_limit */
    CHECK(!pow_check(hash, 0x1d80ffff, m)); /* negative */
    CHECK(!pow_check(hash, 0x1d000000, m)); /* zero */
    CHECK(!pow_check(hash, 0, m));
    CHECK(!pow_check(hash, 0xff123456, m)); /* overflow */
    CHECK(!pow_check(hash, 0x207fffff, m));
    CHECK(pow_check(hash, 0x207fffff, r));
    /* Equality passes: the hash may equal the target. */
    struct u256 t;
    u256_set_compact(&t, 0x1b0404cb, NULL, NULL);
    u256_to_le32(hash, &t);
    CHECK(pow_check(hash, 0x1b0404cb, m));
    u256_add_u64(&t, &t, 1);
    u256_to_le32(hash, &t);
    CHECK(!pow_check(hash, 0x1b0404cb, m));
}

static void test_pow_block_proof(void)
{
    struct u256 w;
    pow_block_proof(&w, 0x1d00ffff);
    CHECK_U256_HEX(&w, "0000000000000000000000000000000000000000000000000000000100010001");
    pow_block_proof(&w, 0x207fffff);
    CHECK_EQ_U64(u256_low64(&w), 2);
    pow_block_proof(&w, 0x1d80ffff); /* negative */
    CHECK(u256_is_zero(&w));
    pow_block_proof(&w, 0xff123456); /* overflow */
    CHECK(u256_is_zero(&w));
    pow_block_proof(&w, 0);
    CHECK(u256_is_zero(&w));
    pow_block_proof(&w, 0x01010000); /* target 1: 2^256 / 2 */
    CHECK_U256_HEX(&w, "8000000000000000000000000000000000000000000000000000000000000000");
}

/* Core's pow_tests with mainnet values. */
static void test_pow_core_vectors(void)
{
    const struct chain_params *m = chain_params_get("main");
    /* get_next_work */
    CHECK_EQ_INT(pow_calculate_next_work(0x1d00ffff, 1262152739, 0x1d00ffff, 1261130161, m),
                 0x1d00d86a);
    CHECK(pow_permitted_transition(32256, 0x1d00ffff, 0x1d00d86a, m));
    /* get_next_work_pow_limit */
    CHECK_EQ_INT(pow_calculate_next_work(0x1d00ffff, 1233061996, 0x1d00ffff, 1231006505, m),
                 0x1d00ffff);
    CHECK(pow_permitted_transition(2016, 0x1d00ffff, 0x1d00ffff, m));
    /* get_next_work_lower_limit_actual */
    CHECK_EQ_INT(pow_calculate_next_work(0x1c05a3f4, 1279297671, 0x1c05a3f4, 1279008237, m),
                 0x1c0168fd);
    CHECK(pow_permitted_transition(68544, 0x1c05a3f4, 0x1c0168fd, m));
    CHECK(!pow_permitted_transition(68544, 0x1c05a3f4, 0x1c0168fd - 1, m));
    /* get_next_work_upper_limit_actual */
    CHECK_EQ_INT(pow_calculate_next_work(0x1c387f6f, 1269211443, 0x1c387f6f, 1263163443, m),
                 0x1d00e1fd);
    CHECK(pow_permitted_transition(46368, 0x1c387f6f, 0x1d00e1fd, m));
    CHECK(!pow_permitted_transition(46368, 0x1c387f6f, 0x1d00e1fd + 1, m));
    /* Inside a period the bits may not change. */
    CHECK(pow_permitted_transition(46369, 0x1c387f6f, 0x1c387f6f, m));
    CHECK(!pow_permitted_transition(46369, 0x1c387f6f, 0x1c387f6e, m));
    /* Min-difficulty networks accept anything. */
    CHECK(pow_permitted_transition(46369, 0x1c387f6f, 0x1d00ffff, chain_params_get("test")));
    /* Regtest never retargets. */
    CHECK_EQ_INT(
        pow_calculate_next_work(0x207fffff, 1000, 0x207fffff, 0, chain_params_get("regtest")),
        0x207fffff);
}

static void test_pow_equivalent_time(void)
{
    const struct chain_params *m = chain_params_get("main");
    struct u256 proof, a, b;
    pow_block_proof(&proof, 0x1d00ffff);
    u256_set_u64(&a, 0);
    u256_mul_u32(&b, &proof, 10);
    CHECK_EQ_INT(pow_proof_equivalent_time(&b, &a, 0x1d00ffff, m), 6000);
    CHECK_EQ_INT(pow_proof_equivalent_time(&a, &b, 0x1d00ffff, m), -6000);
    CHECK_EQ_INT(pow_proof_equivalent_time(&a, &a, 0x1d00ffff, m), 0);
    /* Saturation. */
    u256_set_u64(&a, 0);
    u256_not(&b, &a);
    CHECK_EQ_INT(pow_proof_equivalent_time(&b, &a, 0x207fffff, m), INT64_MAX);
    CHECK_EQ_INT(pow_proof_equivalent_time(&a, &b, 0x207fffff, m), -INT64_MAX);
}

/* Synthetic testnet3 chains for the 20-minute rule and the walk-back. */
static void test_pow_min_difficulty_rule(void)
{
    const struct chain_params *t3 = chain_params_get("test");
    const uint32_t limit = 0x1d00ffff, real = 0x1c0fffff;
    struct block_header h[2030];
    uint32_t bits;

    memset(h, 0, sizeof(h));
    for (int i = 0; i < 2030; i++) {
        h[i].time = (uint32_t)(1000000 + 600 * i);
        h[i].bits = real;
    }
    /* 2020..2029 are min-difficulty blocks. */
    for (int i = 2020; i < 2030; i++) {
        h[i].bits = limit;
    }
    struct header_run run = {h, 0, 2030, 0};
    struct pow_block_info last = info_of(&h[2029], 2029);

    /* Within 20 minutes: walk back over the min-difficulty blocks to 2019's real bits. */
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2029].time + 1200, t3, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, real);
    CHECK_EQ_INT(run.calls, 10);
    /* More than 20 minutes later: minimum difficulty. */
    run.calls = 0;
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2029].time + 1201, t3, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, limit);
    CHECK_EQ_INT(run.calls, 0);
    /* The walk stops at the period's first block (2016), even if it has the limit bits. */
    for (int i = 2016; i < 2030; i++) {
        h[i].bits = limit;
    }
    run.calls = 0;
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2029].time + 60, t3, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, limit);
    CHECK_EQ_INT(run.calls, 13);
    /* The walk stops at genesis too. */
    for (int i = 0; i < 10; i++) {
        h[i].bits = limit;
    }
    last = info_of(&h[9], 9);
    run.calls = 0;
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[9].time + 60, t3, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, limit);
    CHECK_EQ_INT(run.calls, 9);
    /* Errors from the lookup are passed up unchanged. */
    struct header_run empty = {h, 5000, 1, 0};
    last = info_of(&h[2029], 2029);
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2029].time + 60, t3, run_ancestor, &empty),
                 RC_NOT_FOUND);
    last = info_of(&h[2015], 2015);
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2015].time + 60, t3, run_ancestor, &empty),
                 RC_NOT_FOUND);
    /* Mainnet never walks and never looks anything up inside a period. */
    h[2029].bits = 0x1c0fffff;
    last = info_of(&h[2029], 2029);
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[2029].time + 100000,
                                        chain_params_get("main"), run_ancestor, &empty),
                 RC_OK);
    CHECK_EQ_INT(bits, 0x1c0fffff);
    /* Regtest: boundary at 144 keeps the bits. */
    const struct chain_params *r = chain_params_get("regtest");
    struct block_header rh[144];
    memset(rh, 0, sizeof(rh));
    for (int i = 0; i < 144; i++) {
        rh[i].bits = 0x207fffff;
        rh[i].time = (uint32_t)(1296688602 + i);
    }
    struct header_run rrun = {rh, 0, 144, 0};
    last = info_of(&rh[143], 143);
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, rh[143].time + 1, r, run_ancestor, &rrun),
                 RC_OK);
    CHECK_EQ_INT(bits, 0x207fffff);
    CHECK_EQ_INT(rrun.calls, 1);
}

/* One row of the retarget TSV. */
struct rt_row {
    int height;
    char hash[65];
    struct block_header h;
    struct u256 work;
};

static int rt_find(const struct rt_row *rows, int n, int height)
{
    for (int i = 0; i < n; i++) {
        if (rows[i].height == height) {
            return i;
        }
    }
    return -1;
}

struct rt_ctx {
    const struct rt_row *rows;
    int n;
};

static int rt_ancestor(void *ctx, int height, struct pow_block_info *out)
{
    struct rt_ctx *c = ctx;
    int i = rt_find(c->rows, c->n, height);
    if (i < 0) {
        return RC_NOT_FOUND;
    }
    *out = info_of(&c->rows[i].h, height);
    return RC_OK;
}

static int load_retarget_tsv(struct rt_row **rows_out)
{
    size_t len = 0;
    char *f = (char *)test_read_file(
        shared_path("data/mainnet-retarget-headers/retarget-headers-mainnet-0-415296.tsv"), &len);
    if (!f) {
        return -1;
    }
    int cap = 512, n = 0;
    struct rt_row *rows = calloc((size_t)cap, sizeof(*rows));
    char *save = NULL;
    for (char *line = strtok_r(f, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char hash[65], header[200], work[80];
        int height;
        if (strncmp(line, "height", 6) == 0) {
            continue;
        }
        if (sscanf(line, "%d\t%64s\t%199s\t%79s", &height, hash, header, work) != 4 || n == cap) {
            free(rows);
            free(f);
            return -1;
        }
        struct rt_row *r = &rows[n++];
        uint8_t raw[80];
        r->height = height;
        memcpy(r->hash, hash, sizeof(r->hash));
        if (hex_decode_fixed(raw, 80, header) != RC_OK || header_from80(&r->h, raw) != RC_OK ||
            u256_from_hex(&r->work, work) != RC_OK) {
            free(rows);
            free(f);
            return -1;
        }
    }
    free(f);
    *rows_out = rows;
    return n;
}

static void test_pow_mainnet_retargets(void)
{
    const struct chain_params *m = chain_params_get("main");
    struct rt_row *rows = NULL;
    int n = load_retarget_tsv(&rows);
    CHECK_EQ_INT(n, 413);
    if (n <= 0) {
        return;
    }
    struct rt_ctx ctx = {rows, n};
    int retargets = 0, changed = 0;

    /* Genesis: hash, PoW and its own work. */
    {
        int saved = test_case_failed;
        test_case_failed = 0;
        uint8_t hh[32];
        char h[65];
        CHECK_EQ_INT(rows[0].height, 0);
        block_header_hash(&rows[0].h, hh);
        hash_display(h, hh);
        CHECK_EQ_STR(h, rows[0].hash);
        CHECK_EQ_MEM(hh, m->genesis_hash, 32);
        CHECK(pow_check(hh, rows[0].h.bits, m));
        struct u256 w;
        pow_block_proof(&w, rows[0].h.bits);
        CHECK_U256_EQ(&w, &rows[0].work);
        test_report(!test_case_failed, "mainnet height 0: genesis hash, pow and chainwork");
        test_case_failed = saved;
    }

    for (int k = 1;; k++) {
        int ifirst = rt_find(rows, n, 2016 * (k - 1));
        int ilast = rt_find(rows, n, 2016 * k - 1);
        int inew = rt_find(rows, n, 2016 * k);
        if (ilast < 0 || inew < 0) {
            break;
        }
        int saved = test_case_failed;
        test_case_failed = 0;
        retargets++;
        CHECK(ifirst >= 0);
        const struct rt_row *first = &rows[ifirst], *last = &rows[ilast], *nw = &rows[inew];

        /* Hashes, links and proof of work of the rows. */
        const struct rt_row *three[3] = {first, last, nw};
        uint8_t hh[3][32];
        for (int j = 0; j < 3; j++) {
            char h[65];
            block_header_hash(&three[j]->h, hh[j]);
            hash_display(h, hh[j]);
            CHECK_EQ_STR(h, three[j]->hash);
            CHECK(pow_check(hh[j], three[j]->h.bits, m));
        }
        CHECK_EQ_MEM(nw->h.prev_hash, hh[1], 32);

        /* The retarget, through the same entry point the block index uses. */
        struct pow_block_info li = info_of(&last->h, last->height);
        uint32_t bits = 0;
        CHECK_EQ_INT(pow_next_work_required(&bits, &li, nw->h.time, m, rt_ancestor, &ctx), RC_OK);
        CHECK_EQ_INT(bits, nw->h.bits);
        CHECK_EQ_INT(
            pow_calculate_next_work(last->h.bits, last->h.time, first->h.bits, first->h.time, m),
            nw->h.bits);
        CHECK(pow_permitted_transition(nw->height, last->h.bits, nw->h.bits, m));
        /* Inside a period mainnet keeps the bits. */
        CHECK_EQ_INT(first->h.bits, last->h.bits);
        if (nw->h.bits != last->h.bits) {
            changed++;
        }

        /* Chain work: 2015 blocks at the period's bits, then one at the new bits. */
        struct u256 w, expect;
        pow_block_proof(&w, first->h.bits);
        u256_mul_u32(&w, &w, 2015);
        u256_add(&expect, &first->work, &w);
        CHECK_U256_EQ(&expect, &last->work);
        pow_block_proof(&w, nw->h.bits);
        u256_add(&expect, &last->work, &w);
        CHECK_U256_EQ(&expect, &nw->work);

        test_report(!test_case_failed, "mainnet retarget at %d: %08" PRIx32 " -> %08" PRIx32,
                    nw->height, last->h.bits, nw->h.bits);
        test_case_failed = saved;
    }
    CHECK_EQ_INT(retargets, 206);
    CHECK_EQ_INT(changed, 191);
    free(rows);
}

/* Reads a file of concatenated 80-byte headers. */
static struct block_header *load_headers(const char *rel, int *count)
{
    size_t len = 0;
    uint8_t *f = test_read_file(shared_path(rel), &len);
    if (!f || len % 80 != 0) {
        free(f);
        return NULL;
    }
    int n = (int)(len / 80);
    struct block_header *h = calloc((size_t)n, sizeof(*h));
    for (int i = 0; i < n; i++) {
        if (header_from80(&h[i], f + 80 * i) != RC_OK) {
            free(h);
            free(f);
            return NULL;
        }
    }
    free(f);
    *count = n;
    return h;
}

/* Walks a contiguous run of headers: links, PoW and the required bits of every header after
 * the first. Returns the number of headers whose bits the rules reproduced. */
static int walk_headers(const struct block_header *h, int n, int base, const struct chain_params *p,
                        const char *what)
{
    struct header_run run = {h, base, n, 0};
    int ok_bits = 0, ok_pow = 0, ok_link = 0;
    uint8_t prev_hash[32], hash[32];

    block_header_hash(&h[0], prev_hash);
    ok_pow += pow_check(prev_hash, h[0].bits, p);
    for (int i = 1; i < n; i++) {
        block_header_hash(&h[i], hash);
        ok_link += memcmp(h[i].prev_hash, prev_hash, 32) == 0;
        ok_pow += pow_check(hash, h[i].bits, p);
        struct pow_block_info last = info_of(&h[i - 1], base + i - 1);
        uint32_t bits = 0;
        int rc = pow_next_work_required(&bits, &last, h[i].time, p, run_ancestor, &run);
        if (rc == RC_OK && bits == h[i].bits) {
            ok_bits++;
        } else if (ok_bits + 5 > i) {
            printf("# %s: height %d: required %08" PRIx32 ", header has %08" PRIx32 " (rc %d)\n",
                   what, base + i, bits, h[i].bits, rc);
        }
        memcpy(prev_hash, hash, 32);
    }
    CHECK_EQ_INT(ok_link, n - 1);
    CHECK_EQ_INT(ok_pow, n);
    CHECK_EQ_INT(ok_bits, n - 1);
    return ok_bits;
}

static void test_pow_mainnet_headers_0_10236(void)
{
    const struct chain_params *m = chain_params_get("main");
    int n = 0;
    struct block_header *h =
        load_headers("data/mainnet-headers-0-10236/headers-mainnet-0-10236.bin", &n);
    CHECK(h != NULL);
    if (!h) {
        return;
    }
    CHECK_EQ_INT(n, 10237);
    uint8_t hash[32];
    block_header_hash(&h[0], hash);
    CHECK_EQ_MEM(hash, m->genesis_hash, 32);
    CHECK_EQ_MEM(&h[0], &m->genesis_header, sizeof(h[0]));
    walk_headers(h, n, 0, m, "mainnet 0-10236");

    /* Accumulated chain work against the recorded values at 2015, 2016, ..., 10080. */
    struct rt_row *rows = NULL;
    int nrows = load_retarget_tsv(&rows);
    CHECK(nrows > 0);
    struct u256 work, w;
    int checked = 0;
    u256_set_u64(&work, 0);
    for (int i = 0; i < n && nrows > 0; i++) {
        pow_block_proof(&w, h[i].bits);
        u256_add(&work, &work, &w);
        int j = rt_find(rows, nrows, i);
        if (j >= 0) {
            CHECK_U256_EQ(&work, &rows[j].work);
            checked++;
        }
    }
    CHECK_EQ_INT(checked, 11); /* 0, 2015, 2016, ..., 10079, 10080 */
    free(rows);
    free(h);
}

static void test_pow_mainnet_headers_822528(void)
{
    const struct chain_params *m = chain_params_get("main");
    int n = 0;
    struct block_header *h =
        load_headers("data/mainnet-headers-822528-830592/headers-mainnet-822528-830592.bin", &n);
    CHECK(h != NULL);
    if (!h) {
        return;
    }
    CHECK_EQ_INT(n, 8065);
    walk_headers(h, n, 822528, m, "mainnet 822528-830592");
    /* The four real retargets, one line each. */
    struct header_run run = {h, 822528, n, 0};
    for (int height = 824544; height <= 830592; height += 2016) {
        int saved = test_case_failed;
        test_case_failed = 0;
        int i = height - 822528;
        struct pow_block_info last = info_of(&h[i - 1], height - 1);
        uint32_t bits = 0;
        CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[i].time, m, run_ancestor, &run), RC_OK);
        CHECK_EQ_INT(bits, h[i].bits);
        CHECK(bits != h[i - 1].bits);
        CHECK(pow_permitted_transition(height, h[i - 1].bits, bits, m));
        test_report(!test_case_failed, "mainnet retarget at %d: %08" PRIx32 " -> %08" PRIx32,
                    height, h[i - 1].bits, h[i].bits);
        test_case_failed = saved;
    }
    free(h);
}

static void test_pow_testnet4_bip94(void)
{
    const struct chain_params *t4 = chain_params_get("testnet4");
    const struct chain_params *t3 = chain_params_get("test");
    int n = 0;
    struct block_header *h =
        load_headers("data/testnet4-headers-141120-143136/headers-testnet4-141120-143136.bin", &n);
    CHECK(h != NULL);
    if (!h) {
        return;
    }
    CHECK_EQ_INT(n, 2017);
    const int base = 141120;

    /* Hashes against the TSV's ids. */
    size_t len = 0;
    char *tsv = (char *)test_read_file(
        shared_path("data/testnet4-headers-141120-143136/testnet4-headers-141120-143136.tsv"),
        &len);
    CHECK(tsv != NULL);
    int matched = 0, min_diff = 0;
    if (tsv) {
        char *save = NULL;
        for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            int height;
            char id[80];
            if (line[0] == '#' || sscanf(line, "%d|%79[0-9a-f]|", &height, id) != 2) {
                continue;
            }
            if (height < base || height >= base + n) {
                continue;
            }
            uint8_t hh[32];
            char disp[65];
            block_header_hash(&h[height - base], hh);
            hash_display(disp, hh);
            matched += strcmp(disp, id) == 0;
        }
        free(tsv);
    }
    CHECK_EQ_INT(matched, 2017);
    for (int i = 0; i < n; i++) {
        min_diff += h[i].bits == 0x1d00ffff;
    }
    CHECK_EQ_INT(min_diff, 1783);

    walk_headers(h, n, base, t4, "testnet4 141120-143136");

    struct header_run run = {h, base, n, 0};
    struct pow_block_info last = info_of(&h[n - 2], base + n - 2);
    uint32_t bits = 0;
    CHECK_EQ_INT(h[0].bits, 0x19023578);
    CHECK_EQ_INT(h[n - 2].bits, 0x1d00ffff); /* the period ends on a min-difficulty block */
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[n - 1].time, t4, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, 0x190228f4);
    CHECK_EQ_INT(h[n - 1].bits, 0x190228f4);
    /* Without BIP94 (testnet3's rule) the base would be the min-difficulty last block. */
    CHECK_EQ_INT(pow_next_work_required(&bits, &last, h[n - 1].time, t3, run_ancestor, &run),
                 RC_OK);
    CHECK_EQ_INT(bits, 0x1d00fa54);
    free(h);
}

static void test_pow_signet_headers(void)
{
    const struct chain_params *s = chain_params_get("signet");
    int n = 0;
    struct block_header *h =
        load_headers("data/signet-headers-0-2015/headers-signet-0-2015.bin", &n);
    CHECK(h != NULL);
    if (!h) {
        return;
    }
    CHECK_EQ_INT(n, 2016);
    CHECK_EQ_MEM(&h[0], &s->genesis_header, sizeof(h[0]));
    walk_headers(h, n, 0, s, "signet 0-2015");
    uint8_t hash[32];
    char disp[65];
    block_header_hash(&h[n - 1], hash);
    hash_display(disp, hash);
    CHECK_EQ_STR(disp, "000000c0a3841a6ae64c45864ae25314b40fd522bfb299a4b6bd5ef288cae74d");
    /* Signet headers fail mainnet's limit check: their target is far easier. */
    CHECK(!pow_check(hash, h[n - 1].bits, chain_params_get("main")));
    free(h);
}

int main(void)
{
    size_t len;
    uint8_t *probe = test_read_file(
        shared_path("data/mainnet-retarget-headers/retarget-headers-mainnet-0-415296.tsv"), &len);
    if (!probe) {
        return test_missing_shared("data/mainnet-retarget-headers");
    }
    free(probe);

    TEST(test_arith_basics);
    TEST(test_arith_shifts);
    test_arith_compact_vectors();
    TEST(test_arith_compact_edges);

    TEST(test_amount_subsidy);
    TEST(test_amount_range);
    TEST(test_amount_format);
    TEST(test_amount_parse_fixed_point);
    TEST(test_amount_parse);

    test_params_chains();
    TEST(test_params_fields);

    TEST(test_pow_check);
    TEST(test_pow_block_proof);
    TEST(test_pow_core_vectors);
    TEST(test_pow_equivalent_time);
    TEST(test_pow_min_difficulty_rule);

    /* Real chain data. */
    TEST(test_params_genesis_blocks);
    TEST(test_params_assumeutxo);
    TEST(test_params_option);
    test_pow_mainnet_retargets();
    TEST(test_pow_mainnet_headers_0_10236);
    TEST(test_pow_mainnet_headers_822528);
    TEST(test_pow_testnet4_bip94);
    TEST(test_pow_signet_headers);
    return test_done();
}
