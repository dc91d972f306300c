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

/* The stack item at depth i (top: -1) as a script number of at most maxsz bytes (Core's
 * CScriptNum(stacktop(i), fRequireMinimal, maxsz)). Returns 0 if it is not one. */
static int top_num(struct script_stack *stack, long i, int require_minimal, size_t maxsz,
                   int64_t *out)
{
    const struct script_item *it = top(stack, i);
    return scriptnum_decode(out, it->data, it->len, require_minimal, maxsz);
}

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

/* The interpreter's state for one script (Core's EvalScript locals). */
struct machine {
    struct script_stack *stack; /* the caller's */
    struct script_stack alt;
    struct cond_stack vexec;
    struct buf scratch, scratch2; /* scriptCode with signatures deleted (FindAndDelete) */
    const uint8_t *script;
    size_t len;
    size_t pc;             /* the next opcode */
    size_t pbegincodehash; /* where the signed scriptCode starts (after OP_CODESEPARATOR) */
    int op_count;
    uint32_t opcode_pos;
    uint32_t flags;
    int require_minimal;
    int legacy; /* base or witness v0, not tapscript */
    enum sig_version sigversion;
    const struct script_checker *chk;
    struct script_execdata *ed;
};

/* One executed opcode (Core's EvalScript switch): SCRIPT_ERR_OK to go on, else the error
 * that ends the script. The opcodes of the pushes, and the conditionals of branches not
 * taken, are handled by run(). */
static enum script_error exec_opcode(struct machine *m, uint8_t opcode, int fexec)
{
    struct script_stack *stack = m->stack;
    struct script_stack *alt = &m->alt;
    struct cond_stack *vexec = &m->vexec;
    const uint32_t flags = m->flags;
    const enum sig_version sigversion = m->sigversion;
    const struct script_checker *chk = m->chk;
    struct script_execdata *ed = m->ed;
    const int require_minimal = m->require_minimal;
    const int legacy = m->legacy;
    const uint8_t *script = m->script;
    const size_t len = m->len;
    enum script_error err = SCRIPT_ERR_UNKNOWN_ERROR;

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
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t lt;
        /* 5-byte operands: lock times go up to 2^32-1. */
        if (!top_num(stack, -1, require_minimal, 5, &lt)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        if (lt < 0) {
            return SCRIPT_ERR_NEGATIVE_LOCKTIME;
        }
        if (!script_checker_locktime(chk, lt)) {
            return SCRIPT_ERR_UNSATISFIED_LOCKTIME;
        }
        break;
    }

