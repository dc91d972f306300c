#include "rpc/control.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "node/context.h"
#include "net/net.h"
#include "rpc/blockchain.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "util/scheduler.h"
#include "util/check.h"
#include "util/lockedpool.h"
#include "util/log.h"
#include "util/shutdown.h"
#include "util/time.h"
#include "validation/chainstate.h"

#define CLIENT_NAME "bitnode"

/* One [method, position, name, is_string] row for each name of each argument (and of the
 * members of a named-parameters object), as Core's RPCMethod::GetArgMap. */
static void push_arg_names(json_t *rows, const char *method, size_t pos, const struct rpc_arg *a)
{
    const char *n = a->names;
    while (n && *n) {
        const char *bar = strchr(n, '|');
        size_t len = bar ? (size_t)(bar - n) : strlen(n);
        json_t *row = json_array();
        json_array_append_new(row, json_string(method));
        json_array_append_new(row, json_integer((json_int_t)pos));
        json_array_append_new(row, json_stringn(n, len));
        json_array_append_new(row,
                              json_boolean(a->type == RPC_ARG_STR || a->type == RPC_ARG_STR_HEX));
        json_array_append_new(rows, row);
        n = bar ? bar + 1 : NULL;
    }
}

/* help "dump_all_command_conversions" (undocumented, for Core's rpc_help.py): every method's
 * arguments, and whether each one is passed as a string. */
static json_t *dump_conversions(const struct rpc_context *ctx)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < ctx->n_methods; i++) {
        const struct rpc_method *m = ctx->methods[i];
        for (size_t k = 0; k < m->n_args; k++) {
            push_arg_names(rows, m->name, k, &m->args[k]);
            if (m->args[k].type == RPC_ARG_OBJ_NAMED_PARAMS) {
                for (size_t j = 0; j < m->args[k].n_inner; j++) {
                    push_arg_names(rows, m->name, k, &m->args[k].inner[j]);
                }
            }
        }
    }
    return rows;
}

static json_t *rpc_help(struct rpc_request *req)
{
    json_t *cmd = rpc_param(req, 0);
    if (cmd && json_is_string(cmd) &&
        strcmp(json_string_value(cmd), "dump_all_command_conversions") == 0) {
        return dump_conversions(req->ctx);
    }
    if (!cmd) {
        char *text = rpc_help_overview(req->ctx);
        json_t *r = json_string(text);
        free(text);
        return r;
    }
    const struct rpc_method *m = rpc_find(req->ctx, json_string_value(cmd));
    if (!m) {
        return json_sprintf("help: unknown command: %s", json_string_value(cmd));
    }
    char *text = rpc_method_help(m);
    json_t *r = json_string(text);
    free(text);
    return r;
}

static json_t *rpc_stop(struct rpc_request *req)
{
    /* The event loop answers the requests in hand before it stops, so this reply still
     * reaches the client. */
    shutdown_request();
    json_t *wait = rpc_param(req, 0);
    if (wait && json_is_integer(wait) && json_integer_value(wait) > 0) {
        time_sleep_ms(json_integer_value(wait));
    }
    return json_string(CLIENT_NAME " stopping");
}

static json_t *rpc_uptime(struct rpc_request *req)
{
    return json_integer(time_now_s() - req->ctx->start_time_s);
}

static json_t *rpc_getrpcinfo(struct rpc_request *req)
{
    return json_pack("{s:o,s:s}", "active_commands", rpc_active_commands(req->ctx), "logpath",
                     log_file_path());
}

