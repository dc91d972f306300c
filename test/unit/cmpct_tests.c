/* net/cmpct: BIP152 compact blocks. Codec round trips and every kind of malformed payload;
 * the short id against an independent computation; reconstruction of real mainnet blocks
 * (shared/data/mainnet-sample-blocks) from a cmpctblock, a "mempool" and a blocktxn, back
 * to the identical bytes; collisions and wrong transactions. */
#include <stdlib.h>
#include <string.h>

#include "consensus/merkle.h"
#include "net/cmpct.h"
#include "primitives/serialize.h"
#include "test.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define B482683 "482683-000000000000000000c238240ef6dcb26c37e75e16514e6ffc0aef7eee73e747.bin"
#define B481829 "481829-000000000000000000917cba69f69b758fe396c8e30ae97bbcf08c4eb975e726.bin"
#define B169482 "169482-0000000000000756935f1ee9d5987857b604046f846d3df56d024cdb5f368665.bin"

static int have_shared;

/* A sample block: its bytes (*raw, caller frees) and the parsed block. 0 if unreadable. */
static int load_block(const char *name, uint8_t **raw, size_t *len, struct block *b)
{
    char path[4096], err[256];
    snprintf(path, sizeof(path), "%s/data/mainnet-sample-blocks/%s", test_shared_dir(), name);
    *raw = test_read_file(path, len);
    if (!*raw) {
        printf("# cannot read %s\n", path);
        return 0;
    }
    if (block_parse(b, *raw, *len, err, sizeof(err)) != RC_OK) {
        printf("# %s: %s\n", name, err);
        free(*raw);
        *raw = NULL;
        return 0;
    }
    return 1;
}

/* Every strict prefix of p must be refused (any error, no crash, nothing left owned). */
static int all_prefixes_refused(const uint8_t *p, size_t len,
                                int (*parse)(const uint8_t *, size_t, char *, size_t))
{
    int ok = 1;
    for (size_t n = 0; n < len; n++) {
        char err[200] = "";
        int rc = parse(p, n, err, sizeof(err));
        if (rc >= 0 || !err[0]) {
            printf("# prefix %zu of %zu: rc %d err \"%s\"\n", n, len, rc, err);
            ok = 0;
        }
    }
    return ok;
}

static int parse_cb(const uint8_t *p, size_t n, char *err, size_t el)
{
    struct cmpct_block cb;
    int rc = cmpct_block_parse(&cb, p, n, err, el);
    cmpct_block_clear(&cb);
    return rc;
}

static int parse_req(const uint8_t *p, size_t n, char *err, size_t el)
{
    struct cmpct_getblocktxn r;
    int rc = cmpct_getblocktxn_parse(&r, p, n, err, el);
    cmpct_getblocktxn_clear(&r);
    return rc;
}

static int parse_bt(const uint8_t *p, size_t n, char *err, size_t el)
{
    struct cmpct_blocktxn bt;
    int rc = cmpct_blocktxn_parse(&bt, p, n, err, el);
    cmpct_blocktxn_clear(&bt);
    return rc;
}

