/* net/v2transport: BIP324's transport as a state machine, two ends wired to each other in
 * memory: the handshake (keys, garbage, terminators, version packets), messages both ways
 * with short and long type encodings, messages given before the handshake, a responder that
 * finds a v1 peer, and Core's reasons to drop a peer (wrong network, no terminator, a packet
 * that does not authenticate, one too large), fed byte by byte and in one piece. */
#include <stdlib.h>
#include <string.h>

#include "crypto/bip324.h"
#include "net/protocol.h"
#include "net/v2transport.h"
#include "test.h"
#include "util/rc.h"

static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda};

struct end {
    struct v2t *t;
    struct buf wire; /* bytes sent to it, not yet used */
    size_t off;
    /* What it received. */
    char types[16][16];
    struct buf payloads[16];
    size_t n_msgs;
    int failed;
    char err[160];
};

static void end_init(struct end *e, int initiating)
{
    memset(e, 0, sizeof(*e));
    e->t = v2t_new(initiating, magic, initiating ? 1 : 2);
    buf_init(&e->wire);
}

static void end_free(struct end *e)
{
    v2t_free(e->t);
    buf_clear(&e->wire);
    for (size_t i = 0; i < 16; i++) {
        buf_clear(&e->payloads[i]);
    }
}

/* Feeds e what waits for it as if it arrived chunk bytes at a time (each call sees all that
 * has arrived and is unused); what it answers goes to peer. */
static void pump(struct end *e, struct end *peer, size_t chunk)
{
    size_t arrived = e->off;
    while (!e->failed && !v2t_is_v1(e->t)) {
        size_t avail = arrived - e->off, want = v2t_want(e->t);
        size_t take = avail < want ? avail : want;
        size_t used = 0;
        int rc = take ? v2t_receive(e->t, e->wire.data + e->off, take, &used, &peer->wire,
                                    e->err, sizeof(e->err))
                      : V2T_MORE;
        e->off += used;
        if (rc < 0) {
            e->failed = 1;
            return;
        }
        if (rc == V2T_MESSAGE && e->n_msgs < 16) {
            const char *type;
            const uint8_t *payload;
            size_t len, wire;
            v2t_message(e->t, &type, &payload, &len, &wire);
            snprintf(e->types[e->n_msgs], sizeof(e->types[0]), "%s", type);
            buf_init(&e->payloads[e->n_msgs]);
            buf_append(&e->payloads[e->n_msgs], payload, len);
            e->n_msgs++;
        } else if (used == 0) {
            if (arrived == e->wire.len) {
                return; /* needs more than there is */
            }
            arrived = e->wire.len - arrived < chunk ? e->wire.len : arrived + chunk;
        }
    }
}

static void exchange(struct end *a, struct end *b, size_t chunk)
{
    for (int i = 0; i < 8; i++) {
        pump(a, b, chunk);
        pump(b, a, chunk);
    }
}

