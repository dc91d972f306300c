#include "rpc/control.h"

#include <stdlib.h>
#include <string.h>

#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "util/check.h"
#include "util/log.h"
#include "util/shutdown.h"
#include "util/time.h"

#define CLIENT_NAME "bitnode"

static int64_t start_time_s;

static json_t *rpc_help(struct rpc_request *req)
{
    json_t *cmd = rpc_param(req, 0);
    if (!cmd) {
        char *text = rpc_help_overview();
        json_t *r = json_string(text);
        free(text);
        return r;
    }
    const struct rpc_method *m = rpc_table_find(json_string_value(cmd));
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
    return json_integer(time_now_s() - start_time_s);
}

static json_t *rpc_getrpcinfo(struct rpc_request *req)
{
    return json_pack("{s:o,s:s}", "active_commands", rpc_active_commands(), "logpath",
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
                      json_is_integer(v) || json_is_real(v) ? "number" : "non-string");
            return -1;
        }
        if (log_category_parse(json_string_value(v), &mask) != 0) {
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
    return json_deep_copy(req->params);
}

static const struct rpc_arg help_args[] = {
    {"command", RPC_ARG_STR, true, "all commands", "The command to get help on", false},
};
static const struct rpc_arg stop_args[] = {
    {"wait", RPC_ARG_NUM, true, NULL, "how long to wait in ms", true},
};
static const struct rpc_arg logging_args[] = {
    {"include", RPC_ARG_ARR, true, NULL, "The categories to add to debug logging", false},
    {"exclude", RPC_ARG_ARR, true, NULL, "The categories to remove from debug logging", false},
};
static const struct rpc_arg echo_args[] = {
    {"arg0", RPC_ARG_ANY, true, NULL, "", false}, {"arg1", RPC_ARG_ANY, true, NULL, "", false},
    {"arg2", RPC_ARG_ANY, true, NULL, "", false}, {"arg3", RPC_ARG_ANY, true, NULL, "", false},
    {"arg4", RPC_ARG_ANY, true, NULL, "", false}, {"arg5", RPC_ARG_ANY, true, NULL, "", false},
    {"arg6", RPC_ARG_ANY, true, NULL, "", false}, {"arg7", RPC_ARG_ANY, true, NULL, "", false},
    {"arg8", RPC_ARG_ANY, true, NULL, "", false}, {"arg9", RPC_ARG_ANY, true, NULL, "", false},
};

static const struct rpc_method control_methods[] = {
    {"Control", "help", rpc_help, help_args, 1,
     "List all commands, or get help for a specified command.",
     "\"text\"    (string) The help text", NULL, RPC_METHOD_IN_WARMUP},
    {"Control", "stop", rpc_stop, stop_args, 1, "Request a graceful shutdown of bitnode.",
     "\"str\"    (string) A string with the content 'bitnode stopping'", NULL,
     RPC_METHOD_IN_WARMUP},
    {"Control", "uptime", rpc_uptime, NULL, 0, "Returns the total uptime of the server.",
     "n    (numeric) The number of seconds that the server has been running", NULL, 0},
    {"Control", "getrpcinfo", rpc_getrpcinfo, NULL, 0, "Returns details of the RPC server.",
     "{                          (json object)\n"
     "  \"active_commands\" : [    (json array) All active commands\n"
     "    {                      (json object) Information about an active command\n"
     "      \"method\" : \"str\",    (string) The name of the RPC command\n"
     "      \"duration\" : n       (numeric) The running time in microseconds\n"
     "    },\n"
     "    ...\n"
     "  ],\n"
     "  \"logpath\" : \"str\"       (string) The complete file path to the debug log\n"
     "}",
     NULL, 0},
    {"Control", "logging", rpc_logging, logging_args, 2,
     "Gets and sets the logging configuration.\n"
     "When called without an argument, returns the list of categories with status that are "
     "currently being debug logged or not.\n"
     "When called with arguments, adds or removes categories from debug logging and return "
     "the lists above.\n"
     "The arguments are evaluated in order \"include\", \"exclude\".\n"
     "If an item is both included and excluded, it will thus end up being excluded.\n"
     "The valid logging categories are: blockstorage, bench, coindb, http, kv, net, reindex, "
     "rpc, validation\n"
     "In addition, the following are available as category names with special meanings:\n"
     "  - \"all\",  \"1\" : represent all logging categories.",
     "{                   (json object) keys are the logging categories, and values indicates "
     "its status\n"
     "  \"category\" : true|false,    (boolean) if being debug logged or not. false:inactive, "
     "true:active\n"
     "  ...\n"
     "}",
     "> bitnode-cli logging \"[\\\"all\\\"]\" \"[\\\"http\\\"]\"\n"
     "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", "
     "\"method\": \"logging\", \"params\": [[\"all\"], [\"libevent\"]]}' -H 'content-type: "
     "application/json' http://127.0.0.1:8332/\n",
     0},
    {"Hidden", "echo", rpc_echo, echo_args, 10,
     "Simply echo back the input arguments. This command is for testing.\n"
     "The difference between echo and echojson is that echojson has argument conversion "
     "enabled in the client-side table in bitnode-cli.",
     "any    (any) Returns whatever was passed in", NULL, RPC_METHOD_HIDDEN},
    {"Hidden", "echojson", rpc_echo, echo_args, 10,
     "Simply echo back the input arguments. This command is for testing.\n"
     "The difference between echo and echojson is that echojson has argument conversion "
     "enabled in the client-side table in bitnode-cli.",
     "any    (any) Returns whatever was passed in", NULL, RPC_METHOD_HIDDEN},
};

void rpc_control_register(void)
{
    start_time_s = time_now_s();
    rpc_table_register(control_methods, sizeof(control_methods) / sizeof(control_methods[0]));
}