static void test_sendcmpct(void)
{
    struct buf b;
    char err[160];
    int ann;
    uint64_t ver;
    buf_init(&b);
    cmpct_sendcmpct_serialize(&b, 1, CMPCT_VERSION);
    CHECK_EQ_INT(b.len, 9);
    CHECK_EQ_MEM(b.data, "\x01\x02\0\0\0\0\0\0\0", 9);
    CHECK_EQ_INT(cmpct_sendcmpct_parse(b.data, b.len, &ann, &ver, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(ann, 1);
    CHECK_EQ_U64(ver, 2);
    buf_reset(&b);
    cmpct_sendcmpct_serialize(&b, 0, 1);
    CHECK_EQ_INT(cmpct_sendcmpct_parse(b.data, b.len, &ann, &ver, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(ann, 0);
    CHECK_EQ_U64(ver, 1);
    /* Trailing bytes are ignored, as Core's deserializer does. */
    buf_put_u8(&b, 7);
    CHECK_EQ_INT(cmpct_sendcmpct_parse(b.data, b.len, &ann, &ver, err, sizeof(err)), RC_OK);
    /* BIP152: the announce byte must be 0 or 1. */
    b.data[0] = 2;
    CHECK_EQ_INT(cmpct_sendcmpct_parse(b.data, b.len, &ann, &ver, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "invalid sendcmpct announce field");
    for (size_t n = 0; n < 9; n++) {
        err[0] = 0;
        CHECK_EQ_INT(cmpct_sendcmpct_parse(b.data, n, &ann, &ver, err, sizeof(err)), RC_TRUNCATED);
        CHECK(err[0] != 0);
    }
    buf_clear(&b);
}

/* The key and short id against an independent implementation (Python: hashlib's SHA-256
 * and SipHash-2-4 written from the paper, checked on its vector): block 482683's header,
 * nonce 0x0123456789abcdef, the wtxid 00 01 .. 1f. */
static void test_shortid_vector(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    struct cmpct_block cb;
    if (!load_block(B482683, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(cmpct_block_from_block(&cb, &b, 0x0123456789abcdefull), RC_OK);
    CHECK_EQ_U64(cb.k0, 0xad1b48a031cb7dfdull);
    CHECK_EQ_U64(cb.k1, 0x2fe3f1da96f51aebull);
    uint8_t w[32];
    for (int i = 0; i < 32; i++) {
        w[i] = (uint8_t)i;
    }
    CHECK_EQ_U64(cmpct_shortid(&cb, w), 0xc85f85167a4eull);
    CHECK_EQ_MEM(cb.hash, b.hash, 32);
    cmpct_block_clear(&cb);
    block_clear(&b);
    free(raw);
}

static void test_cmpctblock_roundtrip(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    struct cmpct_block cb, cb2;
    struct buf s, s2;
    char err[200];
    if (!load_block(B481829, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    buf_init(&s);
    buf_init(&s2);
    CHECK_EQ_INT(cmpct_block_from_block(&cb, &b, 42), RC_OK);
    CHECK_EQ_INT(cb.shortid_count, b.tx_count - 1);
    CHECK_EQ_INT(cb.prefilled_count, 1);
    CHECK_EQ_INT(cb.prefilled[0].index, 0);
    CHECK_EQ_MEM(cb.prefilled[0].tx.wtxid, b.txs[0].wtxid, 32);
    CHECK_EQ_INT(cmpct_block_tx_count(&cb), b.tx_count);
    for (size_t i = 1; i < b.tx_count; i++) {
        CHECK_EQ_U64(cb.shortids[i - 1], cmpct_shortid(&cb, b.txs[i].wtxid));
        CHECK(cb.shortids[i - 1] <= CMPCT_SHORTID_MASK);
    }
    CHECK_EQ_INT(cmpct_block_serialize(&s, &cb), RC_OK);
    /* header, nonce, count (3 bytes for 2019), 6 per id, count, index 0, the coinbase. */
    CHECK_EQ_INT(s.len, 80 + 8 + 3 + 6 * (b.tx_count - 1) + 1 + 1 + b.txs[0].size_total);
    CHECK_EQ_INT(cmpct_block_parse(&cb2, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_MEM(cb2.hash, b.hash, 32);
    CHECK_EQ_U64(cb2.nonce, 42);
    CHECK_EQ_U64(cb2.k0, cb.k0);
    CHECK_EQ_U64(cb2.k1, cb.k1);
    CHECK_EQ_INT(cb2.shortid_count, cb.shortid_count);
    CHECK_EQ_MEM(cb2.shortids, cb.shortids, cb.shortid_count * sizeof(uint64_t));
    CHECK_EQ_INT(cb2.prefilled_count, 1);
    CHECK_EQ_MEM(cb2.prefilled[0].tx.wtxid, b.txs[0].wtxid, 32);
    CHECK_EQ_INT(cmpct_block_serialize(&s2, &cb2), RC_OK);
    CHECK_EQ_INT(s2.len, s.len);
    CHECK_EQ_MEM(s2.data, s.data, s.len);
    cmpct_block_clear(&cb2);

    /* Several prefilled transactions, differentially encoded: positions 0, 1, 5, 2019. */
    cmpct_block_clear(&cb);
    CHECK_EQ_INT(cmpct_block_from_block(&cb, &b, 7), RC_OK);
    size_t pos[4] = {0, 1, 5, b.tx_count - 1};
    cmpct_block_clear(&cb2);
    cmpct_block_init(&cb2);
    cb2.header = cb.header;
    cb2.nonce = 7;
    cmpct_block_set_key(&cb2);
    cb2.prefilled = xcalloc(4, sizeof(*cb2.prefilled));
    cb2.prefilled_count = 4;
    cb2.shortids = xmalloc(b.tx_count * sizeof(uint64_t));
    for (size_t i = 0, k = 0; i < b.tx_count; i++) {
        if (k < 4 && pos[k] == i) {
            cb2.prefilled[k].index = (uint16_t)i;
            tx_copy(&cb2.prefilled[k++].tx, &b.txs[i]);
        } else {
            cb2.shortids[cb2.shortid_count++] = cmpct_shortid(&cb2, b.txs[i].wtxid);
        }
    }
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_block_serialize(&s, &cb2), RC_OK);
    struct cmpct_block cb3;
    CHECK_EQ_INT(cmpct_block_parse(&cb3, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cb3.prefilled_count, 4);
    for (size_t k = 0; k < 4 && k < cb3.prefilled_count; k++) {
        CHECK_EQ_INT(cb3.prefilled[k].index, pos[k]);
        CHECK_EQ_MEM(cb3.prefilled[k].tx.wtxid, b.txs[pos[k]].wtxid, 32);
    }
    cmpct_block_clear(&cb3);
    /* Not increasing: refused, nothing written. */
    cb2.prefilled[2].index = 1;
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_block_serialize(&s, &cb2), RC_USAGE);
    CHECK_EQ_INT(s.len, 0);

    cmpct_block_clear(&cb);
    cmpct_block_clear(&cb2);
    buf_clear(&s);
    buf_clear(&s2);
    block_clear(&b);
    free(raw);
    struct block empty;
    block_init(&empty);
    CHECK_EQ_INT(cmpct_block_from_block(&cb, &empty, 1), RC_USAGE);
    CHECK_EQ_INT(cb.prefilled_count, 0);
}

/* A cmpctblock payload with the given counts and raw tail (after the short id count). */
static void cb_payload(struct buf *p, uint64_t nshort, const uint8_t *tail, size_t tail_len)
{
    buf_reset(p);
    uint8_t h[80] = {1};
    h[72] = 0xff; /* bits: non-null */
    buf_append(p, h, 80);
    buf_put_u64le(p, 99);
    ser_put_compact(p, nshort);
    for (uint64_t i = 0; i < nshort; i++) {
        uint8_t id[6] = {(uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), 0, 0, 0};
        buf_append(p, id, 6);
    }
    buf_append(p, tail, tail_len);
}

/* A minimal transaction: one input, one output, no witness (60 bytes). */
static const uint8_t small_tx[] = {
    1,    0,    0,    0, /* version */
    1,                   /* one input */
    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 1,    0,    0,    0, /* prevout */
    0,                                                                   /* scriptSig */
    0xff, 0xff, 0xff, 0xff,                                              /* sequence */
    1,                                                                   /* one output */
    0x10, 0x27, 0,    0,    0,    0,    0,    0,                         /* 10000 sat */
    1,    0x51,                                                          /* OP_TRUE */
    0,    0,    0,    0,                                                 /* locktime */
};

static int cb_rc(struct buf *p, char *err, size_t el)
{
    return parse_cb(p->data, p->len, err, el);
}

static void test_cmpctblock_malformed(void)
{
    struct buf p, t;
    char err[200];
    buf_init(&p);
    buf_init(&t);

    /* Valid baseline: 2 short ids, one prefilled at index 1. */
    buf_put_u8(&t, 1);
    buf_put_u8(&t, 1);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 2, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_OK);
    CHECK(all_prefixes_refused(p.data, p.len, parse_cb));
    /* Trailing bytes are ignored, as Core does. */
    buf_put_u8(&p, 0);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_OK);

    /* Index out of range: position 3 with 2 short ids and the first prefilled. */
    buf_reset(&t);
    buf_put_u8(&t, 1);
    buf_put_u8(&t, 3);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 2, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "prefilled index 3 out of range") != NULL);
    /* Position 2 is the last one: fine. */
    t.data[1] = 2;
    cb_payload(&p, 2, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_OK);

    /* A difference over 16 bits (Core: "CompactSize exceeds limit of type"). */
    buf_reset(&t);
    buf_put_u8(&t, 1);
    ser_put_compact(&t, 0x10000);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 0, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_TOO_LARGE);
    CHECK(strstr(err, "exceeds limit of type") != NULL);
    /* 0xffff fits the type but is out of range. */
    buf_reset(&t);
    buf_put_u8(&t, 1);
    ser_put_compact(&t, 0xffff);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 0, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_INVALID);
    /* Two prefilled: the second's difference runs past the end (0 then 0xfffe -> 65535). */
    buf_reset(&t);
    buf_put_u8(&t, 2);
    buf_put_u8(&t, 0);
    buf_append(&t, small_tx, sizeof(small_tx));
    ser_put_compact(&t, 0xfffe);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 3, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "out of range") != NULL);

    /* Counts: 65536 short ids; 65535 short ids + 1 prefilled; both refused before any
     * allocation, the first without the ids being present. */
    uint8_t big[16];
    size_t bl;
    buf_reset(&p);
    uint8_t h[80] = {0};
    buf_append(&p, h, 80);
    buf_put_u64le(&p, 0);
    ser_put_compact(&p, 65536);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_TOO_LARGE);
    CHECK(strstr(err, "indexes overflowed 16 bits") != NULL);
    buf_reset(&t);
    buf_put_u8(&t, 1);
    buf_put_u8(&t, 0);
    buf_append(&t, small_tx, sizeof(small_tx));
    cb_payload(&p, 65535, t.data, t.len);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_TOO_LARGE);
    CHECK(strstr(err, "indexes overflowed 16 bits") != NULL);
    cb_payload(&p, 65534, t.data, t.len); /* 65535 in all: the limit itself is fine */
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_OK);
    /* A short id count the message cannot hold. */
    buf_reset(&p);
    buf_append(&p, h, 80);
    buf_put_u64le(&p, 0);
    ser_put_compact(&p, 60000);
    buf_append_fill(&p, 0, 100);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_TRUNCATED);
    /* A prefilled count the message cannot hold. */
    bl = 0;
    big[bl++] = 0xfd;
    big[bl++] = 0x00;
    big[bl++] = 0x10; /* 4096 prefilled */
    cb_payload(&p, 0, big, bl);
    buf_append_fill(&p, 0, 200);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_TRUNCATED);
    /* Non-canonical short id count (0xfd 0x02 0x00 for 2). */
    buf_reset(&p);
    buf_append(&p, h, 80);
    buf_put_u64le(&p, 0);
    buf_append(&p, "\xfd\x02\x00", 3);
    buf_append_fill(&p, 0, 13);
    CHECK_EQ_INT(cb_rc(&p, err, sizeof(err)), RC_NONCANONICAL);
    /* A count over Core's MAX_SIZE. */
    buf_reset(&p);
    buf_append(&p, h, 80);
    buf_put_u64le(&p, 0);
    buf_append(&p, "\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9);
    CHECK(cb_rc(&p, err, sizeof(err)) < 0);
    /* A prefilled transaction that does not parse: the message names it. */
    buf_reset(&t);
    buf_put_u8(&t, 1);
    buf_put_u8(&t, 0);
    buf_append(&t, small_tx, sizeof(small_tx) - 10);
    buf_append_fill(&t, 0xee, 10);
    cb_payload(&p, 0, t.data, t.len);
    CHECK(cb_rc(&p, err, sizeof(err)) < 0);
    CHECK(strncmp(err, "prefilled tx 0: ", 16) == 0);

    /* Random corruption of a real cmpctblock never crashes. */
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    if (load_block(B482683, &raw, &len, &b)) {
        struct cmpct_block cb;
        cmpct_block_from_block(&cb, &b, 5);
        buf_reset(&p);
        cmpct_block_serialize(&p, &cb);
        CHECK(all_prefixes_refused(p.data, p.len, parse_cb));
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 20000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t at = (size_t)(x % p.len);
            uint8_t old = p.data[at];
            p.data[at] ^= (uint8_t)(1 + (x >> 40) % 255);
            struct cmpct_block c2;
            if (cmpct_block_parse(&c2, p.data, p.len, err, sizeof(err)) == RC_OK) {
                CHECK(cmpct_block_tx_count(&c2) <= CMPCT_MAX_TXS);
                for (size_t k = 1; k < c2.prefilled_count; k++) {
                    CHECK(c2.prefilled[k].index > c2.prefilled[k - 1].index);
                }
            }
            cmpct_block_clear(&c2);
            p.data[at] = old;
        }
        cmpct_block_clear(&cb);
        block_clear(&b);
        free(raw);
    } else {
        CHECK(0);
    }
    buf_clear(&p);
    buf_clear(&t);
}

