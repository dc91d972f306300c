/* Script decoding, CScriptNum and templates (Core's script/script.cpp). */
#include "script/script.h"

#include <string.h>

int script_get_op(const uint8_t *script, size_t len, size_t *pc, uint8_t *opcode,
                  const uint8_t **data, size_t *data_len)
{
    size_t p = *pc;
    *opcode = OP_INVALIDOPCODE;
    if (data) {
        *data = NULL;
    }
    if (data_len) {
        *data_len = 0;
    }
    if (p >= len) {
        return 0;
    }
    uint8_t op = script[p++];
    if (op <= OP_PUSHDATA4) {
        size_t n = 0;
        if (op < OP_PUSHDATA1) {
            n = op;
        } else if (op == OP_PUSHDATA1) {
            if (len - p < 1) {
                *pc = p;
                return 0;
            }
            n = script[p];
            p += 1;
        } else if (op == OP_PUSHDATA2) {
            if (len - p < 2) {
                *pc = p;
                return 0;
            }
            n = rd_u16le(script + p);
            p += 2;
        } else {
            if (len - p < 4) {
                *pc = p;
                return 0;
            }
            n = rd_u32le(script + p);
            p += 4;
        }
        if (len - p < n) {
            /* Core leaves the iterator past the length bytes on a truncated push. */
            *pc = p;
            return 0;
        }
        if (data) {
            *data = script + p;
        }
        if (data_len) {
            *data_len = n;
        }
        p += n;
    }
    *opcode = op;
    *pc = p;
    return 1;
}