static int apply_categories(struct rpc_request *req, json_t *list, bool enable)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        uint32_t mask;
        if (!json_is_string(v)) {
            rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type string",
                      rpc_json_type_name(v));
            return -1;
        }
        /* "none" and "0" mean something to -debug only; the RPC takes categories. */
        const char *name = json_string_value(v);
        if (strcmp(name, "none") == 0 || strcmp(name, "0") == 0 ||
            log_category_parse(name, &mask) != 0) {
            rpc_error(req, RPC_INVALID_PARAMETER, "unknown logging category %s",
                      json_string_value(v));
            return -1;
        }
        if (enable) {
            log_categories_enable(mask);
        } else {
            log_categories_disable(mask);
        }
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *rpc_logging(struct rpc_request *req)
{
    json_t *inc = rpc_param(req, 0), *exc = rpc_param(req, 1);
    if (inc && apply_categories(req, inc, true) != 0) {
        return NULL;
    }
    if (exc && apply_categories(req, exc, false) != 0) {
        return NULL;
    }
    size_t n = log_category_count();
    const char *names[32];
    CHECK_ALWAYS(n <= 32);
    for (size_t i = 0; i < n; i++) {
        names[i] = log_category_name(i);
    }
    qsort(names, n, sizeof(names[0]), cmp_str);
    json_t *r = json_object();
    uint32_t enabled = log_categories_get();
    for (size_t i = 0; i < n; i++) {
        uint32_t mask = 0;
        log_category_parse(names[i], &mask);
        json_object_set_new(r, names[i], json_boolean((enabled & mask) != 0));
    }
    return r;
}

static json_t *rpc_echo(struct rpc_request *req)
{
    /* Core's internal-bug report, for tests of what clients do with one. */
    json_t *a9 = rpc_param(req, 9);
    if (a9 && json_is_string(a9) && strcmp(json_string_value(a9), "trigger_internal_bug") == 0) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "Internal bug detected: request.params[9].get_str() != "
                         "\"trigger_internal_bug\"\n%s:%d (rpc_echo)\nPlease report this issue "
                         "here: https://github.com/bitcoin/bitcoin/issues\n",
                         __FILE__, __LINE__);
    }
    return json_deep_copy(req->params);
}

/* setmocktime and mockscheduler: Core's IsMockableChain (regtest only), a runtime_error. */
static bool mockable(struct rpc_request *req, const char *method)
{
    if (chainstate_params(req->ctx->node->cs)->id != CHAIN_REGTEST) {
        rpc_error(req, RPC_MISC_ERROR, "%s is for regression testing (-regtest mode) only", method);
        return false;
    }
    return true;
}

static void net_mocktime_call(struct net *n, void *ctx)
{
    net_set_mocktime(n, *(const int64_t *)ctx);
}

/* setmocktime: the clock of the header time checks ("time-too-new") and of initial block
 * download (the chainstate's), and of peer timeouts, pings and version messages (the net
 * service's, set on its thread). `uptime` and the log keep the real clock, as in Core. */
static json_t *rpc_setmocktime(struct rpc_request *req)
{
    if (!mockable(req, "setmocktime")) {
        return NULL;
    }
    /* Core's getInt<int64_t>, read here (not by the dispatcher) so that the chain check
     * comes first, as in Core. */
    int64_t t;
    if (rpc_value_int(req, rpc_param(req, 0), INT64_MIN, INT64_MAX, &t) != 0) {
        return NULL;
    }
    /* Block times are uint32: a clock beyond them means nothing to consensus. */
    if (t < 0 || t > (int64_t)UINT32_MAX) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Mocktime must be in the range [0, %" PRIu32 "], not %" PRId64 ".",
                         UINT32_MAX, t);
    }
    chainstate_set_mocktime(req->ctx->node->cs, t);
    if (req->ctx->node->net) {
        /* RC_STOPPED: no net thread (shutting down), nothing to set. */
        (void)net_call(req->ctx->node->net, net_mocktime_call, &t);
    }
    return json_null();
}

static void net_mockscheduler_call(struct net *n, void *ctx)
{
    net_mock_scheduler(n, *(const int64_t *)ctx);
}

/* mockscheduler: Core moves its scheduler's queue of delayed tasks forward by delta_time
 * (stale-tip checks and peer eviction, address and fee-estimate dumps, mempool expiry, the
 * rebroadcast of unbroadcast transactions), then waits for the validation queue. bitnode's
 * scheduler thread (the fee-estimate flush) is moved forward the same way; the net service
 * runs its timeouts and periodic work from its own (mockable) clock, and what is scheduled
 * on it apart from that clock, the rebroadcast of unbroadcast transactions (Core's
 * ReattemptInitialBroadcast), is moved forward. The
 * argument is checked exactly as Core's, and the wait for the validation queue is kept (the
 * barrier of syncwithvalidationinterfacequeue). */