static void test_getblocktxn(void)
{
    struct cmpct_getblocktxn req, r2;
    struct buf s;
    char err[200];
    buf_init(&s);
    cmpct_getblocktxn_init(&req);
    memset(req.block_hash, 0x5a, 32);
    uint16_t idx[] = {0, 1, 3, 4, 300, 0xffff};
    req.indexes = idx;
    req.count = 6;
    CHECK_EQ_INT(cmpct_getblocktxn_serialize(&s, &req), RC_OK);
    /* hash, count, deltas 0 0 1 0 295 (0xfd 0x27 0x01) 65234 (0xfd ...) */
    CHECK_EQ_INT(s.len, 32 + 1 + 4 + 3 + 3);
    CHECK_EQ_MEM(s.data + 32, "\x06\x00\x00\x01\x00\xfd\x27\x01\xfd\xd2\xfe", 11);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_MEM(r2.block_hash, req.block_hash, 32);
    CHECK_EQ_INT(r2.count, 6);
    if (r2.count == 6) {
        CHECK_EQ_MEM(r2.indexes, idx, sizeof(idx));
    }
    cmpct_getblocktxn_clear(&r2);
    CHECK(all_prefixes_refused(s.data, s.len, parse_req));
    /* Not increasing: refused. */
    idx[2] = 1;
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_getblocktxn_serialize(&s, &req), RC_USAGE);
    CHECK_EQ_INT(s.len, 0);
    /* Empty: parses (Core disconnects for it in net_processing, not the deserializer). */
    req.count = 0;
    CHECK_EQ_INT(cmpct_getblocktxn_serialize(&s, &req), RC_OK);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(r2.count, 0);
    cmpct_getblocktxn_clear(&r2);

    /* Core's TransactionsRequestDeserializationOverflowTest: deltas 0x7000, 0x10000-0x7000-2,
     * 0 reach 0x10000 at the third index. */
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 3);
    ser_put_compact(&s, 0x7000);
    ser_put_compact(&s, 0x10000 - 0x7000 - 2);
    ser_put_compact(&s, 0);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "differential value overflow") != NULL);
    CHECK(r2.indexes == NULL && r2.count == 0);
    /* One index 0x10000: overflow; 0xffff: the highest legal one. */
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 1);
    ser_put_compact(&s, 0x10000);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_INVALID);
    s.len -= 5;
    ser_put_compact(&s, 0xffff);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK(r2.count == 1 && r2.indexes[0] == 0xffff);
    cmpct_getblocktxn_clear(&r2);
    /* Counts: over 65536 is too many whatever follows; more than the bytes left ends early. */
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 65537);
    buf_append_fill(&s, 0, 70000);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_TOO_LARGE);
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 10);
    buf_append_fill(&s, 0, 3);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_TRUNCATED);
    /* 65536 indexes, all deltas 0: exactly 0..65535, fine. */
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 65536);
    buf_append_fill(&s, 0, 65536);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK(r2.count == 65536 && r2.indexes[65535] == 65535);
    cmpct_getblocktxn_clear(&r2);
    /* A non-canonical delta. */
    buf_reset(&s);
    buf_append(&s, req.block_hash, 32);
    ser_put_compact(&s, 1);
    buf_append(&s, "\xfd\x01\x00", 3);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&r2, s.data, s.len, err, sizeof(err)), RC_NONCANONICAL);
    buf_clear(&s);
}