    case OP_CHECKSEQUENCEVERIFY: {
        if (!(flags & SCRIPT_VERIFY_CHECKSEQUENCEVERIFY)) {
            break; /* NOP3 */
        }
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t seq;
        if (!top_num(stack, -1, require_minimal, 5, &seq)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        if (seq < 0) {
            return SCRIPT_ERR_NEGATIVE_LOCKTIME;
        }
        /* The disable flag makes CSV a NOP (room for future soft forks). */
        if (seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) {
            break;
        }
        if (!script_checker_sequence(chk, seq)) {
            return SCRIPT_ERR_UNSATISFIED_LOCKTIME;
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
            return SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS;
        }
        break;

    case OP_IF:
    case OP_NOTIF: {
        int value = 0;
        if (fexec) {
            if (stack->n < 1) {
                return SCRIPT_ERR_INVALID_STACK_OPERATION;
            }
            struct script_item *v = top(stack, -1);
            if (sigversion == SIGVERSION_TAPSCRIPT) {
                /* Consensus in tapscript: exactly empty or exactly 0x01. */
                if (v->len > 1 || (v->len == 1 && v->data[0] != 1)) {
                    return SCRIPT_ERR_TAPSCRIPT_MINIMALIF;
                }
            }
            if (sigversion == SIGVERSION_WITNESS_V0 && (flags & SCRIPT_VERIFY_MINIMALIF)) {
                if (v->len > 1) {
                    return SCRIPT_ERR_MINIMALIF;
                }
                if (v->len == 1 && v->data[0] != 1) {
                    return SCRIPT_ERR_MINIMALIF;
                }
            }
            value = script_cast_to_bool(v->data, v->len);
            if (opcode == OP_NOTIF) {
                value = !value;
            }
            pop(stack);
        }
        cond_push(vexec, value);
        break;
    }

    case OP_ELSE:
        if (vexec->size == 0) {
            return SCRIPT_ERR_UNBALANCED_CONDITIONAL;
        }
        cond_toggle(vexec);
        break;

    case OP_ENDIF:
        if (vexec->size == 0) {
            return SCRIPT_ERR_UNBALANCED_CONDITIONAL;
        }
        cond_pop(vexec);
        break;

    case OP_VERIFY:
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        if (script_cast_to_bool(top(stack, -1)->data, top(stack, -1)->len)) {
            pop(stack);
        } else {
            return SCRIPT_ERR_VERIFY;
        }
        break;

    case OP_RETURN:
        return SCRIPT_ERR_OP_RETURN;

    case OP_TOALTSTACK:
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        script_stack_push(alt, top(stack, -1)->data, top(stack, -1)->len);
        pop(stack);
        break;

    case OP_FROMALTSTACK:
        if (alt->n < 1) {
            return SCRIPT_ERR_INVALID_ALTSTACK_OPERATION;
        }
        script_stack_push(stack, top(alt, -1)->data, top(alt, -1)->len);
        pop(alt);
        break;

    case OP_2DROP:
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        pop(stack);
        pop(stack);
        break;

    case OP_2DUP: {
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item a = *top(stack, -2), b = *top(stack, -1);
        script_stack_push(stack, a.data, a.len);
        script_stack_push(stack, b.data, b.len);
        break;
    }

    case OP_3DUP: {
        if (stack->n < 3) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item a = *top(stack, -3), b = *top(stack, -2), c = *top(stack, -1);
        script_stack_push(stack, a.data, a.len);
        script_stack_push(stack, b.data, b.len);
        script_stack_push(stack, c.data, c.len);
        break;
    }

    case OP_2OVER: {
        if (stack->n < 4) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item a = *top(stack, -4), b = *top(stack, -3);
        script_stack_push(stack, a.data, a.len);
        script_stack_push(stack, b.data, b.len);
        break;
    }

    case OP_2ROT: {
        /* (x1 x2 x3 x4 x5 x6 -- x3 x4 x5 x6 x1 x2): rotate the item structs. */
        if (stack->n < 6) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item x1 = *top(stack, -6), x2 = *top(stack, -5);
        memmove(top(stack, -6), top(stack, -4), 4 * sizeof(struct script_item));
        *top(stack, -2) = x1;
        *top(stack, -1) = x2;
        break;
    }

    case OP_2SWAP:
        if (stack->n < 4) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        swap_items(stack, -4, -2);
        swap_items(stack, -3, -1);
        break;

    case OP_IFDUP: {
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
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
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        pop(stack);
        break;

    case OP_DUP: {
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item a = *top(stack, -1);
        script_stack_push(stack, a.data, a.len);
        break;
    }

    case OP_NIP:
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        erase_at(stack, stack->n - 2);
        break;

    case OP_OVER: {
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item a = *top(stack, -2);
        script_stack_push(stack, a.data, a.len);
        break;
    }

    case OP_PICK:
    case OP_ROLL: {
        /* (xn ... x2 x1 x0 n - xn ... x2 x1 x0 xn) */
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t nv;
        if (!top_num(stack, -1, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &nv)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        int n = num_getint(nv);
        pop(stack);
        if (n < 0 || (size_t)n >= stack->n) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
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
        if (stack->n < 3) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        swap_items(stack, -3, -2);
        swap_items(stack, -2, -1);
        break;

    case OP_SWAP:
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        swap_items(stack, -2, -1);
        break;

    case OP_TUCK: {
        /* (x1 x2 -- x2 x1 x2) */
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
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
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        push_num(stack, (int64_t)top(stack, -1)->len);
        break;

    case OP_EQUAL:
    case OP_EQUALVERIFY: {
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item *a = top(stack, -2), *b = top(stack, -1);
        int eq = a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
        pop(stack);
        pop(stack);
        push_bool(stack, eq);
        if (opcode == OP_EQUALVERIFY) {
            if (eq) {
                pop(stack);
            } else {
                return SCRIPT_ERR_EQUALVERIFY;
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
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t bn;
        if (!top_num(stack, -1, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &bn)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
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
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t a, b, r = 0;
        if (!top_num(stack, -2, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &a)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        if (!top_num(stack, -1, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &b)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
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
                return SCRIPT_ERR_NUMEQUALVERIFY;
            }
        }
        break;
    }

    case OP_WITHIN: {
        /* (x min max -- out) */
        if (stack->n < 3) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t x, lo, hi;
        if (!top_num(stack, -3, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &x)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        if (!top_num(stack, -2, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &lo)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        if (!top_num(stack, -1, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &hi)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
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
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
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
        m->pbegincodehash = m->pc;
        ed->codeseparator_pos = m->opcode_pos;
        break;

    case OP_CHECKSIG:
    case OP_CHECKSIGVERIFY: {
        if (stack->n < 2) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        struct script_item *sig = top(stack, -2), *pk = top(stack, -1);
        int success = 1;
        if (sigversion == SIGVERSION_TAPSCRIPT) {
            if (!script_eval_checksig_tapscript(sig->data, sig->len, pk->data, pk->len, ed,
                                                flags, chk, &err, &success)) {
                return err;
            }
        } else {
            if (!script_eval_checksig_pre_tapscript(sig->data, sig->len, pk->data, pk->len,
                                                    script + m->pbegincodehash,
                                                    len - m->pbegincodehash, flags, chk,
                                                    sigversion, &m->scratch, &err, &success)) {
                return err;
            }
        }
        pop(stack);
        pop(stack);
        push_bool(stack, success);
        if (opcode == OP_CHECKSIGVERIFY) {
            if (success) {
                pop(stack);
            } else {
                return SCRIPT_ERR_CHECKSIGVERIFY;
            }
        }
        break;
    }

    case OP_CHECKSIGADD: {
        /* Tapscript only. (sig num pubkey -- num) */
        if (legacy) {
            return SCRIPT_ERR_BAD_OPCODE;
        }
        if (stack->n < 3) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t num;
        if (!top_num(stack, -2, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &num)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        struct script_item *sig = top(stack, -3), *pk = top(stack, -1);
        int success = 1;
        if (!script_eval_checksig_tapscript(sig->data, sig->len, pk->data, pk->len, ed,
                                            flags, chk, &err, &success)) {
            return err;
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
            return SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG;
        }
        /* ([sig ...] num_of_signatures [pubkey ...] num_of_pubkeys -- bool) */
        long i = 1;
        if ((long)stack->n < i) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t kv;
        if (!top_num(stack, -i, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &kv)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        int nkeys = num_getint(kv);
        if (nkeys < 0 || nkeys > MAX_PUBKEYS_PER_MULTISIG) {
            return SCRIPT_ERR_PUBKEY_COUNT;
        }
        m->op_count += nkeys;
        if (m->op_count > MAX_OPS_PER_SCRIPT) {
            return SCRIPT_ERR_OP_COUNT;
        }
        long ikey = ++i;
        /* ikey2: position of the last non-signature item (top = 1), used for the
         * NULLFAIL clean-up. */
        long ikey2 = nkeys + 2;
        i += nkeys;
        if ((long)stack->n < i) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        int64_t sv;
        if (!top_num(stack, -i, require_minimal, SCRIPTNUM_DEFAULT_MAX_SIZE, &sv)) {
            return SCRIPT_ERR_SCRIPTNUM;
        }
        int nsigs = num_getint(sv);
        if (nsigs < 0 || nsigs > nkeys) {
            return SCRIPT_ERR_SIG_COUNT;
        }
        long isig = ++i;
        i += nsigs;
        if ((long)stack->n < i) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }

        /* scriptCode: from the last code separator, without the signatures (in
         * pre-segwit scripts). */
        const uint8_t *code = script + m->pbegincodehash;
        size_t code_len = len - m->pbegincodehash;
        if (sigversion == SIGVERSION_BASE) {
            struct buf pat;
            buf_init(&pat);
            for (int k = 0; k < nsigs; k++) {
                struct script_item *s = top(stack, -isig - k);
                buf_reset(&pat);
                script_push_data(&pat, s->data, s->len);
                struct buf *dst = code == m->scratch.data ? &m->scratch2 : &m->scratch;
                int found = script_find_and_delete(dst, code, code_len, pat.data, pat.len);
                if (found > 0) {
                    if (flags & SCRIPT_VERIFY_CONST_SCRIPTCODE) {
                        buf_clear(&pat);
                        return SCRIPT_ERR_SIG_FINDANDDELETE;
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
            if (!script_check_sig_encoding(s->data, s->len, flags, &err) ||
                !script_check_pubkey_encoding(k->data, k->len, flags, sigversion, &err)) {
                return err;
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
                return SCRIPT_ERR_SIG_NULLFAIL;
            }
            if (ikey2 > 0) {
                ikey2--;
            }
            pop(stack);
        }
        /* The extra, unchecked argument (the CHECKMULTISIG bug). */
        if (stack->n < 1) {
            return SCRIPT_ERR_INVALID_STACK_OPERATION;
        }
        if ((flags & SCRIPT_VERIFY_NULLDUMMY) && top(stack, -1)->len) {
            return SCRIPT_ERR_SIG_NULLDUMMY;
        }
        pop(stack);
        push_bool(stack, success);
        if (opcode == OP_CHECKMULTISIGVERIFY) {
            if (success) {
                pop(stack);
            } else {
                return SCRIPT_ERR_CHECKMULTISIGVERIFY;
            }
        }
        break;
    }

    default:
        return SCRIPT_ERR_BAD_OPCODE;
    }
    return SCRIPT_ERR_OK;
}

/* Core's EvalScript loop: every opcode read, counted and checked, pushes pushed, the rest
 * executed (or only tracked for branches not taken). SCRIPT_ERR_OK at the end of a script
 * with its conditionals balanced, else the first error. */
static enum script_error run(struct machine *m)
{
    if (m->legacy && m->len > MAX_SCRIPT_SIZE) {
        return SCRIPT_ERR_SCRIPT_SIZE;
    }
    m->ed->codeseparator_pos = 0xffffffffu;
    m->ed->codeseparator_pos_init = 1;

    for (; m->pc < m->len; ++m->opcode_pos) {
        int fexec = m->vexec.first_false == COND_NO_FALSE;
        uint8_t opcode;
        const uint8_t *push = NULL;
        size_t push_len = 0;

        if (!script_get_op(m->script, m->len, &m->pc, &opcode, &push, &push_len)) {
            return SCRIPT_ERR_BAD_OPCODE;
        }
        if (push_len > MAX_SCRIPT_ELEMENT_SIZE) {
            return SCRIPT_ERR_PUSH_SIZE;
        }
        /* OP_RESERVED does not count towards the opcode limit; tapscript has none. */
        if (m->legacy && opcode > OP_16 && ++m->op_count > MAX_OPS_PER_SCRIPT) {
            return SCRIPT_ERR_OP_COUNT;
        }
        if (is_disabled(opcode)) {
            return SCRIPT_ERR_DISABLED_OPCODE; /* CVE-2010-5137: even when not executed */
        }
        if (opcode == OP_CODESEPARATOR && m->sigversion == SIGVERSION_BASE &&
            (m->flags & SCRIPT_VERIFY_CONST_SCRIPTCODE)) {
            return SCRIPT_ERR_OP_CODESEPARATOR;
        }

        if (fexec && opcode <= OP_PUSHDATA4) {
            if (m->require_minimal && !script_check_minimal_push(push, push_len, opcode)) {
                return SCRIPT_ERR_MINIMALDATA;
            }
            script_stack_push(m->stack, push, push_len);
        } else if (fexec || (OP_IF <= opcode && opcode <= OP_ENDIF)) {
            enum script_error e = exec_opcode(m, opcode, fexec);
            if (e != SCRIPT_ERR_OK) {
                return e;
            }
        }

        if (m->stack->n + m->alt.n > MAX_STACK_SIZE) {
            return SCRIPT_ERR_STACK_SIZE;
        }
    }
    if (m->vexec.size != 0) {
        return SCRIPT_ERR_UNBALANCED_CONDITIONAL;
    }
    return SCRIPT_ERR_OK;
}

int script_eval(struct script_stack *stack, const uint8_t *script, size_t len, uint32_t flags,
                const struct script_checker *chk, enum sig_version sigversion,
                struct script_execdata *ed, enum script_error *err)
{
    struct machine m = {
        .stack = stack,
        .vexec = {0, COND_NO_FALSE},
        .script = script,
        .len = len,
        .flags = flags,
        .require_minimal = (flags & SCRIPT_VERIFY_MINIMALDATA) != 0,
        .legacy = sigversion == SIGVERSION_BASE || sigversion == SIGVERSION_WITNESS_V0,
        .sigversion = sigversion,
        .chk = chk,
        .ed = ed,
    };
    script_stack_init(&m.alt);
    buf_init(&m.scratch);
    buf_init(&m.scratch2);
    *err = run(&m);
    script_stack_clear(&m.alt);
    buf_clear(&m.scratch);
    buf_clear(&m.scratch2);
    return *err == SCRIPT_ERR_OK;
}