static json_t *rpc_mockscheduler(struct rpc_request *req)
{
    if (!mockable(req, "mockscheduler")) {
        return NULL;
    }
    int64_t delta;
    if (rpc_value_int(req, rpc_param(req, 0), INT64_MIN, INT64_MAX, &delta) != 0) {
        return NULL;
    }
    if (delta <= 0 || delta > 3600) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "delta_time must be between 1 and 3600 seconds (1 hr)");
    }
    if (req->ctx->node->net) {
        (void)net_call(req->ctx->node->net, net_mockscheduler_call, &delta); /* RC_STOPPED: none */
    }
    scheduler_mock_forward(req->ctx->node->scheduler, delta * 1000);
    rpc_sync_validation_queue(req->ctx);
    return json_null();
}

/* echoipc: Core passes the string through a spawned bitcoin-node in a multiprocess build, and
 * echoes it in place otherwise; bitnode is one process. */
static json_t *rpc_echoipc(struct rpc_request *req)
{
    return json_string(json_string_value(rpc_param(req, 0)));
}

/* ---- declarations -------------------------------------------------------------------- */

#define ECHO_ARG(n)                                                                                \
    {.names = n, .type = RPC_ARG_STR, .fallback = RPC_ARG_OMITTED, .description = "",            \
     .skip_type_check = true}
#define ECHO_ARGS                                                                                  \
    RPC_LIST(struct rpc_arg, ECHO_ARG("arg0"), ECHO_ARG("arg1"), ECHO_ARG("arg2"),              \
             ECHO_ARG("arg3"), ECHO_ARG("arg4"), ECHO_ARG("arg5"), ECHO_ARG("arg6"),             \
             ECHO_ARG("arg7"), ECHO_ARG("arg8"), ECHO_ARG("arg9"))
#define ECHO_DESCRIPTION                                                                           \
    "Simply echo back the input arguments. This command is for testing.\n"                       \
    "\nIt will return an internal bug report when arg9='trigger_internal_bug' is passed.\n"      \
    "\nThe difference between echo and echojson is that echojson has argument conversion "       \
    "enabled in the client-side table in bitnode-cli and the GUI. There is no server-side "       \
    "difference."

/* Core's RPCMallocInfo: glibc's malloc_info XML, or "" when it cannot be had. */
static json_t *malloc_info_json(void)
{
    char *p = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&p, &size);
    if (f) {
        malloc_info(0, f);
        fclose(f);
    }
    json_t *r = json_stringn(p ? p : "", p ? size : 0);
    free(p);
    return r;
}

static json_t *rpc_getmemoryinfo(struct rpc_request *req)
{
    const char *mode = json_string_value(rpc_param(req, 0));
    if (strcmp(mode, "mallocinfo") == 0) {
        return malloc_info_json();
    }
    if (strcmp(mode, "stats") != 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "unknown mode %s", mode);
    }
    struct locked_pool_stats st = {0};
    if (req->ctx->node->locked) {
        locked_pool_stats(req->ctx->node->locked, &st);
    }
    json_t *locked = json_object();
    json_object_set_new(locked, "used", json_integer((json_int_t)st.used));
    json_object_set_new(locked, "free", json_integer((json_int_t)st.free));
    json_object_set_new(locked, "total", json_integer((json_int_t)st.total));
    json_object_set_new(locked, "locked", json_integer((json_int_t)st.locked));
    json_object_set_new(locked, "chunks_used", json_integer((json_int_t)st.chunks_used));
    json_object_set_new(locked, "chunks_free", json_integer((json_int_t)st.chunks_free));
    json_t *r = json_object();
    json_object_set_new(r, "locked", locked);
    return r;
}

