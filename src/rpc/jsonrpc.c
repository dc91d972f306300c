#include "rpc/jsonrpc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* ---- the context and the method table ------------------------------------------------ */

struct active_cmd {
    const char *method; /* borrowed from the running request */
    int64_t start_us;
    struct active_cmd *next;
};

struct rpc_context *rpc_context_new(struct node_context *node)
{
    struct rpc_context *ctx = xcalloc(1, sizeof(*ctx));
    pthread_mutex_init(&ctx->warmup_mu, NULL);
    pthread_mutex_init(&ctx->active_mu, NULL);
    ctx->node = node;
    ctx->warmup_active = true;
    snprintf(ctx->warmup_status, sizeof(ctx->warmup_status), "%s", "Starting up...");
    ctx->start_time_s = time_now_s();
    return ctx;
}

void rpc_context_free(struct rpc_context *ctx)
{
    if (!ctx) {
        return;
    }
    CHECK_ALWAYS(ctx->active_head == NULL);
    pthread_mutex_destroy(&ctx->warmup_mu);
    pthread_mutex_destroy(&ctx->active_mu);
    free(ctx->methods);
    free(ctx);
}

/* Whether a declared default's JSON type may stand for the argument's type (Core's
 * RPCMethod constructor check). */
static bool default_fits(const struct rpc_arg *a, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return a->type == RPC_ARG_OBJ;
    case JSON_ARRAY:
        return a->type == RPC_ARG_ARR;
    case JSON_STRING:
        return a->type == RPC_ARG_STR || a->type == RPC_ARG_STR_HEX || a->type == RPC_ARG_AMOUNT;
    case JSON_INTEGER:
    case JSON_REAL:
        return a->type == RPC_ARG_NUM || a->type == RPC_ARG_AMOUNT || a->type == RPC_ARG_RANGE;
    case JSON_TRUE:
    case JSON_FALSE:
        return a->type == RPC_ARG_BOOL;
    case JSON_NULL:
        return true;
    }
    return false;
}

/* Copies the name at p in an argument's '|'-separated names into name; returns where the
 * next one starts, or NULL after the last. */
static const char *next_name(const char *p, char name[64])
{
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    CHECK_ALWAYS(len < 64);
    memcpy(name, p, len);
    name[len] = 0;
    return bar ? bar + 1 : NULL;
}

/* True if name is one of the '|'-separated names of a. */
static bool arg_has_name(const struct rpc_arg *a, const char *name)
{
    char n[64];
    for (const char *p = a->names; p;) {
        p = next_name(p, n);
        if (strcmp(n, name) == 0) {
            return true;
        }
    }
    return false;
}

/* A declaration that contradicts itself is a bug: found at start-up, not by a caller. */
static void check_declaration(const struct rpc_method *m)
{
    CHECK_ALWAYS(m->n_args <= RPC_MAX_ARGS);
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        CHECK_ALWAYS(a->names && *a->names);
        CHECK_ALWAYS(!a->type_str[0] == !a->type_str[1]);
        CHECK_ALWAYS(a->conv != RPC_CONV_HASH || a->conv_name);
        if (a->fallback == RPC_ARG_DEFAULT || a->fallback == RPC_ARG_DEFAULT_HINT) {
            CHECK_ALWAYS(a->default_value);
        }
        if (a->fallback == RPC_ARG_DEFAULT) {
            json_t *v = rpc_json_parse(a->default_value, strlen(a->default_value));
            CHECK_ALWAYS(v && default_fits(a, v));
            json_decref(v);
        }
        for (size_t k = 0; k < i; k++) {
            char name[64];
            for (const char *p = a->names; p;) {
                p = next_name(p, name);
                CHECK_ALWAYS(!arg_has_name(&m->args[k], name));
            }
        }
    }
}

