#include "rpc/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* An amount is a jansson string that starts with a NUL byte and this tag. Parsed input can
 * never produce it: rpc_json_parse() does not allow "\u0000" in strings. */
#define AMOUNT_TAG "\0AMT"
#define AMOUNT_TAG_LEN 4

json_t *rpc_json_amount(int64_t value_sat)
{
    char text[48];
    uint64_t mag = value_sat < 0 ? (uint64_t)(-(value_sat + 1)) + 1 : (uint64_t)value_sat;
    int n = snprintf(text, sizeof(text), "%s%" PRIu64 ".%08" PRIu64, value_sat < 0 ? "-" : "",
                     mag / (uint64_t)COIN, mag % (uint64_t)COIN);
    char tagged[64];
    memcpy(tagged, AMOUNT_TAG, AMOUNT_TAG_LEN);
    memcpy(tagged + AMOUNT_TAG_LEN, text, (size_t)n);
    return json_stringn(tagged, AMOUNT_TAG_LEN + (size_t)n);
}

bool rpc_json_is_amount(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > AMOUNT_TAG_LEN &&
           memcmp(json_string_value(v), AMOUNT_TAG, AMOUNT_TAG_LEN) == 0;
}

static void put_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

static void write_string(struct buf *out, const char *s, size_t len)
{
    buf_put_u8(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        switch (c) {
        case '"':
            put_str(out, "\\\"");
            break;
        case '\\':
            put_str(out, "\\\\");
            break;
        case '\b':
            put_str(out, "\\b");
            break;
        case '\f':
            put_str(out, "\\f");
            break;
        case '\n':
            put_str(out, "\\n");
            break;
        case '\r':
            put_str(out, "\\r");
            break;
        case '\t':
            put_str(out, "\\t");
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(esc, sizeof(esc), "\\u%04x", c);
                put_str(out, esc);
            } else {
                buf_put_u8(out, c);
            }
        }
    }
    buf_put_u8(out, '"');
}

static void newline_indent(struct buf *out, int indent, int level)
{
    buf_put_u8(out, '\n');
    buf_append_fill(out, ' ', (size_t)(indent * level));
}

static void write_value(struct buf *out, const json_t *v, int indent, int level)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_NULL:
        put_str(out, "null");
        break;
    case JSON_TRUE:
        put_str(out, "true");
        break;
    case JSON_FALSE:
        put_str(out, "false");
        break;
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        put_str(out, num);
        break;
    case JSON_REAL:
        snprintf(num, sizeof(num), "%.16g", json_real_value(v));
        put_str(out, num);
        break;
    case JSON_STRING:
        if (rpc_json_is_amount(v)) {
            buf_append(out, json_string_value(v) + AMOUNT_TAG_LEN,
                       json_string_length(v) - AMOUNT_TAG_LEN);
        } else {
            write_string(out, json_string_value(v), json_string_length(v));
        }
        break;
    case JSON_ARRAY: {
        buf_put_u8(out, '[');
        if (indent) {
            buf_put_u8(out, '\n');
        }
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++) {
            if (indent) {
                buf_append_fill(out, ' ', (size_t)(indent * (level + 1)));
            }
            write_value(out, json_array_get(v, i), indent, level + 1);
            if (i + 1 < n) {
                buf_put_u8(out, ',');
            }
            if (indent) {
                buf_put_u8(out, '\n');
            }
        }
        if (indent) {
            buf_append_fill(out, ' ', (size_t)(indent * level));
        }
        buf_put_u8(out, ']');
        break;
    }
    case JSON_OBJECT: {
        buf_put_u8(out, '{');
        size_t i = 0, n = json_object_size(v);
        const char *key;
        json_t *val;
        /* json_object_foreach keeps insertion order (jansson >= 2.8). */
        json_object_foreach((json_t *)v, key, val)
        {
            if (indent) {
                newline_indent(out, indent, level + 1);
            }
            write_string(out, key, strlen(key));
            put_str(out, indent ? ": " : ":");
            write_value(out, val, indent, level + 1);
            if (++i < n) {
                buf_put_u8(out, ',');
            }
        }
        if (indent) {
            newline_indent(out, indent, level);
        }
        buf_put_u8(out, '}');
        break;
    }
    }
}

