/* See openrpc.h. The schemas follow Core's OpenRPCArgSchema / OpenRPCResultSchema rule for
 * rule; the key order of every object is Core's, so the documents compare as text. */
#include "rpc/openrpc.h"

#include <stdlib.h>
#include <string.h>

#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "util/xmalloc.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#define CLIENT_NAME "bitnode"

static json_t *arg_schema(const struct rpc_arg *a, bool hidden, bool in_skip);
static json_t *result_schema(const struct rpc_result *r);

static json_t *type_obj(const char *t)
{
    return json_pack("{s:s}", "type", t);
}

static json_t *hex_obj(void)
{
    return json_pack("{s:s,s:s}", "type", "string", "pattern", "^[0-9a-fA-F]+$");
}

static json_t *one_of2(json_t *a, json_t *b)
{
    return json_pack("{s:[o,o]}", "oneOf", a, b);
}

/* Core's PushUniqueSchema: appends s (ownership passes) unless an equal one is there. */
static void push_unique(json_t *arr, json_t *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_equal(v, s)) {
            json_decref(s);
            return;
        }
    }
    json_array_append_new(arr, s);
}

/* Core's DedupArrayItemsSchema for arguments and for results. */
static json_t *items_of_args(const struct rpc_arg *inner, size_t n, bool hidden, bool in_skip)
{
    if (n == 0) {
        return json_object();
    }
    if (n == 1) {
        return arg_schema(&inner[0], hidden, in_skip);
    }
    json_t *one = json_array();
    for (size_t i = 0; i < n; i++) {
        push_unique(one, arg_schema(&inner[i], hidden, in_skip));
    }
    if (json_array_size(one) == 1) {
        json_t *r = json_incref(json_array_get(one, 0));
        json_decref(one);
        return r;
    }
    json_t *items = json_object();
    json_object_set_new(items, in_skip ? "anyOf" : "oneOf", one);
    return items;
}

static json_t *items_of_results(const struct rpc_result *inner, size_t n)
{
    if (n == 0) {
        return json_object();
    }
    if (n == 1) {
        return result_schema(&inner[0]);
    }
    json_t *one = json_array();
    for (size_t i = 0; i < n; i++) {
        push_unique(one, result_schema(&inner[i]));
    }
    if (json_array_size(one) == 1) {
        json_t *r = json_incref(json_array_get(one, 0));
        json_decref(one);
        return r;
    }
    return json_pack("{s:o}", "oneOf", one);
}

/* The first of a's names ("verbosity|verbose": "verbosity"). */
static char *first_name(const struct rpc_arg *a)
{
    const char *bar = strchr(a->names, '|');
    size_t n = bar ? (size_t)(bar - a->names) : strlen(a->names);
    char *s = xmalloc(n + 1);
    memcpy(s, a->names, n);
    s[n] = 0;
    return s;
}

static bool arg_optional(const struct rpc_arg *a)
{
    return a->fallback != RPC_ARG_REQUIRED;
}

/* Core's ApplyTypeStrOverride: *schema replaced or annotated. */
static void type_str_override(json_t **schema, const struct rpc_arg *a)
{
    const char *label = a->type_str[1];
    if (!a->type_str[0] || !label || !*label) {
        return;
    }
    if (strcmp(label, "integer / string") == 0 || strcmp(label, "string or numeric") == 0) {
        json_decref(*schema);
        *schema = one_of2(type_obj("integer"), type_obj("string"));
    } else {
        json_object_set_new(*schema, "x-bitcoin-type-override", json_string(label));
    }
}

/* Core's ApplyArgFallback. */
static void arg_fallback(json_t *schema, const struct rpc_arg *a)
{
    if (a->fallback == RPC_ARG_DEFAULT && a->default_value && a->type == RPC_ARG_AMOUNT) {
        /* Core's amount defaults are FormatMoney strings ("0.10"). */
        json_object_set_new(schema, "default", json_string(a->default_value));
    } else if (a->fallback == RPC_ARG_DEFAULT && a->default_value) {
        json_t *v = rpc_json_parse(a->default_value, strlen(a->default_value));
        json_object_set_new(schema, "default", v ? v : json_string(a->default_value));
    } else if (a->fallback == RPC_ARG_DEFAULT_HINT && a->default_value) {
        json_object_set_new(schema, "x-bitcoin-default-hint", json_string(a->default_value));
    }
}

/* A closed object's schema (Core's: no other properties) from its properties and the names
 * it requires (the "required" list left out when empty). Takes both references. */
static json_t *object_schema(json_t *props, json_t *required)
{
    json_t *s = json_pack("{s:s,s:o,s:b}", "type", "object", "properties", props,
                          "additionalProperties", 0);
    if (json_array_size(required)) {
        json_object_set_new(s, "required", required);
    } else {
        json_decref(required);
    }
    return s;
}

