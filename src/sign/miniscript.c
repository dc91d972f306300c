/* See miniscript.h. The rules are Core's, fragment for fragment: ComputeType, CalcOps,
 * CalcStackSize, ComputeScriptLen (miniscript.cpp / miniscript.h there), DecodeScript's state
 * machine and ToString's wrapper letters. */
#include "sign/miniscript.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "script/script.h"
#include "util/hex.h"
#include "util/xmalloc.h"

#define MS_MAX_SCRIPT_SIZE 3600 /* MAX_STANDARD_P2WSH_SCRIPT_SIZE */
#define MS_MAX_OPS 201          /* MAX_OPS_PER_SCRIPT */
#define MS_MAX_STACK_ITEMS 100  /* MAX_STANDARD_P2WSH_STACK_ITEMS */
#define MS_MAX_MULTI_KEYS 20
#define SEQUENCE_LOCKTIME_TYPE_FLAG (1u << 22)
#define LOCKTIME_THRESHOLD 500000000u

enum frag {
    F_JUST_0, F_JUST_1, F_PK_K, F_PK_H, F_OLDER, F_AFTER, F_SHA256, F_HASH256, F_RIPEMD160,
    F_HASH160, F_WRAP_A, F_WRAP_S, F_WRAP_C, F_WRAP_D, F_WRAP_V, F_WRAP_J, F_WRAP_N, F_AND_V,
    F_AND_B, F_OR_B, F_OR_C, F_OR_D, F_OR_I, F_ANDOR, F_THRESH, F_MULTI,
};

/* ---- types: one bit per letter ---------------------------------------------------- */

static const char TYPE_LETTERS[] = "BVKWzondufesmxghijk";

static uint32_t T(const char *s)
{
    uint32_t m = 0;
    for (; *s; s++) {
        m |= 1u << (strchr(TYPE_LETTERS, *s) - TYPE_LETTERS);
    }
    return m;
}

/* "x << s": x has every property of s. */
static int has(uint32_t x, const char *s)
{
    uint32_t m = T(s);
    return (x & m) == m;
}

static uint32_t iff(uint32_t t, int cond)
{
    return cond ? t : 0;
}

/* ---- MaxInt and SatInfo ----------------------------------------------------------- */

struct maxint {
    int valid;
    uint32_t v;
};
static const struct maxint MI_NONE = {0, 0};
static struct maxint mi(uint32_t v)
{
    return (struct maxint){1, v};
}
static struct maxint mi_add(struct maxint a, struct maxint b)
{
    return a.valid && b.valid ? mi(a.v + b.v) : MI_NONE;
}
static struct maxint mi_or(struct maxint a, struct maxint b)
{
    if (!a.valid) {
        return b;
    }
    if (!b.valid) {
        return a;
    }
    return mi(a.v > b.v ? a.v : b.v);
}

struct satinfo {
    int valid;
    int32_t netdiff, exec;
};
static const struct satinfo SI_NONE = {0, 0, 0};
static struct satinfo si(int32_t netdiff, int32_t exec)
{
    return (struct satinfo){1, netdiff, exec};
}
static struct satinfo si_or(struct satinfo a, struct satinfo b)
{
    if (!a.valid) {
        return b;
    }
    if (!b.valid) {
        return a;
    }
    return si(a.netdiff > b.netdiff ? a.netdiff : b.netdiff, a.exec > b.exec ? a.exec : b.exec);
}
static struct satinfo si_add(struct satinfo a, struct satinfo b)
{
    if (!a.valid || !b.valid) {
        return SI_NONE;
    }
    int32_t e = b.netdiff + a.exec;
    return si(a.netdiff + b.netdiff, b.exec > e ? b.exec : e);
}
#define SI_PUSH si(-1, 0)
#define SI_ZERO si(0, 0)
#define SI_IF si(1, 1)
#define SI_BINOP si(1, 1)
#define SI_DUP si(-1, 0)
#define SI_EQUALVERIFY si(2, 2)
#define SI_EQUAL si(1, 1)
#define SI_SIZE si(-1, 0)
#define SI_CHECKSIG si(1, 1)
#define SI_VERIFY si(1, 1)