void rpc_register(struct rpc_context *ctx, const struct rpc_method *methods, size_t n)
{
    ctx->methods = xrealloc(ctx->methods, (ctx->n_methods + n) * sizeof(*ctx->methods));
    for (size_t i = 0; i < n; i++) {
        CHECK_ALWAYS(rpc_find(ctx, methods[i].name) == NULL);
        check_declaration(&methods[i]);
        ctx->methods[ctx->n_methods++] = &methods[i];
    }
}

const struct rpc_method *rpc_find(const struct rpc_context *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->n_methods; i++) {
        if (strcmp(ctx->methods[i]->name, name) == 0) {
            return ctx->methods[i];
        }
    }
    return NULL;
}

void rpc_foreach(const struct rpc_context *ctx, void (*fn)(void *arg, const struct rpc_method *m),
                 void *arg)
{
    for (size_t i = 0; i < ctx->n_methods; i++) {
        fn(arg, ctx->methods[i]);
    }
}

void rpc_set_doccheck(struct rpc_context *ctx, bool on)
{
    ctx->doccheck = on;
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

int64_t rpc_arg_int(const struct rpc_request *req, size_t i)
{
    CHECK_ALWAYS(i < RPC_MAX_ARGS);
    return req->argv[i].i;
}

int64_t rpc_arg_int_or(const struct rpc_request *req, size_t i, int64_t dflt)
{
    CHECK_ALWAYS(i < RPC_MAX_ARGS);
    return req->argv[i].given ? req->argv[i].i : dflt;
}

const uint8_t *rpc_arg_hash(const struct rpc_request *req, size_t i)
{
    CHECK_ALWAYS(i < RPC_MAX_ARGS);
    return req->argv[i].given ? req->argv[i].hash32 : NULL;
}

/* ---- warm-up ------------------------------------------------------------------------- */

void rpc_warmup_set(struct rpc_context *ctx, const char *status)
{
    pthread_mutex_lock(&ctx->warmup_mu);
    snprintf(ctx->warmup_status, sizeof(ctx->warmup_status), "%s", status);
    ctx->warmup_active = true;
    pthread_mutex_unlock(&ctx->warmup_mu);
}

void rpc_warmup_finished(struct rpc_context *ctx)
{
    pthread_mutex_lock(&ctx->warmup_mu);
    ctx->warmup_active = false;
    pthread_mutex_unlock(&ctx->warmup_mu);
}

bool rpc_warmup_get(struct rpc_context *ctx, char *status, size_t status_len)
{
    pthread_mutex_lock(&ctx->warmup_mu);
    bool active = ctx->warmup_active;
    if (status && status_len > 0) {
        snprintf(status, status_len, "%s", ctx->warmup_status);
    }
    pthread_mutex_unlock(&ctx->warmup_mu);
    return active;
}

/* ---- active commands (getrpcinfo) ---------------------------------------------------- */

static void active_add(struct rpc_context *ctx, struct active_cmd *c)
{
    pthread_mutex_lock(&ctx->active_mu);
    c->next = ctx->active_head;
    ctx->active_head = c;
    pthread_mutex_unlock(&ctx->active_mu);
}

static void active_remove(struct rpc_context *ctx, struct active_cmd *c)
{
    pthread_mutex_lock(&ctx->active_mu);
    for (struct active_cmd **p = &ctx->active_head; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&ctx->active_mu);
}

json_t *rpc_active_commands(struct rpc_context *ctx)
{
    json_t *arr = json_array();
    int64_t now = time_mono_us();
    pthread_mutex_lock(&ctx->active_mu);
    for (struct active_cmd *c = ctx->active_head; c; c = c->next) {
        json_array_append_new(arr, json_pack("{s:s,s:I}", "method", c->method, "duration",
                                             (json_int_t)(now - c->start_us)));
    }
    pthread_mutex_unlock(&ctx->active_mu);
    return arr;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static void request_clear(struct rpc_request *req)
{
    json_decref(req->params);
    free(req->err_msg);
    memset(req, 0, sizeof(*req));
}

/* Core's SanitizeString (SAFE_CHARS_DEFAULT) of s into out (out_len > 0). */
static void sanitize(char *out, size_t out_len, const char *s)
{
    static const char safe[] = " .,;-_/:?@()";
    size_t n = 0;
    for (; *s && n + 1 < out_len; s++) {
        char c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr(safe, c))) {
            out[n++] = c;
        }
    }
    out[n] = 0;
}