static json_t *object_args(const struct rpc_arg *a, bool hidden, bool in_skip)
{
    json_t *props = json_object(), *required = json_array();
    for (size_t i = 0; i < a->n_inner; i++) {
        const struct rpc_arg *in = &a->inner[i];
        if (!hidden && in->hidden) {
            continue;
        }
        json_t *p = arg_schema(in, hidden, in_skip);
        if (in->description && *in->description) {
            json_object_set_new(p, "description", json_string(in->description));
        }
        if (in->placeholder) {
            json_object_set_new(p, "x-bitcoin-placeholder", json_true());
        }
        char *name = first_name(in);
        json_object_set_new(props, name, p);
        if (!arg_optional(in)) {
            json_array_append_new(required, json_string(name));
        }
        free(name);
    }
    return object_schema(props, required);
}

static json_t *arg_type_schema(const struct rpc_arg *a, bool hidden, bool in_skip)
{
    switch (a->type) {
    case RPC_ARG_STR:
        return type_obj("string");
    case RPC_ARG_STR_HEX:
        return hex_obj();
    case RPC_ARG_NUM:
        return type_obj("number");
    case RPC_ARG_BOOL:
        return type_obj("boolean");
    case RPC_ARG_AMOUNT:
        return one_of2(type_obj("number"), type_obj("string"));
    case RPC_ARG_RANGE:
        return one_of2(type_obj("number"),
                       json_pack("{s:s,s:[o,o],s:b,s:i,s:i}", "type", "array", "items",
                                 type_obj("number"), type_obj("number"), "additionalItems", 0,
                                 "minItems", 2, "maxItems", 2));
    case RPC_ARG_ARR:
        return json_pack("{s:s,s:o}", "type", "array", "items",
                         items_of_args(a->inner, a->n_inner, hidden, in_skip));
    case RPC_ARG_OBJ:
    case RPC_ARG_OBJ_NAMED_PARAMS:
        return object_args(a, hidden, in_skip);
    case RPC_ARG_OBJ_USER_KEYS: {
        json_t *s = type_obj("object");
        if (a->n_inner) {
            json_object_set_new(s, "additionalProperties", arg_schema(&a->inner[0], hidden, in_skip));
            if (a->inner[0].description && *a->inner[0].description) {
                json_object_set_new(s, "description", json_string(a->inner[0].description));
            }
        } else {
            json_object_set_new(s, "additionalProperties", json_true());
        }
        return s;
    }
    }
    return json_object();
}

/* Core's OpenRPCArgSchema. */
static json_t *arg_schema(const struct rpc_arg *a, bool hidden, bool in_skip)
{
    json_t *s;
    if (a->skip_type_check) {
        s = json_object();
        type_str_override(&s, a);
        if (json_object_size(s) == 0 && a->type == RPC_ARG_ARR) {
            json_t *items = json_pack("{s:s,s:o}", "type", "array", "items",
                                      items_of_args(a->inner, a->n_inner, hidden, true));
            json_object_set_new(s, "oneOf", json_pack("[o,o]", items, type_obj("object")));
        }
        arg_fallback(s, a);
        return s;
    }
    s = arg_type_schema(a, hidden, in_skip);
    type_str_override(&s, a);
    arg_fallback(s, a);
    return s;
}

static json_t *object_results(const struct rpc_result *r)
{
    json_t *props = json_object(), *required = json_array();
    for (size_t i = 0; i < r->n_inner; i++) {
        const struct rpc_result *in = &r->inner[i];
        if (!in->key || !*in->key) {
            continue;
        }
        json_t *p = result_schema(in);
        if (in->description && *in->description) {
            json_object_set_new(p, "description", json_string(in->description));
        }
        json_object_set_new(props, in->key, p);
        if (!in->optional) {
            json_array_append_new(required, json_string(in->key));
        }
    }
    return object_schema(props, required);
}

