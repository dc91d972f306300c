/* bitnode-cli: sends one JSON-RPC request to bitnoded and prints the result, with
 * bitcoin-cli's options, output and exit codes (stdout: the result, strings raw and JSON
 * indented by 2; stderr: "error code: N\nerror message:\n..." and exit status |N|). */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/auth.h"
#include "rpc/client.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "options.h"
#include "util/args.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/config.h"
#include "util/fs.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

#define DEFAULT_CLIENT_TIMEOUT_S 900

struct cli {
    struct args *args;
    char *datadir;
    char *net_dir;
    char host[256];
    uint16_t port;
    char *stdin_password; /* -stdinrpcpass */
};

struct http_result {
    int status; /* 0: no HTTP response (connection failed) */
    struct buf body;
};

static void http_done(struct evhttp_request *req, void *arg)
{
    struct http_result *r = arg;
    if (!req) {
        return;
    }
    r->status = evhttp_request_get_response_code(req);
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t n = evbuffer_get_length(in);
    buf_reserve(&r->body, n + 1);
    evbuffer_remove(in, r->body.data + r->body.len, n);
    r->body.len += n;
}

/* POSTs body with the given "user:pass". Fills r; returns 0, or RC_IO if no HTTP response
 * came back (connection refused, timeout). */
static int http_post(const struct cli *c, const char *userpass, const char *body,
                     struct http_result *r)
{
    struct event_base *base = event_base_new();
    struct evhttp_connection *evcon = evhttp_connection_base_new(base, NULL, c->host, c->port);
    int64_t timeout = args_get_int(c->args, "rpcclienttimeout", DEFAULT_CLIENT_TIMEOUT_S);
    if (timeout > 0) {
        evhttp_connection_set_timeout(evcon, (int)timeout);
    } else {
        evhttp_connection_set_timeout(evcon, 365 * 24 * 3600);
    }
    struct evhttp_request *req = evhttp_request_new(http_done, r);
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    char *b64 = base64_encode((const uint8_t *)userpass, strlen(userpass));
    size_t alen = strlen(b64) + 8;
    char *auth = xmalloc(alen);
    snprintf(auth, alen, "Basic %s", b64);
    evhttp_add_header(h, "Host", c->host);
    evhttp_add_header(h, "Connection", "close");
    evhttp_add_header(h, "Content-Type", "application/json");
    evhttp_add_header(h, "Authorization", auth);
    evbuffer_add(evhttp_request_get_output_buffer(req), body, strlen(body));
    r->status = 0;
    buf_init(&r->body);
    if (evhttp_make_request(evcon, req, EVHTTP_REQ_POST, "/") == 0) {
        event_base_dispatch(base);
    }
    evhttp_connection_free(evcon);
    event_base_free(base);
    free(auth);
    free(b64);
    return r->status == 0 ? RC_IO : RC_OK;
}

/* Finds "user:pass": -rpcpassword (or -stdinrpcpass), else the cookie file. */
static int get_credentials(const struct cli *c, char **userpass, char *err, size_t err_len)
{
    const char *pw = c->stdin_password ? c->stdin_password : args_get(c->args, "rpcpassword", "");
    if (pw[0]) {
        const char *user = args_get(c->args, "rpcuser", "");
        size_t n = strlen(user) + strlen(pw) + 2;
        *userpass = xmalloc(n);
        snprintf(*userpass, n, "%s:%s", user, pw);
        return RC_OK;
    }
    char *path = fs_path_join(c->net_dir, args_get(c->args, "rpccookiefile", ".cookie"));
    char e[256];
    int rc = rpc_cookie_read(path, userpass, e, sizeof(e));
    if (rc != RC_OK) {
        snprintf(err, err_len,
                 "Could not locate RPC credentials. No authentication cookie could be found, and "
                 "RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration "
                 "file: (%s/bitcoin.conf)",
                 c->datadir);
    }
    free(path);
    return rc;
}

enum call_status { CALL_OK, CALL_RETRY, CALL_FAIL };

/* One request/response round. On CALL_OK *reply is the parsed JSON; on CALL_FAIL err holds
 * the message to print; CALL_RETRY means -rpcwait should try again. */
