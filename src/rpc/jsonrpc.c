#include "rpc/jsonrpc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/json.h"
#include "rpc/protocol.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/log.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* ---- the method table ---------------------------------------------------------------- */

static const struct rpc_method **table;
static size_t table_len;

void rpc_table_register(const struct rpc_method *methods, size_t n)
{
    table = xrealloc(table, (table_len + n) * sizeof(*table));
    for (size_t i = 0; i < n; i++) {
        CHECK_ALWAYS(rpc_table_find(methods[i].name) == NULL);
        table[table_len++] = &methods[i];
    }
}

void rpc_table_clear(void)
{
    free(table);
    table = NULL;
    table_len = 0;
}

const struct rpc_method *rpc_table_find(const char *name)
{
    for (size_t i = 0; i < table_len; i++) {
        if (strcmp(table[i]->name, name) == 0) {
            return table[i];
        }
    }
    return NULL;
}

/* ---- help text ----------------------------------------------------------------------- */

static void put(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0) {
        buf_append(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
    }
}

static void put_arg_signature(struct buf *b, const struct rpc_arg *a)
{
    switch (a->type) {
    case RPC_ARG_STR:
    case RPC_ARG_STR_HEX:
        putf(b, "\"%s\"", a->name);
        break;
    case RPC_ARG_OBJ:
        put(b, "{...}");
        break;
    case RPC_ARG_ARR:
        putf(b, "[\"%s\",...]", a->name);
        break;
    default:
        put(b, a->name);
    }
}

/* Appends "name ( args )" to b. */
static void put_signature(struct buf *b, const struct rpc_method *m)
{
    put(b, m->name);
    bool in_optional = false;
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        if (a->hidden) {
            continue;
        }
        put(b, " ");
        if (a->optional && !in_optional) {
            put(b, "( ");
            in_optional = true;
        }
        put_arg_signature(b, a);
    }
    if (in_optional) {
        put(b, " )");
    }
}

static const char *type_help(enum rpc_arg_type t)
{
    switch (t) {
    case RPC_ARG_STR:
        return "string";
    case RPC_ARG_STR_HEX:
        return "string";
    case RPC_ARG_NUM:
        return "numeric";
    case RPC_ARG_BOOL:
        return "boolean";
    case RPC_ARG_AMOUNT:
        return "numeric or string";
    case RPC_ARG_OBJ:
        return "json object";
    case RPC_ARG_ARR:
        return "json array";
    case RPC_ARG_ANY:
        return "any";
    }
    return "any";
}

char *rpc_method_help(const struct rpc_method *m)
{
    struct buf b;
    buf_init(&b);
    put_signature(&b, m);
    put(&b, "\n\n");
    if (m->description) {
        put(&b, m->description);
        put(&b, "\n");
    }
    size_t shown = 0;
    for (size_t i = 0; i < m->n_args; i++) {
        shown += !m->args[i].hidden;
    }
    if (shown > 0) {
        put(&b, "\nArguments:\n");
        for (size_t i = 0; i < m->n_args; i++) {
            const struct rpc_arg *a = &m->args[i];
            if (a->hidden) {
                continue;
            }
            putf(&b, "%zu. %s    (%s, %s%s%s) %s\n", i + 1, a->name, type_help(a->type),
                 a->optional ? "optional" : "required", a->default_text ? ", default=" : "",
                 a->default_text ? a->default_text : "", a->help ? a->help : "");
        }
    }
    if (m->result) {
        put(&b, "\nResult:\n");
        put(&b, m->result);
        put(&b, "\n");
    }
    put(&b, "\nExamples:\n");
    if (m->examples) {
        put(&b, m->examples);
    } else {
        putf(&b,
             "> bitnode-cli %s\n"
             "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": "
             "\"curltest\", \"method\": \"%s\", \"params\": []}' -H 'content-type: "
             "application/json' http://127.0.0.1:8332/\n",
             m->name, m->name);
    }
    buf_put_u8(&b, 0);
    return (char *)b.data;
}

