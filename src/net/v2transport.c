#include "net/v2transport.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "crypto/bip324.h"
#include "net/protocol.h"
#include "util/check.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define V1_PREFIX_LEN 16 /* magic and "version" padded: what a v1 peer sends first */
#define MAX_GARBAGE_AND_TERM (BIP324_MAX_GARBAGE_LEN + BIP324_GARBAGE_TERM_LEN)
/* A packet's contents: the long type encoding (0 and 12 bytes) and the largest payload. */
#define MAX_CONTENTS_LEN (1 + NET_COMMAND_SIZE + NET_MAX_MESSAGE)

enum recv_state { R_KEY_MAYBE_V1, R_KEY, R_GARBAGE, R_VERSION, R_APP, R_V1 };
enum send_state { S_MAYBE_V1, S_AWAITING_KEY, S_READY, S_V1 };

/* BIP324's short message-type IDs (Core's table: 29-36 unassigned, 37 "feature"). */
static const char *const SHORT_IDS[] = {
    "",           "addr",      "block",       "blocktxn",     "cmpctblock", "feefilter",
    "filteradd",  "filterclear", "filterload", "getblocks",   "getblocktxn", "getdata",
    "getheaders", "headers",   "inv",         "mempool",      "merkleblock", "notfound",
    "ping",       "pong",      "sendcmpct",   "tx",           "getcfilters", "cfilter",
    "getcfheaders", "cfheaders", "getcfcheckpt", "cfcheckpt", "addrv2",     "",
    "",           "",          "",            "",             "",           "",
    "",           "feature",
};
#define N_SHORT_IDS (sizeof(SHORT_IDS) / sizeof(SHORT_IDS[0]))

struct v2t {
    struct bip324_cipher *cipher;
    int initiating;
    int64_t peer_id;
    uint8_t magic[4];
    enum recv_state rs;
    enum send_state ss;
    int received_any; /* a byte of the peer's key arrived */
    int key_sent;

    /* The peer's key, then its garbage and terminator (R_KEY, R_GARBAGE). */
    uint8_t hs[MAX_GARBAGE_AND_TERM];
    size_t hs_len;
    size_t aad_len;  /* R_VERSION: the peer's garbage (in hs) authenticates its first packet */
    int aad_pending; /* that first packet has not come yet */

    uint8_t send_garbage[BIP324_MAX_GARBAGE_LEN];
    size_t send_garbage_len;

    /* The packet being received: its length once decrypted. */
    uint32_t pkt_len;
    int have_len;
    struct buf contents; /* decrypted contents of the last packet */
    char msg_type[NET_COMMAND_SIZE + 1];
    size_t msg_off; /* where the payload starts in contents */

    struct buf queue;    /* messages before S_READY: type (12), length (u32 LE), payload */
    struct buf scratch;  /* a message's contents being encrypted */
};

uint8_t v2t_short_id(const char *command)
{
    for (size_t i = 1; i < N_SHORT_IDS; i++) {
        if (SHORT_IDS[i][0] && strcmp(SHORT_IDS[i], command) == 0) {
            return (uint8_t)i;
        }
    }
    return 0;
}

const char *v2t_short_id_type(uint8_t id)
{
    return id > 0 && id < N_SHORT_IDS && SHORT_IDS[id][0] ? SHORT_IDS[id] : NULL;
}

struct v2t *v2t_new(int initiating, const uint8_t magic[4], int64_t peer_id)
{
    struct v2t *t = xcalloc(1, sizeof(*t));
    uint8_t priv[32], ent[32];
    do {
        random_bytes(priv, sizeof(priv));
        random_bytes(ent, sizeof(ent));
    } while (bip324_cipher_new(&t->cipher, priv, ent) != RC_OK);
    OPENSSL_cleanse(priv, sizeof(priv));
    t->initiating = initiating;
    t->peer_id = peer_id;
    memcpy(t->magic, magic, 4);
    t->rs = initiating ? R_KEY : R_KEY_MAYBE_V1;
    t->ss = initiating ? S_AWAITING_KEY : S_MAYBE_V1;
    uint8_t r[2];
    random_bytes(r, sizeof(r));
    t->send_garbage_len = (size_t)(rd_u16le(r) % (BIP324_MAX_GARBAGE_LEN + 1));
    random_bytes(t->send_garbage, t->send_garbage_len);
    buf_init(&t->contents);
    buf_init(&t->queue);
    buf_init(&t->scratch);
    return t;
}

