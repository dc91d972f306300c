/* See miniscript.h: Core's DecomposeScript and DecodeScript (the state machine reading a
 * script backwards), IsSane, and ToString's wrapper letters. The nodes' rules are in
 * miniscript_node.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "sign/miniscript.h"
#include "sign/miniscript_impl.h"
#include "util/hex.h"
#include "util/xmalloc.h"

#define MS_MAX_SCRIPT_SIZE 3600 /* MAX_STANDARD_P2WSH_SCRIPT_SIZE */
#define MS_MAX_OPS 201          /* MAX_OPS_PER_SCRIPT */
#define MS_MAX_STACK_ITEMS 100  /* MAX_STANDARD_P2WSH_STACK_ITEMS */
#define MS_MAX_MULTI_KEYS 20

/* ---- decoding (Core's DecomposeScript and DecodeScript) ------------------------------ */

struct tok {
    uint8_t op;
    const uint8_t *data; /* the pushed bytes, or for OP_1..OP_16 num */
    size_t len;
    uint8_t num; /* OP_1..OP_16's value (data points here) */
};

/* Core's DecomposeScript: the opcodes in reverse order, the VERIFY forms split in two, OP_n as
 * a one-byte push; fails on a bad or non-minimal push or an opcode followed by OP_VERIFY that
 * has a VERIFY form. *out: caller frees. */