/* Core's "ThreadRPCServer method=M user=U id=I" debug line, logged as a request is parsed
 * (for an unknown method too); the id as UniValue's getValStr: a string's text, a number's,
 * a boolean as 1 or 0, else empty. */
static void log_request(const struct rpc_request *req)
{
    if (!log_enabled(LOG_CAT_RPC, LOG_LVL_DEBUG)) {
        return;
    }
    char method[256], id[256] = "";
    sanitize(method, sizeof(method), req->method);
    const json_t *v = req->id;
    if (json_is_string(v)) {
        sanitize(id, sizeof(id), json_string_value(v));
    } else if (json_is_integer(v)) {
        snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(id, sizeof(id), "%.17g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        snprintf(id, sizeof(id), "%d", json_is_true(v) ? 1 : 0);
    }
    LOG(LOG_CAT_RPC, LOG_LVL_DEBUG, "ThreadRPCServer method=%s user=%s id=%s", method,
        req->auth_user ? req->auth_user : "", id);
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
    req->id_absent = req->id == NULL;
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
    log_request(req);
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

/* Finds the value named by one of a's names in obj; returns it and its key, or NULL. */
static json_t *named_value(json_t *obj, const struct rpc_arg *a, const char **key)
{
    char name[64];
    for (const char *p = a->names; p;) {
        p = next_name(p, name);
        void *it = json_object_iter_at(obj, name);
        if (it) {
            *key = json_object_iter_key(it);
            return json_object_iter_value(it);
        }
    }
    return NULL;
}

/* The members of an options argument (RPC_ARG_OBJ_NAMED_PARAMS) given as named parameters
 * of their own, taken out of left into a new object, in the argument's order; NULL if none
 * (or a is not such an argument). A parameter appears once in left (a JSON object), so no
 * member can come twice. */
static json_t *named_options(json_t *left, const struct rpc_arg *a)
{
    if (a->type != RPC_ARG_OBJ_NAMED_PARAMS) {
        return NULL;
    }
    json_t *opts = NULL;
    for (size_t k = 0; k < a->n_inner; k++) {
        const char *key = NULL;
        json_t *v = named_value(left, &a->inner[k], &key);
        if (v) {
            if (!opts) {
                opts = json_object();
            }
            json_object_set(opts, key, v);
            json_object_del(left, key);
        }
    }
    return opts;
}

/* Core's transformNamedArguments: maps an object of named parameters (any of each
 * argument's names, and an optional "args" array of leading positional ones) onto the
 * method's argument positions. */
static int transform_named(struct rpc_request *req, const struct rpc_method *m)
{
    const char *dup;
    json_t *dv;
    json_object_foreach(req->params, dup, dv)
    {
        /* A repeated key (rpc_json_parse_exact keeps it, marked), as Core's check. */
        if (rpc_json_key_len(dup) != strlen(dup)) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Parameter %.*s specified multiple times",
                      (int)rpc_json_key_len(dup), dup);
            return -1;
        }
    }
    json_t *left = json_copy(req->params);
    json_t *out = json_array();
    int hole = 0, initial_hole = 0;
    const char *initial_param = NULL;
    int rc = 0;
    for (size_t i = 0; i < m->n_args; i++) {
        const char *key = NULL;
        json_t *opts = named_options(left, &m->args[i]);
        json_t *v = named_value(left, &m->args[i], &key);
        if (v && opts) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Parameter %s conflicts with parameter %s", key,
                      json_object_iter_key(json_object_iter(opts)));
            json_decref(opts);
            rc = -1;
            goto out;
        }
        if (v || opts) {
            for (int k = 0; k < hole; k++) {
                json_array_append_new(out, json_null());
            }
            hole = 0;
            if (!initial_param) {
                initial_param = m->args[i].names;
            }
            if (v) {
                json_array_append(out, v);
                json_object_del(left, key);
            } else {
                json_array_append_new(out, opts);
            }
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

/* Core's ExpectedType(RPCArg::Type): the JSON type an argument must have, or NULL when the
 * handler checks it (amounts, ranges). */
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
    case RPC_ARG_OBJ_NAMED_PARAMS:
    case RPC_ARG_OBJ_USER_KEYS:
        return "object";
    case RPC_ARG_ARR:
        return "array";
    case RPC_ARG_AMOUNT:
    case RPC_ARG_RANGE:
        return NULL;
    }
    return NULL;
}