void v2t_free(struct v2t *t)
{
    if (!t) {
        return;
    }
    bip324_cipher_free(t->cipher);
    buf_clear(&t->contents);
    buf_clear(&t->queue);
    buf_clear(&t->scratch);
    OPENSSL_cleanse(t, sizeof(*t));
    free(t);
}

/* Our key and garbage: the first bytes of either side's v2 handshake. */
static void send_key(struct v2t *t, struct buf *out)
{
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "start sending v2 handshake to peer=%lld",
        (long long)t->peer_id);
    buf_append(out, bip324_our_pubkey(t->cipher), BIP324_PUBKEY_LEN);
    buf_append(out, t->send_garbage, t->send_garbage_len);
    t->key_sent = 1;
}

void v2t_start(struct v2t *t, struct buf *out)
{
    CHECK_ALWAYS(t->initiating && t->ss == S_AWAITING_KEY && !t->key_sent);
    send_key(t, out);
}

/* One message as a packet: its type as a short ID or 0 and 12 bytes, then the payload. */
static size_t encrypt_message(struct v2t *t, const char *command, const uint8_t *payload,
                              size_t len, struct buf *out)
{
    buf_reset(&t->scratch);
    uint8_t id = v2t_short_id(command);
    if (id) {
        buf_put_u8(&t->scratch, id);
    } else {
        uint8_t type[1 + NET_COMMAND_SIZE] = {0};
        size_t n = strlen(command);
        memcpy(type + 1, command, n < NET_COMMAND_SIZE ? n : NET_COMMAND_SIZE);
        buf_append(&t->scratch, type, sizeof(type));
    }
    buf_append(&t->scratch, payload, len);
    size_t wire = t->scratch.len + BIP324_EXPANSION;
    buf_reserve(out, wire);
    bip324_encrypt(t->cipher, t->scratch.data, t->scratch.len, NULL, 0, 0, out->data + out->len);
    out->len += wire;
    return wire;
}

/* The messages that waited for the handshake, in the transport now chosen. */
static void flush_queue(struct v2t *t, struct buf *out)
{
    size_t off = 0;
    while (off < t->queue.len) {
        char command[NET_COMMAND_SIZE + 1] = {0};
        memcpy(command, t->queue.data + off, NET_COMMAND_SIZE);
        uint32_t len = rd_u32le(t->queue.data + off + NET_COMMAND_SIZE);
        const uint8_t *payload = t->queue.data + off + NET_COMMAND_SIZE + 4;
        if (t->ss == S_V1) {
            net_frame_build(out, t->magic, command, payload, len);
        } else {
            encrypt_message(t, command, payload, len, out);
        }
        off += NET_COMMAND_SIZE + 4 + len;
    }
    buf_clear(&t->queue);
}

size_t v2t_send(struct v2t *t, const char *command, const uint8_t *payload, size_t len,
                struct buf *out)
{
    if (t->ss == S_V1) {
        net_frame_build(out, t->magic, command, payload, len);
        return NET_HEADER_SIZE + len;
    }
    if (t->ss == S_READY && t->queue.len == 0) {
        return encrypt_message(t, command, payload, len, out);
    }
    uint8_t type[NET_COMMAND_SIZE] = {0};
    size_t n = strlen(command);
    memcpy(type, command, n < NET_COMMAND_SIZE ? n : NET_COMMAND_SIZE);
    buf_append(&t->queue, type, sizeof(type));
    buf_put_u32le(&t->queue, (uint32_t)len);
    buf_append(&t->queue, payload, len);
    /* The wire size it will have as a v2 packet (the common case). */
    return (v2t_short_id(command) ? 1 : 1 + NET_COMMAND_SIZE) + len + BIP324_EXPANSION;
}

size_t v2t_want(const struct v2t *t)
{
    switch (t->rs) {
    case R_KEY_MAYBE_V1:
        return V1_PREFIX_LEN;
    case R_KEY:
        return BIP324_PUBKEY_LEN - t->hs_len;
    case R_GARBAGE:
        return MAX_GARBAGE_AND_TERM - t->hs_len;
    case R_VERSION:
    case R_APP:
        return t->have_len ? BIP324_HEADER_LEN + t->pkt_len + BIP324_TAG_LEN : BIP324_LENGTH_LEN;
    case R_V1:
        break;
    }
    return 1;
}

