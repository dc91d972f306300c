/* Fuzz target: JSON-RPC parsing and dispatch, what an authenticated RPC client controls: the
 * HTTP body through rpc_handle_body (the request parser of JSON-RPC 1.0 and 2.0, single and
 * batch, positional and named parameters, the argument checks and conversions, the handler,
 * the reply), with the control, util and rawtransaction methods registered over a regtest
 * node (fuzz_node.h: chainstate, validation thread, mempool): help, decoding and creating
 * transactions, scripts and PSBTs, addresses and descriptors, sendrawtransaction and
 * testmempoolaccept into the node's mempool. "stop" is not run (it would stop the node under
 * the fuzzer, or sleep as long as the input asks). The input is the body; the URI is "/".
 * Nothing may crash, hang, leak or read out of bounds; every reply has one of the statuses
 * Core gives (200, 204, 400, 404, 500), and a body, which is JSON, unless it is 204.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in requests.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/context.h"
#include "options.h"
#include "rpc/control.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/rawtransaction.h"
#include "rpc/util.h"
#include "util/args.h"
#include "fuzz_util.h"
#include "fuzz_node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct node_context node;
static struct rpc_context *ctx;
static struct args *args;

static void rpc_up(void)
{
    if (ctx) {
        return;
    }
    fuzz_node_up();
    args = args_new(bitnoded_options, bitnoded_options_len);
    node_context_init(&node);
    node.args = args;
    node.params = chain_params_get("regtest");
    snprintf(node.net_dir, sizeof(node.net_dir), "%s", fuzz_tmpdir());
    node.cs = fuzz_cs;
    node.val = fuzz_val;
    node.mempool = fuzz_mp;
    ctx = rpc_context_new(&node);
    rpc_control_register(ctx);
    rpc_util_register(ctx);
    rpc_rawtransaction_register(ctx);
    rpc_set_doccheck(ctx, true);
    rpc_warmup_finished(ctx);
}

/* 1 if the body calls "stop" (alone or in a batch). */
static int calls_stop(const char *body, size_t len)
{
    json_t *root = rpc_json_parse_exact(body, len);
    if (!root) {
        return 0;
    }
    int stop = 0;
    size_t n = json_is_array(root) ? json_array_size(root) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_is_array(root) ? json_array_get(root, i) : root;
        const char *m = json_string_value(json_object_get(r, "method"));
        stop |= m && strcmp(m, "stop") == 0;
    }
    json_decref(root);
    return stop;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536) {
        return 0;
    }
    fuzz_quiet_log();
    rpc_up();
    if (calls_stop((const char *)data, size)) {
        return 0;
    }
    struct rpc_reply reply = {0};
    rpc_handle_body(ctx, (const char *)data, size, "fuzz", "/", &reply);
    int s = reply.http_status;
    if (s != 200 && s != 204 && s != 400 && s != 404 && s != 500) {
        fprintf(stderr, "HTTP status %d\n", s);
        abort();
    }
    if (s == 204 ? reply.body != NULL : reply.body == NULL) {
        abort();
    }
    if (reply.body && getenv("BITNODE_FUZZ_LOG")) {
        printf("%d %s", s, reply.body);
    }
    if (reply.body) {
        /* The RPC's own reader: a request's id is echoed as given, and it may be an integer
         * too long for jansson (Core's UniValue keeps the digits). */
        json_t *v = rpc_json_parse_exact(reply.body, strlen(reply.body));
        if (!v) {
            fprintf(stderr, "reply is not JSON: %.200s\n", reply.body);
            abort();
        }
        json_decref(v);
    }
    rpc_reply_clear(&reply);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    static const char *const seeds[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"help\",\"params\":[\"getrpcinfo\"]}",
        "[{\"method\":\"decodescript\",\"params\":[\"5121\"],\"id\":0},{\"method\":\"x\"}]",
        "{\"method\":\"validateaddress\",\"params\":{\"address\":\"bcrt1qxyz\"},\"id\":null}",
        "{\"method\":\"createrawtransaction\",\"params\":[[],[{\"data\":\"00\"}]],\"id\":2}",
        "{\"method\":\"stop\"}",
        "not json",
    };
    return fuzz_run_strings(seeds, sizeof(seeds) / sizeof(seeds[0]), 0);
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