static int cmp_method(const void *pa, const void *pb)
{
    const struct rpc_method *a = *(const struct rpc_method *const *)pa;
    const struct rpc_method *b = *(const struct rpc_method *const *)pb;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

char *rpc_help_overview(void)
{
    const struct rpc_method **sorted = xmalloc((table_len + 1) * sizeof(*sorted));
    if (table_len > 0) {
        memcpy(sorted, table, table_len * sizeof(*sorted));
    }
    qsort(sorted, table_len, sizeof(*sorted), cmp_method);
    struct buf b;
    buf_init(&b);
    const char *cat = NULL;
    for (size_t i = 0; i < table_len; i++) {
        const struct rpc_method *m = sorted[i];
        if (m->flags & RPC_METHOD_HIDDEN) {
            continue;
        }
        if (!cat || strcmp(cat, m->category) != 0) {
            putf(&b, "%s== %s ==\n", cat ? "\n" : "", m->category);
            cat = m->category;
        }
        put_signature(&b, m);
        put(&b, "\n");
    }
    /* Core's overview has no trailing newline. */
    if (b.len > 0 && b.data[b.len - 1] == '\n') {
        b.len--;
    }
    buf_put_u8(&b, 0);
    free(sorted);
    return (char *)b.data;
}

/* ---- requests ------------------------------------------------------------------------ */

json_t *rpc_error(struct rpc_request *req, int code, const char *fmt, ...)
{
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    free(req->err_msg);
    req->err_code = code;
    req->err_msg = xstrdup(msg);
    return NULL;
}

json_t *rpc_param(const struct rpc_request *req, size_t i)
{
    json_t *v = json_array_get(req->params, i);
    return json_is_null(v) ? NULL : v;
}

/* ---- warm-up ------------------------------------------------------------------------- */

static pthread_mutex_t warmup_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool warmup_active = true;                  /* guarded by warmup_mutex */
static char warmup_status[256] = "Starting up..."; /* guarded by warmup_mutex */

void rpc_warmup_set(const char *status)
{
    pthread_mutex_lock(&warmup_mutex);
    snprintf(warmup_status, sizeof(warmup_status), "%s", status);
    warmup_active = true;
    pthread_mutex_unlock(&warmup_mutex);
}

void rpc_warmup_finished(void)
{
    pthread_mutex_lock(&warmup_mutex);
    warmup_active = false;
    pthread_mutex_unlock(&warmup_mutex);
}

bool rpc_warmup_get(char *status, size_t status_len)
{
    pthread_mutex_lock(&warmup_mutex);
    bool active = warmup_active;
    if (status && status_len > 0) {
        snprintf(status, status_len, "%s", warmup_status);
    }
    pthread_mutex_unlock(&warmup_mutex);
    return active;
}

/* ---- active commands (getrpcinfo) ---------------------------------------------------- */

struct active_cmd {
    const char *method; /* borrowed from the running request */
    int64_t start_us;
    struct active_cmd *next;
};

static pthread_mutex_t active_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct active_cmd *active_head; /* guarded by active_mutex */

static void active_add(struct active_cmd *c)
{
    pthread_mutex_lock(&active_mutex);
    c->next = active_head;
    active_head = c;
    pthread_mutex_unlock(&active_mutex);
}

static void active_remove(struct active_cmd *c)
{
    pthread_mutex_lock(&active_mutex);
    for (struct active_cmd **p = &active_head; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&active_mutex);
}

json_t *rpc_active_commands(void)
{
    json_t *arr = json_array();
    int64_t now = time_mono_us();
    pthread_mutex_lock(&active_mutex);
    for (struct active_cmd *c = active_head; c; c = c->next) {
        json_array_append_new(arr, json_pack("{s:s,s:I}", "method", c->method, "duration",
                                             (json_int_t)(now - c->start_us)));
    }
    pthread_mutex_unlock(&active_mutex);
    return arr;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static void request_clear(struct rpc_request *req)
{
    json_decref(req->params);
    free(req->err_msg);
    memset(req, 0, sizeof(*req));
}

/* Core's JSONRPCRequest::parse. Fills req (id and version as far as they were read, so that
 * an error reply can carry them). Returns 0 or -1 with the error recorded. */
static int parse_request(struct rpc_request *req, json_t *v)
{
    req->json_version = RPC_JSON_V1;
    if (!json_is_object(v)) {
        rpc_error(req, RPC_INVALID_REQUEST, "Invalid Request object");
        return -1;
    }
    req->id = json_object_get(v, "id");
    json_t *ver = json_object_get(v, "jsonrpc");
    if (ver && !json_is_null(ver)) {
        if (!json_is_string(ver)) {
            rpc_error(req, RPC_INVALID_REQUEST, "jsonrpc field must be a string");
            return -1;
        }
        if (strcmp(json_string_value(ver), "2.0") == 0) {
            req->json_version = RPC_JSON_V2;
        } else if (strcmp(json_string_value(ver), "1.0") != 0) {
            rpc_error(req, RPC_INVALID_REQUEST, "JSON-RPC version not supported");
            return -1;
        }
    }
    json_t *method = json_object_get(v, "method");
    if (!method || json_is_null(method)) {
        rpc_error(req, RPC_INVALID_REQUEST, "Missing method");
        return -1;
    }
    if (!json_is_string(method)) {
        rpc_error(req, RPC_INVALID_REQUEST, "Method must be a string");
        return -1;
    }
    req->method = json_string_value(method);
    json_t *params = json_object_get(v, "params");
    if (json_is_array(params) || json_is_object(params)) {
        req->params = json_incref(params);
    } else if (!params || json_is_null(params)) {
        req->params = json_array();
    } else {
        rpc_error(req, RPC_INVALID_REQUEST, "Params must be an array or object");
        return -1;
    }
    return 0;
}

/* Core's transformNamedArguments: maps an object of named parameters (and an optional
 * "args" array of leading positional ones) onto the method's argument positions. */
static int transform_named(struct rpc_request *req, const struct rpc_method *m)
{
    json_t *in = req->params;
    json_t *left = json_copy(in);
    json_t *out = json_array();
    int hole = 0, initial_hole = 0;
    const char *initial_param = NULL;
    int rc = 0;
    for (size_t i = 0; i < m->n_args; i++) {
        json_t *v = json_object_get(left, m->args[i].name);
        if (v) {
            for (int k = 0; k < hole; k++) {
                json_array_append_new(out, json_null());
            }
            hole = 0;
            if (!initial_param) {
                initial_param = m->args[i].name;
            }
            json_array_append(out, v);
            json_object_del(left, m->args[i].name);
        } else {
            hole++;
            if (json_array_size(out) == 0) {
                initial_hole = hole;
            }
        }
    }
    json_t *positional = json_object_get(left, "args");
    if (positional && json_is_array(positional)) {
        if (initial_param && initial_hole < (int)json_array_size(positional)) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "Parameter %s specified twice both as positional and named argument",
                      initial_param);
            rc = -1;
            goto out;
        }
        json_t *merged = json_copy(positional);
        for (size_t i = json_array_size(merged); i < json_array_size(out); i++) {
            json_array_append(merged, json_array_get(out, i));
        }
        json_decref(out);
        out = merged;
        json_object_del(left, "args");
    }
    if (json_object_size(left) > 0) {
        const char *key = json_object_iter_key(json_object_iter(left));
        rpc_error(req, RPC_INVALID_PARAMETER, "Unknown named parameter %s", key);
        rc = -1;
        goto out;
    }
    json_decref(req->params);
    req->params = json_incref(out);
out:
    json_decref(out);
    json_decref(left);
    return rc;
}

