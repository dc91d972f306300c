/* Help text from the declarations, laid out as Bitcoin Core's RPCMethod::ToString lays it out
 * (rpc/util.cpp there: the one-line signature, aligned "Arguments:" and "Result:" sections),
 * and the check of a result against its declared shape (Core's RPCResult::MatchesType). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- growable strings ---------------------------------------------------------------- */

struct str {
    char *s;
    size_t len, cap;
};

static void str_addn(struct str *t, const char *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = xrealloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = 0;
}

static void str_add(struct str *t, const char *p)
{
    str_addn(t, p, strlen(p));
}

static void str_addf(struct str *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void str_addf(struct str *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *tmp = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    str_addn(t, tmp, (size_t)n);
    free(tmp);
}

static void str_spaces(struct str *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        str_addn(t, " ", 1);
    }
}

/* Returns the finished string (caller frees), "" when nothing was added. */
static char *str_take(struct str *t)
{
    if (!t->s) {
        return xstrdup("");
    }
    return t->s;
}

/* ---- sections: left parts padded to one column, right parts beside them --------------- */

struct section {
    char *left, *right;
};

struct sections {
    struct section *v;
    size_t n, cap;
    size_t max_left;
};

static void sections_push(struct sections *ss, char *left, char *right)
{
    if (ss->n == ss->cap) {
        ss->cap = ss->cap ? 2 * ss->cap : 16;
        ss->v = xrealloc(ss->v, ss->cap * sizeof(*ss->v));
    }
    ss->v[ss->n++] = (struct section){left, right};
    size_t l = strlen(left);
    if (l > ss->max_left) {
        ss->max_left = l;
    }
}

/* Pushes a section made of a printf-formatted left part and right (owned: ownership passes;
 * NULL for none). */