static void test_blocktxn(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    struct cmpct_blocktxn bt;
    struct cmpct_getblocktxn req;
    struct buf s, s2;
    char err[200];
    if (!load_block(B482683, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    buf_init(&s);
    buf_init(&s2);
    cmpct_getblocktxn_init(&req);
    memcpy(req.block_hash, b.hash, 32);
    /* Two plain ones, the first with a witness, and the last. */
    uint16_t wi = 3;
    while ((size_t)wi + 2 < b.tx_count && !tx_has_witness(&b.txs[wi])) {
        wi++;
    }
    uint16_t idx[] = {1, 2, wi, (uint16_t)(b.tx_count - 1)};
    req.indexes = idx;
    req.count = 4;
    CHECK_EQ_INT(cmpct_blocktxn_serialize_from_block(&s, &b, &req, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_MEM(bt.block_hash, b.hash, 32);
    CHECK_EQ_INT(bt.count, 4);
    for (size_t i = 0; i < bt.count; i++) {
        CHECK_EQ_MEM(bt.txs[i].wtxid, b.txs[idx[i]].wtxid, 32);
    }
    cmpct_blocktxn_serialize(&s2, &bt);
    CHECK_EQ_INT(s2.len, s.len);
    CHECK_EQ_MEM(s2.data, s.data, s.len);
    cmpct_blocktxn_clear(&bt);
    CHECK(all_prefixes_refused(s.data, s.len, parse_bt));
    /* A witness transaction keeps its witness through the round trip. */
    int some_witness = 0;
    for (size_t i = 0; i < 4; i++) {
        some_witness |= tx_has_witness(&b.txs[idx[i]]);
    }
    CHECK(some_witness);

    /* Out of the block's range: Core's reason, nothing written. */
    idx[3] = (uint16_t)b.tx_count;
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_blocktxn_serialize_from_block(&s, &b, &req, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "getblocktxn with out-of-bounds tx indices") != NULL);
    CHECK_EQ_INT(s.len, 0);

    /* A count the bytes cannot hold; a huge count; a bad transaction, named. */
    buf_reset(&s);
    buf_append(&s, b.hash, 32);
    ser_put_compact(&s, 1000);
    buf_append_fill(&s, 0, 9999);
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_TRUNCATED);
    buf_reset(&s);
    buf_append(&s, b.hash, 32);
    buf_append(&s, "\xfe\x00\x00\x00\x02", 5); /* 0x02000000 = MAX_SIZE */
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_TRUNCATED);
    buf_reset(&s);
    buf_append(&s, b.hash, 32);
    ser_put_compact(&s, 2);
    buf_append(&s, small_tx, sizeof(small_tx));
    buf_append(&s, small_tx, 20);
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_TRUNCATED);
    CHECK(strncmp(err, "tx 1: ", 6) == 0);
    CHECK(bt.txs == NULL && bt.count == 0);
    /* Zero transactions: a valid (if useless) blocktxn. */
    buf_reset(&s);
    buf_append(&s, b.hash, 32);
    ser_put_compact(&s, 0);
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(bt.count, 0);
    cmpct_blocktxn_clear(&bt);

    buf_clear(&s);
    buf_clear(&s2);
    block_clear(&b);
    free(raw);
}