static int decompose(const uint8_t *s, size_t len, struct tok **out, size_t *n_out)
{
    struct tok *v = xmalloc((2 * len + 1) * sizeof(*v));
    size_t n = 0, pc = 0;
    while (pc < len) {
        uint8_t op;
        const uint8_t *d = NULL;
        size_t dl = 0;
        if (!script_get_op(s, len, &pc, &op, &d, &dl)) {
            free(v);
            return -1;
        }
        struct tok t = {.op = op, .data = d, .len = dl};
        if (op >= OP_1 && op <= OP_16) {
            t.num = (uint8_t)script_decode_op_n(op);
            t.len = 1;
        } else if (op == OP_CHECKSIGVERIFY || op == OP_CHECKMULTISIGVERIFY || op == OP_EQUALVERIFY ||
                   op == OP_NUMEQUALVERIFY) {
            uint8_t base = op == OP_CHECKSIGVERIFY        ? OP_CHECKSIG
                           : op == OP_CHECKMULTISIGVERIFY ? OP_CHECKMULTISIG
                           : op == OP_EQUALVERIFY         ? OP_EQUAL
                                                          : OP_NUMEQUAL;
            v[n++] = (struct tok){.op = base};
            t = (struct tok){.op = OP_VERIFY};
        } else if (op <= OP_PUSHDATA4) {
            if (!script_check_minimal_push(d, dl, op)) {
                free(v);
                return -1;
            }
        } else if (pc < len && s[pc] == OP_VERIFY &&
                   (op == OP_CHECKSIG || op == OP_CHECKMULTISIG || op == OP_EQUAL ||
                    op == OP_NUMEQUAL)) {
            free(v);
            return -1;
        }
        v[n++] = t;
    }
    for (size_t i = 0; i < n / 2; i++) {
        struct tok t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    /* OP_n tokens point at their own value byte: fix the pointers after the moves. */
    for (size_t i = 0; i < n; i++) {
        if (v[i].op >= OP_1 && v[i].op <= OP_16) {
            v[i].data = &v[i].num;
        }
    }
    *out = v;
    *n_out = n;
    return 0;
}

/* Core's ParseScriptNumber: 1 with *out. */
static int tok_number(const struct tok *t, int64_t *out)
{
    if (t->op == OP_0) {
        *out = 0;
        return 1;
    }
    if (t->len == 0) {
        return 0;
    }
    if (t->op <= OP_PUSHDATA4 && !script_check_minimal_push(t->data, t->len, t->op)) {
        return 0;
    }
    return scriptnum_decode(out, t->data, t->len, 1, SCRIPTNUM_DEFAULT_MAX_SIZE);
}

enum dctx {
    D_SINGLE_BKV, D_BKV, D_W, D_MAYBE_AND_V, D_SWAP, D_ALT, D_CHECK, D_DUP_IF, D_VERIFY,
    D_NON_ZERO, D_ZERO_NOTEQUAL, D_AND_V, D_AND_B, D_OR_B, D_OR_C, D_OR_D, D_ANDOR, D_THRESH_W,
    D_THRESH_E, D_ENDIF, D_ENDIF_NOTIF, D_ENDIF_ELSE,
};

struct todo {
    enum dctx c;
    int64_t n, k;
};

struct decoder {
    const struct tok *in;
    size_t pos, end;
    struct todo *todo;
    size_t n_todo, cap_todo;
    struct miniscript **built;
    size_t n_built, cap_built;
    const struct miniscript_keys *keys;
};

static void push_todo(struct decoder *d, enum dctx c, int64_t n, int64_t k)
{
    if (d->n_todo == d->cap_todo) {
        d->cap_todo = d->cap_todo ? 2 * d->cap_todo : 32;
        d->todo = xrealloc(d->todo, d->cap_todo * sizeof(*d->todo));
    }
    d->todo[d->n_todo++] = (struct todo){c, n, k};
}

static void push_built(struct decoder *d, struct miniscript *m)
{
    miniscript_node_finish(m);
    if (d->n_built == d->cap_built) {
        d->cap_built = d->cap_built ? 2 * d->cap_built : 32;
        d->built = xrealloc(d->built, d->cap_built * sizeof(*d->built));
    }
    d->built[d->n_built++] = m;
}

static size_t left(const struct decoder *d)
{
    return d->end - d->pos;
}

static const struct tok *at(const struct decoder *d, size_t i)
{
    return &d->in[d->pos + i];
}

/* Replaces the last node by wrapper f around it. */
static int wrap_back(struct decoder *d, enum frag f)
{
    if (d->n_built == 0) {
        return -1;
    }
    struct miniscript *sub = d->built[--d->n_built];
    push_built(d, miniscript_node_new(f, &sub, 1, 0));
    return 0;
}

/* Core's BuildBack(reverse=true): the last node and the one before it, last first. */
static int build_back(struct decoder *d, enum frag f)
{
    if (d->n_built < 2) {
        return -1;
    }
    struct miniscript *subs[2] = {d->built[d->n_built - 1], d->built[d->n_built - 2]};
    d->n_built -= 2;
    push_built(d, miniscript_node_new(f, subs, 2, 0));
    return 0;
}

static struct miniscript *leaf(enum frag f, uint32_t k)
{
    return miniscript_node_new(f, NULL, 0, k);
}

static struct miniscript *key_leaf(enum frag f, const uint8_t key33[33])
{
    struct miniscript *m = leaf(f, 0);
    m->keys = xmalloc(33);
    memcpy(m->keys[0], key33, 33);
    m->n_keys = 1;
    return m;
}

static int valid_key(const uint8_t *p, size_t n)
{
    return n == 33 && (p[0] == 2 || p[0] == 3);
}

/* The hash fragments: SIZE 32 EQUALVERIFY HASHOP <h> EQUAL (reversed). 1 decoded. */
static int decode_hash(struct decoder *d)
{
    int64_t num;
    if (left(d) < 7 || at(d, 0)->op != OP_EQUAL || at(d, 3)->op != OP_VERIFY ||
        at(d, 4)->op != OP_EQUAL || !tok_number(at(d, 5), &num) || num != 32 ||
        at(d, 6)->op != OP_SIZE) {
        return 0;
    }
    static const struct {
        uint8_t op;
        size_t len;
        enum frag f;
    } kinds[] = {{OP_SHA256, 32, F_SHA256},
                 {OP_RIPEMD160, 20, F_RIPEMD160},
                 {OP_HASH256, 32, F_HASH256},
                 {OP_HASH160, 20, F_HASH160}};
    for (size_t i = 0; i < 4; i++) {
        if (at(d, 2)->op == kinds[i].op && at(d, 1)->len == kinds[i].len &&
            at(d, 1)->op <= OP_PUSHDATA4) {
            struct miniscript *m = leaf(kinds[i].f, 0);
            memcpy(m->data, at(d, 1)->data, kinds[i].len);
            m->data_len = kinds[i].len;
            d->pos += 7;
            push_built(d, m);
            return 1;
        }
    }
    return 0;
}

/* multi: CHECKMULTISIG <n> <keys...> <k> (reversed). 1 decoded, 0 not this, -1 failure. */
static int decode_multi(struct decoder *d)
{
    int64_t n, k;
    if (left(d) < 3 || at(d, 0)->op != OP_CHECKMULTISIG) {
        return 0;
    }
    if (!tok_number(at(d, 1), &n) || (int64_t)left(d) < 3 + n || n < 1 ||
        n > MS_MAX_MULTI_KEYS) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!valid_key(at(d, 2 + (size_t)i)->data, at(d, 2 + (size_t)i)->len) ||
            at(d, 2 + (size_t)i)->op > OP_PUSHDATA4) {
            return -1;
        }
    }
    if (!tok_number(at(d, 2 + (size_t)n), &k) || k < 1 || k > n) {
        return -1;
    }
    struct miniscript *m = leaf(F_MULTI, (uint32_t)k);
    m->keys = xmalloc((size_t)n * 33);
    m->n_keys = (size_t)n;
    for (int64_t i = 0; i < n; i++) { /* the script's order: the reverse of the tokens' */
        memcpy(m->keys[i], at(d, 2 + (size_t)(n - 1 - i))->data, 33);
    }
    d->pos += 3 + (size_t)n;
    push_built(d, m);
    return 1;
}