static const char *expected_type(enum rpc_arg_type t)
{
    switch (t) {
    case RPC_ARG_STR:
    case RPC_ARG_STR_HEX:
        return "string";
    case RPC_ARG_NUM:
        return "number";
    case RPC_ARG_BOOL:
        return "bool";
    case RPC_ARG_OBJ:
        return "object";
    case RPC_ARG_ARR:
        return "array";
    default:
        return NULL; /* amount and any are checked by the handler */
    }
}

/* Core's RPCHelpMan::HandleRequest checks: the argument count, then every type. */
static int check_args(struct rpc_request *req, const struct rpc_method *m)
{
    size_t n = json_array_size(req->params);
    size_t required = 0;
    for (size_t i = 0; i < m->n_args; i++) {
        if (!m->args[i].optional) {
            required = i + 1;
        }
    }
    if (n < required || n > m->n_args) {
        char *help = rpc_method_help(m);
        rpc_error(req, RPC_MISC_ERROR, "%s", help);
        free(help);
        return -1;
    }
    json_t *mismatch = json_object();
    for (size_t i = 0; i < m->n_args; i++) {
        json_t *v = json_array_get(req->params, i);
        const char *exp = expected_type(m->args[i].type);
        if (!exp || ((!v || json_is_null(v)) && m->args[i].optional)) {
            continue;
        }
        const char *got = v ? rpc_json_type_name(v) : "null";
        if (strcmp(got, exp) != 0) {
            char key[128], val[160];
            snprintf(key, sizeof(key), "Position %zu (%s)", i + 1, m->args[i].name);
            snprintf(val, sizeof(val), "JSON value of type %s is not of expected type %s", got,
                     exp);
            json_object_set_new(mismatch, key, json_string(val));
        }
    }
    int rc = 0;
    if (json_object_size(mismatch) > 0) {
        char *text = rpc_json_dumps(mismatch, 4);
        rpc_error(req, RPC_TYPE_ERROR, "Wrong type passed:\n%s", text);
        free(text);
        rc = -1;
    }
    json_decref(mismatch);
    return rc;
}