static void sections_pushf(struct sections *ss, char *right, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sections_pushf(struct sections *ss, char *right, const char *fmt, ...)
{
    struct str l = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *tmp = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    str_addn(&l, tmp, (size_t)n);
    free(tmp);
    sections_push(ss, str_take(&l), right ? right : xstrdup(""));
}

/* Drops the last character of the last left part (the comma after a last member). */
static void sections_drop_last_comma(struct sections *ss)
{
    CHECK_ALWAYS(ss->n > 0);
    char *l = ss->v[ss->n - 1].left;
    size_t len = strlen(l);
    if (len > 0) {
        l[len - 1] = 0;
    }
}

/* Core's Sections::ToString: every left part padded to the longest plus 4; a right part's
 * later lines start at that column too (their own leading spaces dropped). */
static void sections_write(struct str *out, const struct sections *ss)
{
    size_t pad = ss->max_left + 4;
    for (size_t i = 0; i < ss->n; i++) {
        const char *left = ss->v[i].left, *right = ss->v[i].right;
        CHECK_ALWAYS(strchr(left, '\n') == NULL);
        str_add(out, left);
        if (!*right) {
            str_add(out, "\n");
            continue;
        }
        str_spaces(out, pad > strlen(left) ? pad - strlen(left) : 0);
        const char *begin = right;
        const char *nl = strchr(begin, '\n');
        for (;;) {
            str_addn(out, begin, nl ? (size_t)(nl - begin) : strlen(begin));
            if (!nl) {
                break;
            }
            str_add(out, "\n");
            str_spaces(out, pad);
            begin = nl + 1;
            while (*begin == ' ') {
                begin++;
            }
            if (!*begin) {
                break;
            }
            nl = strchr(begin + 1, '\n');
        }
        str_add(out, "\n");
    }
}

static void sections_clear(struct sections *ss)
{
    for (size_t i = 0; i < ss->n; i++) {
        free(ss->v[i].left);
        free(ss->v[i].right);
    }
    free(ss->v);
    memset(ss, 0, sizeof(*ss));
}

/* ---- arguments ----------------------------------------------------------------------- */

/* The first of an argument's names ("verbosity" of "verbosity|verbose"), copied into buf. */
static const char *first_name(const struct rpc_arg *a, char *buf, size_t len)
{
    const char *bar = strchr(a->names, '|');
    size_t n = bar ? (size_t)(bar - a->names) : strlen(a->names);
    if (n >= len) {
        n = len - 1;
    }
    memcpy(buf, a->names, n);
    buf[n] = 0;
    return buf;
}

static bool arg_optional(const struct rpc_arg *a)
{
    return a->fallback != RPC_ARG_REQUIRED;
}

static void arg_oneline(struct str *out, const struct rpc_arg *a, bool oneline);

/* An array argument's elements as the signature shows them: "[elem,...]". */
static void put_array_items(struct str *out, const struct rpc_arg *a, bool oneline)
{
    str_add(out, "[");
    for (size_t i = 0; i < a->n_inner; i++) {
        arg_oneline(out, &a->inner[i], oneline);
        str_add(out, ",");
    }
    str_add(out, "...]");
}

/* Core's RPCArg::ToStringObj: "\"name\": type" for a member of an object. */
static void arg_obj_member(struct str *out, const struct rpc_arg *a, bool oneline)
{
    char name[64];
    str_addf(out, "\"%s\"%s", first_name(a, name, sizeof(name)), oneline ? ":" : ": ");
    switch (a->type) {
    case RPC_ARG_STR:
        str_add(out, "\"str\"");
        break;
    case RPC_ARG_STR_HEX:
        str_add(out, "\"hex\"");
        break;
    case RPC_ARG_NUM:
        str_add(out, "n");
        break;
    case RPC_ARG_RANGE:
        str_add(out, "n or [n,n]");
        break;
    case RPC_ARG_AMOUNT:
        str_add(out, "amount");
        break;
    case RPC_ARG_BOOL:
        str_add(out, "bool");
        break;
    case RPC_ARG_ARR:
        put_array_items(out, a, oneline);
        break;
    case RPC_ARG_OBJ:
    case RPC_ARG_OBJ_NAMED_PARAMS:
    case RPC_ARG_OBJ_USER_KEYS:
        CHECK_ALWAYS(!"an object inside an object argument is not declared anywhere");
    }
}

/* Core's RPCArg::ToString: the argument as the signature line shows it. */
static void arg_oneline(struct str *out, const struct rpc_arg *a, bool oneline)
{
    char name[64];
    if (oneline && a->oneline) {
        str_add(out, a->oneline);
        return;
    }
    switch (a->type) {
    case RPC_ARG_STR:
    case RPC_ARG_STR_HEX:
        str_addf(out, "\"%s\"", first_name(a, name, sizeof(name)));
        return;
    case RPC_ARG_NUM:
    case RPC_ARG_RANGE:
    case RPC_ARG_AMOUNT:
    case RPC_ARG_BOOL:
        str_add(out, first_name(a, name, sizeof(name)));
        return;
    case RPC_ARG_OBJ:
    case RPC_ARG_OBJ_NAMED_PARAMS:
    case RPC_ARG_OBJ_USER_KEYS:
        str_add(out, "{");
        for (size_t i = 0; i < a->n_inner; i++) {
            if (i > 0) {
                str_add(out, ",");
            }
            arg_obj_member(out, &a->inner[i], oneline);
        }
        str_add(out, a->type == RPC_ARG_OBJ ? "}" : ",...}");
        return;
    case RPC_ARG_ARR:
        put_array_items(out, a, oneline);
        return;
    }
}

static const char *arg_type_words(const struct rpc_arg *a)
{
    if (a->type_str[1]) {
        return a->type_str[1];
    }
    switch (a->type) {
    case RPC_ARG_STR:
    case RPC_ARG_STR_HEX:
        return "string";
    case RPC_ARG_NUM:
        return "numeric";
    case RPC_ARG_AMOUNT:
        return "numeric or string";
    case RPC_ARG_RANGE:
        return "numeric or array";
    case RPC_ARG_BOOL:
        return "boolean";
    case RPC_ARG_OBJ:
    case RPC_ARG_OBJ_NAMED_PARAMS:
    case RPC_ARG_OBJ_USER_KEYS:
        return "json object";
    case RPC_ARG_ARR:
        return "json array";
    }
    return "";
}

/* Core's RPCArg::ToDescriptionString: "(type, optional, default=...) description". */
static char *arg_description(const struct rpc_arg *a, bool is_named)
{
    struct str d = {0};
    str_addf(&d, "(%s", arg_type_words(a));
    switch (a->fallback) {
    case RPC_ARG_DEFAULT:
    case RPC_ARG_DEFAULT_HINT:
        str_addf(&d, ", optional, default=%s", a->default_value);
        break;
    case RPC_ARG_OMITTED:
        if (is_named) {
            str_add(&d, ", optional");
        }
        break;
    case RPC_ARG_REQUIRED:
        str_add(&d, ", required");
        break;
    }
    str_add(&d, ")");
    if (a->type == RPC_ARG_OBJ_NAMED_PARAMS) {
        str_add(&d, " Options object that can be used to pass named arguments, listed below.");
    }
    if (a->description && *a->description) {
        str_addf(&d, " %s", a->description);
    }
    return str_take(&d);
}

enum outer { OUTER_NONE, OUTER_ARR, OUTER_OBJ };

/* Core's Sections::Push: the members of object and array arguments, indented. */
static void sections_push_arg(struct sections *ss, const struct rpc_arg *a, size_t indent,
                              enum outer outer)
{
    bool push_name = outer == OUTER_OBJ;
    bool top = outer == OUTER_NONE;
    char name[64];
    first_name(a, name, sizeof(name));
    switch (a->type) {
    case RPC_ARG_STR_HEX:
    case RPC_ARG_STR:
    case RPC_ARG_NUM:
    case RPC_ARG_AMOUNT:
    case RPC_ARG_RANGE:
    case RPC_ARG_BOOL:
    case RPC_ARG_OBJ_NAMED_PARAMS: {
        if (top) {
            return;
        }
        struct str l = {0};
        str_spaces(&l, indent);
        if (a->type_str[0] && push_name) {
            str_addf(&l, "\"%s\": %s", name, a->type_str[0]);
        } else if (push_name) {
            arg_obj_member(&l, a, false);
        } else {
            arg_oneline(&l, a, false);
        }
        str_add(&l, ",");
        sections_push(ss, str_take(&l), arg_description(a, push_name));
        return;
    }
    case RPC_ARG_OBJ:
    case RPC_ARG_OBJ_USER_KEYS: {
        char *right = top ? xstrdup("") : arg_description(a, push_name);
        struct str l = {0};
        str_spaces(&l, indent);
        if (push_name) {
            str_addf(&l, "\"%s\": ", name);
        }
        str_add(&l, "{");
        sections_push(ss, str_take(&l), right);
        for (size_t i = 0; i < a->n_inner; i++) {
            sections_push_arg(ss, &a->inner[i], indent + 2, OUTER_OBJ);
        }
        if (a->type != RPC_ARG_OBJ) {
            sections_pushf(ss, NULL, "%*s...", (int)(indent + 2), "");
        }
        sections_pushf(ss, NULL, "%*s}%s", (int)indent, "", top ? "" : ",");
        return;
    }
    case RPC_ARG_ARR: {
        char *right = top ? xstrdup("") : arg_description(a, push_name);
        struct str l = {0};
        str_spaces(&l, indent);
        if (push_name) {
            str_addf(&l, "\"%s\": ", name);
        }
        str_add(&l, "[");
        sections_push(ss, str_take(&l), right);
        for (size_t i = 0; i < a->n_inner; i++) {
            sections_push_arg(ss, &a->inner[i], indent + 2, OUTER_ARR);
        }
        sections_pushf(ss, NULL, "%*s...", (int)(indent + 2), "");
        sections_pushf(ss, NULL, "%*s]%s", (int)indent, "", top ? "" : ",");
        return;
    }
    }
}

/* ---- results ------------------------------------------------------------------------- */

static char *result_description(const struct rpc_result *r, const char *type)
{
    struct str d = {0};
    str_addf(&d, "(%s%s)", type, r->optional ? ", optional" : "");
    if (r->description && *r->description) {
        str_addf(&d, " %s", r->description);
    }
    return str_take(&d);
}

/* Core's RPCResult::ToSections. */
static void sections_push_result(struct sections *ss, const struct rpc_result *r, enum outer outer,
                                 int indent)
{
    const char *sep = outer != OUTER_NONE ? "," : "";
    struct str key = {0};
    if (outer == OUTER_OBJ) {
        str_addf(&key, "\"%s\" : ", r->key ? r->key : "");
    }
    const char *k = key.s ? key.s : "";
    const char *word = NULL, *type = NULL;
    if (r->elision == RPC_ELIDE_TEXT) {
        sections_pushf(ss, xstrdup(r->elision_text ? r->elision_text : ""), "%*s...%s", indent,
                       "", sep);
        goto out;
    }
    if (r->elision == RPC_ELIDE_SKIP) {
        goto out;
    }
    switch (r->type) {
    case RPC_RES_ANY:
        word = "xxx", type = "any";
        break;
    case RPC_RES_NONE:
        /* null has no key. */
        sections_pushf(ss, result_description(r, "json null"), "%*snull%s", indent, "", sep);
        goto out;
    case RPC_RES_STR:
        word = "\"str\"", type = "string";
        break;
    case RPC_RES_STR_AMOUNT:
    case RPC_RES_NUM:
        word = "n", type = "numeric";
        break;
    case RPC_RES_STR_HEX:
        word = "\"hex\"", type = "string";
        break;
    case RPC_RES_NUM_TIME:
        word = "xxx", type = "numeric";
        break;
    case RPC_RES_BOOL:
        word = "true|false", type = "boolean";
        break;
    case RPC_RES_ARR_FIXED:
    case RPC_RES_ARR: {
        sections_pushf(ss, result_description(r, "json array"), "%*s%s[", indent, "", k);
        CHECK_ALWAYS(r->n_inner > 0);
        for (size_t i = 0; i < r->n_inner; i++) {
            sections_push_result(ss, &r->inner[i], OUTER_ARR, indent + 2);
        }
        if (r->type == RPC_RES_ARR && r->inner[r->n_inner - 1].elision != RPC_ELIDE_TEXT) {
            sections_pushf(ss, NULL, "%*s...", indent + 2, "");
        } else {
            sections_drop_last_comma(ss);
        }
        sections_pushf(ss, NULL, "%*s]%s", indent, "", sep);
        goto out;
    }
    case RPC_RES_OBJ_DYN:
    case RPC_RES_OBJ: {
        if (r->n_inner == 0) {
            sections_pushf(ss, result_description(r, "empty JSON object"), "%*s%s{}", indent, "",
                           k);
            goto out;
        }
        sections_pushf(ss, result_description(r, "json object"), "%*s%s{", indent, "", k);
        for (size_t i = 0; i < r->n_inner; i++) {
            sections_push_result(ss, &r->inner[i], OUTER_OBJ, indent + 2);
        }
        if (r->type == RPC_RES_OBJ_DYN) {
            sections_pushf(ss, NULL, "%*s...", indent + 2, "");
        } else {
            sections_drop_last_comma(ss);
        }
        sections_pushf(ss, NULL, "%*s}%s", indent, "", sep);
        goto out;
    }
    }
    sections_pushf(ss, result_description(r, type), "%*s%s%s%s", indent, "", k, word, sep);
out:
    free(key.s);
}

/* ---- the whole help text ------------------------------------------------------------- */

static void put_signature(struct str *out, const struct rpc_method *m)
{
    str_add(out, m->name);
    bool was_optional = false;
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        if (a->hidden) {
            break;
        }
        str_add(out, " ");
        if (arg_optional(a)) {
            if (!was_optional) {
                str_add(out, "( ");
            }
            was_optional = true;
        } else {
            if (was_optional) {
                str_add(out, ") ");
            }
            was_optional = false;
        }
        arg_oneline(out, a, true);
    }
    if (was_optional) {
        str_add(out, " )");
    }
}

