/* Output script templates. See solver.h. */
#include "script/solver.h"

#include "script/script.h"

const char *script_type_name(enum script_type t)
{
    switch (t) {
    case SCRIPT_TYPE_PUBKEY:
        return "pubkey";
    case SCRIPT_TYPE_PUBKEYHASH:
        return "pubkeyhash";
    case SCRIPT_TYPE_SCRIPTHASH:
        return "scripthash";
    case SCRIPT_TYPE_MULTISIG:
        return "multisig";
    case SCRIPT_TYPE_NULL_DATA:
        return "nulldata";
    case SCRIPT_TYPE_WITNESS_V0_KEYHASH:
        return "witness_v0_keyhash";
    case SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH:
        return "witness_v0_scripthash";
    case SCRIPT_TYPE_WITNESS_V1_TAPROOT:
        return "witness_v1_taproot";
    case SCRIPT_TYPE_WITNESS_UNKNOWN:
        return "witness_unknown";
    case SCRIPT_TYPE_ANCHOR:
        return "anchor";
    default:
        return "nonstandard";
    }
}

/* CPubKey::ValidSize: the length the header byte implies. */
static int pubkey_valid_size(const uint8_t *p, size_t n)
{
    if (n == 0) {
        return 0;
    }
    if (p[0] == 2 || p[0] == 3) {
        return n == 33;
    }
    if (p[0] == 4 || p[0] == 6 || p[0] == 7) {
        return n == 65;
    }
    return 0;
}

/* Core's GetScriptNumber(opcode, data, min, max) for multisig counts. */
static int script_number(uint8_t op, const uint8_t *data, size_t dlen, int min, int max, int *out)
{
    int64_t v;
    if (op >= OP_1 && op <= OP_16) {
        v = script_decode_op_n(op);
    } else if (op <= OP_PUSHDATA4) {
        if (!script_check_minimal_push(data, dlen, op)) {
            return 0;
        }
        if (!scriptnum_decode(&v, data, dlen, 1, SCRIPTNUM_DEFAULT_MAX_SIZE)) {
            return 0;
        }
    } else {
        return 0;
    }
    if (v < min || v > max) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int match_multisig(const uint8_t *s, size_t len, int *required, int *keys)
{
    size_t pc = 0;
    uint8_t op;
    const uint8_t *d;
    size_t dl;
    int m, n, count = 0;
    if (len < 1 || s[len - 1] != OP_CHECKMULTISIG) {
        return 0;
    }
    if (!script_get_op(s, len, &pc, &op, &d, &dl) ||
        !script_number(op, d, dl, 1, MAX_PUBKEYS_PER_MULTISIG, &m)) {
        return 0;
    }
    for (;;) {
        if (!script_get_op(s, len, &pc, &op, &d, &dl)) {
            return 0;
        }
        if (op <= OP_PUSHDATA4 && pubkey_valid_size(d, dl)) {
            count++;
            continue;
        }
        break;
    }
    if (!script_number(op, d, dl, 1, MAX_PUBKEYS_PER_MULTISIG, &n)) {
        return 0;
    }
    if (n != count || m > n) {
        return 0;
    }
    /* Exactly OP_CHECKMULTISIG must follow, and nothing after it. */
    if (pc + 1 != len) {
        return 0;
    }
    *required = m;
    *keys = n;
    return 1;
}

enum script_type script_solve(const uint8_t *s, size_t len, int *required, int *keys)
{
    int version;
    const uint8_t *prog;
    size_t plen;
    if (script_is_witness_program(s, len, &version, &prog, &plen) &&
        script_is_p2a(version, prog, plen)) {
        return SCRIPT_TYPE_ANCHOR;
    }
    if (script_is_p2sh(s, len)) {
        return SCRIPT_TYPE_SCRIPTHASH;
    }
    if (script_is_witness_program(s, len, &version, &prog, &plen)) {
        if (version == 0 && plen == WITNESS_V0_KEYHASH_SIZE) {
            return SCRIPT_TYPE_WITNESS_V0_KEYHASH;
        }
        if (version == 0 && plen == WITNESS_V0_SCRIPTHASH_SIZE) {
            return SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH;
        }
        if (version == 1 && plen == WITNESS_V1_TAPROOT_SIZE) {
            return SCRIPT_TYPE_WITNESS_V1_TAPROOT;
        }
        if (version != 0) {
            return SCRIPT_TYPE_WITNESS_UNKNOWN;
        }
        return SCRIPT_TYPE_NONSTANDARD;
    }
    /* Provably prunable data carrier: OP_RETURN then pushes only. */
    if (len >= 1 && s[0] == OP_RETURN && script_is_push_only(s + 1, len - 1)) {
        return SCRIPT_TYPE_NULL_DATA;
    }
    if ((len == 35 && s[0] == 33 && s[34] == OP_CHECKSIG && pubkey_valid_size(s + 1, 33)) ||
        (len == 67 && s[0] == 65 && s[66] == OP_CHECKSIG && pubkey_valid_size(s + 1, 65))) {
        return SCRIPT_TYPE_PUBKEY;
    }
    if (len == 25 && s[0] == OP_DUP && s[1] == OP_HASH160 && s[2] == 20 &&
        s[23] == OP_EQUALVERIFY && s[24] == OP_CHECKSIG) {
        return SCRIPT_TYPE_PUBKEYHASH;
    }
    int m, n;
    if (match_multisig(s, len, &m, &n)) {
        if (required) {
            *required = m;
        }
        if (keys) {
            *keys = n;
        }
        return SCRIPT_TYPE_MULTISIG;
    }
    return SCRIPT_TYPE_NONSTANDARD;
}

void script_multisig_keys(const uint8_t *s, size_t len, int *m, const uint8_t **keys,
                          size_t *key_lens, int *count)
{
    size_t pc = 0;
    uint8_t op;
    const uint8_t *d;
    size_t dl;
    int n = 0;
    int required = 0, total = 0;
    script_solve(s, len, &required, &total);
    *m = required;
    script_get_op(s, len, &pc, &op, &d, &dl); /* m */
    while (n < total && script_get_op(s, len, &pc, &op, &d, &dl)) {
        keys[n] = d;
        key_lens[n] = dl;
        n++;
    }
    *count = n;
}

int script_pubkey_is_compressed(const uint8_t *k, size_t n)
{
    return n == 33 && (k[0] == 2 || k[0] == 3);
}