/* Core's CRPCTable::execute. Returns the result or NULL with the error recorded. */
static json_t *execute(struct rpc_request *req)
{
    const struct rpc_method *m = rpc_table_find(req->method);
    char status[256];
    if (rpc_warmup_get(status, sizeof(status)) && !(m && (m->flags & RPC_METHOD_IN_WARMUP))) {
        return rpc_error(req, RPC_IN_WARMUP, "%s", status);
    }
    if (!m) {
        return rpc_error(req, RPC_METHOD_NOT_FOUND, "Method not found");
    }
    if (json_is_object(req->params) && transform_named(req, m) != 0) {
        return NULL;
    }
    if (check_args(req, m) != 0) {
        return NULL;
    }
    LOG(LOG_CAT_RPC, LOG_LVL_DEBUG, "ThreadRPCServer method=%s user=%s", m->name,
        req->auth_user ? req->auth_user : "");
    struct active_cmd cmd = {.method = m->name, .start_us = time_mono_us()};
    active_add(&cmd);
    json_t *result = m->handler(req);
    active_remove(&cmd);
    if (!result && !req->err_msg) {
        rpc_error(req, RPC_INTERNAL_ERROR, "Internal error: %s returned no result", m->name);
    }
    return result;
}

/* Core's JSONRPCReplyObj. Steals result and error. */
static json_t *reply_obj(json_t *result, json_t *error, json_t *id, int version)
{
    json_t *r = json_object();
    if (version == RPC_JSON_V2) {
        json_object_set_new(r, "jsonrpc", json_string("2.0"));
        if (error) {
            json_object_set_new(r, "error", error);
            json_decref(result);
        } else {
            json_object_set_new(r, "result", result ? result : json_null());
        }
    } else {
        if (error) {
            json_decref(result);
            json_object_set_new(r, "result", json_null());
            json_object_set_new(r, "error", error);
        } else {
            json_object_set_new(r, "result", result ? result : json_null());
            json_object_set_new(r, "error", json_null());
        }
    }
    json_object_set(r, "id", id ? id : json_null());
    return r;
}