/* ---- nodes -------------------------------------------------------------------------- */

struct miniscript {
    enum frag frag;
    uint32_t k;
    uint8_t (*keys)[33];
    size_t n_keys;
    uint8_t data[32];
    size_t data_len;
    struct miniscript **subs;
    size_t n_subs;
    uint32_t type;
    size_t scriptlen;
    uint32_t ops_count;
    struct maxint ops_sat, ops_dsat;
    struct satinfo ss_sat, ss_dsat;
};

void miniscript_free(struct miniscript *m)
{
    if (!m) {
        return;
    }
    for (size_t i = 0; i < m->n_subs; i++) {
        miniscript_free(m->subs[i]);
    }
    free(m->subs);
    free(m->keys);
    free(m);
}

/* BuildScript(k).size(): the push of a number. */
static size_t num_size(int64_t k)
{
    struct buf b;
    buf_init(&b);
    script_push_int(&b, k);
    size_t n = b.len;
    buf_clear(&b);
    return n;
}

/* k=k_x*k_y*!(g_x*h_y + h_x*g_y + i_x*j_y + j_x*i_y) */
static uint32_t no_mix(uint32_t x, uint32_t y, int all_k)
{
    return iff(T("k"), all_k && !((has(x, "g") && has(y, "h")) || (has(x, "h") && has(y, "g")) ||
                                  (has(x, "i") && has(y, "j")) || (has(x, "j") && has(y, "i"))));
}

static uint32_t type_thresh(const struct miniscript *m)
{
    int all_e = 1, all_m = 1;
    uint32_t args = 0, num_s = 0, acc = T("k");
    for (size_t i = 0; i < m->n_subs; i++) {
        uint32_t t = m->subs[i]->type;
        if (!has(t, i ? "Wdu" : "Bdu")) {
            return 0;
        }
        all_e &= has(t, "e");
        all_m &= has(t, "m");
        num_s += has(t, "s");
        args += has(t, "z") ? 0 : has(t, "o") ? 1 : 2;
        int both_k = has(acc & t, "k");
        int mix = (has(acc, "g") && has(t, "h")) || (has(acc, "h") && has(t, "g")) ||
                  (has(acc, "i") && has(t, "j")) || (has(acc, "j") && has(t, "i"));
        acc = ((acc | t) & T("ghij")) | iff(T("k"), both_k && (m->k <= 1 || !mix));
    }
    uint32_t n = (uint32_t)m->n_subs;
    return T("Bdu") | iff(T("z"), args == 0) | iff(T("o"), args == 1) |
           iff(T("e"), all_e && num_s == n) | iff(T("m"), all_e && all_m && num_s + m->k >= n) |
           iff(T("s"), num_s + m->k >= n + 1) | acc;
}

/* Core's ComputeType for the wrappers. */
static uint32_t type_wrap(enum frag f, uint32_t x)
{
    switch (f) {
    case F_WRAP_A:
        return iff(T("W"), has(x, "B")) | (x & T("ghijk")) | (x & T("udfems")) | T("x");
    case F_WRAP_S:
        return iff(T("W"), has(x, "Bo")) | (x & T("ghijk")) | (x & T("udfemsx"));
    case F_WRAP_C:
        return iff(T("B"), has(x, "K")) | (x & T("ghijk")) | (x & T("ondfem")) | T("us");
    case F_WRAP_D:
        return iff(T("B"), has(x, "Vz")) | iff(T("o"), has(x, "z")) | iff(T("e"), has(x, "f")) |
               (x & T("ghijk")) | (x & T("ms")) | T("ndx");
    case F_WRAP_V:
        return iff(T("V"), has(x, "B")) | (x & T("ghijk")) | (x & T("zonms")) | T("fx");
    case F_WRAP_J:
        return iff(T("B"), has(x, "Bn")) | iff(T("e"), has(x, "f")) | (x & T("ghijk")) |
               (x & T("oums")) | T("ndx");
    case F_WRAP_N:
        return (x & T("ghijk")) | (x & T("Bzondfems")) | T("ux");
    default:
        return 0;
    }
}