/* A responder's first bytes: v1's prefix (then v1 it is) or not (a v2 key). Uses nothing. */
static void detect_v1(struct v2t *t, const uint8_t *in, size_t avail, struct buf *out)
{
    uint8_t prefix[V1_PREFIX_LEN] = {0};
    memcpy(prefix, t->magic, 4);
    memcpy(prefix + 4, "version", 7);
    size_t n = avail < V1_PREFIX_LEN ? avail : V1_PREFIX_LEN;
    if (memcmp(in, prefix, n) != 0) {
        t->rs = R_KEY;
        t->ss = S_AWAITING_KEY;
        send_key(t, out);
    } else if (n == V1_PREFIX_LEN) {
        t->rs = R_V1;
        t->ss = S_V1;
        flush_queue(t, out);
    }
}

/* The peer's key has come: the session's keys, our terminator and version packet. */
static void key_received(struct v2t *t, struct buf *out)
{
    bip324_cipher_initialize(t->cipher, t->hs, t->initiating, 0, t->magic);
    t->rs = R_GARBAGE;
    t->hs_len = 0;
    t->ss = S_READY;
    buf_append(out, bip324_send_garbage_terminator(t->cipher), BIP324_GARBAGE_TERM_LEN);
    size_t wire = BIP324_EXPANSION; /* the version packet: empty contents */
    buf_reserve(out, wire);
    bip324_encrypt(t->cipher, NULL, 0, t->send_garbage, t->send_garbage_len, 0,
                   out->data + out->len);
    out->len += wire;
    OPENSSL_cleanse(t->send_garbage, sizeof(t->send_garbage));
    flush_queue(t, out);
}

static int recv_key(struct v2t *t, const uint8_t *in, size_t avail, size_t *used,
                    struct buf *out, char *err, size_t err_len)
{
    size_t n = BIP324_PUBKEY_LEN - t->hs_len;
    n = avail < n ? avail : n;
    memcpy(t->hs + t->hs_len, in, n);
    t->hs_len += n;
    *used = n;
    t->received_any = 1;
    /* A responder's peer whose next 12 bytes are v1's "version" but whose magic is not ours:
     * a node of another network. */
    if (!t->initiating && t->hs_len >= V1_PREFIX_LEN &&
        memcmp(t->hs + 4, "version\0\0\0\0\0", 12) == 0) {
        snprintf(err, err_len, "V1 peer with wrong MessageStart %02x%02x%02x%02x", t->hs[0],
                 t->hs[1], t->hs[2], t->hs[3]);
        return RC_INVALID;
    }
    if (t->hs_len == BIP324_PUBKEY_LEN) {
        key_received(t, out);
    }
    return V2T_MORE;
}

/* Garbage up to the peer's terminator (searched in what is new), at most 4095 bytes. */
static int recv_garbage(struct v2t *t, const uint8_t *in, size_t avail, size_t *used, char *err,
                        size_t err_len)
{
    size_t room = MAX_GARBAGE_AND_TERM - t->hs_len;
    size_t n = avail < room ? avail : room;
    size_t before = t->hs_len;
    memcpy(t->hs + before, in, n);
    const uint8_t *term = bip324_recv_garbage_terminator(t->cipher);
    size_t first_end = before + 1 > BIP324_GARBAGE_TERM_LEN ? before + 1 : BIP324_GARBAGE_TERM_LEN;
    for (size_t end = first_end; end <= before + n; end++) {
        if (memcmp(t->hs + end - BIP324_GARBAGE_TERM_LEN, term, BIP324_GARBAGE_TERM_LEN) == 0) {
            *used = end - before;
            t->hs_len = end;
            t->aad_len = end - BIP324_GARBAGE_TERM_LEN;
            t->aad_pending = 1;
            t->rs = R_VERSION;
            return V2T_MORE;
        }
    }
    *used = n;
    t->hs_len += n;
    if (t->hs_len == MAX_GARBAGE_AND_TERM) {
        snprintf(err, err_len, "missing garbage terminator, peer=%lld", (long long)t->peer_id);
        return RC_INVALID;
    }
    return V2T_MORE;
}

