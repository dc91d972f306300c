/* Miniscript nodes: Core's ComputeType, ComputeScriptLen, CalcOps and CalcStackSize,
 * fragment for fragment (script/miniscript.cpp and miniscript.h there). See
 * miniscript_impl.h. */
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "sign/miniscript_impl.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define MS_MAX_SCRIPT_SIZE 3600 /* MAX_STANDARD_P2WSH_SCRIPT_SIZE */
#define SEQUENCE_LOCKTIME_TYPE_FLAG (1u << 22)
#define LOCKTIME_THRESHOLD 500000000u

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

struct miniscript *miniscript_node_new(enum frag f, struct miniscript **subs, size_t n_subs,
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

void miniscript_node_finish(struct miniscript *m)
{
    m->type = compute_type(m);
    m->scriptlen = compute_len(m);
    compute_ops(m);
    compute_ss(m);
}

int miniscript_node_valid(const struct miniscript *m)
{
    return m->type != 0 && m->scriptlen <= MS_MAX_SCRIPT_SIZE;
}


int miniscript_type_has(uint32_t x, const char *s)
{
    return has(x, s);
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