/* Core's SINGLE_BKV_EXPR: 0, or -1 when the script is no miniscript. */
static int decode_single(struct decoder *d)
{
    if (left(d) == 0) {
        return -1;
    }
    const struct tok *t = at(d, 0);
    int64_t num;
    if (t->op == OP_1 || t->op == OP_0) {
        d->pos++;
        push_built(d, leaf(t->op == OP_1 ? F_JUST_1 : F_JUST_0, 0));
        return 0;
    }
    if (t->len == 33 || t->len == 32) {
        if (!valid_key(t->data, t->len)) {
            return -1;
        }
        d->pos++;
        push_built(d, key_leaf(F_PK_K, t->data));
        return 0;
    }
    if (left(d) >= 5 && t->op == OP_VERIFY && at(d, 1)->op == OP_EQUAL &&
        at(d, 3)->op == OP_HASH160 && at(d, 4)->op == OP_DUP && at(d, 2)->len == 20) {
        uint8_t key[33];
        if (!d->keys || !d->keys->from_hash ||
            d->keys->from_hash(d->keys->arg, at(d, 2)->data, key) != 0) {
            return -1;
        }
        d->pos += 5;
        push_built(d, key_leaf(F_PK_H, key));
        return 0;
    }
    if (left(d) >= 2 && (t->op == OP_CHECKSEQUENCEVERIFY || t->op == OP_CHECKLOCKTIMEVERIFY) &&
        tok_number(at(d, 1), &num)) {
        if (num < 1 || num > 0x7FFFFFFFL) {
            return -1;
        }
        d->pos += 2;
        push_built(d, leaf(t->op == OP_CHECKSEQUENCEVERIFY ? F_OLDER : F_AFTER, (uint32_t)num));
        return 0;
    }
    if (decode_hash(d)) {
        return 0;
    }
    int r = decode_multi(d);
    if (r != 0) {
        return r > 0 ? 0 : -1;
    }
    if (left(d) >= 4 && t->op == OP_NUMEQUAL) {
        return -1; /* multi_a: tapscript only */
    }
    switch (t->op) {
    case OP_CHECKSIG:
        d->pos++;
        push_todo(d, D_CHECK, -1, -1);
        push_todo(d, D_SINGLE_BKV, -1, -1);
        return 0;
    case OP_VERIFY:
        d->pos++;
        push_todo(d, D_VERIFY, -1, -1);
        push_todo(d, D_SINGLE_BKV, -1, -1);
        return 0;
    case OP_0NOTEQUAL:
        d->pos++;
        push_todo(d, D_ZERO_NOTEQUAL, -1, -1);
        push_todo(d, D_SINGLE_BKV, -1, -1);
        return 0;
    default:
        break;
    }
    if (left(d) >= 3 && t->op == OP_EQUAL && tok_number(at(d, 1), &num)) {
        if (num < 1) {
            return -1;
        }
        d->pos += 2;
        push_todo(d, D_THRESH_W, 0, num);
        return 0;
    }
    if (t->op == OP_ENDIF) {
        d->pos++;
        push_todo(d, D_ENDIF, -1, -1);
        push_todo(d, D_BKV, -1, -1);
        return 0;
    }
    if (t->op == OP_BOOLAND || t->op == OP_BOOLOR) {
        d->pos++;
        push_todo(d, t->op == OP_BOOLAND ? D_AND_B : D_OR_B, -1, -1);
        push_todo(d, D_SINGLE_BKV, -1, -1);
        push_todo(d, D_W, -1, -1);
        return 0;
    }
    return -1;
}