/* Core's ComputeType for the combinators of two or three. */
static uint32_t type_combine(enum frag f, uint32_t x, uint32_t y, uint32_t z)
{
    switch (f) {
    case F_AND_V:
        return iff(y & T("KVB"), has(x, "V")) | (x & T("n")) | iff(y & T("n"), has(x, "z")) |
               iff((x | y) & T("o"), has(x | y, "z")) | (x & y & T("mz")) | ((x | y) & T("s")) |
               iff(T("f"), has(y, "f") || has(x, "s")) | (y & T("ux")) | ((x | y) & T("ghij")) |
               no_mix(x, y, has(x & y, "k"));
    case F_AND_B:
        return iff(x & T("B"), has(y, "W")) | iff((x | y) & T("o"), has(x | y, "z")) |
               (x & T("n")) | iff(y & T("n"), has(x, "z")) | iff(x & y & T("e"), has(x & y, "s")) |
               (x & y & T("dzm")) |
               iff(T("f"), has(x & y, "f") || has(x, "sf") || has(y, "sf")) | ((x | y) & T("s")) |
               T("ux") | ((x | y) & T("ghij")) | no_mix(x, y, has(x & y, "k"));
    case F_OR_B:
        return iff(T("B"), has(x, "Bd") && has(y, "Wd")) | iff((x | y) & T("o"), has(x | y, "z")) |
               iff(x & y & T("m"), has(x | y, "s") && has(x & y, "e")) | (x & y & T("zse")) |
               T("dux") | ((x | y) & T("ghij")) | (x & y & T("k"));
    case F_OR_D:
        return iff(y & T("B"), has(x, "Bdu")) | iff(x & T("o"), has(y, "z")) |
               iff(x & y & T("m"), has(x, "e") && has(x | y, "s")) | (x & y & T("zs")) |
               (y & T("ufde")) | T("x") | ((x | y) & T("ghij")) | (x & y & T("k"));
    case F_OR_C:
        return iff(y & T("V"), has(x, "Bdu")) | iff(x & T("o"), has(y, "z")) |
               iff(x & y & T("m"), has(x, "e") && has(x | y, "s")) | (x & y & T("zs")) | T("fx") |
               ((x | y) & T("ghij")) | (x & y & T("k"));
    case F_OR_I:
        return (x & y & T("VBKufs")) | iff(T("o"), has(x & y, "z")) |
               iff((x | y) & T("e"), has(x | y, "f")) | iff(x & y & T("m"), has(x | y, "s")) |
               ((x | y) & T("d")) | T("x") | ((x | y) & T("ghij")) | (x & y & T("k"));
    case F_ANDOR:
        return iff(y & z & T("BKV"), has(x, "Bdu")) | (x & y & z & T("z")) |
               iff((x | (y & z)) & T("o"), has(x | (y & z), "z")) | (y & z & T("u")) |
               iff(z & T("f"), has(x, "s") || has(y, "f")) | (z & T("d")) |
               iff(z & T("e"), has(x, "s") || has(y, "f")) |
               iff(x & y & z & T("m"), has(x, "e") && has(x | y | z, "s")) |
               (z & (x | y) & T("s")) | T("x") | ((x | y | z) & T("ghij")) |
               no_mix(x, y, has(x & y & z, "k"));
    default:
        return 0;
    }
}