/* echo and echojson differ only in bitnode-cli's conversion table. */
#define ECHO_METHOD(n)                                                                             \
    {.category = "hidden", .name = n, .handler = rpc_echo, .description = ECHO_DESCRIPTION,      \
     .args = ECHO_ARGS, .results = echo_results, .n_results = 1, .flags = RPC_METHOD_HIDDEN}

static const struct rpc_result echo_results[] = {
    {.type = RPC_RES_ANY, .description = "Returns whatever was passed in"},
};

#define LOG_CATEGORY_ARRAY(name, item, what)                                                       \
    {.names = name,                                                                                \
     .type = RPC_ARG_ARR,                                                                          \
     .fallback = RPC_ARG_OMITTED,                                                                  \
     .description = what,                                                                          \
     .inner = RPC_LIST(struct rpc_arg, {.names = item,                                            \
                                        .type = RPC_ARG_STR,                                      \
                                        .fallback = RPC_ARG_OMITTED,                              \
                                        .description = "the valid logging category"})}

static const struct rpc_method control_methods[] = {
    {.category = "control",
     .name = "help",
     .handler = rpc_help,
     .description = "List all commands, or get help for a specified command.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "command",
                                       .type = RPC_ARG_STR,
                                       .fallback = RPC_ARG_DEFAULT_HINT,
                                       .default_value = "all commands",
                                       .description = "The command to get help on"}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR, .description = "The help text"},
                         {.type = RPC_RES_ANY,
                          .description = "The command conversions. (Hidden in "
                                         "dump_all_command_conversions)",
                          .elision = RPC_ELIDE_SKIP}),
     .flags = RPC_METHOD_IN_WARMUP},
    {.category = "control",
     .name = "stop",
     .handler = rpc_stop,
     .description = "Request a graceful shutdown of " CLIENT_NAME ".",
     .args = RPC_LIST(struct rpc_arg, {.names = "wait",
                                       .type = RPC_ARG_NUM,
                                       .fallback = RPC_ARG_OMITTED,
                                       .description = "how long to wait in ms",
                                       .hidden = true}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .description = "A string with the content '" CLIENT_NAME
                                         " stopping'"}),
     .flags = RPC_METHOD_IN_WARMUP},
    {.category = "control",
     .name = "uptime",
     .handler = rpc_uptime,
     .description = "Returns the total uptime of the server.\n",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_NUM,
                          .description = "The number of seconds that the server has been running"}),
     .examples = RPC_EXAMPLES("uptime", "", "")},
    {.category = "control",
     .name = "getmemoryinfo",
     .handler = rpc_getmemoryinfo,
     .description = "Returns an object containing information about memory usage.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "mode",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "\"stats\"",
                       .description =
                           "determines what kind of information is returned.\n"
                           "  - \"stats\" returns general statistics about memory usage in the "
                           "daemon.\n"
                           "  - \"mallocinfo\" returns an XML string describing low-level heap "
                           "state (only available if compiled with glibc)."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .cond = "mode \"stats\"",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "locked",
               .description = "Information about locked memory manager",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_NUM, .key = "used", .description = "Number of bytes used"},
                   {.type = RPC_RES_NUM,
                    .key = "free",
                    .description = "Number of bytes available in current arenas"},
                   {.type = RPC_RES_NUM,
                    .key = "total",
                    .description = "Total number of bytes managed"},
                   {.type = RPC_RES_NUM,
                    .key = "locked",
                    .description = "Amount of bytes that succeeded locking. If this number is "
                                   "smaller than total, locking pages failed at some point and "
                                   "key data could be swapped to disk."},
                   {.type = RPC_RES_NUM,
                    .key = "chunks_used",
                    .description = "Number allocated chunks"},
                   {.type = RPC_RES_NUM,
                    .key = "chunks_free",
                    .description = "Number unused chunks"})})},
         {.type = RPC_RES_STR,
          .cond = "mode \"mallocinfo\"",
          .description = "\"<malloc version=\"1\">...\""}),
     .examples = RPC_EXAMPLES("getmemoryinfo", "", "")},
    {.category = "control",
     .name = "getrpcinfo",
     .handler = rpc_getrpcinfo,
     .description = "Returns details of the RPC server.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_ARR,
               .key = "active_commands",
               .description = "All active commands",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .description = "Information about an active command",
                    .inner = RPC_LIST(struct rpc_result,
                                      {.type = RPC_RES_STR,
                                       .key = "method",
                                       .description = "The name of the RPC command"},
                                      {.type = RPC_RES_NUM,
                                       .key = "duration",
                                       .description = "The running time in microseconds"})})},
              {.type = RPC_RES_STR,
               .key = "logpath",
               .description = "The complete file path to the debug log"})}),
     .examples = RPC_EXAMPLES("getrpcinfo", "", "")},
    {.category = "control",
     .name = "logging",
     .handler = rpc_logging,
     .description =
         "Gets and sets the logging configuration.\n"
         "When called without an argument, returns the list of categories with status that are "
         "currently being debug logged or not.\n"
         "When called with arguments, adds or removes categories from debug logging and return "
         "the lists above.\n"
         "The arguments are evaluated in order \"include\", \"exclude\".\n"
         "If an item is both included and excluded, it will thus end up being excluded.\n"
         "The valid logging categories are: addrman, bench, blockstorage, cmpctblock, coindb, "
         "estimatefee, http, i2p, ipc, kernel, leveldb, mempool, mempoolrej, net, "
         "privatebroadcast, proxy, prune, qt, rand, reindex, rpc, scan, selectcoins, tor, "
         "txpackages, txreconciliation, validation, walletdb, zmq\n"
         "In addition, the following are available as category names with special meanings:\n"
         "  - \"all\",  \"1\" : represent all logging categories.\n",
     .args = RPC_LIST(struct rpc_arg,
                      LOG_CATEGORY_ARRAY("include", "include_category",
                                         "The categories to add to debug logging"),
                      LOG_CATEGORY_ARRAY("exclude", "exclude_category",
                                         "The categories to remove from debug logging")),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .description = "keys are the logging categories, and values indicates its status",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_BOOL,
                             .key = "category",
                             .description = "if being debug logged or not. false:inactive, "
                                            "true:active"})}),
     .examples = RPC_EXAMPLE_CLI("logging", "\"[\\\"all\\\"]\" \"[\\\"http\\\"]\"")
         RPC_EXAMPLE_RPC("logging", "[\"all\"], [\"leveldb\"]")},
    ECHO_METHOD("echo"),
    ECHO_METHOD("echojson"),
    {.category = "hidden",
     .name = "echoipc",
     .handler = rpc_echoipc,
     .description = "Echo back the input argument, passing it through a spawned process in a "
                    "multiprocess build.\n"
                    "This command is for testing.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "arg",
                                       .type = RPC_ARG_STR,
                                       .description = "The string to echo"}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR,
                                             .key = "echo",
                                             .description = "The echoed string."}),
     /* Core's examples name echo, not echoipc. */
     .examples = RPC_EXAMPLES("echo", "\"Hello world\"", "\"Hello world\""),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "setmocktime",
     .handler = rpc_setmocktime,
     .description = "Set the local time to given timestamp (-regtest only)\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "timestamp",
                                       .type = RPC_ARG_NUM,
                                       .description = "UNIX epoch time\n"
                                                      "Pass 0 to go back to using the system "
                                                      "time."}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_NONE, .description = ""}),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "mockscheduler",
     .handler = rpc_mockscheduler,
     .description = "Bump the scheduler into the future (-regtest only)\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "delta_time",
                       .type = RPC_ARG_NUM,
                       .description = "Number of seconds to forward the scheduler into the "
                                      "future."}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_NONE, .description = ""}),
     .flags = RPC_METHOD_HIDDEN},
};

void rpc_control_register(struct rpc_context *ctx)
{
    rpc_register(ctx, control_methods, sizeof(control_methods) / sizeof(control_methods[0]));
}