/* The contexts that combine what was built. 0, or -1 when the script is no miniscript. */
static int decode_step(struct decoder *d, struct todo t)
{
    switch (t.c) {
    case D_SINGLE_BKV:
        return decode_single(d);
    case D_BKV:
        push_todo(d, D_MAYBE_AND_V, -1, -1);
        push_todo(d, D_SINGLE_BKV, -1, -1);
        return 0;
    case D_W:
        if (left(d) == 0) {
            return -1;
        }
        if (at(d, 0)->op == OP_FROMALTSTACK) {
            d->pos++;
            push_todo(d, D_ALT, -1, -1);
        } else {
            push_todo(d, D_SWAP, -1, -1);
        }
        push_todo(d, D_BKV, -1, -1);
        return 0;
    case D_MAYBE_AND_V:
        if (left(d) > 0) {
            uint8_t op = at(d, 0)->op;
            if (op != OP_IF && op != OP_ELSE && op != OP_NOTIF && op != OP_TOALTSTACK &&
                op != OP_SWAP) {
                push_todo(d, D_AND_V, -1, -1);
                push_todo(d, D_BKV, -1, -1);
            }
        }
        return 0;
    case D_SWAP:
    case D_ALT:
        if (left(d) == 0 || at(d, 0)->op != (t.c == D_SWAP ? OP_SWAP : OP_TOALTSTACK)) {
            return -1;
        }
        d->pos++;
        return wrap_back(d, t.c == D_SWAP ? F_WRAP_S : F_WRAP_A);
    case D_CHECK:
        return wrap_back(d, F_WRAP_C);
    case D_DUP_IF:
        return wrap_back(d, F_WRAP_D);
    case D_VERIFY:
        return wrap_back(d, F_WRAP_V);
    case D_NON_ZERO:
        return wrap_back(d, F_WRAP_J);
    case D_ZERO_NOTEQUAL:
        return wrap_back(d, F_WRAP_N);
    case D_AND_V:
        return build_back(d, F_AND_V);
    case D_AND_B:
        return build_back(d, F_AND_B);
    case D_OR_B:
        return build_back(d, F_OR_B);
    case D_OR_C:
        return build_back(d, F_OR_C);
    case D_OR_D:
        return build_back(d, F_OR_D);
    case D_ANDOR: {
        if (d->n_built < 3) {
            return -1;
        }
        struct miniscript *l = d->built[d->n_built - 1], *r = d->built[d->n_built - 2];
        struct miniscript *mid = d->built[d->n_built - 3];
        struct miniscript *subs[3] = {l, mid, r};
        d->n_built -= 3;
        push_built(d, miniscript_node_new(F_ANDOR, subs, 3, 0));
        return 0;
    }
    case D_THRESH_W:
        if (left(d) == 0) {
            return -1;
        }
        if (at(d, 0)->op == OP_ADD) {
            d->pos++;
            push_todo(d, D_THRESH_W, t.n + 1, t.k);
            push_todo(d, D_W, -1, -1);
        } else {
            push_todo(d, D_THRESH_E, t.n + 1, t.k);
            push_todo(d, D_SINGLE_BKV, -1, -1);
        }
        return 0;
    case D_THRESH_E: {
        if (t.k < 1 || t.k > t.n || d->n_built < (size_t)t.n) {
            return -1;
        }
        struct miniscript **subs = xmalloc((size_t)t.n * sizeof(*subs));
        for (int64_t i = 0; i < t.n; i++) {
            subs[i] = d->built[--d->n_built];
        }
        push_built(d, miniscript_node_new(F_THRESH, subs, (size_t)t.n, (uint32_t)t.k));
        free(subs);
        return 0;
    }
    case D_ENDIF:
        if (left(d) == 0) {
            return -1;
        }
        if (at(d, 0)->op == OP_ELSE) {
            d->pos++;
            push_todo(d, D_ENDIF_ELSE, -1, -1);
            push_todo(d, D_BKV, -1, -1);
        } else if (at(d, 0)->op == OP_IF) {
            if (left(d) >= 2 && at(d, 1)->op == OP_DUP) {
                d->pos += 2;
                push_todo(d, D_DUP_IF, -1, -1);
            } else if (left(d) >= 3 && at(d, 1)->op == OP_0NOTEQUAL && at(d, 2)->op == OP_SIZE) {
                d->pos += 3;
                push_todo(d, D_NON_ZERO, -1, -1);
            } else {
                return -1;
            }
        } else if (at(d, 0)->op == OP_NOTIF) {
            d->pos++;
            push_todo(d, D_ENDIF_NOTIF, -1, -1);
        } else {
            return -1;
        }
        return 0;
    case D_ENDIF_NOTIF:
        if (left(d) == 0) {
            return -1;
        }
        if (at(d, 0)->op == OP_IFDUP) {
            d->pos++;
            push_todo(d, D_OR_D, -1, -1);
        } else {
            push_todo(d, D_OR_C, -1, -1);
        }
        push_todo(d, D_SINGLE_BKV, -1, -1);
        return 0;
    case D_ENDIF_ELSE:
        if (left(d) == 0) {
            return -1;
        }
        if (at(d, 0)->op == OP_IF) {
            d->pos++;
            return build_back(d, F_OR_I);
        }
        if (at(d, 0)->op == OP_NOTIF) {
            d->pos++;
            push_todo(d, D_ANDOR, -1, -1);
            push_todo(d, D_SINGLE_BKV, -1, -1);
            return 0;
        }
        return -1;
    }
    return -1;
}