/* Core's ComputeType, then SanitizeType's rule that a node has one of B, V, K, W. */
static uint32_t compute_type(const struct miniscript *m)
{
    uint32_t x = m->n_subs > 0 ? m->subs[0]->type : 0, y = m->n_subs > 1 ? m->subs[1]->type : 0;
    uint32_t z = m->n_subs > 2 ? m->subs[2]->type : 0, t;
    switch (m->frag) {
    case F_PK_K:
        t = T("Konudemsxk");
        break;
    case F_PK_H:
        t = T("Knudemsxk");
        break;
    case F_OLDER:
        t = iff(T("g"), m->k & SEQUENCE_LOCKTIME_TYPE_FLAG) |
            iff(T("h"), !(m->k & SEQUENCE_LOCKTIME_TYPE_FLAG)) | T("Bzfmxk");
        break;
    case F_AFTER:
        t = iff(T("i"), m->k >= LOCKTIME_THRESHOLD) | iff(T("j"), m->k < LOCKTIME_THRESHOLD) |
            T("Bzfmxk");
        break;
    case F_SHA256:
    case F_RIPEMD160:
    case F_HASH256:
    case F_HASH160:
        t = T("Bonudmk");
        break;
    case F_JUST_1:
        t = T("Bzufmxk");
        break;
    case F_JUST_0:
        t = T("Bzudemsxk");
        break;
    case F_MULTI:
        t = T("Bnudemsk");
        break;
    case F_THRESH:
        t = type_thresh(m);
        break;
    case F_WRAP_A:
    case F_WRAP_S:
    case F_WRAP_C:
    case F_WRAP_D:
    case F_WRAP_V:
    case F_WRAP_J:
    case F_WRAP_N:
        t = type_wrap(m->frag, x);
        break;
    default:
        t = type_combine(m->frag, x, y, z);
        break;
    }
    int kinds = has(t, "K") + has(t, "V") + has(t, "B") + has(t, "W");
    return kinds == 1 ? t : 0;
}

static size_t compute_len(const struct miniscript *m)
{
    size_t sub = 0;
    for (size_t i = 0; i < m->n_subs; i++) {
        sub += m->subs[i]->scriptlen;
    }
    switch (m->frag) {
    case F_JUST_1:
    case F_JUST_0:
        return 1;
    case F_PK_K:
        return 34;
    case F_PK_H:
        return 3 + 21;
    case F_OLDER:
    case F_AFTER:
        return 1 + num_size(m->k);
    case F_HASH256:
    case F_SHA256:
        return 4 + 2 + 33;
    case F_HASH160:
    case F_RIPEMD160:
        return 4 + 2 + 21;
    case F_MULTI:
        return 1 + num_size((int64_t)m->n_keys) + num_size(m->k) + 34 * m->n_keys;
    case F_AND_V:
        return sub;
    case F_WRAP_V:
        return sub + has(m->subs[0]->type, "x");
    case F_WRAP_S:
    case F_WRAP_C:
    case F_WRAP_N:
    case F_AND_B:
    case F_OR_B:
        return sub + 1;
    case F_WRAP_A:
    case F_OR_C:
        return sub + 2;
    case F_WRAP_D:
    case F_OR_D:
    case F_OR_I:
    case F_ANDOR:
        return sub + 3;
    case F_WRAP_J:
        return sub + 4;
    case F_THRESH:
        return sub + m->n_subs + num_size(m->k);
    }
    return 0;
}

/* Core's CalcOps: the static count, and the most executed ops of a satisfaction and of a
 * dissatisfaction. */
