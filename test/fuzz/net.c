/* Fuzz target: what a peer controls. The input is split by its first byte into one of:
 *   0: a byte stream cut into frames as the net thread cuts it (header parse, checksum),
 *      each payload through the parser of its command;
 *   1: a payload for every parser (version, inv, getheaders, headers, addr, addrv2,
 *      sendcmpct, cmpctblock, getblocktxn, blocktxn, filterload, merkleblock); a cmpctblock
 *      that parses is also reconstructed (no candidates, then filled with no transactions),
 *      a filter within the limits takes an element, a merkleblock's tree is proven;
 *   2: headers for the pre-sync state (a chain start, a minimum work, full/not full);
 *   3: SOCKS5 replies, as a proxy sends them.
 * Nothing may crash, leak, read out of bounds or allocate beyond the message's own bound.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a fixed number of inputs made
 * by a seeded generator from valid messages and their mutations, and prints TAP (it is a
 * test of the suite, under ASan+UBSan in CI).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/merkleblock.h"
#include "consensus/params.h"
#include "net/bloom.h"
#include "net/cmpct.h"
#include "net/headerssync.h"
#include "net/protocol.h"
#include "net/socks5.h"
#include "util/buf.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda};

/* A cmpctblock: parsed, re-serialized, and reconstructed as far as it goes without
 * candidates (the missing list, then a fill with none, which must not be CMPCT_OK unless
 * nothing was missing). */
static void fuzz_cmpctblock(const uint8_t *p, size_t n)
{
    char err[200];
    struct cmpct_block cb;
    if (cmpct_block_parse(&cb, p, n, err, sizeof(err)) != 0) {
        return;
    }
    if (cmpct_block_tx_count(&cb) > CMPCT_MAX_TXS) {
        abort();
    }
    struct buf b;
    buf_init(&b);
    if (cmpct_block_serialize(&b, &cb) != 0) {
        abort();
    }
    buf_clear(&b);
    struct cmpct_partial *pb = cmpct_partial_new();
    enum cmpct_status st;
    if (cmpct_partial_init(pb, &st, &cb, NULL, 0, NULL, 0, err, sizeof(err)) == 0 &&
        st == CMPCT_OK) {
        struct cmpct_getblocktxn req;
        cmpct_partial_getblocktxn(pb, &req);
        if (req.count + cb.prefilled_count != cmpct_block_tx_count(&cb)) {
            abort();
        }
        struct block out;
        cmpct_partial_fill(pb, &st, &out, NULL, 0, 1, err, sizeof(err));
        if (st == CMPCT_OK && req.count) {
            abort();
        }
        block_clear(&out);
        cmpct_getblocktxn_clear(&req);
    }
    cmpct_partial_free(pb);
    cmpct_block_clear(&cb);
}

/* A filterload: parsed; within the limits, an element goes in and is then contained, and
 * what parsed serializes to the same bytes. */
static void fuzz_filterload(const uint8_t *p, size_t n)
{
    char err[200];
    struct bloom_filter f;
    if (bloom_filter_parse(&f, p, n, err, sizeof(err)) != 0) {
        return;
    }
    if (bloom_filter_within_limits(&f)) {
        bloom_filter_insert(&f, p, n < 520 ? n : 520);
        if (!bloom_filter_contains(&f, p, n < 520 ? n : 520)) {
            abort();
        }
    }
    struct buf b;
    buf_init(&b);
    bloom_filter_serialize(&f, &b);
    if (b.len > n) {
        abort();
    }
    buf_clear(&b);
    bloom_filter_clear(&f);
}

/* A merkleblock: its header and partial merkle tree parsed, the tree proven or refused. */
static void fuzz_merkleblock(const uint8_t *p, size_t n)
{
    struct reader r;
    reader_init(&r, p, n);
    if (reader_skip(&r, 80, "header") != 0) {
        return;
    }
    struct partial_merkle pm;
    partial_merkle_init(&pm);
    if (partial_merkle_parse(&pm, &r) == 0) {
        uint8_t root[32], (*m)[32];
        uint32_t *idx;
        size_t k;
        if (partial_merkle_extract(&pm, root, &m, &idx, &k) == 0 && k > pm.n_hashes) {
            abort();
        }
        free(m);
        free(idx);
    }
    partial_merkle_clear(&pm);
}