void rpc_json_write(struct buf *out, const json_t *v, int indent)
{
    write_value(out, v, indent, 0);
}

char *rpc_json_dumps(const json_t *v, int indent)
{
    struct buf b;
    buf_init(&b);
    rpc_json_write(&b, v, indent);
    buf_put_u8(&b, 0);
    return (char *)b.data;
}

json_t *rpc_json_parse(const char *text, size_t len)
{
    json_error_t jerr;
    return json_loadb(text, len, JSON_DECODE_ANY, &jerr);
}

/* The objects being walked by rpc_json_parse_exact, to tell keys and their repeats. */
struct frame {
    int object, want_key;
    size_t *keys; /* pairs: offset, length of each key's text (quotes included) */
    size_t n_keys;
};

/* How many keys of f have the text t[0..n). */
static size_t repeats(const struct frame *f, const char *text, const char *t, size_t n)
{
    size_t r = 0;
    for (size_t k = 0; k < f->n_keys; k++) {
        r += f->keys[2 * k + 1] == n && memcmp(text + f->keys[2 * k], t, n) == 0;
    }
    return r;
}

/* Copies the string text[i..j) (quotes included) to out; a key repeated in its object gets
 * RPC_JSON_DUP_MARK and its repeat count appended, so that jansson keeps it beside the first
 * (which json_object_get finds, as UniValue's find_value). */
static void copy_string(struct buf *out, struct frame *f, const char *text, size_t i, size_t j)
{
    if (!f || !f->object || !f->want_key) {
        buf_append(out, text + i, j - i);
        return;
    }
    size_t r = repeats(f, text, text + i, j - i);
    f->keys = xrealloc(f->keys, (f->n_keys + 1) * 2 * sizeof(size_t));
    f->keys[2 * f->n_keys] = i;
    f->keys[2 * f->n_keys + 1] = j - i;
    f->n_keys++;
    f->want_key = 0;
    if (r == 0 || j - i < 2) {
        buf_append(out, text + i, j - i);
        return;
    }
    char tail[32];
    buf_append(out, text + i, j - i - 1);
    snprintf(tail, sizeof(tail), "\\u%04x%zu\"", RPC_JSON_DUP_MARK, r);
    put_str(out, tail);
}

json_t *rpc_json_parse_exact(const char *text, size_t len)
{
    struct buf out;
    json_error_t jerr;
    size_t i = 0, depth = 0, cap = 0;
    struct frame *st = NULL;
    buf_init(&out);
    while (i < len) {
        char c = text[i];
        struct frame *top = depth ? &st[depth - 1] : NULL;
        if (c == '"') {
            /* Copy a string as it is, escapes included. One that starts with the amount tag
             * would pass for a number: refused. */
            if (len - i > 7 && memcmp(text + i + 1, "\\u0000", 6) == 0) {
                len = 0; /* the open objects' keys are freed below (not depth = 0: a leak) */
                break;
            }
            size_t j = i + 1;
            while (j < len && text[j] != '"') {
                j += (text[j] == '\\') ? 2 : 1;
            }
            j = j < len ? j + 1 : len;
            copy_string(&out, top, text, i, j);
            i = j;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i;
            int real = 0;
            while (j < len && text[j] != 0 && (strchr("+-0123456789.eE", text[j]) != NULL)) {
                real |= text[j] == '.' || text[j] == 'e' || text[j] == 'E';
                j++;
            }
            /* Integers too long for 64 bits are kept as text too (a number, but no integer
             * the RPC could read: Core answers "JSON integer out of range" for them). */
            if (real || j - i > 18) {
                put_str(&out, "\"\\u0000AMT");
                buf_append(&out, text + i, j - i);
                buf_put_u8(&out, '"');
            } else {
                buf_append(&out, text + i, j - i);
            }
            i = j;
        } else {
            if (c == '{' || c == '[') {
                if (depth == cap) {
                    cap = cap ? cap * 2 : 16;
                    st = xrealloc(st, cap * sizeof(*st));
                }
                st[depth++] = (struct frame){.object = c == '{', .want_key = c == '{'};
            } else if ((c == '}' || c == ']') && depth) {
                free(st[--depth].keys);
            } else if (c == ',' && top && top->object) {
                top->want_key = 1;
            }
            buf_put_u8(&out, (uint8_t)c);
            i++;
        }
    }
    while (depth) {
        free(st[--depth].keys);
    }
    free(st);
    json_t *v = len ? json_loadb((const char *)out.data, out.len,
                                 JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr)
                    : NULL;
    buf_clear(&out);
    return v;
}

