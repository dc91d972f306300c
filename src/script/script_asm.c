/* Script text forms. See script_asm.h. */
#include "script/script_asm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "util/hex.h"
#include "util/rc.h"

int script_asm_opcode(const char *name, size_t n, uint8_t *op)
{
    if (n > 3 && memcmp(name, "OP_", 3) == 0) {
        name += 3;
        n -= 3;
    }
    for (unsigned o = 0; o <= MAX_OPCODE; o++) {
        if (o < OP_NOP && o != OP_RESERVED) {
            continue;
        }
        const char *s = script_op_name((uint8_t)o);
        if (strcmp(s, "OP_UNKNOWN") == 0) {
            continue;
        }
        if (strncmp(s, "OP_", 3) == 0) {
            s += 3;
        }
        if (strlen(s) == n && memcmp(s, name, n) == 0) {
            *op = (uint8_t)o;
            return 1;
        }
    }
    return 0;
}

static int all_digits(const char *p, size_t n)
{
    if (n == 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return 0;
        }
    }
    return 1;
}

static int fail(char *err, size_t err_len, const char *what, const char *w, size_t n)
{
    if (err_len) {
        snprintf(err, err_len, "script parse error: %s: '%.*s'", what, (int)(n > 64 ? 64 : n), w);
    }
    return RC_INVALID;
}

int script_asm_parse(struct buf *out, const char *text, char *err, size_t err_len)
{
    const char *p = text;
    if (err_len) {
        err[0] = 0;
    }
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n') {
            p++;
        }
        if (!*p) {
            break;
        }
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            p++;
        }
        size_t n = (size_t)(p - w);
        if (all_digits(w, n) || (w[0] == '-' && n > 1 && all_digits(w + 1, n - 1))) {
            if (n > 12) {
                return fail(err, err_len, "number out of range", w, n);
            }
            char tmp[16];
            memcpy(tmp, w, n);
            tmp[n] = 0;
            long long v = strtoll(tmp, NULL, 10);
            if (v > 0xffffffffLL || v < -0xffffffffLL) {
                return fail(err, err_len, "number out of range", w, n);
            }
            script_push_int(out, v);
        } else if (n > 2 && w[0] == '0' && w[1] == 'x') {
            char *hex = malloc(n - 1);
            if (!hex) {
                abort();
            }
            memcpy(hex, w + 2, n - 2);
            hex[n - 2] = 0;
            int rc = hex_decode(out, hex);
            free(hex);
            if (rc != 0) {
                return fail(err, err_len, "bad hex", w, n);
            }
        } else if (n >= 2 && w[0] == '\'' && w[n - 1] == '\'') {
            script_push_data(out, (const uint8_t *)w + 1, n - 2);
        } else {
            uint8_t op;
            if (!script_asm_opcode(w, n, &op)) {
                return fail(err, err_len, "unknown opcode", w, n);
            }
            buf_put_u8(out, op);
        }
    }
    return RC_OK;
}

void script_asm_format(struct buf *out, const uint8_t *script, size_t len)
{
    size_t pc = 0;
    int first = 1;
    char num[32];
    while (pc < len) {
        uint8_t op;
        const uint8_t *data;
        size_t dlen;
        if (!first) {
            buf_put_u8(out, ' ');
        }
        first = 0;
        if (!script_get_op(script, len, &pc, &op, &data, &dlen)) {
            buf_append(out, "[error]", 7);
            break;
        }
        if (op <= OP_PUSHDATA4) {
            if (dlen <= 4) {
                int64_t v = 0;
                scriptnum_decode(&v, data, dlen, 0, 4);
                int n = snprintf(num, sizeof(num), "%lld", (long long)v);
                buf_append(out, num, (size_t)n);
            } else {
                for (size_t i = 0; i < dlen; i++) {
                    snprintf(num, sizeof(num), "%02x", data[i]);
                    buf_append(out, num, 2);
                }
            }
        } else {
            const char *s = script_op_name(op);
            buf_append(out, s, strlen(s));
        }
    }
    buf_put_u8(out, 0);
    out->len--;
}