/* What a reconstruction test offers and expects. */
struct offer_set {
    struct cmpct_candidate *pool, *extra;
    size_t pool_n, extra_n;
    struct buf *raws; /* serializations backing extra candidates */
};

/* Reconstructs b (raw: its bytes) through the wire: cmpctblock serialized and parsed; pool
 * gets the transactions i with i % 3 == 1 (as struct tx), extra those with i % 3 == 2 and
 * i even (as raw bytes), plus a duplicate of each pool transaction (no collision) and
 * unrelated transactions from other (no match). The rest is asked for, served from b by
 * getblocktxn / blocktxn, and filled in. The result must be b's bytes exactly. */
static void reconstruct(const struct block *b, const uint8_t *raw, size_t len,
                        const struct block *other, int segwit_active)
{
    struct cmpct_block sent, cb;
    struct buf s;
    char err[200];
    buf_init(&s);
    CHECK_EQ_INT(cmpct_block_from_block(&sent, b, 0xfeedfacecafebeefull), RC_OK);
    CHECK_EQ_INT(cmpct_block_serialize(&s, &sent), RC_OK);
    CHECK_EQ_INT(cmpct_block_parse(&cb, s.data, s.len, err, sizeof(err)), RC_OK);
    cmpct_block_clear(&sent);

    size_t n = b->tx_count;
    struct cmpct_candidate *pool = xcalloc(n + other->tx_count, sizeof(*pool));
    struct cmpct_candidate *extra = xcalloc(2 * n, sizeof(*extra));
    struct buf *raws = xcalloc(n, sizeof(*raws));
    size_t np = 0, ne = 0, want_pool = 0, want_extra = 0;
    for (size_t i = 0; i < other->tx_count; i++) {
        memcpy(pool[np].wtxid, other->txs[i].wtxid, 32);
        pool[np++].tx = &other->txs[i];
    }
    for (size_t i = 1; i < n; i++) {
        if (i % 3 == 1) {
            memcpy(pool[np].wtxid, b->txs[i].wtxid, 32);
            pool[np++].tx = &b->txs[i];
            want_pool++;
            memcpy(extra[ne].wtxid, b->txs[i].wtxid, 32);
            extra[ne++].tx = &b->txs[i]; /* the same transaction again: no collision */
        } else if (i % 3 == 2 && i % 2 == 0) {
            buf_init(&raws[i]);
            tx_serialize(&b->txs[i], &raws[i], 1);
            memcpy(extra[ne].wtxid, b->txs[i].wtxid, 32);
            extra[ne].raw = raws[i].data;
            extra[ne++].raw_len = raws[i].len;
            want_extra++;
        }
    }
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, pool, np, extra, ne, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    CHECK(cmpct_partial_ready(pb));
    CHECK_EQ_INT(cmpct_partial_tx_count(pb), n);
    uint8_t h[32];
    CHECK(cmpct_partial_header(pb, h) != NULL);
    CHECK_EQ_MEM(h, b->hash, 32);
    struct cmpct_counts c;
    cmpct_partial_counts(pb, &c);
    CHECK_EQ_INT(c.prefilled, 1);
    CHECK_EQ_INT(c.mempool, want_pool);
    CHECK_EQ_INT(c.extra, want_extra);

    /* The missing list, through the wire, answered from the block, through the wire. */
    struct cmpct_getblocktxn req, req2;
    cmpct_partial_getblocktxn(pb, &req);
    CHECK_EQ_MEM(req.block_hash, b->hash, 32);
    CHECK_EQ_INT(req.count, n - 1 - want_pool - want_extra);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int expect_have = i == 0 || i % 3 == 1 || (i % 3 == 2 && i % 2 == 0);
        CHECK_EQ_INT(cmpct_partial_has_tx(pb, i), expect_have);
        if (!expect_have) {
            CHECK(k < req.count && req.indexes[k] == i);
            k++;
        }
    }
    CHECK(!cmpct_partial_has_tx(pb, n));
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_getblocktxn_serialize(&s, &req), RC_OK);
    CHECK_EQ_INT(cmpct_getblocktxn_parse(&req2, s.data, s.len, err, sizeof(err)), RC_OK);
    buf_reset(&s);
    CHECK_EQ_INT(cmpct_blocktxn_serialize_from_block(&s, b, &req2, err, sizeof(err)), RC_OK);
    struct cmpct_blocktxn bt;
    CHECK_EQ_INT(cmpct_blocktxn_parse(&bt, s.data, s.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(bt.count, req.count);

    struct block out;
    CHECK_EQ_INT(
        cmpct_partial_fill(pb, &st, &out, bt.txs, bt.count, segwit_active, err, sizeof(err)),
        RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    if (st != CMPCT_OK) {
        printf("# fill: %s\n", err);
    }
    CHECK(!cmpct_partial_ready(pb));
    cmpct_partial_counts(pb, &c);
    CHECK_EQ_INT(c.blocktxn, req.count);
    CHECK_EQ_INT(c.prefilled + c.mempool + c.extra + c.blocktxn, n);
    CHECK_EQ_MEM(out.hash, b->hash, 32);
    CHECK_EQ_INT(out.size_total, b->size_total);
    CHECK_EQ_INT(out.size_stripped, b->size_stripped);
    buf_reset(&s);
    block_serialize(&out, &s, 1);
    CHECK_EQ_INT(s.len, len);
    CHECK_EQ_MEM(s.data, raw, len);
    /* Filled once: a second blocktxn is refused (Core's "previous compact block
     * reconstruction attempt failed"). */
    struct block again;
    CHECK_EQ_INT(
        cmpct_partial_fill(pb, &st, &again, bt.txs, bt.count, segwit_active, err, sizeof(err)),
        RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK_EQ_INT(again.tx_count, 0);

    block_clear(&out);
    cmpct_blocktxn_clear(&bt);
    cmpct_getblocktxn_clear(&req);
    cmpct_getblocktxn_clear(&req2);
    cmpct_partial_free(pb);
    for (size_t i = 0; i < n; i++) {
        buf_clear(&raws[i]);
    }
    free(raws);
    free(pool);
    free(extra);
    cmpct_block_clear(&cb);
    buf_clear(&s);
}

static void test_reconstruct_real_blocks(void)
{
    uint8_t *r1 = NULL, *r2 = NULL, *r3 = NULL;
    size_t l1, l2, l3;
    struct block b1, b2, b3;
    int ok1 = load_block(B481829, &r1, &l1, &b1);
    int ok2 = load_block(B169482, &r2, &l2, &b2);
    int ok3 = load_block(B482683, &r3, &l3, &b3);
    CHECK(ok1 && ok2 && ok3);
    if (ok1 && ok2 && ok3) {
        reconstruct(&b1, r1, l1, &b2, 1); /* segwit, 2020 transactions */
        reconstruct(&b3, r3, l3, &b2, 1); /* segwit, 12 */
        reconstruct(&b2, r2, l2, &b3, 0); /* before segwit, 14 */
        reconstruct(&b2, r2, l2, &b3, 1); /* no commitment, no witness: fine either way */
    }
    if (ok1) {
        block_clear(&b1);
    }
    if (ok2) {
        block_clear(&b2);
    }
    if (ok3) {
        block_clear(&b3);
    }
    free(r1);
    free(r2);
    free(r3);
}

/* Every transaction in the pool: nothing to ask for, filled with none. */
static void test_reconstruct_all_in_mempool(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    char err[200];
    if (!load_block(B482683, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    struct cmpct_block cb;
    cmpct_block_from_block(&cb, &b, 3);
    struct cmpct_candidate *pool = xcalloc(b.tx_count, sizeof(*pool));
    for (size_t i = 0; i < b.tx_count; i++) {
        memcpy(pool[i].wtxid, b.txs[b.tx_count - 1 - i].wtxid, 32); /* any order */
        pool[i].tx = &b.txs[b.tx_count - 1 - i];
    }
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, pool, b.tx_count, NULL, 0, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    struct cmpct_counts c;
    cmpct_partial_counts(pb, &c);
    /* The coinbase is prefilled; its pool copy matches no short id. */
    CHECK_EQ_INT(c.mempool, b.tx_count - 1);
    /* Initialising twice is the caller's bug. */
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, pool, b.tx_count, NULL, 0, err, sizeof(err)),
                 RC_USAGE);
    struct cmpct_getblocktxn req;
    cmpct_partial_getblocktxn(pb, &req);
    CHECK_EQ_INT(req.count, 0);
    CHECK(req.indexes == NULL);
    struct block out;
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, NULL, 0, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    struct buf s;
    buf_init(&s);
    block_serialize(&out, &s, 1);
    CHECK_EQ_INT(s.len, len);
    CHECK_EQ_MEM(s.data, raw, len);
    buf_clear(&s);
    block_clear(&out);
    cmpct_partial_free(pb);
    free(pool);
    cmpct_block_clear(&cb);
    block_clear(&b);
    free(raw);
}

/* Short-id collisions: in the cmpctblock itself (FAILED: get the full block), and between
 * candidates (the position is requested instead). */
static void test_collisions(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    char err[200];
    if (!load_block(B482683, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    struct cmpct_block cb;
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    cmpct_block_from_block(&cb, &b, 11);
    uint64_t saved = cb.shortids[4];
    cb.shortids[4] = cb.shortids[1];
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_FAILED);
    CHECK_EQ_STR(err, "short id collision");
    CHECK(!cmpct_partial_ready(pb));
    cb.shortids[4] = saved;

    /* Two pool entries for one short id (tx 3 offered twice): dropped, requested. An extra
     * entry for a position the pool already filled with the same wtxid (tx 5): kept. */
    struct cmpct_candidate pool[3], extra[1];
    memset(pool, 0, sizeof(pool));
    memset(extra, 0, sizeof(extra));
    memcpy(pool[0].wtxid, b.txs[3].wtxid, 32);
    pool[0].tx = &b.txs[3];
    pool[1] = pool[0];
    memcpy(pool[2].wtxid, b.txs[5].wtxid, 32);
    pool[2].tx = &b.txs[5];
    extra[0] = pool[2];
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, pool, 3, extra, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    CHECK(!cmpct_partial_has_tx(pb, 3));
    CHECK(cmpct_partial_has_tx(pb, 5));
    struct cmpct_counts c;
    cmpct_partial_counts(pb, &c);
    CHECK_EQ_INT(c.mempool, 1);
    CHECK_EQ_INT(c.extra, 0);
    struct cmpct_getblocktxn req;
    cmpct_partial_getblocktxn(pb, &req);
    CHECK_EQ_INT(req.count, b.tx_count - 2);
    /* The rest filled from the block: the block comes back. */
    struct tx *miss = xcalloc(req.count, sizeof(*miss));
    for (size_t i = 0; i < req.count; i++) {
        miss[i] = b.txs[req.indexes[i]]; /* borrowed: fill copies */
    }
    struct block out;
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    CHECK_EQ_MEM(out.hash, b.hash, 32);
    block_clear(&out);
    free(miss);
    cmpct_getblocktxn_clear(&req);

    /* Candidates that are the caller's bug: bytes that do not parse, a wrong wtxid. */
    cmpct_partial_free(pb);
    pb = cmpct_partial_new();
    struct cmpct_candidate bad;
    memset(&bad, 0, sizeof(bad));
    memcpy(bad.wtxid, b.txs[2].wtxid, 32);
    bad.raw = (const uint8_t *)"\x01\x00";
    bad.raw_len = 2;
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, &bad, 1, NULL, 0, err, sizeof(err)), RC_USAGE);
    CHECK(!cmpct_partial_ready(pb));
    bad.raw = NULL;
    bad.tx = &b.txs[3];
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, &bad, 1, err, sizeof(err)), RC_USAGE);
    CHECK(!cmpct_partial_ready(pb));

    cmpct_partial_free(pb);
    cmpct_block_clear(&cb);
    block_clear(&b);
    free(raw);
}