/* Core's DuplicateKeyCheck: 1 if some key appears twice in the tree. */
static void collect_keys(const struct miniscript *m, const uint8_t (***v)[33], size_t *n,
                         size_t *cap)
{
    for (size_t i = 0; i < m->n_keys; i++) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *v = xrealloc(*v, *cap * sizeof(**v));
        }
        (*v)[(*n)++] = (const uint8_t(*)[33])m->keys[i];
    }
    for (size_t i = 0; i < m->n_subs; i++) {
        collect_keys(m->subs[i], v, n, cap);
    }
}

static int has_duplicate_key(const struct miniscript *m)
{
    const uint8_t(**v)[33] = NULL;
    size_t n = 0, cap = 0;
    collect_keys(m, &v, &n, &cap);
    int dup = 0;
    for (size_t i = 0; i < n && !dup; i++) {
        for (size_t j = i + 1; j < n && !dup; j++) {
            dup = memcmp(*v[i], *v[j], 33) == 0;
        }
    }
    free(v);
    return dup;
}

int miniscript_from_script(struct miniscript **out, const uint8_t *script, size_t len,
                           const struct miniscript_keys *keys)
{
    *out = NULL;
    struct tok *toks = NULL;
    size_t n_toks = 0;
    if (len > MS_MAX_SCRIPT_SIZE || decompose(script, len, &toks, &n_toks) != 0) {
        return -1;
    }
    struct decoder d = {.in = toks, .end = n_toks, .keys = keys};
    int rc = 0;
    push_todo(&d, D_BKV, -1, -1);
    while (d.n_todo > 0 && rc == 0) {
        if (d.n_built > 0 && !miniscript_node_valid(d.built[d.n_built - 1])) {
            rc = -1;
            break;
        }
        struct todo t = d.todo[--d.n_todo];
        rc = decode_step(&d, t);
    }
    if (rc == 0 && (d.n_built != 1 || d.pos != d.end || !miniscript_node_valid(d.built[0]) ||
                    !miniscript_type_has(d.built[0]->type, "B"))) {
        rc = -1;
    }
    if (rc == 0) {
        *out = d.built[0];
    } else {
        for (size_t i = 0; i < d.n_built; i++) {
            miniscript_free(d.built[i]);
        }
    }
    free(d.built);
    free(d.todo);
    free(toks);
    return rc;
}