static enum call_status call_once(const struct cli *c, const char *body, json_t **reply, char *err,
                                  size_t err_len)
{
    bool wait = args_get_bool(c->args, "rpcwait", false);
    char *userpass;
    if (get_credentials(c, &userpass, err, err_len) != RC_OK) {
        return wait ? CALL_RETRY : CALL_FAIL;
    }
    struct http_result r;
    int rc = http_post(c, userpass, body, &r);
    free(userpass);
    enum call_status st = CALL_FAIL;
    if (rc != RC_OK) {
        snprintf(err, err_len,
                 "Could not connect to the server %s:%u\n\nMake sure the bitnoded server is "
                 "running and that you are connecting to the correct RPC port.\n"
                 "Use \"bitnode-cli -help\" for more info.",
                 c->host, c->port);
        st = wait ? CALL_RETRY : CALL_FAIL;
        goto out;
    }
    if (r.status == RPC_HTTP_UNAUTHORIZED) {
        snprintf(err, err_len, "Authorization failed: Incorrect rpcuser or rpcpassword");
        goto out;
    }
    if (r.status == RPC_HTTP_SERVICE_UNAVAILABLE) {
        snprintf(err, err_len, "Server response: %.*s", (int)r.body.len, (const char *)r.body.data);
        goto out;
    }
    if (r.status >= 400 && r.status != RPC_HTTP_BAD_REQUEST && r.status != RPC_HTTP_NOT_FOUND &&
        r.status != RPC_HTTP_INTERNAL_SERVER_ERROR) {
        snprintf(err, err_len, "server returned HTTP error %d", r.status);
        goto out;
    }
    if (r.body.len == 0) {
        snprintf(err, err_len, "no response from server");
        goto out;
    }
    *reply = rpc_json_parse_exact((const char *)r.body.data, r.body.len);
    if (!*reply || !(json_is_object(*reply) || json_is_array(*reply))) {
        json_decref(*reply);
        snprintf(err, err_len, "couldn't parse reply from server");
        goto out;
    }
    st = CALL_OK;
    if (wait && json_is_object(*reply)) {
        json_t *e = json_object_get(*reply, "error");
        if (json_is_object(e) && json_integer_value(json_object_get(e, "code")) == RPC_IN_WARMUP) {
            json_decref(*reply);
            st = CALL_RETRY;
        }
    }
out:
    buf_clear(&r.body);
    return st;
}

static int call(const struct cli *c, const char *body, json_t **reply)
{
    char err[1024];
    int64_t wait_timeout = args_get_int(c->args, "rpcwaittimeout", 0);
    int64_t deadline = time_mono_us() + wait_timeout * 1000000;
    for (;;) {
        enum call_status st = call_once(c, body, reply, err, sizeof(err));
        if (st == CALL_OK) {
            return 0;
        }
        if (st == CALL_RETRY && (wait_timeout <= 0 || time_mono_us() < deadline)) {
            time_sleep_ms(1000);
            continue;
        }
        if (st == CALL_RETRY) {
            fprintf(stderr, "error: timeout on transient error: %s\n", err);
        } else {
            fprintf(stderr, "error: %s\n", err);
        }
        return 1;
    }
}

/* Prints a JSON-RPC reply object the way bitcoin-cli does; returns the exit code. */
static int print_reply(json_t *reply)
{
    json_t *error = json_object_get(reply, "error");
    if (error && !json_is_null(error)) {
        json_t *code = json_object_get(error, "code");
        json_t *msg = json_object_get(error, "message");
        if (json_is_object(error)) {
            if (code && !json_is_null(code)) {
                char *ctext = rpc_json_dumps(code, 0);
                fprintf(stderr, "error code: %s\n", ctext);
                free(ctext);
            }
            if (json_is_string(msg)) {
                fprintf(stderr, "error message:\n%s", json_string_value(msg));
            }
            fprintf(stderr, "\n");
        } else {
            char *etext = rpc_json_dumps(error, 0);
            fprintf(stderr, "error: %s\n", etext);
            free(etext);
        }
        long long c = json_integer_value(code);
        return (int)(c < 0 ? -c : c) & 0xff ? (int)(c < 0 ? -c : c) : 1;
    }
    json_t *result = json_object_get(reply, "result");
    if (!result || json_is_null(result)) {
        return 0;
    }
    if (rpc_json_is_amount(result)) {
        /* A bare number kept as the server wrote it. */
        char *text = rpc_json_dumps(result, 0);
        printf("%s\n", text);
        free(text);
    } else if (json_is_string(result)) {
        printf("%s\n", json_string_value(result));
    } else {
        char *text = rpc_json_dumps(result, 2);
        printf("%s\n", text);
        free(text);
    }
    return 0;
}

