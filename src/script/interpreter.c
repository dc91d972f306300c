/* The opcode machine (Core's EvalScript). The signature checks it calls live in checker.c;
 * VerifyScript, witness programs and taproot in verify.c. */
#include "script/interpreter.h"

#include <string.h>

#include <openssl/evp.h>

#include "crypto/hash.h"
#include "script/checker.h"
#include "script/script.h"
#include "util/check.h"
#include "util/xmalloc.h"

/* SHA-1 exists only for OP_SHA1; the crypto layer has no use for it. */
static void sha1(uint8_t out20[20], const uint8_t *p, size_t n)
{
    unsigned int outlen = 20;
    CHECK_ALWAYS(EVP_Digest(p, n, out20, &outlen, EVP_sha1(), NULL) == 1);
}

/* ---- stacks ---------------------------------------------------------------------- */

void script_stack_init(struct script_stack *st)
{
    st->v = NULL;
    st->n = 0;
    st->cap = 0;
}

void script_stack_clear(struct script_stack *st)
{
    for (size_t i = 0; i < st->cap; i++) {
        free(st->v[i].data);
    }
    free(st->v);
    script_stack_init(st);
}

void script_stack_push(struct script_stack *st, const uint8_t *p, size_t len)
{
    if (st->n == st->cap) {
        size_t ncap = st->cap ? st->cap * 2 : 16;
        st->v = xrealloc(st->v, ncap * sizeof(st->v[0]));
        memset(st->v + st->cap, 0, (ncap - st->cap) * sizeof(st->v[0]));
        st->cap = ncap;
    }
    struct script_item *it = &st->v[st->n];
    if (it->cap < len) {
        size_t ncap = len < 32 ? 32 : len;
        free(it->data);
        it->data = xmalloc(ncap);
        it->cap = ncap;
    }
    if (len) {
        memcpy(it->data, p, len);
    }
    it->len = len;
    st->n++;
}

static inline struct script_item *top(struct script_stack *st, long i)
{
    return &st->v[(long)st->n + i];
}

static inline void pop(struct script_stack *st)
{
    st->n--;
}

/* Removes the item at index idx, keeping its buffer for reuse. */
static void erase_at(struct script_stack *st, size_t idx)
{
    struct script_item t = st->v[idx];
    memmove(st->v + idx, st->v + idx + 1, (st->n - idx - 1) * sizeof(st->v[0]));
    st->v[st->n - 1] = t;
    st->n--;
}

static void swap_items(struct script_stack *st, long a, long b)
{
    struct script_item t = *top(st, a);
    *top(st, a) = *top(st, b);
    *top(st, b) = t;
}

static void push_bool(struct script_stack *st, int v)
{
    static const uint8_t one = 1;
    script_stack_push(st, &one, v ? 1 : 0);
}

static void push_num(struct script_stack *st, int64_t v)
{
    uint8_t b[9];
    size_t n = scriptnum_encode(b, v);
    script_stack_push(st, b, n);
}

/* ---- the condition stack (Core's ConditionStack) ---------------------------------- */

#define COND_NO_FALSE UINT32_MAX

struct cond_stack {
    uint32_t size;
    uint32_t first_false;
};

static inline void cond_push(struct cond_stack *c, int f)
{
    if (c->first_false == COND_NO_FALSE && !f) {
        c->first_false = c->size;
    }
    c->size++;
}

static inline void cond_pop(struct cond_stack *c)
{
    c->size--;
    if (c->first_false == c->size) {
        c->first_false = COND_NO_FALSE;
    }
}

static inline void cond_toggle(struct cond_stack *c)
{
    if (c->first_false == COND_NO_FALSE) {
        c->first_false = c->size - 1;
    } else if (c->first_false == c->size - 1) {
        c->first_false = COND_NO_FALSE;
    }
    /* Otherwise an earlier entry is false and toggling the top changes nothing. */
}

/* ---- EvalScript ------------------------------------------------------------------ */