static json_t *result_type_schema(const struct rpc_result *r)
{
    switch (r->type) {
    case RPC_RES_STR:
        return type_obj("string");
    case RPC_RES_STR_AMOUNT:
        return json_pack("{s:s,s:s}", "type", "number", "x-bitcoin-unit", "amount");
    case RPC_RES_STR_HEX:
        return hex_obj();
    case RPC_RES_NUM:
        return type_obj("number");
    case RPC_RES_NUM_TIME:
        return json_pack("{s:s,s:s}", "type", "number", "x-bitcoin-unit", "unix-time");
    case RPC_RES_BOOL:
        return type_obj("boolean");
    case RPC_RES_NONE:
        return type_obj("null");
    case RPC_RES_ARR:
        return json_pack("{s:s,s:o}", "type", "array", "items",
                         items_of_results(r->inner, r->n_inner));
    case RPC_RES_ARR_FIXED: {
        json_t *items = json_array();
        for (size_t i = 0; i < r->n_inner; i++) {
            json_array_append_new(items, result_schema(&r->inner[i]));
        }
        return json_pack("{s:s,s:o,s:b,s:I,s:I}", "type", "array", "items", items,
                         "additionalItems", 0, "minItems", (json_int_t)r->n_inner, "maxItems",
                         (json_int_t)r->n_inner);
    }
    case RPC_RES_OBJ:
        return object_results(r);
    case RPC_RES_OBJ_DYN:
        return json_pack("{s:s,s:o}", "type", "object", "additionalProperties",
                         r->n_inner ? result_schema(&r->inner[0]) : json_object());
    case RPC_RES_ANY:
        return json_object();
    }
    return json_object();
}

/* Core's OpenRPCResultSchema. */
static json_t *result_schema(const struct rpc_result *r)
{
    if (r->skip_type_check) {
        if (r->type == RPC_RES_OBJ) {
            json_t *o = object_results(r);
            if (!r->key || !*r->key) {
                return o;
            }
            return one_of2(o, json_pack("{s:b}", "const", 0));
        }
        if (r->type == RPC_RES_ARR) {
            return result_type_schema(r);
        }
        return json_object();
    }
    return result_type_schema(r);
}

/* Core's util::TrimString (" \f\n\r\t\v" at both ends). */
static json_t *trimmed(const char *s)
{
    const char *ws = " \f\n\r\t\v";
    while (*s && strchr(ws, *s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n > 0 && strchr(ws, s[n - 1])) {
        n--;
    }
    return json_stringn(s, n);
}

static json_t *method_params(const struct rpc_method *m, bool hidden)
{
    json_t *params = json_array();
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        if (!hidden && a->hidden) {
            continue;
        }
        char *name = first_name(a);
        json_t *p = json_pack("{s:s,s:b,s:o}", "name", name, "required", !arg_optional(a),
                              "schema", arg_schema(a, hidden, false));
        free(name);
        const char *bar = strchr(a->names, '|');
        if (bar) {
            json_t *aliases = json_array();
            while (bar) {
                const char *next = strchr(bar + 1, '|');
                size_t n = next ? (size_t)(next - bar - 1) : strlen(bar + 1);
                json_array_append_new(aliases, json_stringn(bar + 1, n));
                bar = next;
            }
            json_object_set_new(p, "x-bitcoin-aliases", aliases);
        }
        if (a->placeholder) {
            json_object_set_new(p, "x-bitcoin-placeholder", json_true());
        }
        if (a->description && *a->description) {
            json_object_set_new(p, "description", json_string(a->description));
        }
        json_array_append_new(params, p);
    }
    return params;
}

static json_t *method_result(const struct rpc_method *m)
{
    if (m->n_results == 1 && m->results[0].type != RPC_RES_ANY) {
        return result_schema(&m->results[0]);
    }
    json_t *one = json_array();
    for (size_t i = 0; m->n_results > 1 && i < m->n_results; i++) {
        const struct rpc_result *r = &m->results[i];
        if (r->type == RPC_RES_ANY) {
            continue;
        }
        json_t *s = result_schema(r);
        if (r->cond && *r->cond) {
            json_object_set_new(s, "description", json_string(r->cond));
        }
        json_array_append_new(one, s);
    }
    json_t *out;
    if (json_array_size(one) == 1) {
        out = json_incref(json_array_get(one, 0));
    } else if (json_array_size(one) > 1) {
        out = json_pack("{s:O}", "oneOf", one);
    } else {
        out = json_object();
    }
    json_decref(one);
    return out;
}

struct method_list {
    const struct rpc_method **v;
    size_t n, cap;
    bool hidden;
};