/* -getinfo: a batch of the general-information methods; prints what the node answers. */
static int get_info(const struct cli *c)
{
    const char *body = "[{\"method\":\"getblockchaininfo\",\"params\":[],\"id\":0},"
                       "{\"method\":\"getnetworkinfo\",\"params\":[],\"id\":1},"
                       "{\"method\":\"uptime\",\"params\":[],\"id\":2}]\n";
    json_t *reply;
    if (call(c, body, &reply) != 0) {
        return 1;
    }
    json_t *bc = NULL, *net = NULL, *up = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(reply, i, v)
    {
        json_t *res = json_object_get(v, "result");
        json_int_t id = json_integer_value(json_object_get(v, "id"));
        if (res && !json_is_null(res)) {
            if (id == 0) {
                bc = res;
            } else if (id == 1) {
                net = res;
            } else {
                up = res;
            }
        }
    }
    printf("Chain: %s\n",
           bc ? json_string_value(json_object_get(bc, "chain")) : args_chain(c->args));
    if (bc) {
        printf("Blocks: %" JSON_INTEGER_FORMAT "\n",
               json_integer_value(json_object_get(bc, "blocks")));
        printf("Headers: %" JSON_INTEGER_FORMAT "\n",
               json_integer_value(json_object_get(bc, "headers")));
        printf("Verification progress: %.4f%%\n",
               100.0 * json_number_value(json_object_get(bc, "verificationprogress")));
        printf("Difficulty: %.16g\n", json_number_value(json_object_get(bc, "difficulty")));
    }
    if (net) {
        printf("\nNetwork: in %" JSON_INTEGER_FORMAT ", out %" JSON_INTEGER_FORMAT
               ", total %" JSON_INTEGER_FORMAT "\n",
               json_integer_value(json_object_get(net, "connections_in")),
               json_integer_value(json_object_get(net, "connections_out")),
               json_integer_value(json_object_get(net, "connections")));
        printf("Version: %" JSON_INTEGER_FORMAT "\n",
               json_integer_value(json_object_get(net, "version")));
    }
    if (up) {
        printf("Uptime: %" JSON_INTEGER_FORMAT " s\n", json_integer_value(up));
    }
    json_decref(reply);
    return 0;
}

static char *read_line(FILE *f)
{
    struct buf b;
    buf_init(&b);
    int ch;
    bool any = false;
    while ((ch = fgetc(f)) != EOF) {
        any = true;
        if (ch == '\n') {
            break;
        }
        buf_put_u8(&b, (uint8_t)ch);
    }
    if (!any) {
        buf_clear(&b);
        return NULL;
    }
    if (b.len > 0 && b.data[b.len - 1] == '\r') {
        b.len--;
    }
    buf_put_u8(&b, 0);
    return (char *)b.data;
}