/* Core's RPCMethod::HandleRequest checks: the argument count (a wrong count answers the
 * help text), then every type (all mismatches in one -3 answer). */
static int check_args(struct rpc_request *req, const struct rpc_method *m)
{
    size_t n = json_array_size(req->params);
    size_t required = 0;
    for (size_t i = 0; i < m->n_args; i++) {
        if (m->args[i].fallback == RPC_ARG_REQUIRED) {
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
        const struct rpc_arg *a = &m->args[i];
        json_t *v = json_array_get(req->params, i);
        const char *exp = expected_type(a->type);
        bool omitted = !v || json_is_null(v);
        if (a->skip_type_check || !exp || (omitted && a->fallback != RPC_ARG_REQUIRED)) {
            continue;
        }
        const char *got = v ? rpc_json_type_name(v) : "null";
        if (strcmp(got, exp) != 0) {
            char key[128], val[160];
            snprintf(key, sizeof(key), "Position %zu (%s)", i + 1, a->names);
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

/* Core's UniValue::getInt<T>: a number whose text is a plain integer within [lo, hi]. */
int rpc_value_int(struct rpc_request *req, const json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!rpc_json_is_number(v)) {
        rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type number",
                  rpc_json_type_name(v));
        return -1;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        rpc_error(req, RPC_MISC_ERROR, "JSON integer out of range");
        return -1;
    }
    *out = json_integer_value(v);
    return 0;
}

/* Core's ParseHashV(v, name). */
int rpc_value_hash(struct rpc_request *req, const json_t *v, const char *name, uint8_t out32[32])
{
    if (!json_is_string(v)) {
        rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type string",
                  rpc_json_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 64 && strlen(s) == 64 && hex_decode_hash32_rev(out32, s) == RC_OK) {
        return 0;
    }
    if (len != 64) {
        rpc_error(req, RPC_INVALID_PARAMETER, "%s must be of length 64 (not %zu, for '%s')", name,
                  len, s);
    } else {
        rpc_error(req, RPC_INVALID_PARAMETER, "%s must be hexadecimal string (not '%s')", name, s);
    }
    return -1;
}

/* Fills in declared defaults and converts the arguments, in order, as Core's handlers read
 * them (so the first bad argument is the one reported). */
static int convert_args(struct rpc_request *req, const struct rpc_method *m)
{
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        struct rpc_value *out = &req->argv[i];
        json_t *v = json_array_get(req->params, i);
        if ((!v || json_is_null(v)) && a->fallback == RPC_ARG_DEFAULT) {
            while (json_array_size(req->params) <= i) {
                json_array_append_new(req->params, json_null());
            }
            v = rpc_json_parse(a->default_value, strlen(a->default_value));
            json_array_set_new(req->params, i, v);
        }
        if (!v || json_is_null(v)) {
            continue;
        }
        out->given = true;
        switch (a->conv) {
        case RPC_CONV_NONE:
            break;
        case RPC_CONV_INT:
            if (rpc_value_int(req, v, INT32_MIN, INT32_MAX, &out->i) != 0) {
                return -1;
            }
            break;
        case RPC_CONV_INT64:
            if (rpc_value_int(req, v, INT64_MIN, INT64_MAX, &out->i) != 0) {
                return -1;
            }
            break;
        case RPC_CONV_UINT32:
            if (rpc_value_int(req, v, 0, UINT32_MAX, &out->i) != 0) {
                return -1;
            }
            break;
        case RPC_CONV_VERBOSITY:
            if (json_is_boolean(v)) {
                out->i = json_is_true(v);
            } else if (rpc_value_int(req, v, INT32_MIN, INT32_MAX, &out->i) != 0) {
                return -1;
            }
            break;
        case RPC_CONV_HASH:
            if (rpc_value_hash(req, v, a->conv_name, out->hash32) != 0) {
                return -1;
            }
            break;
        }
    }
    return 0;
}

/* Core's CRPCTable::execute. Returns the result or NULL with the error recorded. */
static json_t *execute(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    const struct rpc_method *m = rpc_find(ctx, req->method);
    char status[256];
    if (rpc_warmup_get(ctx, status, sizeof(status)) &&
        !(m && (m->flags & RPC_METHOD_IN_WARMUP))) {
        return rpc_error(req, RPC_IN_WARMUP, "%s", status);
    }
    if (!m) {
        return rpc_error(req, RPC_METHOD_NOT_FOUND, "Method not found");
    }
    if (json_is_object(req->params) && transform_named(req, m) != 0) {
        return NULL;
    }
    if (check_args(req, m) != 0 || convert_args(req, m) != 0) {
        return NULL;
    }
    struct active_cmd cmd = {.method = m->name, .start_us = time_mono_us()};
    active_add(ctx, &cmd);
    json_t *result = m->handler(req);
    active_remove(ctx, &cmd);
    if (!result && !req->err_msg) {
        rpc_error(req, RPC_INTERNAL_ERROR, "Internal error: %s returned no result", m->name);
    }
    if (result && ctx->doccheck) {
        char why[2048];
        if (rpc_result_check(m, result, why, sizeof(why)) != RC_OK) {
            LOG_ERROR("RPC call \"%s\" returned incorrect type:\n%s", m->name, why);
            json_decref(result);
            return rpc_error(req, RPC_MISC_ERROR,
                             "Internal bug detected: RPC call \"%s\" returned incorrect type:\n%s",
                             m->name, why);
        }
    }
    return result;
}

json_t *rpc_call_method(struct rpc_context *ctx, const char *name, json_t *params,
                        int *err_code, char **err_msg)
{
    struct rpc_request req = {.ctx = ctx, .method = name, .json_version = RPC_JSON_V1, .uri = "/"};
    req.params = params ? params : json_array();
    const struct rpc_method *m = rpc_find(ctx, name);
    json_t *result = NULL;
    if (!m) {
        rpc_error(&req, RPC_METHOD_NOT_FOUND, "Method not found");
    } else if (check_args(&req, m) == 0 && convert_args(&req, m) == 0) {
        result = m->handler(&req);
        if (!result && !req.err_msg) {
            rpc_error(&req, RPC_INTERNAL_ERROR, "Internal error: %s returned no result", m->name);
        }
    }
    if (result && ctx->doccheck) {
        char why[2048];
        if (rpc_result_check(m, result, why, sizeof(why)) != RC_OK) {
            LOG_ERROR("RPC call \"%s\" returned incorrect type:\n%s", m->name, why);
            json_decref(result);
            result = rpc_error(&req, RPC_MISC_ERROR,
                               "Internal bug detected: RPC call \"%s\" returned incorrect type:\n%s",
                               m->name, why);
        }
    }
    *err_code = result ? 0 : req.err_code;
    *err_msg = result ? NULL : req.err_msg;
    if (!result) {
        req.err_msg = NULL;
    }
    request_clear(&req);
    return result;
}

/* Core's JSONRPCReplyObj. Steals result and error. An id of NULL is written as null, unless
 * id_absent: then the reply has no "id" (a 1.0 request without one). */
static json_t *reply_obj(json_t *result, json_t *error, json_t *id, bool id_absent, int version)
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
    if (!id_absent) {
        json_object_set(r, "id", id ? id : json_null());
    }
    return r;
}