static void compute_ops(struct miniscript *m)
{
    const struct miniscript *x = m->n_subs > 0 ? m->subs[0] : NULL;
    const struct miniscript *y = m->n_subs > 1 ? m->subs[1] : NULL;
    const struct miniscript *z = m->n_subs > 2 ? m->subs[2] : NULL;
    uint32_t c = 0;
    struct maxint sat = MI_NONE, dsat = MI_NONE;
    switch (m->frag) {
    case F_JUST_1:
        sat = mi(0);
        break;
    case F_JUST_0:
        dsat = mi(0);
        break;
    case F_PK_K:
        sat = dsat = mi(0);
        break;
    case F_PK_H:
        c = 3, sat = dsat = mi(0);
        break;
    case F_OLDER:
    case F_AFTER:
        c = 1, sat = mi(0);
        break;
    case F_SHA256:
    case F_RIPEMD160:
    case F_HASH256:
    case F_HASH160:
        c = 4, sat = mi(0);
        break;
    case F_AND_V:
        c = x->ops_count + y->ops_count, sat = mi_add(x->ops_sat, y->ops_sat);
        break;
    case F_AND_B:
        c = 1 + x->ops_count + y->ops_count, sat = mi_add(x->ops_sat, y->ops_sat);
        dsat = mi_add(x->ops_dsat, y->ops_dsat);
        break;
    case F_OR_B:
        c = 1 + x->ops_count + y->ops_count;
        sat = mi_or(mi_add(x->ops_sat, y->ops_dsat), mi_add(y->ops_sat, x->ops_dsat));
        dsat = mi_add(x->ops_dsat, y->ops_dsat);
        break;
    case F_OR_D:
        c = 3 + x->ops_count + y->ops_count;
        sat = mi_or(x->ops_sat, mi_add(y->ops_sat, x->ops_dsat));
        dsat = mi_add(x->ops_dsat, y->ops_dsat);
        break;
    case F_OR_C:
        c = 2 + x->ops_count + y->ops_count;
        sat = mi_or(x->ops_sat, mi_add(y->ops_sat, x->ops_dsat));
        break;
    case F_OR_I:
        c = 3 + x->ops_count + y->ops_count;
        sat = mi_or(x->ops_sat, y->ops_sat), dsat = mi_or(x->ops_dsat, y->ops_dsat);
        break;
    case F_ANDOR:
        c = 3 + x->ops_count + y->ops_count + z->ops_count;
        sat = mi_or(mi_add(y->ops_sat, x->ops_sat), mi_add(x->ops_dsat, z->ops_sat));
        dsat = mi_add(x->ops_dsat, z->ops_dsat);
        break;
    case F_MULTI:
        c = 1, sat = dsat = mi((uint32_t)m->n_keys);
        break;
    case F_WRAP_S:
    case F_WRAP_C:
    case F_WRAP_N:
        c = 1 + x->ops_count, sat = x->ops_sat, dsat = x->ops_dsat;
        break;
    case F_WRAP_A:
        c = 2 + x->ops_count, sat = x->ops_sat, dsat = x->ops_dsat;
        break;
    case F_WRAP_D:
        c = 3 + x->ops_count, sat = x->ops_sat, dsat = mi(0);
        break;
    case F_WRAP_J:
        c = 4 + x->ops_count, sat = x->ops_sat, dsat = mi(0);
        break;
    case F_WRAP_V:
        c = x->ops_count + (uint32_t)has(x->type, "x"), sat = x->ops_sat;
        break;
    case F_THRESH: {
        struct maxint *sats = xmalloc((m->n_subs + 1) * sizeof(*sats));
        struct maxint *next = xmalloc((m->n_subs + 1) * sizeof(*next));
        size_t n = 1;
        sats[0] = mi(0);
        for (size_t i = 0; i < m->n_subs; i++) {
            const struct miniscript *s = m->subs[i];
            c += s->ops_count + 1;
            next[0] = mi_add(sats[0], s->ops_dsat);
            for (size_t j = 1; j < n; j++) {
                next[j] = mi_or(mi_add(sats[j], s->ops_dsat), mi_add(sats[j - 1], s->ops_sat));
            }
            next[n] = mi_add(sats[n - 1], s->ops_sat);
            n++;
            memcpy(sats, next, n * sizeof(*sats));
        }
        sat = sats[m->k], dsat = sats[0];
        free(sats);
        free(next);
        break;
    }
    }
    m->ops_count = c;
    m->ops_sat = sat;
    m->ops_dsat = dsat;
}

