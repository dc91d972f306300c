/* Fuzz target: the readers of the node's small files, which a damaged disk, another node's
 * datadir or a user can hand it. The first byte picks the file (modulo 6), the rest is its
 * contents:
 *   0: peers.dat (addrman_deserialize, Core's formats and bitnode's former one);
 *   1: anchors.dat (anchors_deserialize);
 *   2: fee_estimates.dat (fee_estimator_deserialize);
 *   3: banlist.json (and peers.dat absent), through the P2P service's start-up (net_new);
 *   4: settings.json, through start-up's reader and writer (node_settings_init);
 *   5: mempool.dat, through start-up's loader (node_mempool_load) on a regtest chainstate at
 *      its genesis block, made once per process in the scratch directory.
 * Nothing may crash, leak or read out of bounds; a refused file says why. What loads must
 * pass the structure's own checks and survive its writer: a loaded address manager passes
 * addrman_check and its serialization loads again; anchors and fee estimates serialize to
 * what loads again; a settings file that was read and written back reads again.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, each file empty and a few
 * built-in images.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "mempool/fees.h"
#include "mempool/mempool.h"
#include "net/addrman.h"
#include "net/anchors.h"
#include "net/net.h"
#include "node/mempool.h"
#include "node/settings.h"
#include "options.h"
#include "util/args.h"
#include "util/buf.h"
#include "validation/chainstate.h"
#include "validation/validator.h"
#include "fuzz_util.h"
#include "fuzz_node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *magic(void)
{
    return chain_params_get("regtest")->magic;
}

static void fuzz_peers(const uint8_t *p, size_t n)
{
    struct addrman *am = addrman_new(1);
    char err[512] = "";
    int old;
    if (addrman_deserialize(am, &old, p, n, magic(), err, sizeof(err)) != 0) {
        if (!err[0]) {
            abort();
        }
        addrman_free(am);
        return;
    }
    if (addrman_check(am, err, sizeof(err)) != 0) {
        fprintf(stderr, "loaded peers.dat fails the address manager's check: %s\n", err);
        abort();
    }
    struct buf b;
    buf_init(&b);
    addrman_serialize(am, &b, magic());
    struct addrman *again = addrman_new(1);
    if (addrman_deserialize(again, &old, b.data, b.len, magic(), err, sizeof(err)) != 0 ||
        addrman_size(again, -1, -1) != addrman_size(am, -1, -1)) {
        fprintf(stderr, "peers.dat written after a load does not load the same: %s\n", err);
        abort();
    }
    buf_clear(&b);
    addrman_free(again);
    addrman_free(am);
}

static void fuzz_anchors(const uint8_t *p, size_t n)
{
    struct addrman_addr *a = NULL;
    size_t count = 0;
    char err[512] = "";
    if (anchors_deserialize(&a, &count, p, n, magic(), err, sizeof(err)) != 0) {
        if (!err[0] || a) {
            abort();
        }
        return;
    }
    struct buf b;
    buf_init(&b);
    anchors_serialize(&b, magic(), a, count);
    struct addrman_addr *a2 = NULL;
    size_t count2 = 0;
    if (anchors_deserialize(&a2, &count2, b.data, b.len, magic(), err, sizeof(err)) != 0 ||
        count2 != count) {
        fprintf(stderr, "anchors.dat written after a load does not load the same: %s\n", err);
        abort();
    }
    free(a2);
    free(a);
    buf_clear(&b);
}

static void fuzz_fees(const uint8_t *p, size_t n)
{
    struct fee_estimator *fe = fee_estimator_new();
    char err[512] = "";
    if (fee_estimator_deserialize(fe, p, n, err, sizeof(err)) != 0) {
        if (!err[0]) {
            abort();
        }
        fee_estimator_free(fe);
        return;
    }
    struct fee_smart_result r;
    (void)fee_estimator_smart(fe, &r, 6, false, 1000, 1000);
    struct buf b, b2;
    buf_init(&b);
    buf_init(&b2);
    fee_estimator_serialize(fe, &b);
    struct fee_estimator *fe2 = fee_estimator_new();
    if (fee_estimator_deserialize(fe2, b.data, b.len, err, sizeof(err)) != 0) {
        fprintf(stderr, "fee_estimates.dat written after a load does not load: %s\n", err);
        abort();
    }
    fee_estimator_serialize(fe2, &b2);
    if (b.len != b2.len || memcmp(b.data, b2.data, b.len) != 0) {
        fprintf(stderr, "fee_estimates.dat is not a fixed point of load and save\n");
        abort();
    }
    buf_clear(&b);
    buf_clear(&b2);
    fee_estimator_free(fe2);
    fee_estimator_free(fe);
}

static void fuzz_banlist(const uint8_t *p, size_t n)
{
    fuzz_node_up();
    char path[600];
    fuzz_write_file(path, sizeof(path), "peers.dat", "", 0);
    remove(path);
    fuzz_write_file(path, sizeof(path), "banlist.json", p, n);
    struct net_options o = {
        .val = fuzz_val,
        .max_connections = 125,
        .max_tip_age = 2000000000,
        .net_dir = fuzz_tmpdir(),
        .peer_timeout = 60,
        .bantime = 86400,
        .chain = "regtest",
    };
    struct net *net;
    char err[512] = "";
    if (net_new(&net, &o, err, sizeof(err)) != 0) {
        fprintf(stderr, "net_new: %s\n", err);
        abort();
    }
    struct net_ban_entry *bans;
    size_t count;
    net_list_banned(net, &bans, &count);
    free(bans);
    net_free(net);
}

static void fuzz_settings(const uint8_t *p, size_t n)
{
    char path[600];
    fuzz_write_file(path, sizeof(path), "settings.json", p, n);
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    char err[1024] = "";
    if (node_settings_init(a, fuzz_tmpdir(), err, sizeof(err)) != 0) {
        if (!err[0]) {
            abort();
        }
    } else if (node_settings_init(a, fuzz_tmpdir(), err, sizeof(err)) != 0) {
        fprintf(stderr, "settings.json written back does not read: %s\n", err);
        abort();
    }
    args_free(a);
}

static void fuzz_mempool(const uint8_t *p, size_t n)
{
    fuzz_node_up();
    char path[600];
    fuzz_write_file(path, sizeof(path), "mempool.dat", p, n);
    node_mempool_load(fuzz_mp, fuzz_val, fuzz_tmpdir());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    fuzz_quiet_log();
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    switch (data[0] % 6) {
    case 0:
        fuzz_peers(p, n);
        break;
    case 1:
        fuzz_anchors(p, n);
        break;
    case 2:
        fuzz_fees(p, n);
        break;
    case 3:
        fuzz_banlist(p, n);
        break;
    case 4:
        fuzz_settings(p, n);
        break;
    default:
        fuzz_mempool(p, n);
    }
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    static const char *const seeds[] = {
        ("\003{\"banned_nets\":[{\"version\":1,\"ban_created\":1,\"banned_until\":4000000000,"
         "\"address\":\"1.2.3.0/24\"},{\"address\":\"::1/128\",\"banned_until\":1}]}"),
        "\004{\"_warning_\":\"x\",\"foo\":[1,2],\"dbcache\":\"300\"}",
        "\004[1]",
        "\004{\"a\":1,\"a\":2}",
    };
    for (uint8_t k = 0; k < 6; k++) {
        LLVMFuzzerTestOneInput(&k, 1);
        count++;
    }
    return count + fuzz_run_strings(seeds, sizeof(seeds) / sizeof(seeds[0]), 0);
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