static void collect(void *arg, const struct rpc_method *m)
{
    struct method_list *l = arg;
    bool is_hidden = (m->flags & RPC_METHOD_HIDDEN) || strcmp(m->category, "hidden") == 0;
    if (is_hidden && !l->hidden) {
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    l->v[l->n++] = m;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp((*(const struct rpc_method *const *)a)->name,
                  (*(const struct rpc_method *const *)b)->name);
}

json_t *rpc_openrpc_doc(const struct rpc_context *ctx, bool include_hidden)
{
    struct method_list l = {.hidden = include_hidden};
    rpc_foreach(ctx, collect, &l);
    qsort(l.v, l.n, sizeof(*l.v), cmp_name);
    json_t *methods = json_array();
    for (size_t i = 0; i < l.n; i++) {
        const struct rpc_method *m = l.v[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(m->name));
        json_object_set_new(o, "description", trimmed(m->description ? m->description : ""));
        json_object_set_new(o, "params", method_params(m, include_hidden));
        json_object_set_new(o, "result", json_pack("{s:s,s:o}", "name", "result", "schema",
                                                   method_result(m)));
        json_object_set_new(o, "x-bitcoin-category", json_string(m->category));
        json_array_append_new(methods, o);
    }
    free(l.v);
    return json_pack("{s:s,s:{s:s,s:s,s:s},s:o}", "openrpc", "1.4.1", "info", "title",
                     CLIENT_NAME " JSON-RPC", "version", "v" PACKAGE_VERSION "-dev",
                     "description", "Autogenerated from " CLIENT_NAME " RPC metadata.", "methods",
                     methods);
}

static json_t *rpc_getopenrpcinfo(struct rpc_request *req)
{
    return rpc_openrpc_doc(req->ctx, json_is_true(rpc_param(req, 0)));
}

static json_t *rpc_discover(struct rpc_request *req)
{
    return rpc_openrpc_doc(req->ctx, false);
}

#define STR_RES(k, d) {.type = RPC_RES_STR, .key = k, .description = d}

static const struct rpc_result param_fields[] = {
    STR_RES("name", "Parameter name."),
    {.type = RPC_RES_BOOL, .key = "required", .description = "Whether the parameter is required."},
    {.type = RPC_RES_ANY, .key = "schema", .description = "JSON Schema for the parameter."},
    {.type = RPC_RES_STR, .key = "description", .optional = true,
     .description = "Parameter description."},
    {.type = RPC_RES_ARR, .key = "x-bitcoin-aliases", .optional = true,
     .description = "Alternative parameter names.",
     .inner = RPC_LIST(struct rpc_result, STR_RES("", "An alias."))},
    {.type = RPC_RES_BOOL, .key = "x-bitcoin-placeholder", .optional = true,
     .description = "Whether the parameter is retained only for compatibility."},
    {.type = RPC_RES_BOOL, .key = "x-bitcoin-also-positional", .optional = true,
     .description = "Whether the parameter can also be passed positionally."},
};

static const struct rpc_result method_fields[] = {
    STR_RES("name", "Method name."),
    STR_RES("description", "Method description."),
    {.type = RPC_RES_ARR, .key = "params", .description = "Method parameters.",
     .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ, .description = "A parameter.",
                                           .inner = param_fields,
                                           .n_inner = sizeof(param_fields) /
                                                      sizeof(param_fields[0])})},
    {.type = RPC_RES_OBJ, .key = "result", .description = "Method result.",
     .inner = RPC_LIST(struct rpc_result, STR_RES("name", "Result name."),
                       {.type = RPC_RES_ANY, .key = "schema",
                        .description = "JSON Schema for the result."})},
    STR_RES("x-bitcoin-category", "RPC category."),
};

/* Core's OpenRPCDocResult. */
static const struct rpc_result doc_result[] = {
    {.type = RPC_RES_OBJ,
     .skip_type_check = true,
     .inner = RPC_LIST(
         struct rpc_result, STR_RES("openrpc", "OpenRPC specification version."),
         {.type = RPC_RES_OBJ, .key = "info",
          .description = "Metadata about this JSON-RPC interface.",
          .inner = RPC_LIST(struct rpc_result, STR_RES("title", "API title."),
                            STR_RES("version", CLIENT_NAME " version string."),
                            STR_RES("description", "API description."))},
         {.type = RPC_RES_ARR, .key = "methods", .description = "Documented RPC methods.",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ,
                             .description = "An RPC method description object.",
                             .inner = method_fields,
                             .n_inner = sizeof(method_fields) / sizeof(method_fields[0])})})},
};

static const struct rpc_method methods[] = {
    {.category = "control",
     .name = "getopenrpcinfo",
     .handler = rpc_getopenrpcinfo,
     .description = "Returns an OpenRPC document for currently available RPC commands.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "show_hidden",
                                       .type = RPC_ARG_BOOL,
                                       .fallback = RPC_ARG_DEFAULT,
                                       .default_value = "false",
                                       .description = "Also include hidden RPC commands and "
                                                      "arguments."}),
     .results = doc_result,
     .n_results = 1,
     .examples = RPC_EXAMPLES("getopenrpcinfo", "", "")},
    {.category = "control",
     .name = "rpc.discover",
     .handler = rpc_discover,
     .description = "Returns an OpenRPC schema as a description of this service.\n",
     .results = doc_result,
     .n_results = 1,
     .examples = RPC_EXAMPLES("rpc.discover", "", "")},
};

void rpc_openrpc_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