/* Core's CalcStackSize (SatInfo of a satisfaction and of a dissatisfaction). */
static void compute_ss(struct miniscript *m)
{
    const struct miniscript *x = m->n_subs > 0 ? m->subs[0] : NULL;
    const struct miniscript *y = m->n_subs > 1 ? m->subs[1] : NULL;
    const struct miniscript *z = m->n_subs > 2 ? m->subs[2] : NULL;
    struct satinfo sat = SI_NONE, dsat = SI_NONE;
    switch (m->frag) {
    case F_JUST_0:
        dsat = SI_PUSH;
        break;
    case F_JUST_1:
        sat = SI_PUSH;
        break;
    case F_OLDER:
    case F_AFTER:
        sat = si_add(SI_PUSH, SI_ZERO);
        break;
    case F_PK_K:
        sat = dsat = SI_PUSH;
        break;
    case F_PK_H:
        sat = dsat = si_add(si_add(si_add(SI_DUP, SI_ZERO), SI_PUSH), SI_EQUALVERIFY);
        break;
    case F_SHA256:
    case F_RIPEMD160:
    case F_HASH256:
    case F_HASH160:
        sat = si_add(si_add(si_add(si_add(si_add(SI_SIZE, SI_PUSH), SI_EQUALVERIFY), SI_ZERO),
                            SI_PUSH),
                     SI_EQUAL);
        break;
    case F_ANDOR:
        sat = si_or(si_add(si_add(x->ss_sat, SI_IF), y->ss_sat),
                    si_add(si_add(x->ss_dsat, SI_IF), z->ss_sat));
        dsat = si_add(si_add(x->ss_dsat, SI_IF), z->ss_dsat);
        break;
    case F_AND_V:
        sat = si_add(x->ss_sat, y->ss_sat);
        break;
    case F_AND_B:
        sat = si_add(si_add(x->ss_sat, y->ss_sat), SI_BINOP);
        dsat = si_add(si_add(x->ss_dsat, y->ss_dsat), SI_BINOP);
        break;
    case F_OR_B:
        sat = si_add(si_or(si_add(x->ss_sat, y->ss_dsat), si_add(x->ss_dsat, y->ss_sat)), SI_BINOP);
        dsat = si_add(si_add(x->ss_dsat, y->ss_dsat), SI_BINOP);
        break;
    case F_OR_C:
        sat = si_or(si_add(x->ss_sat, SI_IF), si_add(si_add(x->ss_dsat, SI_IF), y->ss_sat));
        break;
    case F_OR_D:
        sat = si_or(si_add(si_add(x->ss_sat, si(-1, 0)), SI_IF),
                    si_add(si_add(si_add(x->ss_dsat, si(0, 0)), SI_IF), y->ss_sat));
        dsat = si_add(si_add(si_add(x->ss_dsat, si(0, 0)), SI_IF), y->ss_dsat);
        break;
    case F_OR_I:
        sat = si_add(SI_IF, si_or(x->ss_sat, y->ss_sat));
        dsat = si_add(SI_IF, si_or(x->ss_dsat, y->ss_dsat));
        break;
    case F_MULTI:
        sat = dsat = si((int32_t)m->k, (int32_t)(m->k + m->n_keys + 2));
        break;
    case F_WRAP_A:
    case F_WRAP_N:
    case F_WRAP_S:
        sat = x->ss_sat, dsat = x->ss_dsat;
        break;
    case F_WRAP_C:
        sat = si_add(x->ss_sat, SI_CHECKSIG), dsat = si_add(x->ss_dsat, SI_CHECKSIG);
        break;
    case F_WRAP_D:
        sat = si_add(si_add(SI_DUP, SI_IF), x->ss_sat), dsat = si_add(SI_DUP, SI_IF);
        break;
    case F_WRAP_V:
        sat = si_add(x->ss_sat, SI_VERIFY);
        break;
    case F_WRAP_J:
        sat = si_add(si_add(si_add(SI_SIZE, SI_ZERO), SI_IF), x->ss_sat);
        dsat = si_add(si_add(SI_SIZE, SI_ZERO), SI_IF);
        break;
    case F_THRESH: {
        struct satinfo *sats = xmalloc((m->n_subs + 1) * sizeof(*sats));
        struct satinfo *next = xmalloc((m->n_subs + 1) * sizeof(*next));
        size_t n = 1;
        sats[0] = SI_ZERO;
        for (size_t i = 0; i < m->n_subs; i++) {
            const struct miniscript *s = m->subs[i];
            struct satinfo add = i ? SI_BINOP : SI_ZERO;
            next[0] = si_add(si_add(sats[0], s->ss_dsat), add);
            for (size_t j = 1; j < n; j++) {
                next[j] = si_add(si_or(si_add(sats[j], s->ss_dsat), si_add(sats[j - 1], s->ss_sat)),
                                 add);
            }
            next[n] = si_add(si_add(sats[n - 1], s->ss_sat), add);
            n++;
            memcpy(sats, next, n * sizeof(*sats));
        }
        sat = si_add(si_add(sats[m->k], SI_PUSH), SI_EQUAL);
        dsat = si_add(si_add(sats[0], SI_PUSH), SI_EQUAL);
        free(sats);
        free(next);
        break;
    }
    }
    m->ss_sat = sat;
    m->ss_dsat = dsat;
}