static json_t *error_obj(int code, const char *msg)
{
    return json_pack("{s:i,s:s}", "code", code, "message", msg);
}

static json_t *error_reply(const struct rpc_request *req)
{
    return reply_obj(NULL, error_obj(req->err_code, req->err_msg), req->id, req->id_absent,
                     req->json_version);
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

void rpc_handle_body(struct rpc_context *ctx, const char *body, size_t len, const char *auth_user,
                     const char *uri, struct rpc_reply *reply)
{
    reply->body = NULL;
    /* Numbers keep their text: "1e3" is no integer, and echo answers what it was sent. */
    json_t *root = rpc_json_parse_exact(body, len);
    if (!root) {
        reply->http_status = RPC_HTTP_INTERNAL_SERVER_ERROR;
        reply->body = finish_body(
            reply_obj(NULL, error_obj(RPC_PARSE_ERROR, "Parse error"), NULL, false, RPC_JSON_V1));
        return;
    }
    if (json_is_object(root)) {
        struct rpc_request req = {.ctx = ctx, .auth_user = auth_user, .uri = uri};
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
                reply->body = finish_body(reply_obj(result, NULL, req.id, req.id_absent, req.json_version));
            }
        }
        request_clear(&req);
    } else if (json_is_array(root)) {
        json_t *out = json_array();
        for (size_t i = 0; i < json_array_size(root); i++) {
            struct rpc_request req = {.ctx = ctx, .auth_user = auth_user, .uri = uri};
            json_t *r;
            if (parse_request(&req, json_array_get(root, i)) != 0) {
                r = error_reply(&req);
            } else {
                json_t *result = execute(&req);
                r = result ? reply_obj(result, NULL, req.id, req.id_absent, req.json_version) : error_reply(&req);
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
            NULL, error_obj(RPC_PARSE_ERROR, "Top-level object parse error"), NULL, false, RPC_JSON_V1));
    }
    json_decref(root);
}