/* A handshake and messages, fed in pieces of chunk bytes. */
static void check_session(size_t chunk)
{
    struct end a, b;
    end_init(&a, 1);
    end_init(&b, 0);
    CHECK_EQ_INT(v2t_kind(a.t), V2T_DETECTING);
    /* The initiator's version message waits for the handshake. */
    const uint8_t ver[] = {0x80, 0x11, 0x01, 0x00, 9, 9, 9};
    CHECK(v2t_send(a.t, "version", ver, sizeof(ver), &b.wire) > 0);
    CHECK_EQ_INT(b.wire.len, 0);
    v2t_start(a.t, &b.wire);
    CHECK(b.wire.len >= BIP324_PUBKEY_LEN && b.wire.len <= BIP324_PUBKEY_LEN + 4095);
    CHECK(v2t_should_retry_v1(a.t)); /* key out, nothing back: a v1 retry if dropped */
    exchange(&a, &b, chunk);
    CHECK(!a.failed && !b.failed);
    CHECK_EQ_INT(v2t_kind(a.t), V2T_IS_V2);
    CHECK_EQ_INT(v2t_kind(b.t), V2T_IS_V2);
    CHECK(!v2t_should_retry_v1(a.t));
    CHECK(v2t_session_id(a.t) && v2t_session_id(b.t) &&
          memcmp(v2t_session_id(a.t), v2t_session_id(b.t), 32) == 0);
    CHECK_EQ_INT(b.n_msgs, 1);
    CHECK_EQ_STR(b.types[0], "version");
    CHECK_EQ_INT(b.payloads[0].len, sizeof(ver));
    CHECK_EQ_MEM(b.payloads[0].data, ver, sizeof(ver));
    /* Short IDs (ping, block), a long type (sendheaders has none), an empty payload, and a
     * large one. */
    uint8_t *big = malloc(1000000);
    for (size_t i = 0; i < 1000000; i++) {
        big[i] = (uint8_t)(i * 7);
    }
    const uint8_t nonce[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t w = v2t_send(b.t, "ping", nonce, 8, &a.wire);
    CHECK_EQ_INT(w, 1 + 8 + BIP324_EXPANSION);
    w = v2t_send(b.t, "sendheaders", NULL, 0, &a.wire);
    CHECK_EQ_INT(w, 1 + 12 + BIP324_EXPANSION);
    v2t_send(b.t, "block", big, 1000000, &a.wire);
    v2t_send(a.t, "verack", NULL, 0, &b.wire);
    exchange(&a, &b, chunk);
    CHECK(!a.failed && !b.failed);
    CHECK_EQ_INT(a.n_msgs, 3);
    CHECK_EQ_STR(a.types[0], "ping");
    CHECK_EQ_MEM(a.payloads[0].data, nonce, 8);
    CHECK_EQ_STR(a.types[1], "sendheaders");
    CHECK_EQ_INT(a.payloads[1].len, 0);
    CHECK_EQ_STR(a.types[2], "block");
    CHECK_EQ_INT(a.payloads[2].len, 1000000);
    CHECK(a.payloads[2].len == 1000000 && memcmp(a.payloads[2].data, big, 1000000) == 0);
    CHECK_EQ_INT(b.n_msgs, 2);
    CHECK_EQ_STR(b.types[1], "verack");
    /* A flipped bit in a packet: it does not authenticate and the connection is over. */
    size_t before = a.wire.len;
    v2t_send(b.t, "pong", nonce, 8, &a.wire);
    a.wire.data[before + 5] ^= 1;
    exchange(&a, &b, chunk);
    CHECK(a.failed);
    CHECK(strstr(a.err, "packet decryption failure") != NULL);
    free(big);
    end_free(&a);
    end_free(&b);
}

static void test_session(void)
{
    check_session(1u << 30);
}

static void test_session_byte_by_byte(void)
{
    check_session(1);
}

/* A responder whose peer sends v1's version header: v1 from then on, the bytes untouched. */
static void test_v1_detected(void)
{
    struct end b;
    end_init(&b, 0);
    struct buf v1, out;
    buf_init(&v1);
    buf_init(&out);
    net_frame_build(&v1, magic, "version", (const uint8_t *)"xyz", 3);
    size_t used = 99;
    char err[160];
    /* 15 bytes of the prefix: not yet known. */
    CHECK_EQ_INT(v2t_receive(b.t, v1.data, 15, &used, &out, err, sizeof(err)), V2T_MORE);
    CHECK_EQ_INT(used, 0);
    CHECK_EQ_INT(v2t_kind(b.t), V2T_DETECTING);
    CHECK_EQ_INT(v2t_receive(b.t, v1.data, 16, &used, &out, err, sizeof(err)), V2T_MORE);
    CHECK_EQ_INT(used, 0);
    CHECK(v2t_is_v1(b.t));
    CHECK_EQ_INT(v2t_kind(b.t), V2T_IS_V1);
    CHECK_EQ_INT(out.len, 0); /* a v1 peer gets no key */
    /* Sending is v1 framing now. */
    size_t w = v2t_send(b.t, "verack", NULL, 0, &out);
    CHECK_EQ_INT(w, NET_HEADER_SIZE);
    CHECK_EQ_INT(out.len, NET_HEADER_SIZE);
    CHECK_EQ_MEM(out.data, magic, 4);
    buf_clear(&v1);
    buf_clear(&out);
    end_free(&b);
}

/* Another network's v1 node: its magic differs, "version" follows. Core's words. */
static void test_wrong_network(void)
{
    struct end b;
    end_init(&b, 0);
    struct buf v1, out;
    buf_init(&v1);
    buf_init(&out);
    const uint8_t signet[4] = {0x0a, 0x03, 0xcf, 0x40};
    net_frame_build(&v1, signet, "version", (const uint8_t *)"somepayload", 11);
    size_t used;
    char err[160] = "";
    int rc = v2t_receive(b.t, v1.data, v1.len, &used, &out, err, sizeof(err));
    CHECK_EQ_INT(rc, RC_INVALID);
    CHECK_EQ_STR(err, "V1 peer with wrong MessageStart 0a03cf40");
    buf_clear(&v1);
    buf_clear(&out);
    end_free(&b);
}

/* 4095 bytes of garbage and 16 more without the terminator: Core drops the peer then, not a
 * byte earlier. */
static void test_missing_terminator(void)
{
    struct end a, b;
    end_init(&a, 1);
    end_init(&b, 0);
    v2t_start(a.t, &b.wire);
    pump(&b, &a, 1u << 30); /* b answers with its key */
    CHECK(!b.failed);
    /* a gets b's key, but here we play a bad responder instead: zeros after a real key. */
    struct end c;
    end_init(&c, 1);
    buf_append(&c.wire, a.wire.data, BIP324_PUBKEY_LEN);
    buf_append_fill(&c.wire, 0, 4095 + 16 - 1);
    struct buf sink;
    buf_init(&sink);
    v2t_start(c.t, &sink);
    pump(&c, &a, 1u << 30);
    CHECK(!c.failed);
    CHECK_EQ_INT(c.off, c.wire.len);
    buf_put_u8(&c.wire, 0);
    pump(&c, &a, 1u << 30);
    CHECK(c.failed);
    CHECK(strstr(c.err, "missing garbage terminator, peer=1") != NULL);
    buf_clear(&sink);
    end_free(&a);
    end_free(&b);
    end_free(&c);
}

/* A peer played by a bare BIP324 cipher: garbage before its terminator, a decoy before and
 * after its version packet, a message with the long type encoding, then a packet whose
 * length is past the largest message. */
static void test_peer_garbage_and_decoys(void)
{
    struct end b;
    end_init(&b, 0);
    struct bip324_cipher *peer;
    uint8_t priv[32], ent[32];
    memset(priv, 0x11, sizeof(priv));
    memset(ent, 0x22, sizeof(ent));
    CHECK_EQ_INT(bip324_cipher_new(&peer, priv, ent), RC_OK);
    struct buf tob, fromb;
    buf_init(&tob);
    buf_init(&fromb);
    buf_append(&tob, bip324_our_pubkey(peer), BIP324_PUBKEY_LEN);
    uint8_t garbage[1000];
    for (size_t i = 0; i < sizeof(garbage); i++) {
        garbage[i] = (uint8_t)(i * 13 + 5);
    }
    buf_append(&tob, garbage, sizeof(garbage));
    size_t used;
    char err[160];
    size_t off = 0;
    /* b sees the key (no v1 prefix), answers with its own, terminator and version packet. */
    while (off < tob.len) {
        CHECK_EQ_INT(v2t_receive(b.t, tob.data + off, tob.len - off, &used, &fromb, err,
                                 sizeof(err)),
                     V2T_MORE);
        if (!used) {
            break;
        }
        off += used;
    }
    CHECK_EQ_INT(off, tob.len);
    CHECK(fromb.len >= BIP324_PUBKEY_LEN + BIP324_GARBAGE_TERM_LEN + BIP324_EXPANSION);
    bip324_cipher_initialize(peer, fromb.data, 1, 0, magic);
    /* The terminator, a decoy (authenticating the garbage), the version packet, a decoy, and
     * a message with a long type. */
    buf_reset(&tob);
    off = 0;
    buf_append(&tob, bip324_send_garbage_terminator(peer), BIP324_GARBAGE_TERM_LEN);
    uint8_t pkt[64];
    bip324_encrypt(peer, (const uint8_t *)"decoy", 5, garbage, sizeof(garbage), 1, pkt);
    buf_append(&tob, pkt, 5 + BIP324_EXPANSION);
    bip324_encrypt(peer, NULL, 0, NULL, 0, 0, pkt);
    buf_append(&tob, pkt, BIP324_EXPANSION);
    bip324_encrypt(peer, (const uint8_t *)"x", 1, NULL, 0, 1, pkt);
    buf_append(&tob, pkt, 1 + BIP324_EXPANSION);
    uint8_t contents[1 + 12 + 3] = {0, 'v', 'e', 'r', 'a', 'c', 'k', 0, 0, 0, 0, 0, 0, 7, 8, 9};
    bip324_encrypt(peer, contents, sizeof(contents), NULL, 0, 0, pkt);
    buf_append(&tob, pkt, sizeof(contents) + BIP324_EXPANSION);
    int got_msg = 0;
    CHECK_EQ_INT(v2t_kind(b.t), V2T_DETECTING);
    while (off < tob.len) {
        size_t want = v2t_want(b.t), avail = tob.len - off;
        int rc = v2t_receive(b.t, tob.data + off, avail < want ? avail : want, &used, &fromb, err,
                             sizeof(err));
        CHECK(rc >= 0);
        if (rc == V2T_MESSAGE) {
            const char *type;
            const uint8_t *payload;
            size_t len, wire;
            v2t_message(b.t, &type, &payload, &len, &wire);
            CHECK_EQ_STR(type, "verack");
            CHECK_EQ_INT(len, 3);
            CHECK_EQ_INT(wire, sizeof(contents) + BIP324_EXPANSION);
            got_msg++;
        }
        if (rc < 0 || !used) {
            break;
        }
        off += used;
    }
    CHECK_EQ_INT(off, tob.len);
    CHECK_EQ_INT(got_msg, 1);
    CHECK_EQ_INT(v2t_kind(b.t), V2T_IS_V2);
    CHECK_EQ_MEM(v2t_session_id(b.t), bip324_session_id(peer), 32);
    /* A length past 1 + 12 + 4,000,000 bytes: dropped on the length alone. */
    uint8_t *big = calloc(1, 4000014);
    uint8_t *bigpkt = malloc(4000014 + BIP324_EXPANSION);
    bip324_encrypt(peer, big, 4000014, NULL, 0, 0, bigpkt);
    CHECK_EQ_INT(v2t_receive(b.t, bigpkt, BIP324_LENGTH_LEN, &used, &fromb, err, sizeof(err)),
                 RC_INVALID);
    CHECK(strstr(err, "packet too large (4000014 bytes)") != NULL);
    free(big);
    free(bigpkt);
    bip324_cipher_free(peer);
    buf_clear(&tob);
    buf_clear(&fromb);
    end_free(&b);
}

/* The short IDs of BIP324's table as Core implements it, and unknown ones. */
static void test_short_ids(void)
{
    static const char *const want[] = {
        NULL,          "addr",         "block",     "blocktxn",    "cmpctblock", "feefilter",
        "filteradd",   "filterclear",  "filterload", "getblocks",  "getblocktxn", "getdata",
        "getheaders",  "headers",      "inv",       "mempool",     "merkleblock", "notfound",
        "ping",        "pong",         "sendcmpct", "tx",          "getcfilters", "cfilter",
        "getcfheaders", "cfheaders",   "getcfcheckpt", "cfcheckpt", "addrv2",
    };
    for (uint8_t i = 1; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_EQ_STR(v2t_short_id_type(i), want[i]);
        CHECK_EQ_INT(v2t_short_id(want[i]), i);
    }
    for (uint8_t i = 29; i < 37; i++) {
        CHECK(v2t_short_id_type(i) == NULL);
    }
    CHECK_EQ_STR(v2t_short_id_type(37), "feature");
    CHECK(v2t_short_id_type(0) == NULL);
    CHECK(v2t_short_id_type(38) == NULL);
    CHECK(v2t_short_id_type(255) == NULL);
    CHECK_EQ_INT(v2t_short_id("version"), 0);
    CHECK_EQ_INT(v2t_short_id("verack"), 0);
    CHECK_EQ_INT(v2t_short_id("wtxidrelay"), 0);
    CHECK_EQ_INT(v2t_short_id(""), 0);
}

int main(void)
{
    TEST(test_session);
    TEST(test_session_byte_by_byte);
    TEST(test_v1_detected);
    TEST(test_wrong_network);
    TEST(test_missing_terminator);
    TEST(test_peer_garbage_and_decoys);
    TEST(test_short_ids);
    return test_done();
}