/* cmpctblocks InitData refuses as Core's READ_STATUS_INVALID. */
static void test_init_invalid(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    char err[200];
    if (!load_block(B482683, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    struct cmpct_block cb;
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    cmpct_block_from_block(&cb, &b, 1);

    cb.header.bits = 0; /* Core's null header */
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK_EQ_STR(err, "null header");
    cb.header.bits = b.header.bits;

    /* A prefilled index past the short ids (hand-built, as a parser would never give). */
    cb.prefilled[0].index = (uint16_t)(cb.shortid_count + 1);
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK(!cmpct_partial_ready(pb));
    /* A duplicate position (hand-built: the wire's differences cannot express one). */
    cb.prefilled = xrealloc(cb.prefilled, 2 * sizeof(*cb.prefilled));
    cb.prefilled[0].index = 0;
    cb.prefilled[1].index = 0;
    tx_copy(&cb.prefilled[1].tx, &b.txs[1]);
    cb.prefilled_count = 2;
    cb.shortid_count--;
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK(strstr(err, "not increasing") != NULL);
    cb.shortid_count++;
    tx_clear(&cb.prefilled[1].tx);
    cb.prefilled_count = 1;
    cb.prefilled[0].index = (uint16_t)cb.shortid_count; /* the last position: fine */
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    CHECK(cmpct_partial_has_tx(pb, cb.shortid_count));
    CHECK(!cmpct_partial_has_tx(pb, 0));
    cmpct_partial_free(pb);
    pb = cmpct_partial_new();
    cmpct_block_clear(&cb);

    /* No transactions at all. */
    cmpct_block_init(&cb);
    cb.header = b.header;
    cmpct_block_set_key(&cb);
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);

    /* A null prefilled transaction (no inputs, no outputs: 01000000 00 00 00000000 reads
     * as an empty vin, a zero flags byte, nothing else), as sent on the wire. */
    struct buf p;
    buf_init(&p);
    uint8_t h80[80];
    block_header_serialize(&b.header, h80);
    buf_append(&p, h80, 80);
    buf_put_u64le(&p, 1);
    ser_put_compact(&p, 0);
    ser_put_compact(&p, 1);
    ser_put_compact(&p, 0);
    buf_append(&p, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10);
    struct cmpct_block nul;
    CHECK_EQ_INT(cmpct_block_parse(&nul, p.data, p.len, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &nul, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK(strstr(err, "null prefilled") != NULL);
    cmpct_block_clear(&nul);
    buf_clear(&p);

    /* Fill without init. */
    struct block out;
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, NULL, 0, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);

    cmpct_partial_free(pb);
    cmpct_block_clear(&cb);
    block_clear(&b);
    free(raw);
}

/* Wrong transactions: a short id that matched the wrong mempool transaction (a collision
 * nobody could see), a blocktxn in the wrong order, one with a stripped witness, one of
 * the wrong size. */
static void test_wrong_transactions(void)
{
    uint8_t *raw = NULL, *raw2 = NULL;
    size_t len, len2;
    struct block b, o;
    char err[200];
    if (!load_block(B482683, &raw, &len, &b) || !load_block(B169482, &raw2, &len2, &o)) {
        CHECK(0);
        return;
    }
    struct cmpct_block cb;
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    struct block out;
    struct cmpct_counts c;
    cmpct_block_from_block(&cb, &b, 77);

    /* Position 2's short id is made the one of another block's transaction, which the pool
     * holds: taken, and the merkle root gives it away. */
    cb.shortids[1] = cmpct_shortid(&cb, o.txs[3].wtxid);
    struct cmpct_candidate cand[1];
    memset(cand, 0, sizeof(cand));
    memcpy(cand[0].wtxid, o.txs[3].wtxid, 32);
    cand[0].tx = &o.txs[3];
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, cand, 1, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    CHECK(cmpct_partial_has_tx(pb, 2));
    struct cmpct_getblocktxn req;
    cmpct_partial_getblocktxn(pb, &req);
    struct tx *miss = xcalloc(b.tx_count, sizeof(*miss));
    for (size_t i = 0; i < req.count; i++) {
        miss[i] = b.txs[req.indexes[i]];
    }
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_FAILED);
    CHECK(strncmp(err, "bad-txnmrklroot", 15) == 0);
    CHECK_EQ_INT(out.tx_count, 0);
    cmpct_partial_counts(pb, &c);
    CHECK_EQ_INT(c.mempool, 1);
    cmpct_getblocktxn_clear(&req);
    cmpct_block_clear(&cb);
    cmpct_block_from_block(&cb, &b, 77);

    /* The missing ones in the wrong order: merkle mismatch. */
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    cmpct_partial_getblocktxn(pb, &req);
    CHECK_EQ_INT(req.count, b.tx_count - 1);
    for (size_t i = 0; i < req.count; i++) {
        miss[i] = b.txs[req.indexes[i]];
    }
    struct tx t = miss[0];
    miss[0] = miss[1];
    miss[1] = t;
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_FAILED);
    CHECK(!cmpct_partial_ready(pb));

    /* A stripped witness: the txids (and so the merkle root) are right, the witness
     * commitment is not (segwit active); without segwit the witness is unexpected. */
    size_t wi = 0;
    for (size_t i = 1; i < b.tx_count && !wi; i++) {
        if (tx_has_witness(&b.txs[i])) {
            wi = i;
        }
    }
    CHECK(wi > 0);
    struct tx stripped;
    tx_copy(&stripped, &b.txs[wi]);
    for (size_t i = 0; i < stripped.vin_count; i++) {
        for (size_t j = 0; j < stripped.vin[i].witness_count; j++) {
            free(stripped.vin[i].witness[j].data);
        }
        free(stripped.vin[i].witness);
        stripped.vin[i].witness = NULL;
        stripped.vin[i].witness_count = 0;
    }
    tx_compute_hashes(&stripped);
    CHECK_EQ_MEM(stripped.txid, b.txs[wi].txid, 32);
    for (size_t i = 0; i < req.count; i++) {
        miss[i] = req.indexes[i] == wi ? stripped : b.txs[req.indexes[i]];
    }
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_FAILED);
    CHECK(strncmp(err, "bad-witness-merkle-match", 24) == 0);
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_FAILED);
    CHECK(strncmp(err, "unexpected-witness", 18) == 0);
    /* The right ones, with the segwit flag either way: the block has its commitment. */
    for (size_t i = 0; i < req.count; i++) {
        miss[i] = b.txs[req.indexes[i]];
    }
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count, 1, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(st, CMPCT_OK);
    block_clear(&out);
    tx_clear(&stripped);

    /* Too few or too many: INVALID (the peer's fault), and the partial block is spent. */
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count - 1, 1, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK(!cmpct_partial_ready(pb));
    miss[req.count] = b.txs[1];
    CHECK_EQ_INT(cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(cmpct_partial_fill(pb, &st, &out, miss, req.count + 1, 1, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(st, CMPCT_INVALID);
    CHECK_EQ_INT(out.tx_count, 0);

    cmpct_getblocktxn_clear(&req);
    free(miss);
    cmpct_partial_free(pb);
    cmpct_block_clear(&cb);
    block_clear(&b);
    block_clear(&o);
    free(raw);
    free(raw2);
}

/* cmpct_block_mutated on its own: Core's IsBlockMutated cases on a real block. */
static void test_mutated(void)
{
    uint8_t *raw = NULL;
    size_t len;
    struct block b;
    char err[200];
    if (!load_block(B169482, &raw, &len, &b)) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(cmpct_block_mutated(&b, 0, err, sizeof(err)), 0);
    CHECK_EQ_INT(cmpct_block_mutated(&b, 1, err, sizeof(err)), 0);
    /* The duplicate-subtree mutation (CVE-2012-2459): the 13 first transactions have the
     * root of the same 13 with the 13th repeated; the 14-transaction list is mutated. */
    struct tx *txs = xcalloc(14, sizeof(*txs));
    memcpy(txs, b.txs, 13 * sizeof(*txs));
    txs[13] = b.txs[12];
    struct block m = b; /* borrows b's transactions: never cleared */
    m.txs = txs;
    m.tx_count = 13;
    merkle_block_root(m.header.merkle_root, NULL, &m);
    CHECK_EQ_INT(cmpct_block_mutated(&m, 0, err, sizeof(err)), 0);
    m.tx_count = 14;
    CHECK_EQ_INT(cmpct_block_mutated(&m, 0, err, sizeof(err)), 1);
    CHECK(strncmp(err, "bad-txns-duplicate", 18) == 0);
    /* No coinbase: a 64-byte transaction (which could pose as an inner merkle node) is
     * mutation; at 65 bytes it is not. */
    for (int extra = 0; extra < 2; extra++) {
        struct buf tb;
        buf_init(&tb);
        buf_put_u32le(&tb, 1);
        buf_put_u8(&tb, 1);
        buf_append_fill(&tb, 0x11, 32);
        buf_put_u32le(&tb, 0);
        buf_put_u8(&tb, 0);
        buf_put_u32le(&tb, 0xffffffff);
        buf_put_u8(&tb, 1);
        buf_put_u64le(&tb, 5);
        buf_put_u8(&tb, (uint8_t)(4 + extra));
        buf_append_fill(&tb, 0x51, (size_t)(4 + extra));
        buf_put_u32le(&tb, 0);
        struct tx t64;
        CHECK_EQ_INT(tx_deserialize(&t64, tb.data, tb.len, err, sizeof(err)), RC_OK);
        CHECK_EQ_INT(t64.size_stripped, 64 + extra);
        struct block one = b;
        one.txs = &t64;
        one.tx_count = 1;
        memcpy(one.header.merkle_root, t64.txid, 32);
        CHECK_EQ_INT(cmpct_block_mutated(&one, 1, err, sizeof(err)), !extra);
        tx_clear(&t64);
        buf_clear(&tb);
    }
    free(txs);
    /* Header root changed: bad-txnmrklroot. */
    m = b;
    m.header.merkle_root[0] ^= 1;
    CHECK_EQ_INT(cmpct_block_mutated(&m, 0, err, sizeof(err)), 1);
    CHECK(strncmp(err, "bad-txnmrklroot", 15) == 0);
    block_clear(&b);
    free(raw);
}

int main(void)
{
    TEST(test_sendcmpct);
    TEST(test_getblocktxn);
    char probe[4096];
    snprintf(probe, sizeof(probe), "%s/data/mainnet-sample-blocks/%s", test_shared_dir(), B482683);
    FILE *f = fopen(probe, "rb");
    have_shared = f != NULL;
    if (f) {
        fclose(f);
    }
    if (!have_shared) {
        const char *req = getenv("BITNODE_REQUIRE_SHARED");
        test_report(!(req && strcmp(req, "1") == 0),
                    "real-block cases # SKIP data/mainnet-sample-blocks not found under %s",
                    test_shared_dir());
        return test_done();
    }
    TEST(test_shortid_vector);
    TEST(test_cmpctblock_roundtrip);
    TEST(test_cmpctblock_malformed);
    TEST(test_blocktxn);
    TEST(test_reconstruct_real_blocks);
    TEST(test_reconstruct_all_in_mempool);
    TEST(test_collisions);
    TEST(test_init_invalid);
    TEST(test_wrong_transactions);
    TEST(test_mutated);
    return test_done();
}