static int setup(struct cli *c, int argc, char **argv, int *first)
{
    char err[1024];
    c->args = args_new(bitnode_cli_options, bitnode_cli_options_len);
    if (args_parse_cmdline(c->args, argc, argv, first, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "Error parsing command line arguments: %s\n", err);
        return 1;
    }
    if (args_get_bool(c->args, "help", false) || args_get_bool(c->args, "version", false)) {
        printf("bitnode RPC client version v%s\n", PACKAGE_VERSION);
        if (args_get_bool(c->args, "help", false)) {
            printf("\nThe bitnode-cli utility provides a command line interface to interact "
                   "with a bitnoded RPC server.\n\n"
                   "Usage:  bitnode-cli [options] <command> [params]\n"
                   "or:     bitnode-cli [options] -named <command> [name=value]...\n"
                   "or:     bitnode-cli [options] help               List commands\n"
                   "or:     bitnode-cli [options] help <command>     Get help for a command\n\n");
            args_print_help(c->args, stdout);
        }
        return -1;
    }
    const char *given = args_get(c->args, "datadir", "");
    if (given[0] && !fs_is_dir(given)) {
        fprintf(stderr, "Error: Specified data directory \"%s\" does not exist.\n", given);
        return 1;
    }
    /* bitcoin.conf, as Core's client (bitnode.conf, the old name, when there is none); the
     * client has no includeconf, as bitcoin-cli, and skips what it does not know. */
    char *orig = given[0] ? xstrdup(given) : fs_default_datadir();
    char *read_path = NULL;
    int rc = config_read_files(c->args, orig, true, &read_path, err, sizeof(err));
    free(read_path);
    free(orig);
    if (rc != RC_OK) {
        fprintf(stderr, "Error reading configuration file: %s\n", err);
        return 1;
    }
    given = args_get(c->args, "datadir", "");
    c->datadir = given[0] ? xstrdup(given) : fs_default_datadir();
    if (args_select_chain(c->args, err, sizeof(err)) != RC_OK ||
        args_validate(c->args, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "Error: %s\n", err);
        return 1;
    }
    const struct fs_chain_info *chain = fs_chain_info(args_chain(c->args));
    c->net_dir = fs_path_join(c->datadir, chain->subdir);
    c->port = chain->rpc_port;
    const char *connect = args_get(c->args, "rpcconnect", "127.0.0.1");
    snprintf(c->host, sizeof(c->host), "%s", connect);
    char *colon = strrchr(c->host, ':');
    if (colon && strchr(c->host, ':') == colon) {
        *colon = 0;
        int64_t p;
        if (args_parse_int64(colon + 1, &p) != RC_OK || p < 1 || p > 65535) {
            fprintf(stderr, "Error: Invalid port provided in -rpcconnect: %s\n", connect);
            return 1;
        }
        c->port = (uint16_t)p;
    } else if (c->host[0] == '[' && (colon = strstr(c->host, "]:")) != NULL) {
        c->port = (uint16_t)atoi(colon + 2);
        *colon = 0;
        memmove(c->host, c->host + 1, strlen(c->host));
    }
    if (args_is_set(c->args, "rpcport")) {
        int64_t p = args_get_int(c->args, "rpcport", 0);
        if (p < 1 || p > 65535) {
            fprintf(stderr, "Error: Invalid port provided in -rpcport: %s\n",
                    args_get(c->args, "rpcport", ""));
            return 1;
        }
        c->port = (uint16_t)p;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct cli c = {0};
    int first = argc;
    int ret = setup(&c, argc, argv, &first);
    char **words = NULL;
    size_t n_words = 0;
    if (ret != 0) {
        ret = ret < 0 ? 0 : ret;
        goto out;
    }
    words = xcalloc((size_t)(argc - first) + 1, sizeof(*words));
    for (int i = first; i < argc; i++) {
        words[n_words++] = xstrdup(argv[i]);
    }
    if (args_get_bool(c.args, "stdinrpcpass", false)) {
        c.stdin_password = read_line(stdin);
        if (!c.stdin_password) {
            fprintf(stderr, "error: -stdinrpcpass specified but failed to read from standard "
                            "input\n");
            ret = 1;
            goto out;
        }
    }
    if (args_get_bool(c.args, "stdin", false)) {
        char *line;
        while ((line = read_line(stdin)) != NULL) {
            words = xrealloc(words, (n_words + 2) * sizeof(*words));
            words[n_words++] = line;
        }
    }
    if (args_get_bool(c.args, "getinfo", false)) {
        ret = get_info(&c);
        goto out;
    }
    if (n_words == 0) {
        fprintf(stderr, "error: too few parameters (need at least command)\n");
        ret = 1;
        goto out;
    }
    char err[1024];
    const char *method = words[0];
    json_t *params =
        args_get_bool(c.args, "named", false)
            ? rpc_client_params_named(method, words + 1, n_words - 1, err, sizeof(err))
            : rpc_client_params_positional(method, words + 1, n_words - 1, err, sizeof(err));
    if (!params) {
        fprintf(stderr, "error: %s\n", err);
        ret = 1;
        goto out;
    }
    json_t *request = json_pack("{s:s,s:o,s:i}", "method", method, "params", params, "id", 1);
    char *body = rpc_json_dumps(request, 0);
    json_decref(request);
    json_t *reply;
    ret = call(&c, body, &reply);
    free(body);
    if (ret == 0) {
        ret = json_is_object(reply) ? print_reply(reply) : 1;
        json_decref(reply);
    }
out:
    for (size_t i = 0; i < n_words; i++) {
        free(words[i]);
    }
    free(words);
    free(c.stdin_password);
    free(c.net_dir);
    free(c.datadir);
    args_free(c.args);
    return ret;
}
