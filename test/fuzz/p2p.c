/* Fuzz target: P2P messages from a peer through the node's real message handling: the
 * v1 framing of the net thread's reader, the handshake, and every message's handler
 * (net/sync.c and what it calls: headers and blocks to validation, transactions to the
 * mempool, addresses to the address manager, compact blocks, filters, pings), with the
 * validation jobs they cause answered before the next message. The node is a regtest one at
 * its genesis block (fuzz_node.h); the P2P service is made for each input, without its
 * thread (net.h's net_drive_*: this thread is the net thread), and the peer is inbound on a
 * socketpair. The first byte of the input:
 *   bit 0: the harness does the handshake first (a version, then a verack);
 *   bit 1: the peer has the noban, relay, mempool, bloomfilter and addr permissions;
 *   bit 2: the rest is raw bytes as they come off the socket (cut in two reads);
 * otherwise the rest is messages, each a byte naming the command (an index into the table
 * below, modulo its size), a 2-byte little-endian length and the payload, framed with the
 * right checksum. Nothing may crash, hang, leak or read out of bounds.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/net.h"
#include "net/protocol.h"
#include "util/buf.h"
#include "fuzz_util.h"
#include "fuzz_node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const COMMANDS[] = {
    "version",    "verack",      "ping",       "pong",        "getheaders", "headers",
    "getblocks",  "block",       "getdata",    "inv",         "notfound",   "tx",
    "getaddr",    "addr",        "addrv2",     "sendaddrv2",  "sendheaders", "sendcmpct",
    "cmpctblock", "getblocktxn", "blocktxn",   "feefilter",   "mempool",    "filterload",
    "filteradd",  "filterclear", "merkleblock", "wtxidrelay", "sendtxrcncl", "getcfilters",
    "getcfheaders", "getcfcheckpt", "reqtxrcncl", "unknown!",
};
#define N_COMMANDS (sizeof(COMMANDS) / sizeof(COMMANDS[0]))

static void send_msg(struct net *n, int64_t id, int fd, const char *cmd, const uint8_t *p,
                     size_t len)
{
    struct buf f;
    buf_init(&f);
    net_frame_build(&f, chain_params_get("regtest")->magic, cmd, p, len);
    (void)net_drive_receive(n, id, f.data, f.len);
    net_drive_settle(n, fd);
    buf_clear(&f);
}

static void handshake(struct net *n, int64_t id, int fd)
{
    struct net_version v;
    memset(&v, 0, sizeof(v));
    v.version = 70016;
    v.services = 1 | 8 | 1024; /* NODE_NETWORK, NODE_WITNESS, NODE_NETWORK_LIMITED */
    v.time = 1700000000;
    v.nonce = 0x1234567890abcdefu;
    strcpy(v.user_agent, "/fuzz:0.1/");
    v.relay = 1;
    struct buf b;
    buf_init(&b);
    net_version_serialize(&b, &v);
    send_msg(n, id, fd, "version", b.data, b.len);
    buf_clear(&b);
    send_msg(n, id, fd, "wtxidrelay", NULL, 0);
    send_msg(n, id, fd, "sendaddrv2", NULL, 0);
    send_msg(n, id, fd, "verack", NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    fuzz_quiet_log();
    fuzz_node_up();
    struct net_options o = {
        .val = fuzz_val,
        .max_connections = 125,
        .inbound_relay_percent = 100,
        .max_tip_age = 2000000000,
        .network_active = 1,
        .net_dir = fuzz_tmpdir(),
        .peer_timeout = 60,
        .bantime = 86400,
        .chain = "regtest",
        .mempool = fuzz_mp,
        .peer_bloom_filters = 1,
    };
    struct net *n;
    char err[512] = "";
    if (net_new(&n, &o, err, sizeof(err)) != 0) {
        fprintf(stderr, "net_new: %s\n", err);
        abort();
    }
    struct net_addr a;
    net_addr_parse("1.2.3.4", 18444, 0, &a, NULL, 0);
    uint32_t perms = (data[0] & 2) ? NET_PERM_NOBAN | NET_PERM_RELAY | NET_PERM_MEMPOOL |
                                         NET_PERM_BLOOMFILTER | NET_PERM_ADDR
                                   : 0;
    int64_t id;
    int fd;
    if (net_drive_inbound(n, &id, &fd, &a, perms) != 0) {
        abort();
    }
    if (data[0] & 1) {
        handshake(n, id, fd);
    }
    const uint8_t *p = data + 1;
    size_t left = size - 1;
    if (data[0] & 4) {
        size_t half = left / 2;
        (void)net_drive_receive(n, id, p, half);
        net_drive_settle(n, fd);
        (void)net_drive_receive(n, id, p + half, left - half);
        net_drive_settle(n, fd);
    } else {
        while (left >= 3) {
            const char *cmd = COMMANDS[p[0] % N_COMMANDS];
            size_t len = rd_u16le(p + 1);
            p += 3, left -= 3;
            if (len > left) {
                len = left;
            }
            send_msg(n, id, fd, cmd, p, len);
            p += len, left -= len;
        }
    }
    net_free(n);
    close(fd);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    /* After the handshake: a ping, getheaders from genesis, getaddr, mempool. */
    static const uint8_t seeds[][64] = {
        {1, 2, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 0, 0, 15, 0, 0, 22, 0, 0},
        {3, 4, 37, 0, 0x80, 0x11, 1, 0, 1},
        {0, 0, 4, 0, 1, 2, 3, 4},
    };
    return fuzz_run_rows(&seeds[0][0], sizeof(seeds) / sizeof(seeds[0]), sizeof(seeds[0]));
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