static int is_disabled(uint8_t op)
{
    switch (op) {
    case OP_CAT:
    case OP_SUBSTR:
    case OP_LEFT:
    case OP_RIGHT:
    case OP_INVERT:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_2MUL:
    case OP_2DIV:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD:
    case OP_LSHIFT:
    case OP_RSHIFT:
        return 1;
    default:
        return 0;
    }
}

#define FAIL(e)                                                                                    \
    do {                                                                                           \
        *err = (e);                                                                                \
        goto out;                                                                                  \
    } while (0)

#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (stack->n < (size_t)(k)) {                                                              \
            FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);                                              \
        }                                                                                          \
    } while (0)

#define NUM(dst, item, maxsz)                                                                      \
    do {                                                                                           \
        if (!scriptnum_decode(&(dst), (item)->data, (item)->len, require_minimal, (maxsz))) {      \
            FAIL(SCRIPT_ERR_SCRIPTNUM);                                                            \
        }                                                                                          \
    } while (0)

/* Core's CScriptNum::getint: clamps to the int range. */
static int num_getint(int64_t v)
{
    if (v > INT32_MAX) {
        return INT32_MAX;
    }
    if (v < INT32_MIN) {
        return INT32_MIN;
    }
    return (int)v;
}

int script_eval(struct script_stack *stack, const uint8_t *script, size_t len, uint32_t flags,
                const struct script_checker *chk, enum sig_version sigversion,
                struct script_execdata *ed, enum script_error *err)
{
    struct script_stack alt;
    struct cond_stack vexec = {0, COND_NO_FALSE};
    struct buf scratch, scratch2;
    size_t pc = 0, pbegincodehash = 0;
    int op_count = 0;
    int require_minimal = (flags & SCRIPT_VERIFY_MINIMALDATA) != 0;
    uint32_t opcode_pos = 0;
    int ok = 0;
    int legacy = sigversion == SIGVERSION_BASE || sigversion == SIGVERSION_WITNESS_V0;

    script_stack_init(&alt);
    buf_init(&scratch);
    buf_init(&scratch2);
    *err = SCRIPT_ERR_UNKNOWN_ERROR;

    if (legacy && len > MAX_SCRIPT_SIZE) {
        FAIL(SCRIPT_ERR_SCRIPT_SIZE);
    }
    ed->codeseparator_pos = 0xffffffffu;
    ed->codeseparator_pos_init = 1;