int miniscript_is_sane(const struct miniscript *m)
{
    if (!miniscript_node_valid(m) || !miniscript_type_has(m->type, "B")) {
        return 0;
    }
    if (m->ops_sat.valid && m->ops_count + m->ops_sat.v > MS_MAX_OPS) {
        return 0;
    }
    if (m->ss_sat.valid && m->ss_sat.netdiff + 1 > MS_MAX_STACK_ITEMS) {
        return 0;
    }
    return miniscript_type_has(m->type, "m") && miniscript_type_has(m->type, "k") && miniscript_type_has(m->type, "s") && !has_duplicate_key(m);
}

/* ---- printing (Core's ToString) ------------------------------------------------------- */

static void put(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

static int is_wrapper(const struct miniscript *m)
{
    switch (m->frag) {
    case F_WRAP_A:
    case F_WRAP_S:
    case F_WRAP_D:
    case F_WRAP_V:
    case F_WRAP_J:
    case F_WRAP_N:
    case F_WRAP_C:
        return 1;
    case F_AND_V:
        return m->subs[1]->frag == F_JUST_1;
    case F_OR_I:
        return m->subs[0]->frag == F_JUST_0 || m->subs[1]->frag == F_JUST_0;
    default:
        return 0;
    }
}

static void put_key(struct buf *out, const struct miniscript_keys *keys, const uint8_t key[33])
{
    if (keys && keys->put_key) {
        keys->put_key(keys->arg, out, key);
    } else {
        hex_append(out, key, 33);
    }
}

static void to_string(const struct miniscript *m, struct buf *out, const struct miniscript_keys *keys,
                      int wrapped);

static void put_subs(struct buf *out, const char *name, const struct miniscript *m,
                     const struct miniscript_keys *keys, int wrapped)
{
    if (wrapped) {
        put(out, ":");
    }
    put(out, name);
    put(out, "(");
    for (size_t i = 0; i < m->n_subs; i++) {
        if (i) {
            put(out, ",");
        }
        to_string(m->subs[i], out, keys, 0);
    }
    put(out, ")");
}

/* A wrapper letter (or t/l/u) and its subexpression; 1 if m was one. */
static int put_wrapper(const struct miniscript *m, struct buf *out,
                       const struct miniscript_keys *keys, int wrapped)
{
    static const char letters[] = {[F_WRAP_A] = 'a', [F_WRAP_S] = 's', [F_WRAP_D] = 'd',
                                   [F_WRAP_V] = 'v', [F_WRAP_J] = 'j', [F_WRAP_N] = 'n'};
    if (m->frag == F_WRAP_C) {
        const struct miniscript *s = m->subs[0];
        if (s->frag == F_PK_K || s->frag == F_PK_H) {
            put(out, wrapped ? ":" : "");
            put(out, s->frag == F_PK_K ? "pk(" : "pkh(");
            put_key(out, keys, s->keys[0]);
            put(out, ")");
            return 1;
        }
        buf_put_u8(out, 'c');
        to_string(s, out, keys, 1);
        return 1;
    }
    if (m->frag <= F_WRAP_N && m->frag >= F_WRAP_A && letters[m->frag]) {
        buf_put_u8(out, (uint8_t)letters[m->frag]);
        to_string(m->subs[0], out, keys, 1);
        return 1;
    }
    if (m->frag == F_AND_V && m->subs[1]->frag == F_JUST_1) {
        buf_put_u8(out, 't');
        to_string(m->subs[0], out, keys, 1);
        return 1;
    }
    if (m->frag == F_OR_I && m->subs[0]->frag == F_JUST_0) {
        buf_put_u8(out, 'l');
        to_string(m->subs[1], out, keys, 1);
        return 1;
    }
    if (m->frag == F_OR_I && m->subs[1]->frag == F_JUST_0) {
        buf_put_u8(out, 'u');
        to_string(m->subs[0], out, keys, 1);
        return 1;
    }
    return 0;
}

static void to_string(const struct miniscript *m, struct buf *out, const struct miniscript_keys *keys,
                      int wrapped)
{
    if (is_wrapper(m) && put_wrapper(m, out, keys, wrapped)) {
        return;
    }
    static const char *const names[] = {
        [F_AND_V] = "and_v", [F_AND_B] = "and_b", [F_OR_B] = "or_b", [F_OR_D] = "or_d",
        [F_OR_C] = "or_c",   [F_OR_I] = "or_i",   [F_ANDOR] = "andor"};
    static const char *const hashes[] = {[F_SHA256] = "sha256", [F_HASH256] = "hash256",
                                         [F_RIPEMD160] = "ripemd160", [F_HASH160] = "hash160"};
    char num[32];
    switch (m->frag) {
    case F_PK_K:
    case F_PK_H:
        put(out, wrapped ? ":" : "");
        put(out, m->frag == F_PK_K ? "pk_k(" : "pk_h(");
        put_key(out, keys, m->keys[0]);
        put(out, ")");
        return;
    case F_AFTER:
    case F_OLDER:
        snprintf(num, sizeof(num), "%s%s(%u)", wrapped ? ":" : "",
                 m->frag == F_AFTER ? "after" : "older", m->k);
        put(out, num);
        return;
    case F_SHA256:
    case F_HASH256:
    case F_RIPEMD160:
    case F_HASH160:
        put(out, wrapped ? ":" : "");
        put(out, hashes[m->frag]);
        put(out, "(");
        hex_append(out, m->data, m->data_len);
        put(out, ")");
        return;
    case F_JUST_1:
    case F_JUST_0:
        put(out, wrapped ? ":" : "");
        put(out, m->frag == F_JUST_1 ? "1" : "0");
        return;
    case F_ANDOR:
        if (m->subs[2]->frag == F_JUST_0) {
            put(out, wrapped ? ":" : "");
            put(out, "and_n(");
            to_string(m->subs[0], out, keys, 0);
            put(out, ",");
            to_string(m->subs[1], out, keys, 0);
            put(out, ")");
            return;
        }
        put_subs(out, names[m->frag], m, keys, wrapped);
        return;
    case F_MULTI:
    case F_THRESH:
        snprintf(num, sizeof(num), "%s%s(%u", wrapped ? ":" : "",
                 m->frag == F_MULTI ? "multi" : "thresh", m->k);
        put(out, num);
        for (size_t i = 0; i < (m->frag == F_MULTI ? m->n_keys : m->n_subs); i++) {
            put(out, ",");
            if (m->frag == F_MULTI) {
                put_key(out, keys, m->keys[i]);
            } else {
                to_string(m->subs[i], out, keys, 0);
            }
        }
        put(out, ")");
        return;
    default:
        put_subs(out, names[m->frag], m, keys, wrapped);
        return;
    }
}

void miniscript_to_string(const struct miniscript *m, struct buf *out,
                          const struct miniscript_keys *keys)
{
    to_string(m, out, keys, 0);
}