static json_t *error_obj(int code, const char *msg)
{
    return json_pack("{s:i,s:s}", "code", code, "message", msg);
}

static json_t *error_reply(const struct rpc_request *req)
{
    return reply_obj(NULL, error_obj(req->err_code, req->err_msg), req->id, req->json_version);
}

/* Core's JSONErrorReply status mapping for requests that fail as HTTP errors. */
static int error_status(int code)
{
    if (code == RPC_INVALID_REQUEST) {
        return RPC_HTTP_BAD_REQUEST;
    }
    if (code == RPC_METHOD_NOT_FOUND) {
        return RPC_HTTP_NOT_FOUND;
    }
    return RPC_HTTP_INTERNAL_SERVER_ERROR;
}

static char *finish_body(json_t *v)
{
    struct buf b;
    buf_init(&b);
    rpc_json_write(&b, v, 0);
    buf_put_u8(&b, '\n');
    buf_put_u8(&b, 0);
    json_decref(v);
    return (char *)b.data;
}

static bool is_notification(const struct rpc_request *req)
{
    return req->json_version == RPC_JSON_V2 && req->id == NULL;
}

void rpc_handle_body(const char *body, size_t len, const char *auth_user, const char *uri,
                     struct rpc_reply *reply)
{
    reply->body = NULL;
    json_t *root = rpc_json_parse(body, len);
    if (!root) {
        reply->http_status = RPC_HTTP_INTERNAL_SERVER_ERROR;
        reply->body = finish_body(
            reply_obj(NULL, error_obj(RPC_PARSE_ERROR, "Parse error"), NULL, RPC_JSON_V1));
        return;
    }
    if (json_is_object(root)) {
        struct rpc_request req = {.auth_user = auth_user, .uri = uri};
        if (parse_request(&req, root) != 0) {
            reply->http_status = error_status(req.err_code);
            reply->body = finish_body(error_reply(&req));
        } else {
            json_t *result = execute(&req);
            if (is_notification(&req)) {
                json_decref(result);
                reply->http_status = RPC_HTTP_NO_CONTENT;
            } else if (!result) {
                reply->http_status =
                    req.json_version == RPC_JSON_V2 ? RPC_HTTP_OK : error_status(req.err_code);
                reply->body = finish_body(error_reply(&req));
            } else {
                reply->http_status = RPC_HTTP_OK;
                reply->body = finish_body(reply_obj(result, NULL, req.id, req.json_version));
            }
        }
        request_clear(&req);
    } else if (json_is_array(root)) {
        json_t *out = json_array();
        for (size_t i = 0; i < json_array_size(root); i++) {
            struct rpc_request req = {.auth_user = auth_user, .uri = uri};
            json_t *r;
            if (parse_request(&req, json_array_get(root, i)) != 0) {
                r = error_reply(&req);
            } else {
                json_t *result = execute(&req);
                r = result ? reply_obj(result, NULL, req.id, req.json_version) : error_reply(&req);
            }
            if (is_notification(&req)) {
                json_decref(r);
            } else {
                json_array_append_new(out, r);
            }
            request_clear(&req);
        }
        if (json_array_size(out) == 0 && json_array_size(root) > 0) {
            reply->http_status = RPC_HTTP_NO_CONTENT;
            json_decref(out);
        } else {
            reply->http_status = RPC_HTTP_OK;
            reply->body = finish_body(out);
        }
    } else {
        reply->http_status = RPC_HTTP_INTERNAL_SERVER_ERROR;
        reply->body = finish_body(reply_obj(
            NULL, error_obj(RPC_PARSE_ERROR, "Top-level object parse error"), NULL, RPC_JSON_V1));
    }
    json_decref(root);
}

void rpc_reply_clear(struct rpc_reply *reply)
{
    free(reply->body);
    reply->body = NULL;
}