/* The message type of decrypted contents (Core's GetMessageType): 0 if it has none valid. */
static int parse_type(struct v2t *t)
{
    const uint8_t *c = t->contents.data;
    size_t len = t->contents.len;
    if (len == 0) {
        return 0;
    }
    if (c[0] != 0) {
        const char *type = v2t_short_id_type(c[0]);
        if (!type) {
            return 0;
        }
        snprintf(t->msg_type, sizeof(t->msg_type), "%s", type);
        t->msg_off = 1;
        return 1;
    }
    if (len < 1 + NET_COMMAND_SIZE) {
        return 0;
    }
    size_t n = 0;
    while (n < NET_COMMAND_SIZE && c[1 + n] != 0) {
        if (c[1 + n] < ' ' || c[1 + n] > 0x7f) {
            return 0;
        }
        t->msg_type[n] = (char)c[1 + n];
        n++;
    }
    t->msg_type[n] = 0;
    for (size_t i = n; i < NET_COMMAND_SIZE; i++) {
        if (c[1 + i] != 0) {
            return 0;
        }
    }
    t->msg_off = 1 + NET_COMMAND_SIZE;
    return 1;
}

static int recv_packet(struct v2t *t, const uint8_t *in, size_t avail, size_t *used, char *err,
                       size_t err_len)
{
    if (!t->have_len) {
        if (avail < BIP324_LENGTH_LEN) {
            return V2T_MORE;
        }
        t->pkt_len = bip324_decrypt_length(t->cipher, in);
        *used = BIP324_LENGTH_LEN;
        if (t->pkt_len > MAX_CONTENTS_LEN) {
            snprintf(err, err_len, "packet too large (%u bytes), peer=%lld", t->pkt_len,
                     (long long)t->peer_id);
            return RC_INVALID;
        }
        t->have_len = 1;
        return V2T_MORE;
    }
    size_t need = BIP324_HEADER_LEN + t->pkt_len + BIP324_TAG_LEN;
    if (avail < need) {
        return V2T_MORE;
    }
    *used = need;
    t->have_len = 0;
    buf_reset(&t->contents);
    buf_reserve(&t->contents, t->pkt_len);
    int ignore = 0;
    int rc = bip324_decrypt(t->cipher, in, t->pkt_len, t->aad_pending ? t->hs : NULL,
                            t->aad_pending ? t->aad_len : 0, &ignore, t->contents.data);
    if (rc != RC_OK) {
        snprintf(err, err_len, "packet decryption failure (%u bytes), peer=%lld", t->pkt_len,
                 (long long)t->peer_id);
        return RC_INVALID;
    }
    t->contents.len = t->pkt_len;
    t->aad_pending = 0;
    if (ignore) {
        return V2T_MORE;
    }
    if (t->rs == R_VERSION) {
        t->rs = R_APP; /* the version packet's contents are for future extensions */
        return V2T_MORE;
    }
    if (!parse_type(t)) {
        /* Core drops the message and keeps the connection. */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "V2 transport error: invalid message type (%zu bytes contents), peer=%lld",
            t->contents.len, (long long)t->peer_id);
        return V2T_MORE;
    }
    return V2T_MESSAGE;
}

int v2t_receive(struct v2t *t, const uint8_t *in, size_t avail, size_t *used, struct buf *out,
                char *err, size_t err_len)
{
    *used = 0;
    if (avail == 0) {
        return V2T_MORE;
    }
    switch (t->rs) {
    case R_KEY_MAYBE_V1:
        detect_v1(t, in, avail, out);
        if (t->rs != R_KEY) {
            return V2T_MORE; /* v1, or not yet known */
        }
        return recv_key(t, in, avail, used, out, err, err_len);
    case R_KEY:
        return recv_key(t, in, avail, used, out, err, err_len);
    case R_GARBAGE:
        return recv_garbage(t, in, avail, used, err, err_len);
    case R_VERSION:
    case R_APP:
        return recv_packet(t, in, avail, used, err, err_len);
    case R_V1:
        break;
    }
    return V2T_MORE;
}

void v2t_message(const struct v2t *t, const char **command, const uint8_t **payload,
                 size_t *len, size_t *wire_len)
{
    *command = t->msg_type;
    *payload = t->contents.data + t->msg_off;
    *len = t->contents.len - t->msg_off;
    *wire_len = t->contents.len + BIP324_EXPANSION;
}

enum v2t_kind v2t_kind(const struct v2t *t)
{
    if (t->rs == R_V1) {
        return V2T_IS_V1;
    }
    return t->rs == R_APP ? V2T_IS_V2 : V2T_DETECTING;
}

int v2t_is_v1(const struct v2t *t)
{
    return t->rs == R_V1;
}

const uint8_t *v2t_session_id(const struct v2t *t)
{
    return t->rs == R_APP ? bip324_session_id(t->cipher) : NULL;
}

int v2t_should_retry_v1(const struct v2t *t)
{
    return t->initiating && t->rs == R_KEY && !t->received_any && t->key_sent;
}