/* A new node of fragment f over subs (ownership passes), with its type, size, ops and
 * stack sizes computed as Core's Node constructor does. */
static struct miniscript *node_new(enum frag f, struct miniscript **subs, size_t n_subs,
                                   uint32_t k)
{
    struct miniscript *m = xcalloc(1, sizeof(*m));
    m->frag = f;
    m->k = k;
    if (n_subs) {
        m->subs = xmalloc(n_subs * sizeof(*m->subs));
        memcpy(m->subs, subs, n_subs * sizeof(*m->subs));
        m->n_subs = n_subs;
    }
    return m;
}

static void node_finish(struct miniscript *m)
{
    m->type = compute_type(m);
    m->scriptlen = compute_len(m);
    compute_ops(m);
    compute_ss(m);
}

static int node_valid(const struct miniscript *m)
{
    return m->type != 0 && m->scriptlen <= MS_MAX_SCRIPT_SIZE;
}

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
    node_finish(m);
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
    push_built(d, node_new(f, &sub, 1, 0));
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
    push_built(d, node_new(f, subs, 2, 0));
    return 0;
}

static struct miniscript *leaf(enum frag f, uint32_t k)
{
    return node_new(f, NULL, 0, k);
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
        push_built(d, node_new(F_ANDOR, subs, 3, 0));
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
        push_built(d, node_new(F_THRESH, subs, (size_t)t.n, (uint32_t)t.k));
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
        if (d.n_built > 0 && !node_valid(d.built[d.n_built - 1])) {
            rc = -1;
            break;
        }
        struct todo t = d.todo[--d.n_todo];
        rc = decode_step(&d, t);
    }
    if (rc == 0 && (d.n_built != 1 || d.pos != d.end || !node_valid(d.built[0]) ||
                    !has(d.built[0]->type, "B"))) {
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
    if (!node_valid(m) || !has(m->type, "B")) {
        return 0;
    }
    if (m->ops_sat.valid && m->ops_count + m->ops_sat.v > MS_MAX_OPS) {
        return 0;
    }
    if (m->ss_sat.valid && m->ss_sat.netdiff + 1 > MS_MAX_STACK_ITEMS) {
        return 0;
    }
    return has(m->type, "m") && has(m->type, "k") && has(m->type, "s") && !has_duplicate_key(m);
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

void miniscript_type(const struct miniscript *m, char out[20])
{
    size_t n = 0;
    for (size_t i = 0; TYPE_LETTERS[i]; i++) {
        if (m->type & (1u << i)) {
            out[n++] = TYPE_LETTERS[i];
        }
    }
    out[n] = 0;
}

void miniscript_limits(const struct miniscript *m, int *ops, int *stack)
{
    *ops = m->ops_sat.valid ? (int)(m->ops_count + m->ops_sat.v) : -1;
    *stack = m->ss_sat.valid ? m->ss_sat.netdiff + (has(m->type, "B") || has(m->type, "K") ||
                                                     has(m->type, "W"))
                             : -1;
}