/* Appends s without leading and trailing white space (Core's TrimString). */
static void put_trimmed(struct str *out, const char *s)
{
    const char *ws = " \f\n\r\t\v";
    while (*s && strchr(ws, *s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n > 0 && strchr(ws, s[n - 1])) {
        n--;
    }
    str_addn(out, s, n);
}

char *rpc_method_help(const struct rpc_method *m)
{
    struct str out = {0};
    char name[64];
    put_signature(&out, m);
    str_add(&out, "\n\n");
    put_trimmed(&out, m->description ? m->description : "");
    str_add(&out, "\n");

    struct sections args = {0}, named_only = {0};
    for (size_t i = 0; i < m->n_args; i++) {
        const struct rpc_arg *a = &m->args[i];
        if (a->hidden) {
            break;
        }
        sections_pushf(&args, arg_description(a, true), "%zu. %s", i + 1,
                       first_name(a, name, sizeof(name)));
        sections_push_arg(&args, a, 5, OUTER_NONE);
        if (a->type == RPC_ARG_OBJ_NAMED_PARAMS) {
            for (size_t k = 0; k < a->n_inner; k++) {
                const struct rpc_arg *in = &a->inner[k];
                sections_push(&named_only, xstrdup(first_name(in, name, sizeof(name))),
                              arg_description(in, true));
                sections_push_arg(&named_only, in, 5, OUTER_NONE);
            }
        }
    }
    if (args.n > 0) {
        str_add(&out, "\nArguments:\n");
    }
    sections_write(&out, &args);
    if (named_only.n > 0) {
        str_add(&out, "\nNamed Arguments:\n");
    }
    sections_write(&out, &named_only);
    sections_clear(&args);
    sections_clear(&named_only);

    for (size_t i = 0; i < m->n_results; i++) {
        const struct rpc_result *r = &m->results[i];
        struct sections rs = {0};
        sections_push_result(&rs, r, OUTER_NONE, 0);
        if (rs.n > 0) {
            if (r->cond && *r->cond) {
                str_addf(&out, "\nResult (%s):\n", r->cond);
            } else {
                str_add(&out, "\nResult:\n");
            }
            sections_write(&out, &rs);
        }
        sections_clear(&rs);
    }
    if (m->examples && *m->examples) {
        str_add(&out, "\nExamples:\n");
        str_add(&out, m->examples);
    }
    return str_take(&out);
}

static int cmp_method(const void *pa, const void *pb)
{
    const struct rpc_method *a = *(const struct rpc_method *const *)pa;
    const struct rpc_method *b = *(const struct rpc_method *const *)pb;
    /* Core sorts on category + name as one string. */
    size_t la = strlen(a->category), lb = strlen(b->category);
    char *ka = xmalloc(la + strlen(a->name) + 1), *kb = xmalloc(lb + strlen(b->name) + 1);
    strcpy(ka, a->category);
    strcpy(ka + la, a->name);
    strcpy(kb, b->category);
    strcpy(kb + lb, b->name);
    int c = strcmp(ka, kb);
    free(ka);
    free(kb);
    return c;
}

char *rpc_help_overview(const struct rpc_context *ctx)
{
    const struct rpc_method **sorted = xmalloc((ctx->n_methods + 1) * sizeof(*sorted));
    if (ctx->n_methods > 0) {
        memcpy(sorted, ctx->methods, ctx->n_methods * sizeof(*sorted));
    }
    qsort(sorted, ctx->n_methods, sizeof(*sorted), cmp_method);
    struct str out = {0};
    const char *cat = NULL;
    for (size_t i = 0; i < ctx->n_methods; i++) {
        const struct rpc_method *m = sorted[i];
        /* Core leaves out the category "hidden". */
        if ((m->flags & RPC_METHOD_HIDDEN) || strcmp(m->category, "hidden") == 0) {
            continue;
        }
        if (!cat || strcmp(cat, m->category) != 0) {
            /* Core's Capitalize: the first letter upper case. */
            char first = m->category[0];
            str_addf(&out, "%s== %c%s ==\n", cat ? "\n" : "",
                     first >= 'a' && first <= 'z' ? first - 'a' + 'A' : first, m->category + 1);
            cat = m->category;
        }
        put_signature(&out, m);
        str_add(&out, "\n");
    }
    free(sorted);
    /* Core's overview has no trailing newline. */
    if (out.len > 0 && out.s[out.len - 1] == '\n') {
        out.s[--out.len] = 0;
    }
    return str_take(&out);
}

/* ---- the result check ---------------------------------------------------------------- */

/* The JSON type a result type must have, or NULL for any. */
static const char *result_json_type(enum rpc_result_type t)
{
    switch (t) {
    case RPC_RES_ANY:
        return NULL;
    case RPC_RES_NONE:
        return "null";
    case RPC_RES_STR:
    case RPC_RES_STR_HEX:
        return "string";
    case RPC_RES_NUM:
    case RPC_RES_STR_AMOUNT:
    case RPC_RES_NUM_TIME:
        return "number";
    case RPC_RES_BOOL:
        return "bool";
    case RPC_RES_ARR:
    case RPC_RES_ARR_FIXED:
        return "array";
    case RPC_RES_OBJ:
    case RPC_RES_OBJ_DYN:
        return "object";
    }
    return NULL;
}

static const char *value_type(const json_t *v)
{
    return rpc_json_is_amount(v) ? "number" : rpc_json_type_name(v);
}

/* Appends "path: what" lines to why for each mismatch under r; returns the count. */
static int result_match(const struct rpc_result *r, const json_t *v, const char *path,
                        struct str *why)
{
    if (r->skip_type_check) {
        return 0;
    }
    const char *want = result_json_type(r->type);
    if (!want) {
        return 0;
    }
    const char *got = value_type(v);
    if (strcmp(want, got) != 0) {
        str_addf(why, "%s: returned type is %s, but declared as %s in doc\n", path, got, want);
        return 1;
    }
    int bad = 0;
    char sub[512];
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            const struct rpc_result *in = &r->inner[i < r->n_inner ? i : r->n_inner - 1];
            snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
            bad += result_match(in, e, sub, why);
        }
        return bad;
    }
    if (json_is_object(v) && r->type == RPC_RES_OBJ_DYN) {
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e)
        {
            snprintf(sub, sizeof(sub), "%s.%s", path, k);
            bad += result_match(&r->inner[0], e, sub, why);
        }
        return bad;
    }
    if (json_is_object(v)) {
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e)
        {
            bool documented = false;
            for (size_t i = 0; i < r->n_inner && !documented; i++) {
                documented = r->inner[i].key && strcmp(r->inner[i].key, k) == 0;
            }
            if (!documented) {
                str_addf(why, "%s.%s: key returned that was not in doc\n", path, k);
                bad++;
            }
        }
        for (size_t i = 0; i < r->n_inner; i++) {
            const struct rpc_result *in = &r->inner[i];
            if (in->elision == RPC_ELIDE_TEXT && !in->key) {
                continue;
            }
            json_t *member = json_object_get(v, in->key ? in->key : "");
            snprintf(sub, sizeof(sub), "%s.%s", path, in->key ? in->key : "");
            if (!member) {
                if (!in->optional) {
                    str_addf(why, "%s: key missing, despite not being optional in doc\n", sub);
                    bad++;
                }
                continue;
            }
            bad += result_match(in, member, sub, why);
        }
    }
    return bad;
}

int rpc_result_check(const struct rpc_method *m, const json_t *v, char *why, size_t why_len)
{
    struct str all = {0};
    for (size_t i = 0; i < m->n_results; i++) {
        struct str one = {0};
        int bad = result_match(&m->results[i], v, "result", &one);
        if (bad == 0) {
            free(one.s);
            free(all.s);
            if (why_len > 0) {
                why[0] = 0;
            }
            return RC_OK;
        }
        if (m->results[i].cond) {
            str_addf(&all, "(%s)\n", m->results[i].cond);
        }
        str_add(&all, one.s);
        free(one.s);
    }
    if (m->n_results == 0) {
        str_add(&all, "no possible results defined\n");
    }
    snprintf(why, why_len, "%s", all.s ? all.s : "");
    free(all.s);
    return RC_INVALID;
}