    for (; pc < len; ++opcode_pos) {
        int fexec = vexec.first_false == COND_NO_FALSE;
        uint8_t opcode;
        const uint8_t *push = NULL;
        size_t push_len = 0;

        if (!script_get_op(script, len, &pc, &opcode, &push, &push_len)) {
            FAIL(SCRIPT_ERR_BAD_OPCODE);
        }
        if (push_len > MAX_SCRIPT_ELEMENT_SIZE) {
            FAIL(SCRIPT_ERR_PUSH_SIZE);
        }
        if (legacy) {
            /* OP_RESERVED does not count towards the opcode limit. */
            if (opcode > OP_16 && ++op_count > MAX_OPS_PER_SCRIPT) {
                FAIL(SCRIPT_ERR_OP_COUNT);
            }
        }
        if (is_disabled(opcode)) {
            FAIL(SCRIPT_ERR_DISABLED_OPCODE); /* CVE-2010-5137: even when not executed */
        }
        if (opcode == OP_CODESEPARATOR && sigversion == SIGVERSION_BASE &&
            (flags & SCRIPT_VERIFY_CONST_SCRIPTCODE)) {
            FAIL(SCRIPT_ERR_OP_CODESEPARATOR);
        }

        if (fexec && opcode <= OP_PUSHDATA4) {
            if (require_minimal && !script_check_minimal_push(push, push_len, opcode)) {
                FAIL(SCRIPT_ERR_MINIMALDATA);
            }
            script_stack_push(stack, push, push_len);
        } else if (fexec || (OP_IF <= opcode && opcode <= OP_ENDIF)) {
            switch (opcode) {
            case OP_1NEGATE:
            case OP_1:
            case OP_2:
            case OP_3:
            case OP_4:
            case OP_5:
            case OP_6:
            case OP_7:
            case OP_8:
            case OP_9:
            case OP_10:
            case OP_11:
            case OP_12:
            case OP_13:
            case OP_14:
            case OP_15:
            case OP_16:
                push_num(stack, (int)opcode - (int)(OP_1 - 1));
                break;

            case OP_NOP:
                break;

            case OP_CHECKLOCKTIMEVERIFY: {
                if (!(flags & SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY)) {
                    break; /* NOP2 */
                }
                NEED(1);
                int64_t lt;
                /* 5-byte operands: lock times go up to 2^32-1. */
                NUM(lt, top(stack, -1), 5);
                if (lt < 0) {
                    FAIL(SCRIPT_ERR_NEGATIVE_LOCKTIME);
                }
                if (!script_checker_locktime(chk, lt)) {
                    FAIL(SCRIPT_ERR_UNSATISFIED_LOCKTIME);
                }
                break;
            }

            case OP_CHECKSEQUENCEVERIFY: {
                if (!(flags & SCRIPT_VERIFY_CHECKSEQUENCEVERIFY)) {
                    break; /* NOP3 */
                }
                NEED(1);
                int64_t seq;
                NUM(seq, top(stack, -1), 5);
                if (seq < 0) {
                    FAIL(SCRIPT_ERR_NEGATIVE_LOCKTIME);
                }
                /* The disable flag makes CSV a NOP (room for future soft forks). */
                if (seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) {
                    break;
                }
                if (!script_checker_sequence(chk, seq)) {
                    FAIL(SCRIPT_ERR_UNSATISFIED_LOCKTIME);
                }
                break;
            }

            case OP_NOP1:
            case OP_NOP4:
            case OP_NOP5:
            case OP_NOP6:
            case OP_NOP7:
            case OP_NOP8:
            case OP_NOP9:
            case OP_NOP10:
                if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS) {
                    FAIL(SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS);
                }
                break;

            case OP_IF:
            case OP_NOTIF: {
                int value = 0;
                if (fexec) {
                    NEED(1);
                    struct script_item *v = top(stack, -1);
                    if (sigversion == SIGVERSION_TAPSCRIPT) {
                        /* Consensus in tapscript: exactly empty or exactly 0x01. */
                        if (v->len > 1 || (v->len == 1 && v->data[0] != 1)) {
                            FAIL(SCRIPT_ERR_TAPSCRIPT_MINIMALIF);
                        }
                    }
                    if (sigversion == SIGVERSION_WITNESS_V0 && (flags & SCRIPT_VERIFY_MINIMALIF)) {
                        if (v->len > 1) {
                            FAIL(SCRIPT_ERR_MINIMALIF);
                        }
                        if (v->len == 1 && v->data[0] != 1) {
                            FAIL(SCRIPT_ERR_MINIMALIF);
                        }
                    }
                    value = script_cast_to_bool(v->data, v->len);
                    if (opcode == OP_NOTIF) {
                        value = !value;
                    }
                    pop(stack);
                }
                cond_push(&vexec, value);
                break;
            }

            case OP_ELSE:
                if (vexec.size == 0) {
                    FAIL(SCRIPT_ERR_UNBALANCED_CONDITIONAL);
                }
                cond_toggle(&vexec);
                break;

            case OP_ENDIF:
                if (vexec.size == 0) {
                    FAIL(SCRIPT_ERR_UNBALANCED_CONDITIONAL);
                }
                cond_pop(&vexec);
                break;

            case OP_VERIFY:
                NEED(1);
                if (script_cast_to_bool(top(stack, -1)->data, top(stack, -1)->len)) {
                    pop(stack);
                } else {
                    FAIL(SCRIPT_ERR_VERIFY);
                }
                break;

            case OP_RETURN:
                FAIL(SCRIPT_ERR_OP_RETURN);

            case OP_TOALTSTACK:
                NEED(1);
                script_stack_push(&alt, top(stack, -1)->data, top(stack, -1)->len);
                pop(stack);
                break;

            case OP_FROMALTSTACK:
                if (alt.n < 1) {
                    FAIL(SCRIPT_ERR_INVALID_ALTSTACK_OPERATION);
                }
                script_stack_push(stack, top(&alt, -1)->data, top(&alt, -1)->len);
                pop(&alt);
                break;

            case OP_2DROP:
                NEED(2);
                pop(stack);
                pop(stack);
                break;

            case OP_2DUP: {
                NEED(2);
                struct script_item a = *top(stack, -2), b = *top(stack, -1);
                script_stack_push(stack, a.data, a.len);
                script_stack_push(stack, b.data, b.len);
                break;
            }

            case OP_3DUP: {
                NEED(3);
                struct script_item a = *top(stack, -3), b = *top(stack, -2), c = *top(stack, -1);
                script_stack_push(stack, a.data, a.len);
                script_stack_push(stack, b.data, b.len);
                script_stack_push(stack, c.data, c.len);
                break;
            }

            case OP_2OVER: {
                NEED(4);
                struct script_item a = *top(stack, -4), b = *top(stack, -3);
                script_stack_push(stack, a.data, a.len);
                script_stack_push(stack, b.data, b.len);
                break;
            }

            case OP_2ROT: {
                /* (x1 x2 x3 x4 x5 x6 -- x3 x4 x5 x6 x1 x2): rotate the item structs. */
                NEED(6);
                struct script_item x1 = *top(stack, -6), x2 = *top(stack, -5);
                memmove(top(stack, -6), top(stack, -4), 4 * sizeof(struct script_item));
                *top(stack, -2) = x1;
                *top(stack, -1) = x2;
                break;
            }

            case OP_2SWAP:
                NEED(4);
                swap_items(stack, -4, -2);
                swap_items(stack, -3, -1);
                break;

            case OP_IFDUP: {
                NEED(1);
                struct script_item a = *top(stack, -1);
                if (script_cast_to_bool(a.data, a.len)) {
                    script_stack_push(stack, a.data, a.len);
                }
                break;
            }

            case OP_DEPTH:
                push_num(stack, (int64_t)stack->n);
                break;

            case OP_DROP:
                NEED(1);
                pop(stack);
                break;

            case OP_DUP: {
                NEED(1);
                struct script_item a = *top(stack, -1);
                script_stack_push(stack, a.data, a.len);
                break;
            }

            case OP_NIP:
                NEED(2);
                erase_at(stack, stack->n - 2);
                break;

            case OP_OVER: {
                NEED(2);
                struct script_item a = *top(stack, -2);
                script_stack_push(stack, a.data, a.len);
                break;
            }

            case OP_PICK:
            case OP_ROLL: {
                /* (xn ... x2 x1 x0 n - xn ... x2 x1 x0 xn) */
                NEED(2);
                int64_t nv;
                NUM(nv, top(stack, -1), SCRIPTNUM_DEFAULT_MAX_SIZE);
                int n = num_getint(nv);
                pop(stack);
                if (n < 0 || (size_t)n >= stack->n) {
                    FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);
                }
                size_t idx = stack->n - 1 - (size_t)n;
                if (opcode == OP_ROLL) {
                    /* Move the item struct to the top (no copy). */
                    struct script_item t = stack->v[idx];
                    memmove(stack->v + idx, stack->v + idx + 1,
                            (stack->n - idx - 1) * sizeof(stack->v[0]));
                    stack->v[stack->n - 1] = t;
                } else {
                    struct script_item a = stack->v[idx];
                    script_stack_push(stack, a.data, a.len);
                }
                break;
            }

            case OP_ROT:
                /* (x1 x2 x3 -- x2 x3 x1) */
                NEED(3);
                swap_items(stack, -3, -2);
                swap_items(stack, -2, -1);
                break;

            case OP_SWAP:
                NEED(2);
                swap_items(stack, -2, -1);
                break;

            case OP_TUCK: {
                /* (x1 x2 -- x2 x1 x2) */
                NEED(2);
                struct script_item a = *top(stack, -1);
                script_stack_push(stack, a.data, a.len);
                /* Move the new top below the two items under it. */
                struct script_item t = *top(stack, -1);
                *top(stack, -1) = *top(stack, -2);
                *top(stack, -2) = *top(stack, -3);
                *top(stack, -3) = t;
                break;
            }

            case OP_SIZE:
                NEED(1);
                push_num(stack, (int64_t)top(stack, -1)->len);
                break;

            case OP_EQUAL:
            case OP_EQUALVERIFY: {
                NEED(2);
                struct script_item *a = top(stack, -2), *b = top(stack, -1);
                int eq = a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
                pop(stack);
                pop(stack);
                push_bool(stack, eq);
                if (opcode == OP_EQUALVERIFY) {
                    if (eq) {
                        pop(stack);
                    } else {
                        FAIL(SCRIPT_ERR_EQUALVERIFY);
                    }
                }
                break;
            }

            case OP_1ADD:
            case OP_1SUB:
            case OP_NEGATE:
            case OP_ABS:
            case OP_NOT:
            case OP_0NOTEQUAL: {
                NEED(1);
                int64_t bn;
                NUM(bn, top(stack, -1), SCRIPTNUM_DEFAULT_MAX_SIZE);
                switch (opcode) {
                case OP_1ADD:
                    bn += 1;
                    break;
                case OP_1SUB:
                    bn -= 1;
                    break;
                case OP_NEGATE:
                    bn = -bn;
                    break;
                case OP_ABS:
                    if (bn < 0) {
                        bn = -bn;
                    }
                    break;
                case OP_NOT:
                    bn = bn == 0;
                    break;
                default: /* OP_0NOTEQUAL */
                    bn = bn != 0;
                    break;
                }
                pop(stack);
                push_num(stack, bn);
                break;
            }

            case OP_ADD:
            case OP_SUB:
            case OP_BOOLAND:
            case OP_BOOLOR:
            case OP_NUMEQUAL:
            case OP_NUMEQUALVERIFY:
            case OP_NUMNOTEQUAL:
            case OP_LESSTHAN:
            case OP_GREATERTHAN:
            case OP_LESSTHANOREQUAL:
            case OP_GREATERTHANOREQUAL:
            case OP_MIN:
            case OP_MAX: {
                NEED(2);
                int64_t a, b, r = 0;
                NUM(a, top(stack, -2), SCRIPTNUM_DEFAULT_MAX_SIZE);
                NUM(b, top(stack, -1), SCRIPTNUM_DEFAULT_MAX_SIZE);
                switch (opcode) {
                case OP_ADD:
                    r = a + b;
                    break;
                case OP_SUB:
                    r = a - b;
                    break;
                case OP_BOOLAND:
                    r = a != 0 && b != 0;
                    break;
                case OP_BOOLOR:
                    r = a != 0 || b != 0;
                    break;
                case OP_NUMEQUAL:
                case OP_NUMEQUALVERIFY:
                    r = a == b;
                    break;
                case OP_NUMNOTEQUAL:
                    r = a != b;
                    break;
                case OP_LESSTHAN:
                    r = a < b;
                    break;
                case OP_GREATERTHAN:
                    r = a > b;
                    break;
                case OP_LESSTHANOREQUAL:
                    r = a <= b;
                    break;
                case OP_GREATERTHANOREQUAL:
                    r = a >= b;
                    break;
                case OP_MIN:
                    r = a < b ? a : b;
                    break;
                default: /* OP_MAX */
                    r = a > b ? a : b;
                    break;
                }
                pop(stack);
                pop(stack);
                push_num(stack, r);
                if (opcode == OP_NUMEQUALVERIFY) {
                    if (script_cast_to_bool(top(stack, -1)->data, top(stack, -1)->len)) {
                        pop(stack);
                    } else {
                        FAIL(SCRIPT_ERR_NUMEQUALVERIFY);
                    }
                }
                break;
            }

            case OP_WITHIN: {
                /* (x min max -- out) */
                NEED(3);
                int64_t x, lo, hi;
                NUM(x, top(stack, -3), SCRIPTNUM_DEFAULT_MAX_SIZE);
                NUM(lo, top(stack, -2), SCRIPTNUM_DEFAULT_MAX_SIZE);
                NUM(hi, top(stack, -1), SCRIPTNUM_DEFAULT_MAX_SIZE);
                int v = lo <= x && x < hi;
                pop(stack);
                pop(stack);
                pop(stack);
                push_bool(stack, v);
                break;
            }

            case OP_RIPEMD160:
            case OP_SHA1:
            case OP_SHA256:
            case OP_HASH160:
            case OP_HASH256: {
                NEED(1);
                uint8_t h[32];
                size_t hl = 32;
                struct script_item *a = top(stack, -1);
                if (opcode == OP_RIPEMD160) {
                    hash_ripemd160(h, a->data, a->len);
                    hl = 20;
                } else if (opcode == OP_SHA1) {
                    sha1(h, a->data, a->len);
                    hl = 20;
                } else if (opcode == OP_SHA256) {
                    hash_sha256(h, a->data, a->len);
                } else if (opcode == OP_HASH160) {
                    hash_hash160(h, a->data, a->len);
                    hl = 20;
                } else {
                    hash_sha256d(h, a->data, a->len);
                }
                pop(stack);
                script_stack_push(stack, h, hl);
                break;
            }

            case OP_CODESEPARATOR:
                /* The signed script starts after the code separator. */
                pbegincodehash = pc;
                ed->codeseparator_pos = opcode_pos;
                break;

            case OP_CHECKSIG:
            case OP_CHECKSIGVERIFY: {
                NEED(2);
                struct script_item *sig = top(stack, -2), *pk = top(stack, -1);
                int success = 1;
                if (sigversion == SIGVERSION_TAPSCRIPT) {
                    if (!script_eval_checksig_tapscript(sig->data, sig->len, pk->data, pk->len, ed,
                                                        flags, chk, err, &success)) {
                        goto out;
                    }
                } else {
                    if (!script_eval_checksig_pre_tapscript(sig->data, sig->len, pk->data, pk->len,
                                                            script + pbegincodehash,
                                                            len - pbegincodehash, flags, chk,
                                                            sigversion, &scratch, err, &success)) {
                        goto out;
                    }
                }
                pop(stack);
                pop(stack);
                push_bool(stack, success);
                if (opcode == OP_CHECKSIGVERIFY) {
                    if (success) {
                        pop(stack);
                    } else {
                        FAIL(SCRIPT_ERR_CHECKSIGVERIFY);
                    }
                }
                break;
            }

            case OP_CHECKSIGADD: {
                /* Tapscript only. (sig num pubkey -- num) */
                if (legacy) {
                    FAIL(SCRIPT_ERR_BAD_OPCODE);
                }
                NEED(3);
                int64_t num;
                NUM(num, top(stack, -2), SCRIPTNUM_DEFAULT_MAX_SIZE);
                struct script_item *sig = top(stack, -3), *pk = top(stack, -1);
                int success = 1;
                if (!script_eval_checksig_tapscript(sig->data, sig->len, pk->data, pk->len, ed,
                                                    flags, chk, err, &success)) {
                    goto out;
                }
                pop(stack);
                pop(stack);
                pop(stack);
                push_num(stack, num + (success ? 1 : 0));
                break;
            }

            case OP_CHECKMULTISIG:
            case OP_CHECKMULTISIGVERIFY: {
                if (sigversion == SIGVERSION_TAPSCRIPT) {
                    FAIL(SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG);
                }
                /* ([sig ...] num_of_signatures [pubkey ...] num_of_pubkeys -- bool) */
                long i = 1;
                if ((long)stack->n < i) {
                    FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);
                }
                int64_t kv;
                NUM(kv, top(stack, -i), SCRIPTNUM_DEFAULT_MAX_SIZE);
                int nkeys = num_getint(kv);
                if (nkeys < 0 || nkeys > MAX_PUBKEYS_PER_MULTISIG) {
                    FAIL(SCRIPT_ERR_PUBKEY_COUNT);
                }
                op_count += nkeys;
                if (op_count > MAX_OPS_PER_SCRIPT) {
                    FAIL(SCRIPT_ERR_OP_COUNT);
                }
                long ikey = ++i;
                /* ikey2: position of the last non-signature item (top = 1), used for the
                 * NULLFAIL clean-up. */
                long ikey2 = nkeys + 2;
                i += nkeys;
                if ((long)stack->n < i) {
                    FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);
                }
                int64_t sv;
                NUM(sv, top(stack, -i), SCRIPTNUM_DEFAULT_MAX_SIZE);
                int nsigs = num_getint(sv);
                if (nsigs < 0 || nsigs > nkeys) {
                    FAIL(SCRIPT_ERR_SIG_COUNT);
                }
                long isig = ++i;
                i += nsigs;
                if ((long)stack->n < i) {
                    FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);
                }

                /* scriptCode: from the last code separator, without the signatures (in
                 * pre-segwit scripts). */
                const uint8_t *code = script + pbegincodehash;
                size_t code_len = len - pbegincodehash;
                if (sigversion == SIGVERSION_BASE) {
                    struct buf pat;
                    buf_init(&pat);
                    for (int k = 0; k < nsigs; k++) {
                        struct script_item *s = top(stack, -isig - k);
                        buf_reset(&pat);
                        script_push_data(&pat, s->data, s->len);
                        struct buf *dst = code == scratch.data ? &scratch2 : &scratch;
                        int found = script_find_and_delete(dst, code, code_len, pat.data, pat.len);
                        if (found > 0) {
                            if (flags & SCRIPT_VERIFY_CONST_SCRIPTCODE) {
                                buf_clear(&pat);
                                FAIL(SCRIPT_ERR_SIG_FINDANDDELETE);
                            }
                            code = dst->data;
                            code_len = dst->len;
                        }
                    }
                    buf_clear(&pat);
                }

                int success = 1;
                while (success && nsigs > 0) {
                    struct script_item *s = top(stack, -isig), *k = top(stack, -ikey);
                    /* The exact order of pubkey/signature evaluation is observable with
                     * STRICTENC (CHECKMULTISIG NOT). */
                    if (!script_check_sig_encoding(s->data, s->len, flags, err) ||
                        !script_check_pubkey_encoding(k->data, k->len, flags, sigversion, err)) {
                        goto out;
                    }
                    int fok = script_checker_ecdsa(chk, s->data, s->len, k->data, k->len, code,
                                                   code_len, sigversion);
                    if (fok) {
                        isig++;
                        nsigs--;
                    }
                    ikey++;
                    nkeys--;
                    /* More signatures left than keys: too many failed already. */
                    if (nsigs > nkeys) {
                        success = 0;
                    }
                }

                /* Clean up the arguments. */
                while (i-- > 1) {
                    /* On failure, NULLFAIL requires every signature to be empty. */
                    if (!success && (flags & SCRIPT_VERIFY_NULLFAIL) && !ikey2 &&
                        top(stack, -1)->len) {
                        FAIL(SCRIPT_ERR_SIG_NULLFAIL);
                    }
                    if (ikey2 > 0) {
                        ikey2--;
                    }
                    pop(stack);
                }
                /* The extra, unchecked argument (the CHECKMULTISIG bug). */
                if (stack->n < 1) {
                    FAIL(SCRIPT_ERR_INVALID_STACK_OPERATION);
                }
                if ((flags & SCRIPT_VERIFY_NULLDUMMY) && top(stack, -1)->len) {
                    FAIL(SCRIPT_ERR_SIG_NULLDUMMY);
                }
                pop(stack);
                push_bool(stack, success);
                if (opcode == OP_CHECKMULTISIGVERIFY) {
                    if (success) {
                        pop(stack);
                    } else {
                        FAIL(SCRIPT_ERR_CHECKMULTISIGVERIFY);
                    }
                }
                break;
            }

            default:
                FAIL(SCRIPT_ERR_BAD_OPCODE);
            }
        }

        if (stack->n + alt.n > MAX_STACK_SIZE) {
            FAIL(SCRIPT_ERR_STACK_SIZE);
        }
    }

    if (vexec.size != 0) {
        FAIL(SCRIPT_ERR_UNBALANCED_CONDITIONAL);
    }
    *err = SCRIPT_ERR_OK;
    ok = 1;
out:
    script_stack_clear(&alt);
    buf_clear(&scratch);
    buf_clear(&scratch2);
    return ok;
}