const char *script_op_name(uint8_t opcode)
{
    static const char *const small[] = {"1", "2",  "3",  "4",  "5",  "6",  "7",  "8",
                                        "9", "10", "11", "12", "13", "14", "15", "16"};
    static const char *const names[] = {
        [OP_NOP] = "OP_NOP",
        [OP_VER] = "OP_VER",
        [OP_IF] = "OP_IF",
        [OP_NOTIF] = "OP_NOTIF",
        [OP_VERIF] = "OP_VERIF",
        [OP_VERNOTIF] = "OP_VERNOTIF",
        [OP_ELSE] = "OP_ELSE",
        [OP_ENDIF] = "OP_ENDIF",
        [OP_VERIFY] = "OP_VERIFY",
        [OP_RETURN] = "OP_RETURN",
        [OP_TOALTSTACK] = "OP_TOALTSTACK",
        [OP_FROMALTSTACK] = "OP_FROMALTSTACK",
        [OP_2DROP] = "OP_2DROP",
        [OP_2DUP] = "OP_2DUP",
        [OP_3DUP] = "OP_3DUP",
        [OP_2OVER] = "OP_2OVER",
        [OP_2ROT] = "OP_2ROT",
        [OP_2SWAP] = "OP_2SWAP",
        [OP_IFDUP] = "OP_IFDUP",
        [OP_DEPTH] = "OP_DEPTH",
        [OP_DROP] = "OP_DROP",
        [OP_DUP] = "OP_DUP",
        [OP_NIP] = "OP_NIP",
        [OP_OVER] = "OP_OVER",
        [OP_PICK] = "OP_PICK",
        [OP_ROLL] = "OP_ROLL",
        [OP_ROT] = "OP_ROT",
        [OP_SWAP] = "OP_SWAP",
        [OP_TUCK] = "OP_TUCK",
        [OP_CAT] = "OP_CAT",
        [OP_SUBSTR] = "OP_SUBSTR",
        [OP_LEFT] = "OP_LEFT",
        [OP_RIGHT] = "OP_RIGHT",
        [OP_SIZE] = "OP_SIZE",
        [OP_INVERT] = "OP_INVERT",
        [OP_AND] = "OP_AND",
        [OP_OR] = "OP_OR",
        [OP_XOR] = "OP_XOR",
        [OP_EQUAL] = "OP_EQUAL",
        [OP_EQUALVERIFY] = "OP_EQUALVERIFY",
        [OP_RESERVED1] = "OP_RESERVED1",
        [OP_RESERVED2] = "OP_RESERVED2",
        [OP_1ADD] = "OP_1ADD",
        [OP_1SUB] = "OP_1SUB",
        [OP_2MUL] = "OP_2MUL",
        [OP_2DIV] = "OP_2DIV",
        [OP_NEGATE] = "OP_NEGATE",
        [OP_ABS] = "OP_ABS",
        [OP_NOT] = "OP_NOT",
        [OP_0NOTEQUAL] = "OP_0NOTEQUAL",
        [OP_ADD] = "OP_ADD",
        [OP_SUB] = "OP_SUB",
        [OP_MUL] = "OP_MUL",
        [OP_DIV] = "OP_DIV",
        [OP_MOD] = "OP_MOD",
        [OP_LSHIFT] = "OP_LSHIFT",
        [OP_RSHIFT] = "OP_RSHIFT",
        [OP_BOOLAND] = "OP_BOOLAND",
        [OP_BOOLOR] = "OP_BOOLOR",
        [OP_NUMEQUAL] = "OP_NUMEQUAL",
        [OP_NUMEQUALVERIFY] = "OP_NUMEQUALVERIFY",
        [OP_NUMNOTEQUAL] = "OP_NUMNOTEQUAL",
        [OP_LESSTHAN] = "OP_LESSTHAN",
        [OP_GREATERTHAN] = "OP_GREATERTHAN",
        [OP_LESSTHANOREQUAL] = "OP_LESSTHANOREQUAL",
        [OP_GREATERTHANOREQUAL] = "OP_GREATERTHANOREQUAL",
        [OP_MIN] = "OP_MIN",
        [OP_MAX] = "OP_MAX",
        [OP_WITHIN] = "OP_WITHIN",
        [OP_RIPEMD160] = "OP_RIPEMD160",
        [OP_SHA1] = "OP_SHA1",
        [OP_SHA256] = "OP_SHA256",
        [OP_HASH160] = "OP_HASH160",
        [OP_HASH256] = "OP_HASH256",
        [OP_CODESEPARATOR] = "OP_CODESEPARATOR",
        [OP_CHECKSIG] = "OP_CHECKSIG",
        [OP_CHECKSIGVERIFY] = "OP_CHECKSIGVERIFY",
        [OP_CHECKMULTISIG] = "OP_CHECKMULTISIG",
        [OP_CHECKMULTISIGVERIFY] = "OP_CHECKMULTISIGVERIFY",
        [OP_NOP1] = "OP_NOP1",
        [OP_CHECKLOCKTIMEVERIFY] = "OP_CHECKLOCKTIMEVERIFY",
        [OP_CHECKSEQUENCEVERIFY] = "OP_CHECKSEQUENCEVERIFY",
        [OP_NOP4] = "OP_NOP4",
        [OP_NOP5] = "OP_NOP5",
        [OP_NOP6] = "OP_NOP6",
        [OP_NOP7] = "OP_NOP7",
        [OP_NOP8] = "OP_NOP8",
        [OP_NOP9] = "OP_NOP9",
        [OP_NOP10] = "OP_NOP10",
        [OP_CHECKSIGADD] = "OP_CHECKSIGADD",
    };
    switch (opcode) {
    case OP_0:
        return "0";
    case OP_PUSHDATA1:
        return "OP_PUSHDATA1";
    case OP_PUSHDATA2:
        return "OP_PUSHDATA2";
    case OP_PUSHDATA4:
        return "OP_PUSHDATA4";
    case OP_1NEGATE:
        return "-1";
    case OP_RESERVED:
        return "OP_RESERVED";
    case OP_INVALIDOPCODE:
        return "OP_INVALIDOPCODE";
    default:
        break;
    }
    if (opcode >= OP_1 && opcode <= OP_16) {
        return small[opcode - OP_1];
    }
    if (opcode < sizeof(names) / sizeof(names[0]) && names[opcode]) {
        return names[opcode];
    }
    return "OP_UNKNOWN";
}

int script_is_push_only(const uint8_t *script, size_t len)
{
    size_t pc = 0;
    while (pc < len) {
        uint8_t op;
        if (!script_get_op(script, len, &pc, &op, NULL, NULL)) {
            return 0;
        }
        /* OP_RESERVED counts as a push here, as in Core: it is <= OP_16 and fails only
         * when executed. */
        if (op > OP_16) {
            return 0;
        }
    }
    return 1;
}

int script_is_p2sh(const uint8_t *script, size_t len)
{
    return len == 23 && script[0] == OP_HASH160 && script[1] == 0x14 && script[22] == OP_EQUAL;
}

int script_is_witness_program(const uint8_t *script, size_t len, int *version,
                              const uint8_t **program, size_t *program_len)
{
    if (len < 4 || len > 42) {
        return 0;
    }
    if (script[0] != OP_0 && (script[0] < OP_1 || script[0] > OP_16)) {
        return 0;
    }
    if ((size_t)script[1] + 2 == len) {
        *version = script_decode_op_n(script[0]);
        *program = script + 2;
        *program_len = len - 2;
        return 1;
    }
    return 0;
}

int script_is_p2a(int version, const uint8_t *program, size_t program_len)
{
    return version == 1 && program_len == 2 && program[0] == 0x4e && program[1] == 0x73;
}

int script_is_unspendable(const uint8_t *script, size_t len)
{
    return (len > 0 && script[0] == OP_RETURN) || len > MAX_SCRIPT_SIZE;
}