static void parse_payload(const char *cmd, const uint8_t *p, size_t n)
{
    char err[200];
    if (!strcmp(cmd, "version") || !cmd[0]) {
        struct net_version v;
        net_version_parse(p, n, &v, err, sizeof(err));
    }
    if (!strcmp(cmd, "inv") || !strcmp(cmd, "getdata") || !cmd[0]) {
        struct net_inv *inv = NULL;
        size_t k = 0;
        if (net_inv_parse(p, n, &inv, &k, err, sizeof(err)) == 0 && k > NET_MAX_INV) {
            abort();
        }
        free(inv);
    }
    if (!strcmp(cmd, "getheaders") || !cmd[0]) {
        uint8_t(*h)[32] = NULL;
        uint8_t stop[32];
        size_t k = 0;
        if (net_locator_parse(p, n, &h, &k, stop, err, sizeof(err)) == 0 && k > NET_MAX_LOCATOR) {
            abort();
        }
        free(h);
    }
    if (!strcmp(cmd, "headers") || !cmd[0]) {
        uint8_t *raw = NULL;
        size_t k = 0;
        if (net_headers_parse(p, n, &raw, &k, err, sizeof(err)) == 0 && k > NET_MAX_HEADERS) {
            abort();
        }
        free(raw);
    }
    if (!strcmp(cmd, "sendcmpct") || !cmd[0]) {
        int ann;
        uint64_t ver;
        if (cmpct_sendcmpct_parse(p, n, &ann, &ver, err, sizeof(err)) == 0 && ann > 1) {
            abort();
        }
    }
    if (!strcmp(cmd, "cmpctblock") || !cmd[0]) {
        fuzz_cmpctblock(p, n);
    }
    if (!strcmp(cmd, "filterload") || !cmd[0]) {
        fuzz_filterload(p, n);
    }
    if (!strcmp(cmd, "merkleblock") || !cmd[0]) {
        fuzz_merkleblock(p, n);
    }
    if (!strcmp(cmd, "getblocktxn") || !cmd[0]) {
        struct cmpct_getblocktxn req;
        if (cmpct_getblocktxn_parse(&req, p, n, err, sizeof(err)) == 0) {
            for (size_t i = 1; i < req.count; i++) {
                if (req.indexes[i] <= req.indexes[i - 1]) {
                    abort();
                }
            }
            struct buf b;
            buf_init(&b);
            if (cmpct_getblocktxn_serialize(&b, &req) != 0) {
                abort(); /* what parsed serializes */
            }
            buf_clear(&b);
        }
        cmpct_getblocktxn_clear(&req);
    }
    if (!strcmp(cmd, "blocktxn") || !cmd[0]) {
        struct cmpct_blocktxn bt;
        if (cmpct_blocktxn_parse(&bt, p, n, err, sizeof(err)) == 0 && bt.count > n / 10) {
            abort();
        }
        cmpct_blocktxn_clear(&bt);
    }
    for (int v2 = 0; v2 < 2; v2++) {
        if ((!strcmp(cmd, v2 ? "addrv2" : "addr")) || !cmd[0]) {
            struct net_addr_msg_entry *a = NULL;
            size_t k = 0;
            if (net_addrmsg_parse(p, n, v2, &a, &k, err, sizeof(err)) == 0) {
                struct buf b;
                buf_init(&b);
                net_addrmsg_serialize(&b, v2, a, k); /* what it parsed serializes */
                buf_clear(&b);
            }
            free(a);
        }
    }
}

static void frames(const uint8_t *p, size_t n)
{
    while (n >= NET_HEADER_SIZE) {
        struct net_msg_header h;
        char err[200];
        if (net_header_parse(p, magic, &h, err, sizeof(err)) != 0) {
            return; /* the peer is dropped */
        }
        p += NET_HEADER_SIZE;
        n -= NET_HEADER_SIZE;
        if (h.len > n) {
            return; /* waits for more */
        }
        /* The node drops a frame with a bad checksum or an invalid type; the parsers must
         * survive its payload anyway, so it is parsed either way. */
        (void)net_checksum_ok(&h, p, h.len);
        parse_payload(h.command, p, h.len);
        p += h.len;
        n -= h.len;
    }
}