size_t rpc_json_key_len(const char *key)
{
    const char *m = strchr(key, RPC_JSON_DUP_MARK);
    return m ? (size_t)(m - key) : strlen(key);
}

static int parse_decimal_btc(const char *s, int64_t *sat)
{
    /* Core's ParseFixedPoint with 8 decimals: exponents ("1e-08") included. */
    return amount_parse_fixed_point(sat, s, 8);
}

int rpc_json_amount_parse(const json_t *v, int64_t *value_sat, const char **err)
{
    int64_t sat;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < -(MAX_MONEY / COIN) - 1 || i > MAX_MONEY / COIN) {
            *err = "Amount out of range";
            return RC_INVALID;
        }
        sat = (int64_t)i * COIN;
    } else if (json_is_real(v)) {
        double d = json_real_value(v) * (double)COIN;
        if (!isfinite(d) || fabs(d) > 1e17) {
            *err = "Invalid amount";
            return RC_INVALID;
        }
        double r = round(d);
        if (fabs(d - r) > 1e-3) {
            *err = "Invalid amount";
            return RC_INVALID;
        }
        sat = (int64_t)r;
    } else if (json_is_string(v)) {
        const char *text = json_string_value(v);
        if (rpc_json_is_amount(v)) {
            text += AMOUNT_TAG_LEN; /* a number kept as its text */
        }
        if (parse_decimal_btc(text, &sat) != RC_OK) {
            *err = "Invalid amount";
            return RC_INVALID;
        }
    } else {
        *err = "Amount is not a number or string";
        return RC_INVALID;
    }
    if (sat < 0 || sat > MAX_MONEY) {
        *err = "Amount out of range";
        return RC_INVALID;
    }
    *value_sat = sat;
    return RC_OK;
}

bool rpc_json_is_number(const json_t *v)
{
    return json_is_number(v) || rpc_json_is_amount(v);
}

int rpc_json_real(const json_t *v, double *out)
{
    if (json_is_integer(v)) {
        *out = (double)json_integer_value(v);
        return RC_OK;
    }
    if (json_is_real(v)) {
        *out = json_real_value(v);
        return RC_OK;
    }
    if (!rpc_json_is_amount(v)) {
        return RC_INVALID;
    }
    /* A number kept as its text: JSON's grammar, so strtod reads all of it (Core's
     * ParseDouble), and a value past a double's range is refused as Core refuses it. */
    const char *text = json_string_value(v) + AMOUNT_TAG_LEN;
    char *end;
    double d = strtod(text, &end);
    if (*end != 0 || end == text || !isfinite(d)) {
        return RC_TOO_LARGE;
    }
    *out = d;
    return RC_OK;
}

const char *rpc_json_kind_name(int type)
{
    switch (type) {
    case JSON_NULL:
        return "null";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_STRING:
        return "string";
    case JSON_ARRAY:
        return "array";
    case JSON_OBJECT:
        return "object";
    }
    return "unknown";
}

const char *rpc_json_type_name(const json_t *v)
{
    return rpc_json_is_amount(v) ? "number" : rpc_json_kind_name(json_typeof(v));
}