int script_has_valid_ops(const uint8_t *script, size_t len)
{
    size_t pc = 0;
    while (pc < len) {
        uint8_t op;
        size_t dl;
        if (!script_get_op(script, len, &pc, &op, NULL, &dl) || op > MAX_OPCODE ||
            dl > MAX_SCRIPT_ELEMENT_SIZE) {
            return 0;
        }
    }
    return 1;
}

int script_check_minimal_push(const uint8_t *data, size_t len, uint8_t opcode)
{
    if (len == 0) {
        return opcode == OP_0;
    } else if (len == 1 && data[0] >= 1 && data[0] <= 16) {
        return 0;
    } else if (len == 1 && data[0] == 0x81) {
        return 0;
    } else if (len <= 75) {
        return opcode == len;
    } else if (len <= 255) {
        return opcode == OP_PUSHDATA1;
    } else if (len <= 65535) {
        return opcode == OP_PUSHDATA2;
    }
    return 1;
}

void script_push_data(struct buf *out, const uint8_t *data, size_t len)
{
    if (len < OP_PUSHDATA1) {
        buf_put_u8(out, (uint8_t)len);
    } else if (len <= 0xff) {
        buf_put_u8(out, OP_PUSHDATA1);
        buf_put_u8(out, (uint8_t)len);
    } else if (len <= 0xffff) {
        buf_put_u8(out, OP_PUSHDATA2);
        buf_put_u16le(out, (uint16_t)len);
    } else {
        buf_put_u8(out, OP_PUSHDATA4);
        buf_put_u32le(out, (uint32_t)len);
    }
    buf_append(out, data, len);
}

void script_push_int(struct buf *out, int64_t n)
{
    if (n == -1 || (n >= 1 && n <= 16)) {
        buf_put_u8(out, (uint8_t)(n + (OP_1 - 1)));
    } else if (n == 0) {
        buf_put_u8(out, OP_0);
    } else {
        uint8_t tmp[9];
        size_t k = scriptnum_encode(tmp, n);
        script_push_data(out, tmp, k);
    }
}

int scriptnum_decode(int64_t *out, const uint8_t *p, size_t n, int require_minimal, size_t max_size)
{
    if (n > max_size) {
        return 0;
    }
    if (require_minimal && n > 0) {
        /* The most significant byte may be 0x00 or 0x80 only when the next byte down has
         * its high bit set (otherwise the number had a shorter encoding). */
        if ((p[n - 1] & 0x7f) == 0) {
            if (n <= 1 || (p[n - 2] & 0x80) == 0) {
                return 0;
            }
        }
    }
    if (n == 0) {
        *out = 0;
        return 1;
    }
    /* max_size is at most 8 in every caller; the magnitude fits in 63 bits below 8. */
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        r |= (uint64_t)p[i] << (8 * i);
    }
    if (p[n - 1] & 0x80) {
        r &= ~((uint64_t)0x80 << (8 * (n - 1)));
        *out = -(int64_t)r;
    } else {
        *out = (int64_t)r;
    }
    return 1;
}

size_t scriptnum_encode(uint8_t out[9], int64_t v)
{
    if (v == 0) {
        return 0;
    }
    int neg = v < 0;
    uint64_t a = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0;
    while (a) {
        out[n++] = (uint8_t)(a & 0xff);
        a >>= 8;
    }
    /* If the top byte already has its high bit set, add a byte for the sign; otherwise
     * the sign goes into the top bit. */
    if (out[n - 1] & 0x80) {
        out[n++] = neg ? 0x80 : 0x00;
    } else if (neg) {
        out[n - 1] |= 0x80;
    }
    return n;
}

int script_cast_to_bool(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            /* Negative zero is false. */
            if (i == n - 1 && p[i] == 0x80) {
                return 0;
            }
            return 1;
        }
    }
    return 0;
}

unsigned script_sigop_count(const uint8_t *script, size_t len, int accurate)
{
    unsigned n = 0;
    size_t pc = 0;
    uint8_t last = OP_INVALIDOPCODE;
    while (pc < len) {
        uint8_t op;
        if (!script_get_op(script, len, &pc, &op, NULL, NULL)) {
            break;
        }
        if (op == OP_CHECKSIG || op == OP_CHECKSIGVERIFY) {
            n++;
        } else if (op == OP_CHECKMULTISIG || op == OP_CHECKMULTISIGVERIFY) {
            if (accurate && last >= OP_1 && last <= OP_16) {
                n += (unsigned)script_decode_op_n(last);
            } else {
                n += MAX_PUBKEYS_PER_MULTISIG;
            }
        }
        last = op;
    }
    return n;
}