void rpc_reply_clear(struct rpc_reply *reply)
{
    free(reply->body);
    reply->body = NULL;
}

static int has_type(const json_t *v, int type)
{
    switch (type) {
    case JSON_TRUE:
    case JSON_FALSE:
        return json_is_boolean(v);
    case JSON_INTEGER:
    case JSON_REAL:
        return rpc_json_is_number(v);
    default:
        return json_typeof(v) == (json_type)type;
    }
}

int rpc_check_obj(struct rpc_request *req, const json_t *o, const struct rpc_obj_key *keys,
                  size_t n, int allow_null, int strict)
{
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_object_get(o, keys[i].name);
        int null = !v || json_is_null(v);
        if (null && !allow_null) {
            rpc_error(req, RPC_TYPE_ERROR, "Missing %s", keys[i].name);
            return -1;
        }
        if (!null && !has_type(v, keys[i].type)) {
            rpc_error(req, RPC_TYPE_ERROR,
                      "JSON value of type %s for field %s is not of expected type %s",
                      rpc_json_type_name(v), keys[i].name, rpc_json_kind_name(keys[i].type));
            return -1;
        }
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        size_t i = 0, kl = rpc_json_key_len(k);
        while (i < n && !(strlen(keys[i].name) == kl && memcmp(keys[i].name, k, kl) == 0)) {
            i++;
        }
        if (strict && i == n) {
            rpc_error(req, RPC_TYPE_ERROR, "Unexpected key %s", k);
            return -1;
        }
    }
    return 0;
}