static void presync(const uint8_t *p, size_t n)
{
    const struct chain_params *cp = chain_params_get(n && (p[0] & 1) ? "main" : "regtest");
    struct headerssync_start st;
    memset(&st, 0, sizeof(st));
    memcpy(st.hash, cp->genesis_hash, 32);
    st.bits = cp->genesis_header.bits;
    st.mtp = cp->genesis_header.time;
    struct u256 min;
    u256_set_u64(&min, n > 1 ? (uint64_t)p[1] << 8 : 1000);
    struct headerssync *h = headerssync_new(cp, &st, &min, st.mtp + 86400 * 30);
    size_t off = 2;
    while (off < n) {
        size_t k = (n - off) / 80;
        if (k > 7) {
            k = 7;
        }
        if (k == 0) {
            break;
        }
        uint8_t *rel = NULL;
        size_t nrel = 0;
        int more;
        char err[160];
        headerssync_process(h, p + off, k, p[off] & 1, &rel, &nrel, &more, err, sizeof(err));
        free(rel);
        uint8_t(*loc)[32];
        headerssync_locator(h, &loc);
        free(loc);
        off += k * 80;
    }
    headerssync_free(h);
}

static void socks(const uint8_t *p, size_t n)
{
    struct socks5 s;
    struct buf out;
    buf_init(&out);
    socks5_begin(&s, n && (p[0] & 1) ? "abc.onion" : "127.0.0.1", 8333,
                 n && (p[0] & 2) ? "u" : NULL, "p", &out);
    size_t off = n ? 1 : 0;
    while (off < n && s.step != SOCKS5_DONE) {
        char err[160];
        int used = socks5_read(&s, p + off, n - off, &out, err, sizeof(err));
        if (used <= 0) {
            break;
        }
        off += (size_t)used;
    }
    buf_clear(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    switch (data[0] % 4) {
    case 0:
        frames(data + 1, size - 1);
        break;
    case 1:
        parse_payload("", data + 1, size - 1);
        break;
    case 2:
        presync(data + 1, size - 1);
        break;
    default:
        socks(data + 1, size - 1);
    }
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A valid message of a random kind, framed, with the selector byte in front. */
static void valid_input(struct buf *b)
{
    struct buf pl;
    buf_init(&pl);
    const char *cmd;
    switch (next() % 10) {
    case 8: {
        struct bloom_filter f;
        bloom_filter_init(&f, 1 + next() % 20, 0.001, next(), (uint8_t)(next() % 4));
        bloom_filter_insert(&f, (const uint8_t *)"fuzz", 4);
        bloom_filter_serialize(&f, &pl);
        bloom_filter_clear(&f);
        cmd = "filterload";
        break;
    }
    case 9: {
        uint8_t txids[7][32], match[7];
        size_t n = 1 + next() % 7;
        for (size_t i = 0; i < n; i++) {
            memset(txids[i], (int)next(), 32);
            match[i] = next() & 1;
        }
        struct partial_merkle pm;
        partial_merkle_init(&pm);
        partial_merkle_build(&pm, (const uint8_t(*)[32])txids, match, n);
        buf_append_fill(&pl, 0, 80);
        partial_merkle_serialize(&pm, &pl);
        partial_merkle_clear(&pm);
        cmd = "merkleblock";
        break;
    }
    case 5: {
        cmpct_sendcmpct_serialize(&pl, (int)(next() & 1), 2);
        cmd = "sendcmpct";
        break;
    }
    case 6: {
        /* A cmpctblock with a few short ids and a prefilled coinbase-like transaction. */
        static const uint8_t tx[] = {
            1, 0, 0, 0, 1, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
            0, 0, 0, 0, 0, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
            0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1,    0x51, 0xff, 0xff, 0xff, 0xff, 1,
            0, 0, 0, 0, 0, 0,    0,    0,    1,    0x51, 0,    0,    0,    0};
        struct cmpct_block cb;
        cmpct_block_init(&cb);
        cb.header.bits = 0x207fffff;
        cb.nonce = next();
        uint64_t ids[4] = {next(), next(), next(), next()};
        cb.shortids = ids;
        cb.shortid_count = next() % 5;
        struct cmpct_prefilled pre;
        pre.index = (uint16_t)(next() % (cb.shortid_count + 1));
        tx_deserialize(&pre.tx, tx, sizeof(tx), NULL, 0);
        cb.prefilled = &pre;
        cb.prefilled_count = 1;
        for (size_t i = 0; i < cb.shortid_count; i++) {
            ids[i] &= CMPCT_SHORTID_MASK;
        }
        cmpct_block_serialize(&pl, &cb);
        tx_clear(&pre.tx);
        cmd = "cmpctblock";
        break;
    }
    case 7: {
        struct cmpct_getblocktxn req;
        uint16_t idx[3] = {(uint16_t)(next() % 100), 0, 0};
        idx[1] = (uint16_t)(idx[0] + 1 + next() % 100);
        idx[2] = (uint16_t)(idx[1] + 1 + next() % 100);
        memset(req.block_hash, (int)next(), 32);
        req.indexes = idx;
        req.count = 1 + next() % 3;
        cmpct_getblocktxn_serialize(&pl, &req);
        cmd = "getblocktxn";
        break;
    }
    case 0: {
        struct net_version v;
        memset(&v, 0, sizeof(v));
        v.version = 70016;
        strcpy(v.user_agent, "/fuzz/");
        net_version_serialize(&pl, &v);
        cmd = "version";
        break;
    }
    case 1: {
        struct net_inv inv[3];
        memset(inv, (int)next(), sizeof(inv));
        net_inv_serialize(&pl, inv, 1 + next() % 3);
        cmd = "inv";
        break;
    }
    case 2: {
        uint8_t loc[2][32], stop[32] = {0};
        memset(loc, (int)next(), sizeof(loc));
        net_locator_serialize(&pl, 70016, (const uint8_t(*)[32])loc, 2, stop);
        cmd = "getheaders";
        break;
    }
    case 3: {
        uint8_t raw[160];
        memset(raw, (int)next(), sizeof(raw));
        net_headers_serialize(&pl, raw, 2);
        cmd = "headers";
        break;
    }
    default: {
        struct net_addr_msg_entry a;
        memset(&a, 0, sizeof(a));
        a.net = (uint8_t)(1 + next() % 6);
        a.len = a.net == 1 ? 4 : a.net == 4 || a.net == 5 ? 32 : 16;
        net_addrmsg_serialize(&pl, 1, &a, 1);
        cmd = "addrv2";
    }
    }
    buf_put_u8(b, 0);
    net_frame_build(b, magic, cmd, pl.data, pl.len);
    buf_clear(&pl);
}

static void mutate(struct buf *b)
{
    int n = 1 + (int)(next() % 8);
    for (int i = 0; i < n && b->len > 1; i++) {
        size_t at = 1 + next() % (b->len - 1);
        switch (next() % 4) {
        case 0:
            b->data[at] ^= (uint8_t)(1u << (next() % 8));
            break;
        case 1:
            b->data[at] = (uint8_t)next();
            break;
        case 2:
            b->len = at; /* truncate */
            break;
        default:
            b->data[at] = 0xff;
        }
    }
}

static size_t builtin_inputs(void)
{
    size_t count = 0;
    struct buf b;
    buf_init(&b);
    for (int i = 0; i < 200000; i++) {
        buf_reset(&b);
        if (i % 4 == 0) {
            valid_input(&b);
        } else {
            size_t n = next() % 600;
            buf_put_u8(&b, (uint8_t)(i % 4 == 1 ? next() : (uint32_t)((i / 4) % 4)));
            for (size_t k = 0; k < n; k++) {
                buf_put_u8(&b, (uint8_t)next());
            }
            if (i % 8 == 1) {
                buf_reset(&b);
                valid_input(&b);
                mutate(&b);
            }
        }
        LLVMFuzzerTestOneInput(b.data, b.len);
        count++;
    }
    buf_clear(&b);
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs,
                            "generated inputs through the peer-facing parsers");
}
#endif
