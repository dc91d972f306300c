/* The v2 transport's own cost, run on purpose (doc/benchmarks.md), never by the tests:
 *
 *   contrib/bench/v2-bench [HANDSHAKES] [MIB]
 *
 * - the handshake: two transports (initiator and responder) wired in memory do the whole
 *   BIP324 exchange (keys, ElligatorSwift encodings, x-only ECDH, HKDF, garbage, terminators,
 *   version packets) HANDSHAKES times (default 200); CPU per handshake, both sides together;
 * - the messages: MIB MiB (default 256) of 1 MB block messages and of 200-byte transaction
 *   messages sent one way, framed and read back, v1 (header and sha256d checksum) against
 *   v2 (FSChaCha20 length, ChaCha20-Poly1305 packet); MB/s of payload, sender and receiver
 *   together.
 *
 * One thread, CPU time (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/protocol.h"
#include "net/v2transport.h"
#include "util/buf.h"

static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda};

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Gives t all of in (what the peer sent), step by step; answers go to out. Returns the
 * messages decoded, or -1 on an error. */
static long feed(struct v2t *t, const struct buf *in, struct buf *out)
{
    size_t off = 0;
    long msgs = 0;
    while (off < in->len) {
        size_t want = v2t_want(t), avail = in->len - off, used = 0;
        char err[160];
        int rc = v2t_receive(t, in->data + off, avail < want ? avail : want, &used, out, err,
                             sizeof(err));
        if (rc < 0) {
            fprintf(stderr, "v2-bench: %s\n", err);
            return -1;
        }
        msgs += rc == V2T_MESSAGE;
        if (!used && rc != V2T_MESSAGE) {
            break;
        }
        off += used;
    }
    return msgs;
}

/* One whole handshake; the two transports are returned ready (caller frees). */
static int handshake(struct v2t **a_out, struct v2t **b_out)
{
    struct v2t *a = v2t_new(1, magic, 1), *b = v2t_new(0, magic, 2);
    struct buf ab, ba, tmp;
    buf_init(&ab);
    buf_init(&ba);
    buf_init(&tmp);
    v2t_start(a, &ab);
    int ok = feed(b, &ab, &ba) >= 0; /* b: a's key; b answers key, terminator, version */
    buf_reset(&ab);
    ok = ok && feed(a, &ba, &ab) >= 0; /* a: b's key...; a answers terminator, version */
    buf_reset(&ba);
    ok = ok && feed(b, &ab, &ba) >= 0;
    ok = ok && v2t_kind(a) == V2T_IS_V2 && v2t_kind(b) == V2T_IS_V2;
    buf_clear(&ab);
    buf_clear(&ba);
    buf_clear(&tmp);
    *a_out = a;
    *b_out = b;
    return ok ? 0 : -1;
}

/* MiB of messages of size msg_len, v1 or v2, sent and read back; CPU seconds. */
static double messages(int v2, size_t msg_len, size_t mib, const char *command)
{
    struct v2t *a = NULL, *b = NULL;
    if (v2 && handshake(&a, &b) != 0) {
        return -1;
    }
    uint8_t *payload = malloc(msg_len);
    for (size_t i = 0; i < msg_len; i++) {
        payload[i] = (uint8_t)(i * 31 + 7);
    }
    size_t count = (mib << 20) / msg_len;
    struct buf wire, back;
    buf_init(&wire);
    buf_init(&back);
    double t0 = cpu_s();
    long got = 0;
    for (size_t i = 0; i < count; i++) {
        buf_reset(&wire);
        if (v2) {
            v2t_send(a, command, payload, msg_len, &wire);
            got += feed(b, &wire, &back);
        } else {
            net_frame_build(&wire, magic, command, payload, msg_len);
            struct net_msg_header h;
            char err[160];
            got += net_header_parse(wire.data, magic, &h, err, sizeof(err)) == 0 &&
                   net_checksum_ok(&h, wire.data + NET_HEADER_SIZE, h.len);
        }
    }
    double t = cpu_s() - t0;
    if (got != (long)count) {
        fprintf(stderr, "v2-bench: %ld of %zu messages read back\n", got, count);
    }
    buf_clear(&wire);
    buf_clear(&back);
    free(payload);
    v2t_free(a);
    v2t_free(b);
    return t;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    size_t mib = argc > 2 ? (size_t)atoi(argv[2]) : 256;
    double t0 = cpu_s();
    for (int i = 0; i < n; i++) {
        struct v2t *a, *b;
        if (handshake(&a, &b) != 0) {
            fprintf(stderr, "v2-bench: handshake failed\n");
            return 1;
        }
        v2t_free(a);
        v2t_free(b);
    }
    double hs = cpu_s() - t0;
    printf("| what | v1 | v2 |\n|---|---:|---:|\n");
    printf("| handshake, both sides (CPU us, %d runs) | 0 | %.0f |\n", n, hs / n * 1e6);
    static const struct {
        const char *command;
        size_t len;
    } kinds[] = {{"block", 1000000}, {"tx", 200}};
    for (size_t k = 0; k < 2; k++) {
        double v1 = messages(0, kinds[k].len, mib, kinds[k].command);
        double v2 = messages(1, kinds[k].len, mib, kinds[k].command);
        double mb = (double)((mib << 20) / kinds[k].len * kinds[k].len) / 1e6;
        printf("| %zu-byte %s messages, sent and read (MB/s of payload, %zu MiB) | %.0f | %.0f |\n",
               kinds[k].len, kinds[k].command, mib, mb / v1, mb / v2);
    }
    return 0;
}
