/* PSBTs: see psbt.h. Parsing mirrors Core's Unserialize methods check for check (the same
 * messages, in the same order), serialization Core's Serialize (each map's records in the
 * order of Core's std::map keys). */
#include "sign/psbt.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secp256k1.h>

#include "consensus/amount.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sigcheck.h"
#include "script/sigops.h"
#include "script/solver.h"
#include "util/base64.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- records ------------------------------------------------------------------------- */

static void map_add(struct psbt_map *m, const uint8_t *k, size_t kn, const uint8_t *v, size_t vn)
{
    m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
    struct psbt_kv *e = &m->v[m->n++];
    memset(e, 0, sizeof(*e));
    sign_bytes_set(&e->key, k, kn);
    sign_bytes_set(&e->value, v, vn);
}

static void map_clear(struct psbt_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key.data);
        free(m->v[i].value.data);
    }
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

static void map_copy(struct psbt_map *dst, const struct psbt_map *src)
{
    memset(dst, 0, sizeof(*dst));
    for (size_t i = 0; i < src->n; i++) {
        map_add(dst, src->v[i].key.data, src->v[i].key.len, src->v[i].value.data,
                src->v[i].value.len);
    }
}

static const struct psbt_kv *map_find(const struct psbt_map *m, const uint8_t *k, size_t kn)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].key.len == kn && memcmp(m->v[i].key.data, k, kn) == 0) {
            return &m->v[i];
        }
    }
    return NULL;
}

static void witness_free(struct bytes *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(w[i].data);
    }
    free(w);
}

static struct bytes *witness_dup(const struct bytes *w, size_t n)
{
    if (!n) {
        return NULL;
    }
    struct bytes *r = xcalloc(n, sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        sign_bytes_set(&r[i], w[i].data, w[i].len);
    }
    return r;
}

static void input_clear(struct psbt_input *in)
{
    if (in->non_witness_utxo) {
        tx_clear(in->non_witness_utxo);
        free(in->non_witness_utxo);
    }
    free(in->witness_utxo.script_pubkey.data);
    free(in->redeem_script.data);
    free(in->witness_script.data);
    free(in->final_script_sig.data);
    witness_free(in->final_witness, in->final_witness_count);
    free(in->tap_key_sig.data);
    map_clear(&in->fields);
    memset(in, 0, sizeof(*in));
}

static void output_clear(struct psbt_output *o)
{
    free(o->script.data);
    free(o->redeem_script.data);
    free(o->witness_script.data);
    map_clear(&o->fields);
    memset(o, 0, sizeof(*o));
}

void psbt_init(struct psbt *p)
{
    memset(p, 0, sizeof(*p));
}

void psbt_clear(struct psbt *p)
{
    for (size_t i = 0; i < p->n_inputs; i++) {
        input_clear(&p->inputs[i]);
    }
    for (size_t i = 0; i < p->n_outputs; i++) {
        output_clear(&p->outputs[i]);
    }
    free(p->inputs);
    free(p->outputs);
    map_clear(&p->fields);
    memset(p, 0, sizeof(*p));
}

static void bytes_copy(struct bytes *dst, const struct bytes *src)
{
    dst->data = NULL;
    dst->len = 0;
    sign_bytes_set(dst, src->data, src->len);
}

static void input_copy(struct psbt_input *d, const struct psbt_input *s)
{
    *d = *s;
    if (s->non_witness_utxo) {
        d->non_witness_utxo = xmalloc(sizeof(struct tx));
        tx_copy(d->non_witness_utxo, s->non_witness_utxo);
    }
    bytes_copy(&d->witness_utxo.script_pubkey, &s->witness_utxo.script_pubkey);
    bytes_copy(&d->redeem_script, &s->redeem_script);
    bytes_copy(&d->witness_script, &s->witness_script);
    bytes_copy(&d->final_script_sig, &s->final_script_sig);
    d->final_witness = witness_dup(s->final_witness, s->final_witness_count);
    bytes_copy(&d->tap_key_sig, &s->tap_key_sig);
    map_copy(&d->fields, &s->fields);
}

static void output_copy(struct psbt_output *d, const struct psbt_output *s)
{
    *d = *s;
    bytes_copy(&d->script, &s->script);
    bytes_copy(&d->redeem_script, &s->redeem_script);
    bytes_copy(&d->witness_script, &s->witness_script);
    map_copy(&d->fields, &s->fields);
}

void psbt_copy(struct psbt *dst, const struct psbt *src)
{
    *dst = *src;
    dst->inputs = xcalloc(src->n_inputs ? src->n_inputs : 1, sizeof(*dst->inputs));
    dst->outputs = xcalloc(src->n_outputs ? src->n_outputs : 1, sizeof(*dst->outputs));
    for (size_t i = 0; i < src->n_inputs; i++) {
        input_copy(&dst->inputs[i], &src->inputs[i]);
    }
    for (size_t i = 0; i < src->n_outputs; i++) {
        output_copy(&dst->outputs[i], &src->outputs[i]);
    }
    map_copy(&dst->fields, &src->fields);
}

void psbt_from_tx(struct psbt *p, const struct tx *tx, uint32_t version)
{
    psbt_init(p);
    p->version = version;
    p->tx_version = (uint32_t)tx->version;
    p->has_fallback_locktime = 1;
    p->fallback_locktime = tx->locktime;
    p->n_inputs = tx->vin_count;
    p->n_outputs = tx->vout_count;
    p->inputs = xcalloc(tx->vin_count ? tx->vin_count : 1, sizeof(*p->inputs));
    p->outputs = xcalloc(tx->vout_count ? tx->vout_count : 1, sizeof(*p->outputs));
    for (size_t i = 0; i < tx->vin_count; i++) {
        p->inputs[i].prevout = tx->vin[i].prevout;
        p->inputs[i].has_sequence = 1;
        p->inputs[i].sequence = tx->vin[i].sequence;
    }
    for (size_t i = 0; i < tx->vout_count; i++) {
        p->outputs[i].amount = tx->vout[i].value_sat;
        bytes_copy(&p->outputs[i].script, &tx->vout[i].script_pubkey);
    }
}

/* ---- parsing ------------------------------------------------------------------------- */

/* The stream being parsed; on the first failure the message is kept and every read fails. */
struct rd {
    const uint8_t *p;
    size_t len, pos;
    char *err;
    size_t err_len;
    int failed;
};

/* A failure Core reports through an exception (std::ios_base::failure, whose what() has
 * libstdc++'s ": iostream error" appended). */
__attribute__((format(printf, 2, 3))) static int fail(struct rd *r, const char *fmt, ...)
{
    if (!r->failed) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(r->err, r->err_len, "%s: iostream error", msg);
        r->failed = 1;
    }
    return -1;
}

static int rd_bytes(struct rd *r, const uint8_t **out, size_t n)
{
    *out = NULL; /* not r->p + r->pos: p is NULL for an empty input, and NULL + 0 is undefined */
    if (r->failed) {
        return -1;
    }
    if (r->len - r->pos < n) {
        return fail(r, "SpanReader::read(): end of data");
    }
    *out = n ? r->p + r->pos : r->p;
    r->pos += n;
    return 0;
}

static int rd_compact(struct rd *r, uint64_t *v)
{
    const uint8_t *b;
    if (rd_bytes(r, &b, 1)) {
        return -1;
    }
    if (b[0] < 253) {
        *v = b[0];
        return 0;
    }
    size_t n = b[0] == 253 ? 2 : b[0] == 254 ? 4 : 8;
    if (rd_bytes(r, &b, n)) {
        return -1;
    }
    uint64_t x = n == 2 ? rd_u16le(b) : n == 4 ? rd_u32le(b) : rd_u64le(b);
    uint64_t min = n == 2 ? 253 : n == 4 ? 0x10000 : 0x100000000ull;
    if (x < min) {
        return fail(r, "non-canonical ReadCompactSize()");
    }
    if (x > SER_MAX_SIZE) {
        return fail(r, "ReadCompactSize(): size too large");
    }
    *v = x;
    return 0;
}

static int rd_vec(struct rd *r, const uint8_t **out, size_t *n)
{
    uint64_t l;
    if (rd_compact(r, &l)) {
        return -1;
    }
    *n = (size_t)l;
    return rd_bytes(r, out, (size_t)l);
}

/* A reader over bytes inside a key (Core's SpanReader skey). */
static void rd_sub(struct rd *sub, const struct rd *parent, const uint8_t *p, size_t n)
{
    sub->p = p;
    sub->len = n;
    sub->pos = 0;
    sub->err = parent->err;
    sub->err_len = parent->err_len;
    sub->failed = 0;
}

/* Core's UnserializeFromVector for a fixed-size value: the object is read from the stream,
 * then the stated length must be what it took. */
static int rd_fixed(struct rd *r, const uint8_t **out, size_t fixed)
{
    uint64_t l;
    if (rd_compact(r, &l) || rd_bytes(r, out, fixed)) {
        return -1;
    }
    if (l != fixed) {
        return fail(r, "Size of value was not the stated size");
    }
    return 0;
}

static int expect_key_size(struct rd *r, const char *name, size_t key_len, size_t expected)
{
    if (key_len != expected) {
        return fail(r, "Size of key was not %zu for the type %s", expected, name);
    }
    return 0;
}

/* CPubKey::IsFullyValid. */
static int pubkey_valid(const uint8_t *k, size_t n)
{
    if (n == 0) {
        return 0;
    }
    size_t want = (k[0] == 2 || k[0] == 3) ? 33 : (k[0] == 4 || k[0] == 6 || k[0] == 7) ? 65 : 0;
    secp256k1_pubkey pk;
    return want && n == want && secp256k1_ec_pubkey_parse(script_secp_ctx(), &pk, k, n);
}

/* A transaction read from the stream inside a value (UnserializeFromVector). */
static int rd_tx(struct rd *r, struct tx **out, int allow_witness)
{
    uint64_t l;
    if (rd_compact(r, &l)) {
        return -1;
    }
    struct reader tr;
    reader_init(&tr, r->p + r->pos, r->len - r->pos);
    struct tx *tx = xmalloc(sizeof(*tx));
    int rc = tx_parse(tx, &tr, allow_witness);
    if (rc != RC_OK) {
        free(tx);
        if (rc == RC_TRUNCATED) {
            return fail(r, "SpanReader::read(): end of data");
        }
        if (rc == RC_NONCANONICAL) {
            return fail(r, "non-canonical ReadCompactSize()");
        }
        if (rc == RC_TOO_LARGE) {
            return fail(r, "ReadCompactSize(): size too large");
        }
        if (strstr(tr.err, "superfluous")) {
            return fail(r, "Superfluous witness record");
        }
        return fail(r, "Unknown transaction optional data");
    }
    r->pos += tr.pos;
    if (tr.pos != l) {
        tx_clear(tx);
        free(tx);
        return fail(r, "Size of value was not the stated size");
    }
    *out = tx;
    return 0;
}

/* Core's DeserializeKeyOrigin for length bytes. */
static int rd_origin(struct rd *r, uint64_t length)
{
    const uint8_t *b;
    if (length % 4 || length == 0) {
        return fail(r, "Invalid length for HD key path");
    }
    return rd_bytes(r, &b, (size_t)length);
}

/* A BIP32 derivation value (DeserializeHDKeypath: the value's length is the key origin's);
 * appends the origin (fingerprint and path). */
static int rd_keypath(struct rd *r, struct buf *val)
{
    uint64_t l;
    if (rd_compact(r, &l)) {
        return -1;
    }
    size_t start = r->pos;
    if (rd_origin(r, l)) {
        return -1;
    }
    buf_append(val, r->p + start, r->pos - start);
    return 0;
}

static int cmp_hash32(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

/* A taproot BIP32 derivation value: leaf hashes (a set: sorted, duplicates dropped) and a
 * key origin. Appends the normalized value, its length prefix included. */
static int rd_tap_keypath(struct rd *r, struct buf *val, const char *what)
{
    uint64_t value_len, count;
    if (rd_compact(r, &value_len)) {
        return -1;
    }
    size_t before = r->pos;
    if (rd_compact(r, &count)) {
        return -1;
    }
    uint8_t *hashes = xmalloc(count ? (size_t)count * 32 : 1);
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *h;
        if (rd_bytes(r, &h, 32)) {
            free(hashes);
            return -1;
        }
        memcpy(hashes + i * 32, h, 32);
    }
    size_t hashes_len = r->pos - before;
    if (hashes_len > value_len) {
        free(hashes);
        return fail(r, "%s Taproot BIP32 keypath has an invalid length", what);
    }
    size_t origin_start = r->pos;
    if (rd_origin(r, value_len - hashes_len)) {
        free(hashes);
        return -1;
    }
    qsort(hashes, (size_t)count, 32, cmp_hash32);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (n == 0 || memcmp(hashes + (n - 1) * 32, hashes + i * 32, 32) != 0) {
            memmove(hashes + n * 32, hashes + i * 32, 32);
            n++;
        }
    }
    struct buf inner;
    buf_init(&inner);
    ser_put_compact(&inner, n);
    buf_append(&inner, hashes, n * 32);
    buf_append(&inner, r->p + origin_start, r->pos - origin_start);
    ser_put_varbytes(val, inner.data, inner.len);
    buf_clear(&inner);
    free(hashes);
    return 0;
}

static int rd_musig_participants(struct rd *r, const uint8_t *agg, const char *what)
{
    const uint8_t *v;
    size_t n;
    if (!pubkey_valid(agg, 33)) {
        return fail(r, "%s musig2 aggregate pubkey is invalid", what);
    }
    if (rd_vec(r, &v, &n)) {
        return -1;
    }
    size_t i = 0;
    for (; n - i >= 33; i += 33) {
        if (!pubkey_valid(v + i, 33)) {
            return fail(r, "%s musig2 participant pubkey is invalid", what);
        }
    }
    if (i != n) {
        return fail(r, "%s musig2 participants pubkeys value size is not a multiple of 33", what);
    }
    return 0;
}

/* Core's DeserializeMuSig2ParticipantDataIdentifier: participant, aggregate, leaf hash. */
static int rd_musig_ids(struct rd *r, const uint8_t *kd)
{
    if (!pubkey_valid(kd + 33, 33)) {
        return fail(r, "musig2 aggregate pubkey is invalid");
    }
    if (!pubkey_valid(kd, 33)) {
        return fail(r, "musig2 participant pubkey is invalid");
    }
    return 0;
}

/* Reads one record's key. Returns 1 with the key (type and data), 0 at the separator, -1. */
static int rd_key(struct rd *r, const uint8_t **key, size_t *key_len, uint64_t *type,
                  const uint8_t **kd, size_t *kd_len)
{
    if (rd_vec(r, key, key_len)) {
        return -1;
    }
    if (*key_len == 0) {
        return 0;
    }
    struct rd sk;
    rd_sub(&sk, r, *key, *key_len);
    if (rd_compact(&sk, type)) {
        r->failed = 1;
        return -1;
    }
    *kd = *key + sk.pos;
    *kd_len = *key_len - sk.pos;
    return 1;
}

static int dup_key(struct rd *r, struct psbt_map *seen, const uint8_t *key, size_t n,
                   const char *what)
{
    if (map_find(seen, key, n)) {
        char *hx = hex_encode_alloc(key, n);
        fail(r, "Duplicate Key, %s key \"%s\" already provided", what, hx);
        free(hx);
        return -1;
    }
    map_add(seen, key, n, NULL, 0);
    return 0;
}

/* A proprietary key: identifier (a vector) and subtype inside the key data. */
static int rd_proprietary(struct rd *r, const uint8_t *kd, size_t kd_len)
{
    struct rd sk;
    const uint8_t *id;
    size_t id_len;
    uint64_t subtype;
    rd_sub(&sk, r, kd, kd_len);
    if (rd_vec(&sk, &id, &id_len) || rd_compact(&sk, &subtype)) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

/* Reads a plain vector value and keeps the record in m. */
static int keep_vec(struct rd *r, struct psbt_map *m, const uint8_t *key, size_t key_len)
{
    const uint8_t *v;
    size_t n;
    if (rd_vec(r, &v, &n)) {
        return -1;
    }
    map_add(m, key, key_len, v, n);
    return 0;
}

/* ---- the maps' key tables ------------------------------------------------------------ */

/* One record as the map reader hands it to a value reader. */
struct rec {
    const uint8_t *key; /* the whole key: type and key data */
    size_t key_len;
    const uint8_t *kd; /* the key data, after the type */
    size_t kd_len;
    uint64_t type;
};

struct map_rd;
struct key_rule;

/* Reads a record's value (and checks what of its key the table could not). Returns 0, or -1
 * with the stream failed. */
typedef int (*value_read_fn)(struct map_rd *m, const struct key_rule *rule, const struct rec *k);

/* What a map knows of one key type. Core checks a known record in this order: the key's
 * size, then whether the PSBT's version allows the field, then the value. */
struct key_rule {
    uint64_t type;
    size_t key_len;      /* the exact key size, type included; 0: the reader checks it */
    const char *name;    /* in "Size of key was not %zu for the type %s" */
    const char *v2_only; /* in "%s is not allowed in PSBTv0"; NULL: allowed in every version */
    value_read_fn read;
    /* For the generic readers: where the field is in the map's struct, and its "present"
     * flag (0: none; no such flag is a struct's first member). */
    size_t off;
    size_t has_off;
};

/* A kind of map: its key table and how Core names it in messages. */
struct map_spec {
    const struct key_rule *rules;
    size_t n_rules;
    const char *what;   /* in "Duplicate Key, %s key \"...\" already provided" */
    const char *title;  /* in the value messages inputs and outputs share */
    const char *no_sep; /* when the stream ends before the map's separator */
    /* The fields a PSBTv2 map must have, checked in this order after its separator (the
     * global map's, which depend on more than the map, are parse_global's). */
    struct {
        uint64_t type;
        const char *missing;
    } v2_required[2];
};

/* One map being read. */
struct map_rd {
    struct rd *r;
    const struct map_spec *spec;
    uint32_t version;        /* the PSBT's version, for the v2-only fields */
    void *obj;               /* the psbt_input, psbt_output or psbt the offsets are in */
    struct psbt_map *fields; /* where records without a typed field are kept */
    struct tx **utx;         /* global map: the unsigned transaction */
    uint64_t *n_in, *n_out;  /* global map: the input and output counts */
};

#define TYPE_BIT(t) ((uint64_t)1 << (t))

static void *field_at(struct map_rd *m, size_t off)
{
    return (char *)m->obj + off;
}

static void set_present(struct map_rd *m, const struct key_rule *rule, int present)
{
    if (rule->has_off) {
        *(int *)field_at(m, rule->has_off) = present;
    }
}

/* A 4-byte little-endian value into a uint32_t field. */
static int read_u32(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    const uint8_t *v;
    (void)k;
    if (rd_fixed(m->r, &v, 4)) {
        return -1;
    }
    set_present(m, rule, 1);
    *(uint32_t *)field_at(m, rule->off) = rd_u32le(v);
    return 0;
}

/* A 32-byte value into a field; its flag says whether it is other than all zeros. */
static int read_hash32(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    static const uint8_t zero[32];
    const uint8_t *v;
    (void)k;
    if (rd_fixed(m->r, &v, 32)) {
        return -1;
    }
    memcpy(field_at(m, rule->off), v, 32);
    set_present(m, rule, memcmp(v, zero, 32) != 0);
    return 0;
}

/* A vector value into a struct bytes field. */
static int read_script(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    const uint8_t *v;
    size_t n;
    (void)k;
    if (rd_vec(m->r, &v, &n)) {
        return -1;
    }
    sign_bytes_set(field_at(m, rule->off), v, n);
    return 0;
}

/* A vector value kept as a record (preimages, and types Core does not know). */
static int read_keep(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    (void)rule;
    return keep_vec(m->r, m->fields, k->key, k->key_len);
}

static int read_proprietary(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    (void)rule;
    if (rd_proprietary(m->r, k->kd, k->kd_len)) {
        return -1;
    }
    return keep_vec(m->r, m->fields, k->key, k->key_len);
}

/* A BIP32 derivation: the key is a compressed or uncompressed pubkey. */
static int read_keypath(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    (void)rule;
    if (k->key_len != 66 && k->key_len != 34) {
        return fail(r, "Size of key was not the expected size for the type BIP32 keypath");
    }
    if (!pubkey_valid(k->kd, k->kd_len)) {
        return fail(r, "Invalid pubkey");
    }
    struct buf val;
    buf_init(&val);
    int rc = rd_keypath(r, &val);
    if (rc == 0) {
        map_add(m->fields, k->key, k->key_len, val.data, val.len);
    }
    buf_clear(&val);
    return rc;
}

static int read_tap_keypath(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct buf val;
    (void)rule;
    buf_init(&val);
    int rc = rd_tap_keypath(m->r, &val, m->spec->title);
    if (rc == 0) {
        /* The value is kept without its length prefix. */
        struct reader vr;
        const uint8_t *vp;
        size_t vn;
        reader_init(&vr, val.data, val.len);
        ser_get_varbytes(&vr, &vp, &vn, "value");
        map_add(m->fields, k->key, k->key_len, vp, vn);
    }
    buf_clear(&val);
    return rc;
}

static int read_musig_participants(struct map_rd *m, const struct key_rule *rule,
                                   const struct rec *k)
{
    struct rd *r = m->r;
    const uint8_t *v;
    size_t n;
    (void)rule;
    size_t start = r->pos;
    if (rd_musig_participants(r, k->kd, m->spec->title)) {
        return -1;
    }
    struct rd again;
    rd_sub(&again, r, r->p + start, r->pos - start);
    rd_vec(&again, &v, &n);
    map_add(m->fields, k->key, k->key_len, v, n);
    return 0;
}

/* ---- input records ------------------------------------------------------------------- */

static int read_non_witness_utxo(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_input *in = m->obj;
    (void)rule;
    (void)k;
    return rd_tx(m->r, &in->non_witness_utxo, 1);
}

static int read_witness_utxo(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    struct psbt_input *in = m->obj;
    uint64_t l;
    const uint8_t *amt, *v;
    size_t n;
    (void)rule;
    (void)k;
    if (rd_compact(r, &l)) {
        return -1;
    }
    size_t start = r->pos;
    if (rd_bytes(r, &amt, 8) || rd_vec(r, &v, &n)) {
        return -1;
    }
    if (r->pos - start != l) {
        return fail(r, "Size of value was not the stated size");
    }
    in->witness_utxo.value_sat = (int64_t)rd_u64le(amt);
    sign_bytes_set(&in->witness_utxo.script_pubkey, v, n);
    /* CTxOut::IsNull (value -1) means absent to Core. */
    in->has_witness_utxo = in->witness_utxo.value_sat != -1;
    return 0;
}

static int read_partial_sig(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    const uint8_t *v;
    size_t n;
    (void)rule;
    if (k->key_len != 66 && k->key_len != 34) {
        return fail(r, "Size of key was not the expected size for the type partial signature "
                       "pubkey");
    }
    if (!pubkey_valid(k->kd, k->kd_len)) {
        return fail(r, "Invalid pubkey");
    }
    if (rd_vec(r, &v, &n)) {
        return -1;
    }
    if (n == 0 || !script_sig_is_valid_der(v, n) ||
        ((v[n - 1] & ~SIGHASH_ANYONECANPAY) < SIGHASH_ALL ||
         (v[n - 1] & ~SIGHASH_ANYONECANPAY) > SIGHASH_SINGLE)) {
        return fail(r, "Signature is not a valid encoding");
    }
    map_add(m->fields, k->key, k->key_len, v, n);
    return 0;
}

static int read_sighash(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_input *in = m->obj;
    const uint8_t *v;
    (void)rule;
    (void)k;
    if (rd_fixed(m->r, &v, 4)) {
        return -1;
    }
    in->has_sighash = 1;
    in->sighash = (int32_t)rd_u32le(v);
    return 0;
}

static int read_final_witness(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    struct psbt_input *in = m->obj;
    uint64_t l, cnt;
    const uint8_t *v;
    size_t n;
    (void)rule;
    (void)k;
    if (rd_compact(r, &l)) {
        return -1;
    }
    size_t start = r->pos;
    if (rd_compact(r, &cnt)) {
        return -1;
    }
    struct bytes *w = cnt ? xcalloc((size_t)cnt, sizeof(*w)) : NULL;
    size_t got = 0;
    for (; got < cnt; got++) {
        if (rd_vec(r, &v, &n)) {
            break;
        }
        sign_bytes_set(&w[got], v, n);
    }
    if (got < cnt || r->pos - start != l) {
        witness_free(w, got);
        if (!r->failed) {
            fail(r, "Size of value was not the stated size");
        }
        return -1;
    }
    witness_free(in->final_witness, in->final_witness_count);
    in->final_witness = w;
    in->final_witness_count = (size_t)cnt;
    return 0;
}

static int read_time_locktime(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_input *in = m->obj;
    if (read_u32(m, rule, k)) {
        return -1;
    }
    if (in->time_locktime < LOCKTIME_THRESHOLD) {
        return fail(m->r, "Required time based locktime is invalid (less than 500000000)");
    }
    return 0;
}

static int read_height_locktime(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_input *in = m->obj;
    if (read_u32(m, rule, k)) {
        return -1;
    }
    if (in->height_locktime >= LOCKTIME_THRESHOLD) {
        return fail(m->r, "Required height based locktime is invalid (greater than or equal to "
                          "500000000)");
    } else if (in->height_locktime == 0) {
        return fail(m->r, "Required height based locktime is invalid (0)");
    }
    return 0;
}

/* A taproot signature value: 64 bytes, or 65 with a sighash type; path is "key" or
 * "script" for the messages. */
static int rd_tap_sig(struct rd *r, const uint8_t **v, size_t *n, const char *path)
{
    if (rd_vec(r, v, n)) {
        return -1;
    }
    if (*n < 64) {
        return fail(r, "Input Taproot %s path signature is shorter than 64 bytes", path);
    } else if (*n > 65) {
        return fail(r, "Input Taproot %s path signature is longer than 65 bytes", path);
    }
    return 0;
}

static int read_tap_key_sig(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_input *in = m->obj;
    const uint8_t *v;
    size_t n;
    (void)rule;
    (void)k;
    if (rd_tap_sig(m->r, &v, &n, "key")) {
        return -1;
    }
    sign_bytes_set(&in->tap_key_sig, v, n);
    return 0;
}

static int read_tap_script_sig(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    const uint8_t *v;
    size_t n;
    (void)rule;
    if (rd_tap_sig(m->r, &v, &n, "script")) {
        return -1;
    }
    map_add(m->fields, k->key, k->key_len, v, n);
    return 0;
}

/* The key holds a control block: its size is 33 plus a multiple of 32. */
static int read_tap_leaf_script(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    const uint8_t *v;
    size_t n;
    (void)rule;
    if (k->key_len < 34) {
        return fail(r, "Input Taproot leaf script key is not at least 34 bytes");
    } else if ((k->key_len - 2) % 32 != 0) {
        return fail(r, "Input Taproot leaf script key's control block size is not valid");
    }
    if (rd_vec(r, &v, &n)) {
        return -1;
    }
    if (n == 0) {
        return fail(r, "Input Taproot leaf script must be at least 1 byte");
    }
    map_add(m->fields, k->key, k->key_len, v, n);
    return 0;
}

/* A MuSig2 public nonce or partial signature, keyed by participant, aggregate and an
 * optional leaf hash. */
static int read_musig_nonce_or_sig(struct map_rd *m, const struct key_rule *rule,
                                   const struct rec *k)
{
    struct rd *r = m->r;
    int nonce = k->type == PSBT_IN_MUSIG2_PUB_NONCE;
    const uint8_t *v;
    size_t n;
    (void)rule;
    if (k->key_len != 67 && k->key_len != 99) {
        return fail(r, "Input musig2 %s key is not expected size of 67 or 99 bytes",
                    nonce ? "pubnonce" : "partial sig");
    }
    if (rd_musig_ids(r, k->kd)) {
        return -1;
    }
    if (nonce) {
        if (rd_vec(r, &v, &n)) {
            return -1;
        }
        if (n != 66) {
            return fail(r, "Input musig2 pubnonce value is not 66 bytes");
        }
    } else {
        n = 32;
        if (rd_fixed(r, &v, 32)) {
            return -1;
        }
    }
    map_add(m->fields, k->key, k->key_len, v, n);
    return 0;
}

#define IN_FIELD(f) offsetof(struct psbt_input, f)

static const struct key_rule input_rules[] = {
    {PSBT_IN_NON_WITNESS_UTXO, 1, "Input Non-witness UTXO", NULL, read_non_witness_utxo, 0, 0},
    {PSBT_IN_WITNESS_UTXO, 1, "Input Witness UTXO", NULL, read_witness_utxo, 0, 0},
    {PSBT_IN_PARTIAL_SIG, 0, NULL, NULL, read_partial_sig, 0, 0},
    {PSBT_IN_SIGHASH, 1, "Input Sighash Type", NULL, read_sighash, 0, 0},
    {PSBT_IN_REDEEMSCRIPT, 1, "Input redeemScript", NULL, read_script, IN_FIELD(redeem_script), 0},
    {PSBT_IN_WITNESSSCRIPT, 1, "Input witnessScript", NULL, read_script, IN_FIELD(witness_script),
     0},
    {PSBT_IN_BIP32_DERIVATION, 0, NULL, NULL, read_keypath, 0, 0},
    {PSBT_IN_SCRIPTSIG, 1, "Input Final scriptSig", NULL, read_script, IN_FIELD(final_script_sig),
     0},
    {PSBT_IN_SCRIPTWITNESS, 1, "Input Final scriptWitness", NULL, read_final_witness, 0, 0},
    {PSBT_IN_RIPEMD160, 21, "Input RIPEMD160 Preimage", NULL, read_keep, 0, 0},
    {PSBT_IN_SHA256, 33, "Input SHA256 Preimage", NULL, read_keep, 0, 0},
    {PSBT_IN_HASH160, 21, "Input Hash160 Preimage", NULL, read_keep, 0, 0},
    {PSBT_IN_HASH256, 33, "Input Hash256 Preimage", NULL, read_keep, 0, 0},
    {PSBT_IN_PREVIOUS_TXID, 1, "Input Previous TXID", "Previous txid", read_hash32,
     IN_FIELD(prevout.txid), 0},
    {PSBT_IN_OUTPUT_INDEX, 1, "Input Previous Output's Index", "Previous output's index", read_u32,
     IN_FIELD(prevout.n), 0},
    {PSBT_IN_SEQUENCE, 1, "Input Sequence", "Sequence", read_u32, IN_FIELD(sequence),
     IN_FIELD(has_sequence)},
    {PSBT_IN_REQUIRED_TIME_LOCKTIME, 1, "Input Required Time Based Locktime",
     "Required time based locktime", read_time_locktime, IN_FIELD(time_locktime),
     IN_FIELD(has_time_locktime)},
    {PSBT_IN_REQUIRED_HEIGHT_LOCKTIME, 1, "Input Required Height Based Locktime",
     "Required height based locktime", read_height_locktime, IN_FIELD(height_locktime),
     IN_FIELD(has_height_locktime)},
    {PSBT_IN_TAP_KEY_SIG, 1, "Input Taproot Key Path Signature", NULL, read_tap_key_sig, 0, 0},
    {PSBT_IN_TAP_SCRIPT_SIG, 65, "Input Taproot Script Path Signature", NULL, read_tap_script_sig,
     0, 0},
    {PSBT_IN_TAP_LEAF_SCRIPT, 0, NULL, NULL, read_tap_leaf_script, 0, 0},
    {PSBT_IN_TAP_BIP32_DERIVATION, 33, "Input Taproot BIP32 Keypath", NULL, read_tap_keypath, 0, 0},
    {PSBT_IN_TAP_INTERNAL_KEY, 1, "Input Taproot Internal Key", NULL, read_hash32,
     IN_FIELD(tap_internal_key), IN_FIELD(has_tap_internal_key)},
    {PSBT_IN_TAP_MERKLE_ROOT, 1, "Input Taproot Merkle Root", NULL, read_hash32,
     IN_FIELD(tap_merkle_root), IN_FIELD(has_tap_merkle_root)},
    {PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS, 34, "Input MuSig2 Participants Pubkeys", NULL,
     read_musig_participants, 0, 0},
    {PSBT_IN_MUSIG2_PUB_NONCE, 0, NULL, NULL, read_musig_nonce_or_sig, 0, 0},
    {PSBT_IN_MUSIG2_PARTIAL_SIG, 0, NULL, NULL, read_musig_nonce_or_sig, 0, 0},
    {PSBT_IN_PROPRIETARY, 0, NULL, NULL, read_proprietary, 0, 0},
};

/* ---- output records ------------------------------------------------------------------ */

static int read_amount(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt_output *o = m->obj;
    const uint8_t *v;
    (void)rule;
    (void)k;
    if (rd_fixed(m->r, &v, 8)) {
        return -1;
    }
    o->amount = (int64_t)rd_u64le(v);
    return 0;
}

/* An all-zero internal key is not kept. */
static int read_out_internal_key(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    static const uint8_t zero[32];
    const uint8_t *v;
    (void)rule;
    if (rd_fixed(m->r, &v, 32)) {
        return -1;
    }
    if (memcmp(v, zero, 32) != 0) {
        map_add(m->fields, k->key, k->key_len, v, 32);
    }
    return 0;
}

/* TaprootBuilder::ValidDepths over the depths of a tap tree (depth-first order). */
static int tap_tree_complete(const uint8_t *depths, size_t n)
{
    uint8_t branch[TAPROOT_CONTROL_MAX_NODE_COUNT + 2];
    size_t size = 0;
    for (size_t i = 0; i < n; i++) {
        size_t depth = depths[i];
        if (depth > TAPROOT_CONTROL_MAX_NODE_COUNT || depth + 1 < size) {
            return 0;
        }
        while (size > depth && branch[depth]) {
            size--;
            if (depth == 0) {
                return 0;
            }
            depth--;
        }
        while (size <= depth) {
            branch[size++] = 0;
        }
        branch[depth] = 1;
    }
    return size == 0 || (size == 1 && branch[0]);
}

/* A tap tree: leaves of depth, leaf version and script, which must make a whole tree. */
static int read_tap_tree(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    const uint8_t *v;
    size_t n;
    (void)rule;
    if (rd_vec(r, &v, &n)) {
        return -1;
    }
    if (n == 0) {
        return fail(r, "Output Taproot tree must not be empty");
    }
    struct rd t;
    size_t nd = 0;
    int rc = -1;
    rd_sub(&t, r, v, n);
    uint8_t *depths = xmalloc(n);
    while (t.pos < t.len) {
        const uint8_t *dv, *lv, *sv;
        size_t sn;
        if (rd_bytes(&t, &dv, 1) || rd_bytes(&t, &lv, 1) || rd_vec(&t, &sv, &sn)) {
            r->failed = 1;
            goto out;
        }
        if (dv[0] > TAPROOT_CONTROL_MAX_NODE_COUNT) {
            fail(r, "Output Taproot tree has as leaf greater than Taproot maximum depth");
            goto out;
        }
        if ((lv[0] & ~TAPROOT_LEAF_MASK) != 0) {
            fail(r, "Output Taproot tree has a leaf with an invalid leaf version");
            goto out;
        }
        depths[nd++] = dv[0];
    }
    if (!tap_tree_complete(depths, nd)) {
        fail(r, "Output Taproot tree is malformed");
        goto out;
    }
    map_add(m->fields, k->key, k->key_len, v, n);
    rc = 0;
out:
    free(depths);
    return rc;
}

#define OUT_FIELD(f) offsetof(struct psbt_output, f)

static const struct key_rule output_rules[] = {
    {PSBT_OUT_REDEEMSCRIPT, 1, "Output redeemScript", NULL, read_script, OUT_FIELD(redeem_script),
     0},
    {PSBT_OUT_WITNESSSCRIPT, 1, "Output witnessScript", NULL, read_script,
     OUT_FIELD(witness_script), 0},
    {PSBT_OUT_BIP32_DERIVATION, 0, NULL, NULL, read_keypath, 0, 0},
    {PSBT_OUT_AMOUNT, 1, "Output Amount", "Output amount", read_amount, 0, 0},
    {PSBT_OUT_SCRIPT, 1, "Output Script", "Output script", read_script, OUT_FIELD(script), 0},
    {PSBT_OUT_TAP_INTERNAL_KEY, 1, "Output Taproot Internal Key", NULL, read_out_internal_key, 0,
     0},
    {PSBT_OUT_TAP_TREE, 1, "Output Taproot Tree Key", NULL, read_tap_tree, 0, 0},
    {PSBT_OUT_TAP_BIP32_DERIVATION, 33, "Output Taproot BIP32 Keypath", NULL, read_tap_keypath, 0,
     0},
    {PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS, 34, "Output MuSig2 Participants Pubkeys", NULL,
     read_musig_participants, 0, 0},
    {PSBT_OUT_PROPRIETARY, 0, NULL, NULL, read_proprietary, 0, 0},
};

/* ---- global records ------------------------------------------------------------------ */

/* The unsigned transaction of a v0 PSBT: it gives the version, lock time and counts. */
static int read_unsigned_tx(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt *p = m->obj;
    struct tx **utx = m->utx;
    (void)rule;
    (void)k;
    if (*utx) {
        tx_clear(*utx);
        free(*utx);
        *utx = NULL;
    }
    if (rd_tx(m->r, utx, 0)) {
        return -1;
    }
    for (size_t i = 0; i < (*utx)->vin_count; i++) {
        if ((*utx)->vin[i].script_sig.len || (*utx)->vin[i].witness_count) {
            return fail(m->r, "Unsigned tx does not have empty scriptSigs and scriptWitnesses.");
        }
    }
    p->tx_version = (uint32_t)(*utx)->version;
    p->has_fallback_locktime = 1;
    p->fallback_locktime = (*utx)->locktime;
    *m->n_in = (*utx)->vin_count;
    *m->n_out = (*utx)->vout_count;
    return 0;
}

/* PSBT_GLOBAL_INPUT_COUNT or PSBT_GLOBAL_OUTPUT_COUNT: a CompactSize in a vector. */
static int read_count(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct rd *r = m->r;
    uint64_t l, c;
    (void)rule;
    if (rd_compact(r, &l)) {
        return -1;
    }
    size_t start = r->pos;
    if (rd_compact(r, &c)) {
        return -1;
    }
    if (r->pos - start != l) {
        return fail(r, "Size of value was not the stated size");
    }
    *(k->type == PSBT_GLOBAL_INPUT_COUNT ? m->n_in : m->n_out) = c;
    return 0;
}

static int read_tx_modifiable(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt *p = m->obj;
    const uint8_t *v;
    (void)rule;
    (void)k;
    if (rd_fixed(m->r, &v, 1)) {
        return -1;
    }
    p->has_tx_modifiable = 1;
    p->tx_modifiable = v[0];
    return 0;
}

static int read_xpub(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    const uint8_t *kd = k->kd;
    (void)rule;
    /* version[4] depth[1] fingerprint[4] child[4] chaincode[32] pubkey[33] */
    int depth0_bad = kd[4] == 0 && (rd_u32be(kd + 9) != 0 || rd_u32le(kd + 5) != 0);
    if (depth0_bad || !pubkey_valid(kd + 45, 33)) {
        return fail(m->r, "Invalid pubkey");
    }
    struct buf val;
    buf_init(&val);
    int rc = rd_keypath(m->r, &val);
    if (rc == 0) {
        map_add(m->fields, k->key, k->key_len, val.data, val.len);
    }
    buf_clear(&val);
    return rc;
}

static int read_psbt_version(struct map_rd *m, const struct key_rule *rule, const struct rec *k)
{
    struct psbt *p = m->obj;
    if (read_u32(m, rule, k)) {
        return -1;
    }
    if (p->version > 2) {
        return fail(m->r, "Unsupported version number");
    }
    return 0;
}

#define GLOBAL_FIELD(f) offsetof(struct psbt, f)

static const struct key_rule global_rules[] = {
    {PSBT_GLOBAL_UNSIGNED_TX, 1, "Global Unsigned TX", NULL, read_unsigned_tx, 0, 0},
    {PSBT_GLOBAL_XPUB, 79, "Global XPUB", NULL, read_xpub, 0, 0},
    {PSBT_GLOBAL_TX_VERSION, 1, "Global Transaction Version", NULL, read_u32,
     GLOBAL_FIELD(tx_version), 0},
    {PSBT_GLOBAL_FALLBACK_LOCKTIME, 1, "Global Fallback Locktime", NULL, read_u32,
     GLOBAL_FIELD(fallback_locktime), GLOBAL_FIELD(has_fallback_locktime)},
    {PSBT_GLOBAL_INPUT_COUNT, 1, "Global Input Count", NULL, read_count, 0, 0},
    {PSBT_GLOBAL_OUTPUT_COUNT, 1, "Global Output Count", NULL, read_count, 0, 0},
    {PSBT_GLOBAL_TX_MODIFIABLE, 1, "Global TX Modifiable Flags", NULL, read_tx_modifiable, 0, 0},
    {PSBT_GLOBAL_VERSION, 1, "Global PSBT Version", NULL, read_psbt_version, GLOBAL_FIELD(version),
     0},
    {PSBT_GLOBAL_PROPRIETARY, 0, NULL, NULL, read_proprietary, 0, 0},
};

#define RULES(t) (t), sizeof(t) / sizeof((t)[0])

static const struct map_spec input_map = {
    RULES(input_rules),
    "input",
    "Input",
    "Separator is missing at the end of an input map",
    {{PSBT_IN_PREVIOUS_TXID, "Previous TXID is required in PSBTv2"},
     {PSBT_IN_OUTPUT_INDEX, "Previous output's index is required in PSBTv2"}}};
static const struct map_spec output_map = {
    RULES(output_rules),
    "output",
    "Output",
    "Separator is missing at the end of an output map",
    {{PSBT_OUT_AMOUNT, "Output amount is required in PSBTv2"},
     {PSBT_OUT_SCRIPT, "Output script is required in PSBTv2"}}};
static const struct map_spec global_map = {RULES(global_rules),
                                           "global",
                                           "Global",
                                           "Separator is missing at the end of the global map",
                                           {{0, NULL}, {0, NULL}}};

/* ---- the map reader ------------------------------------------------------------------ */

static const struct key_rule *find_rule(const struct map_spec *spec, uint64_t type)
{
    for (size_t i = 0; i < spec->n_rules; i++) {
        if (spec->rules[i].type == type) {
            return &spec->rules[i];
        }
    }
    return NULL;
}

/* Reads one map's records up to its separator: a record of a known type is checked by its
 * rule, one of a type Core does not know for this map is kept in m->fields. *seen gets a bit
 * for each known type below 64 that was read, for the callers' required-field checks. */
static int read_map(struct map_rd *m, uint64_t *seen)
{
    struct rd *r = m->r;
    struct psbt_map keys = {0};
    int found_sep = 0, rc = -1;
    *seen = 0;
    while (r->pos < r->len) {
        struct rec k;
        int got = rd_key(r, &k.key, &k.key_len, &k.type, &k.kd, &k.kd_len);
        if (got < 0) {
            goto out;
        }
        if (got == 0) {
            found_sep = 1;
            break;
        }
        if (dup_key(r, &keys, k.key, k.key_len, m->spec->what)) {
            goto out;
        }
        const struct key_rule *rule = find_rule(m->spec, k.type);
        if (!rule) {
            if (keep_vec(r, m->fields, k.key, k.key_len)) {
                goto out;
            }
            continue;
        }
        if (rule->key_len && expect_key_size(r, rule->name, k.key_len, rule->key_len)) {
            goto out;
        }
        if (rule->v2_only && m->version < 2) {
            fail(r, "%s is not allowed in PSBTv0", rule->v2_only);
            goto out;
        }
        if (rule->read(m, rule, &k)) {
            goto out;
        }
        if (k.type < 64) {
            *seen |= TYPE_BIT(k.type);
        }
    }
    if (!found_sep) {
        fail(r, "%s", m->spec->no_sep);
        goto out;
    }
    for (size_t i = 0; m->version >= 2 && i < 2 && m->spec->v2_required[i].missing; i++) {
        if (!(*seen & TYPE_BIT(m->spec->v2_required[i].type))) {
            fail(r, "%s", m->spec->v2_required[i].missing);
            goto out;
        }
    }
    rc = 0;
out:
    map_clear(&keys);
    return rc;
}

/* ---- the maps ------------------------------------------------------------------------ */

/* An input or an output map, read into obj (a psbt_input or psbt_output) by spec. */
static int parse_item(struct rd *r, const struct map_spec *spec, void *obj, struct psbt_map *fields,
                      uint32_t version)
{
    struct map_rd m = {.r = r, .spec = spec, .version = version, .obj = obj, .fields = fields};
    uint64_t seen;
    return read_map(&m, &seen);
}

static int parse_global(struct rd *r, struct psbt *p, struct tx **utx, uint64_t *n_in,
                        uint64_t *n_out)
{
    struct map_rd m = {.r = r,
                       .spec = &global_map,
                       .obj = p,
                       .fields = &p->fields,
                       .utx = utx,
                       .n_in = n_in,
                       .n_out = n_out};
    uint64_t seen;
    const uint8_t *magic;
    if (rd_bytes(r, &magic, 5)) {
        return -1;
    }
    if (memcmp(magic, "psbt\xff", 5) != 0) {
        return fail(r, "Invalid PSBT magic bytes");
    }
    if (read_map(&m, &seen)) {
        return -1;
    }
    int found_txver = (seen & TYPE_BIT(PSBT_GLOBAL_TX_VERSION)) != 0;
    int found_fallback = (seen & TYPE_BIT(PSBT_GLOBAL_FALLBACK_LOCKTIME)) != 0;
    int found_nin = (seen & TYPE_BIT(PSBT_GLOBAL_INPUT_COUNT)) != 0;
    int found_nout = (seen & TYPE_BIT(PSBT_GLOBAL_OUTPUT_COUNT)) != 0;
    if (p->version == 0) {
        if (!*utx) {
            return fail(r, "No unsigned transaction was provided");
        }
        const char *bad = found_txver            ? "PSBT_GLOBAL_TX_VERSION"
                          : found_fallback       ? "PSBT_GLOBAL_FALLBACK_LOCKTIME"
                          : found_nin            ? "PSBT_GLOBAL_INPUT_COUNT"
                          : found_nout           ? "PSBT_GLOBAL_OUTPUT_COUNT"
                          : p->has_tx_modifiable ? "PSBT_GLOBAL_TX_MODIFIABLE"
                                                 : NULL;
        if (bad) {
            return fail(r, "%s is not allowed in PSBTv0", bad);
        }
    }
    if (p->version == 1) {
        return fail(r, "There is no PSBT version 1");
    }
    if (p->version == 2) {
        const char *miss = !found_txver  ? "PSBT_GLOBAL_TX_VERSION"
                           : !found_nin  ? "PSBT_GLOBAL_INPUT_COUNT"
                           : !found_nout ? "PSBT_GLOBAL_OUTPUT_COUNT"
                                         : NULL;
        if (miss) {
            return fail(r, "%s is required in PSBTv2", miss);
        }
        if (*utx) {
            return fail(r, "PSBT_GLOBAL_UNSIGNED_TX is not allowed in PSBTv2");
        }
    }
    return 0;
}

int psbt_parse(struct psbt *p, const uint8_t *data, size_t len, char *err, size_t err_len)
{
    struct rd r = {.p = data, .len = len, .err = err, .err_len = err_len};
    struct tx *utx = NULL;
    uint64_t n_in = 0, n_out = 0;
    psbt_init(p);
    if (err_len) {
        err[0] = 0;
    }
    if (parse_global(&r, p, &utx, &n_in, &n_out)) {
        goto fail;
    }
    /* Counts from a v2 PSBT are only limited by what follows: grow as records arrive. */
    size_t i = 0;
    while (r.pos < r.len && i < n_in) {
        p->inputs = xrealloc(p->inputs, (i + 1) * sizeof(*p->inputs));
        struct psbt_input *in = &p->inputs[i];
        memset(in, 0, sizeof(*in));
        p->n_inputs = ++i;
        if (p->version < 2) {
            in->prevout = utx->vin[i - 1].prevout;
            in->has_sequence = 1;
            in->sequence = utx->vin[i - 1].sequence;
        }
        if (parse_item(&r, &input_map, in, &in->fields, p->version)) {
            goto fail;
        }
        if (in->non_witness_utxo) {
            if (memcmp(in->non_witness_utxo->txid, in->prevout.txid, 32) != 0) {
                fail(&r, "Non-witness UTXO does not match outpoint hash");
                goto fail;
            }
            if (in->prevout.n >= in->non_witness_utxo->vout_count) {
                fail(&r, "Input specifies output index that does not exist");
                goto fail;
            }
        }
    }
    if (p->n_inputs != n_in) {
        fail(&r, "Inputs provided does not match the number of inputs in transaction.");
        goto fail;
    }
    i = 0;
    while (r.pos < r.len && i < n_out) {
        p->outputs = xrealloc(p->outputs, (i + 1) * sizeof(*p->outputs));
        struct psbt_output *o = &p->outputs[i];
        memset(o, 0, sizeof(*o));
        p->n_outputs = ++i;
        if (p->version < 2) {
            o->amount = utx->vout[i - 1].value_sat;
            bytes_copy(&o->script, &utx->vout[i - 1].script_pubkey);
        }
        if (parse_item(&r, &output_map, o, &o->fields, p->version)) {
            goto fail;
        }
    }
    if (p->n_outputs != n_out) {
        fail(&r, "Outputs provided does not match the number of outputs in transaction.");
        goto fail;
    }
    if (r.pos != r.len) {
        snprintf(err, err_len, "extra data after PSBT");
        goto fail;
    }
    if (utx) {
        tx_clear(utx);
        free(utx);
    }
    return RC_OK;
fail:
    if (utx) {
        tx_clear(utx);
        free(utx);
    }
    psbt_clear(p);
    return RC_INVALID;
}

int psbt_parse_base64(struct psbt *p, const char *b64, char *err, size_t err_len)
{
    struct buf raw;
    buf_init(&raw);
    if (base64_decode(&raw, b64) != RC_OK) {
        psbt_init(p);
        snprintf(err, err_len, "invalid base64");
        buf_clear(&raw);
        return RC_INVALID;
    }
    int rc = psbt_parse(p, raw.data, raw.len, err, err_len);
    buf_clear(&raw);
    return rc;
}

/* ---- serialization ------------------------------------------------------------------- */

#define map_kind psbt_map_kind
#define MAP_GLOBAL PSBT_MAP_GLOBAL
#define MAP_INPUT PSBT_MAP_INPUT
#define MAP_OUTPUT PSBT_MAP_OUTPUT

static int key_type(const struct psbt_kv *e, uint64_t *type)
{
    struct reader r;
    reader_init(&r, e->key.data, e->key.len);
    return ser_get_compact(&r, type, "type") == RC_OK && r.pos == 1;
}

/* Where a record of the fields map goes in Core's order; proprietary and unknown last. */
static int rank(enum map_kind kind, const struct psbt_kv *e)
{
    uint64_t t;
    if (!key_type(e, &t)) {
        return 1000;
    }
    if (t == 0xfc) {
        return kind == MAP_OUTPUT ? 50 : 900;
    }
    if (kind == MAP_GLOBAL) {
        return t == PSBT_GLOBAL_XPUB ? 10 : 1000;
    }
    if (kind == MAP_OUTPUT) {
        switch (t) {
        case PSBT_OUT_BIP32_DERIVATION:
            return 30;
        case PSBT_OUT_TAP_INTERNAL_KEY:
            return 60;
        case PSBT_OUT_TAP_TREE:
            return 61;
        case PSBT_OUT_TAP_BIP32_DERIVATION:
            return 70;
        case PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS:
            return 80;
        default:
            return 1000;
        }
    }
    switch (t) {
    case PSBT_IN_PARTIAL_SIG:
        return 30;
    case PSBT_IN_BIP32_DERIVATION:
        return 70;
    case PSBT_IN_RIPEMD160:
    case PSBT_IN_SHA256:
    case PSBT_IN_HASH160:
    case PSBT_IN_HASH256:
        return 80 + (int)(t - PSBT_IN_RIPEMD160);
    case PSBT_IN_TAP_SCRIPT_SIG:
        return 110;
    case PSBT_IN_TAP_LEAF_SCRIPT:
        return 111;
    case PSBT_IN_TAP_BIP32_DERIVATION:
        return 112;
    case PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS:
        return 140;
    case PSBT_IN_MUSIG2_PUB_NONCE:
        return 150;
    case PSBT_IN_MUSIG2_PARTIAL_SIG:
        return 160;
    default:
        return 1000;
    }
}

/* std::vector<unsigned char>'s operator<. */
static int vec_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) {
        return c;
    }
    return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Core's map key order within one record type. */
static int rec_cmp(const struct psbt_kv *a, const struct psbt_kv *b, enum map_kind kind);

/* A stable merge sort (qsort has no context argument for the map kind). */
static void msort(const struct psbt_kv **v, const struct psbt_kv **tmp, size_t n,
                  enum map_kind kind)
{
    if (n < 2) {
        return;
    }
    size_t h = n / 2;
    msort(v, tmp, h, kind);
    msort(v + h, tmp, n - h, kind);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        tmp[k++] = rec_cmp(v[j], v[i], kind) < 0 ? v[j++] : v[i++];
    }
    while (i < h) {
        tmp[k++] = v[i++];
    }
    while (j < n) {
        tmp[k++] = v[j++];
    }
    memcpy(v, tmp, n * sizeof(*v));
}

/* The fields of m in Core's order (a new array of pointers into m). */
static const struct psbt_kv **sorted(const struct psbt_map *m, enum map_kind kind)
{
    const struct psbt_kv **v = xmalloc((m->n ? m->n : 1) * sizeof(*v));
    const struct psbt_kv **tmp = xmalloc((m->n ? m->n : 1) * sizeof(*v));
    for (size_t i = 0; i < m->n; i++) {
        v[i] = &m->v[i];
    }
    msort(v, tmp, m->n, kind);
    free(tmp);
    return v;
}

/* Core's map key order within one record type. */
static int rec_cmp(const struct psbt_kv *a, const struct psbt_kv *b, enum map_kind kind)
{
    int ra = rank(kind, a), rb = rank(kind, b);
    if (ra != rb) {
        return ra < rb ? -1 : 1;
    }
    if (kind == MAP_INPUT && ra == 30) { /* partial sigs: by CKeyID */
        uint8_t ha[20], hb[20];
        hash_hash160(ha, a->key.data + 1, a->key.len - 1);
        hash_hash160(hb, b->key.data + 1, b->key.len - 1);
        return memcmp(ha, hb, 20);
    }
    if (kind == MAP_INPUT && ra == 111) { /* leaf scripts: (script, leaf version), then the
                                              control blocks shortest first */
        int c = vec_cmp(a->value.data, a->value.len - 1, b->value.data, b->value.len - 1);
        if (c) {
            return c;
        }
        if (a->value.data[a->value.len - 1] != b->value.data[b->value.len - 1]) {
            return a->value.data[a->value.len - 1] < b->value.data[b->value.len - 1] ? -1 : 1;
        }
        if (a->key.len != b->key.len) {
            return a->key.len < b->key.len ? -1 : 1;
        }
        return memcmp(a->key.data, b->key.data, a->key.len);
    }
    if (kind == MAP_INPUT && (ra == 150 || ra == 160)) { /* (aggregate, leaf), participant */
        static const uint8_t zero[32];
        int c = memcmp(a->key.data + 34, b->key.data + 34, 33);
        if (c) {
            return c;
        }
        c = memcmp(a->key.len > 67 ? a->key.data + 67 : zero,
                   b->key.len > 67 ? b->key.data + 67 : zero, 32);
        if (c) {
            return c;
        }
        return memcmp(a->key.data + 1, b->key.data + 1, 33);
    }
    if (kind == MAP_GLOBAL && ra == 10) { /* xpubs: by key origin, then by public key */
        const uint8_t *o1 = a->value.data, *o2 = b->value.data;
        size_t n1 = a->value.len, n2 = b->value.len;
        int c = memcmp(o1, o2, 4);
        if (c) {
            return c;
        }
        for (size_t i = 4; i < n1 && i < n2; i += 4) {
            uint32_t x = rd_u32le(o1 + i), y = rd_u32le(o2 + i);
            if (x != y) {
                return x < y ? -1 : 1;
            }
        }
        if (n1 != n2) {
            return n1 < n2 ? -1 : 1;
        }
        c = memcmp(a->key.data + 46, b->key.data + 46, 33);
        return c ? c : memcmp(a->key.data, b->key.data, a->key.len);
    }
    return vec_cmp(a->key.data, a->key.len, b->key.data, b->key.len);
}

/* The key types Core's Unserialize knows for each kind of map. */
static int known_type(enum map_kind kind, uint64_t t)
{
    if (t == 0xfc) {
        return 1;
    }
    switch (kind) {
    case MAP_GLOBAL:
        return t <= PSBT_GLOBAL_TX_MODIFIABLE || t == PSBT_GLOBAL_VERSION;
    case MAP_INPUT:
        return t <= PSBT_IN_SCRIPTWITNESS ||
               (t >= PSBT_IN_RIPEMD160 && t <= PSBT_IN_TAP_MERKLE_ROOT) ||
               (t >= PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS && t <= PSBT_IN_MUSIG2_PARTIAL_SIG);
    case MAP_OUTPUT:
        return t <= PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS;
    }
    return 0;
}

const struct psbt_kv **psbt_map_sorted(const struct psbt_map *m, enum psbt_map_kind kind, int t,
                                       size_t *n)
{
    const struct psbt_kv **all = sorted(m, kind);
    *n = 0;
    for (size_t i = 0; i < m->n; i++) {
        uint64_t ty;
        int one = key_type(all[i], &ty);
        int keep = t < 0 ? !(one && known_type(kind, ty)) : (one && ty == (uint64_t)t);
        if (keep) {
            all[(*n)++] = all[i];
        }
    }
    return all;
}

static void put_rec(struct buf *out, const uint8_t *k, size_t kn, const uint8_t *v, size_t vn)
{
    ser_put_varbytes(out, k, kn);
    ser_put_varbytes(out, v, vn);
}

static void put_type_rec(struct buf *out, uint8_t type, const uint8_t *v, size_t vn)
{
    put_rec(out, &type, 1, v, vn);
}

static void put_u32_rec(struct buf *out, uint8_t type, uint32_t x)
{
    uint8_t b[4];
    wr_u32le(b, x);
    put_type_rec(out, type, b, 4);
}

/* Emits the sorted records with rank in [lo, hi). */
static void put_ranked(struct buf *out, const struct psbt_kv **v, size_t n, enum map_kind kind,
                       int lo, int hi)
{
    for (size_t i = 0; i < n; i++) {
        int r = rank(kind, v[i]);
        if (r >= lo && r < hi) {
            put_rec(out, v[i]->key.data, v[i]->key.len, v[i]->value.data, v[i]->value.len);
        }
    }
}

static void put_input(struct buf *out, const struct psbt_input *in, uint32_t version)
{
    const struct psbt_kv **v = sorted(&in->fields, MAP_INPUT);
    size_t n = in->fields.n;
    struct buf t;
    buf_init(&t);
    if (in->non_witness_utxo) {
        tx_serialize(in->non_witness_utxo, &t, 0);
        put_type_rec(out, PSBT_IN_NON_WITNESS_UTXO, t.data, t.len);
    }
    if (in->has_witness_utxo) {
        buf_reset(&t);
        buf_put_u64le(&t, (uint64_t)in->witness_utxo.value_sat);
        ser_put_varbytes(&t, in->witness_utxo.script_pubkey.data,
                         in->witness_utxo.script_pubkey.len);
        put_type_rec(out, PSBT_IN_WITNESS_UTXO, t.data, t.len);
    }
    if (!psbt_input_is_final(in)) {
        put_ranked(out, v, n, MAP_INPUT, 30, 31);
        if (in->has_sighash) {
            put_u32_rec(out, PSBT_IN_SIGHASH, (uint32_t)in->sighash);
        }
        if (in->redeem_script.len) {
            put_type_rec(out, PSBT_IN_REDEEMSCRIPT, in->redeem_script.data, in->redeem_script.len);
        }
        if (in->witness_script.len) {
            put_type_rec(out, PSBT_IN_WITNESSSCRIPT, in->witness_script.data,
                         in->witness_script.len);
        }
        put_ranked(out, v, n, MAP_INPUT, 70, 100);
        if (in->tap_key_sig.len) {
            put_type_rec(out, PSBT_IN_TAP_KEY_SIG, in->tap_key_sig.data, in->tap_key_sig.len);
        }
        put_ranked(out, v, n, MAP_INPUT, 110, 120);
        if (in->has_tap_internal_key) {
            put_type_rec(out, PSBT_IN_TAP_INTERNAL_KEY, in->tap_internal_key, 32);
        }
        if (in->has_tap_merkle_root) {
            put_type_rec(out, PSBT_IN_TAP_MERKLE_ROOT, in->tap_merkle_root, 32);
        }
        put_ranked(out, v, n, MAP_INPUT, 140, 200);
    }
    if (in->final_script_sig.len) {
        put_type_rec(out, PSBT_IN_SCRIPTSIG, in->final_script_sig.data, in->final_script_sig.len);
    }
    if (in->final_witness_count) {
        buf_reset(&t);
        ser_put_compact(&t, in->final_witness_count);
        for (size_t i = 0; i < in->final_witness_count; i++) {
            ser_put_varbytes(&t, in->final_witness[i].data, in->final_witness[i].len);
        }
        put_type_rec(out, PSBT_IN_SCRIPTWITNESS, t.data, t.len);
    }
    if (version >= 2) {
        put_type_rec(out, PSBT_IN_PREVIOUS_TXID, in->prevout.txid, 32);
        put_u32_rec(out, PSBT_IN_OUTPUT_INDEX, in->prevout.n);
        if (in->has_sequence) {
            put_u32_rec(out, PSBT_IN_SEQUENCE, in->sequence);
        }
        if (in->has_time_locktime) {
            put_u32_rec(out, PSBT_IN_REQUIRED_TIME_LOCKTIME, in->time_locktime);
        }
        if (in->has_height_locktime) {
            put_u32_rec(out, PSBT_IN_REQUIRED_HEIGHT_LOCKTIME, in->height_locktime);
        }
    }
    put_ranked(out, v, n, MAP_INPUT, 900, 901);
    put_ranked(out, v, n, MAP_INPUT, 1000, 1001);
    buf_put_u8(out, 0);
    buf_clear(&t);
    free(v);
}

static void put_output(struct buf *out, const struct psbt_output *o, uint32_t version)
{
    const struct psbt_kv **v = sorted(&o->fields, MAP_OUTPUT);
    size_t n = o->fields.n;
    if (o->redeem_script.len) {
        put_type_rec(out, PSBT_OUT_REDEEMSCRIPT, o->redeem_script.data, o->redeem_script.len);
    }
    if (o->witness_script.len) {
        put_type_rec(out, PSBT_OUT_WITNESSSCRIPT, o->witness_script.data, o->witness_script.len);
    }
    put_ranked(out, v, n, MAP_OUTPUT, 30, 31);
    if (version >= 2) {
        uint8_t b[8];
        wr_u64le(b, (uint64_t)o->amount);
        put_type_rec(out, PSBT_OUT_AMOUNT, b, 8);
        put_type_rec(out, PSBT_OUT_SCRIPT, o->script.data, o->script.len);
    }
    put_ranked(out, v, n, MAP_OUTPUT, 50, 1001);
    buf_put_u8(out, 0);
    free(v);
}

void psbt_serialize(const struct psbt *p, struct buf *out)
{
    buf_append(out, "psbt\xff", 5);
    const struct psbt_kv **v = sorted(&p->fields, MAP_GLOBAL);
    size_t n = p->fields.n;
    if (p->version < 2) {
        struct tx tx;
        struct buf t;
        buf_init(&t);
        if (psbt_get_unsigned_tx(p, &tx) == RC_OK) {
            tx_serialize(&tx, &t, 0);
            tx_clear(&tx);
        }
        put_type_rec(out, PSBT_GLOBAL_UNSIGNED_TX, t.data, t.len);
        buf_clear(&t);
    }
    put_ranked(out, v, n, MAP_GLOBAL, 10, 11);
    if (p->version >= 2) {
        struct buf t;
        buf_init(&t);
        put_u32_rec(out, PSBT_GLOBAL_TX_VERSION, p->tx_version);
        if (p->has_fallback_locktime) {
            put_u32_rec(out, PSBT_GLOBAL_FALLBACK_LOCKTIME, p->fallback_locktime);
        }
        ser_put_compact(&t, p->n_inputs);
        put_type_rec(out, PSBT_GLOBAL_INPUT_COUNT, t.data, t.len);
        buf_reset(&t);
        ser_put_compact(&t, p->n_outputs);
        put_type_rec(out, PSBT_GLOBAL_OUTPUT_COUNT, t.data, t.len);
        if (p->has_tx_modifiable) {
            put_type_rec(out, PSBT_GLOBAL_TX_MODIFIABLE, &p->tx_modifiable, 1);
        }
        buf_clear(&t);
    }
    if (p->version > 0) {
        put_u32_rec(out, PSBT_GLOBAL_VERSION, p->version);
    }
    put_ranked(out, v, n, MAP_GLOBAL, 900, 1001);
    buf_put_u8(out, 0);
    free(v);
    for (size_t i = 0; i < p->n_inputs; i++) {
        put_input(out, &p->inputs[i], p->version);
    }
    for (size_t i = 0; i < p->n_outputs; i++) {
        put_output(out, &p->outputs[i], p->version);
    }
}

char *psbt_to_base64(const struct psbt *p)
{
    struct buf b;
    buf_init(&b);
    psbt_serialize(p, &b);
    char *s = base64_encode(b.data, b.len);
    buf_clear(&b);
    return s;
}

/* ---- the transaction ----------------------------------------------------------------- */

/* Core's ComputeTimeLock. Returns 1 with *lock, or 0 when no lock time satisfies all. */
static int compute_locktime(const struct psbt *p, uint32_t *lock)
{
    if (p->version >= 2) {
        int time_ok = 1, height_ok = 1;
        uint32_t time_lock = 0, height_lock = 0;
        for (size_t i = 0; i < p->n_inputs; i++) {
            const struct psbt_input *in = &p->inputs[i];
            if (in->has_time_locktime && !in->has_height_locktime) {
                height_ok = 0;
                if (!time_ok) {
                    return 0;
                }
            } else if (!in->has_time_locktime && in->has_height_locktime) {
                time_ok = 0;
                if (!height_ok) {
                    return 0;
                }
            }
            if (in->has_time_locktime && time_ok && in->time_locktime > time_lock) {
                time_lock = in->time_locktime;
            }
            if (in->has_height_locktime && height_ok && in->height_locktime > height_lock) {
                height_lock = in->height_locktime;
            }
        }
        if (height_ok && height_lock > 0) {
            *lock = height_lock;
            return 1;
        }
        if (time_ok && time_lock > 0) {
            *lock = time_lock;
            return 1;
        }
    }
    *lock = p->has_fallback_locktime ? p->fallback_locktime : 0;
    return 1;
}

int psbt_get_unsigned_tx(const struct psbt *p, struct tx *tx)
{
    uint32_t lock;
    tx_init(tx);
    if (!compute_locktime(p, &lock)) {
        return RC_INVALID;
    }
    tx->version = (int32_t)p->tx_version;
    tx->locktime = lock;
    tx->vin_count = p->n_inputs;
    tx->vout_count = p->n_outputs;
    tx->vin = p->n_inputs ? xcalloc(p->n_inputs, sizeof(*tx->vin)) : NULL;
    tx->vout = p->n_outputs ? xcalloc(p->n_outputs, sizeof(*tx->vout)) : NULL;
    for (size_t i = 0; i < p->n_inputs; i++) {
        tx->vin[i].prevout = p->inputs[i].prevout;
        tx->vin[i].sequence = p->inputs[i].has_sequence ? p->inputs[i].sequence : SEQUENCE_FINAL;
    }
    for (size_t i = 0; i < p->n_outputs; i++) {
        tx->vout[i].value_sat = p->outputs[i].amount;
        bytes_copy(&tx->vout[i].script_pubkey, &p->outputs[i].script);
    }
    tx_compute_hashes(tx);
    return RC_OK;
}

const struct tx_out *psbt_input_utxo(const struct psbt_input *in)
{
    if (in->non_witness_utxo) {
        if (in->prevout.n >= in->non_witness_utxo->vout_count ||
            memcmp(in->non_witness_utxo->txid, in->prevout.txid, 32) != 0) {
            return NULL;
        }
        return &in->non_witness_utxo->vout[in->prevout.n];
    }
    return in->has_witness_utxo ? &in->witness_utxo : NULL;
}

int psbt_input_is_final(const struct psbt_input *in)
{
    return in->final_script_sig.len > 0 || in->final_witness_count > 0;
}

/* Core's GetUniqueID: the txid, with v2 sequences zeroed. */
static int unique_id(const struct psbt *p, uint8_t id[32])
{
    struct tx tx;
    if (psbt_get_unsigned_tx(p, &tx) != RC_OK) {
        return 0;
    }
    if (p->version >= 2) {
        for (size_t i = 0; i < tx.vin_count; i++) {
            tx.vin[i].sequence = 0;
        }
        tx_compute_hashes(&tx);
    }
    memcpy(id, tx.txid, 32);
    tx_clear(&tx);
    return 1;
}

/* ---- combine ------------------------------------------------------------------------- */

static void merge_map(struct psbt_map *dst, const struct psbt_map *src, int leaf_rule)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct psbt_kv *e = &src->v[i];
        if (map_find(dst, e->key.data, e->key.len)) {
            continue;
        }
        uint64_t t;
        if (leaf_rule && key_type(e, &t) && t == PSBT_IN_TAP_LEAF_SCRIPT) {
            /* Core's m_tap_scripts.insert keeps the control blocks it has for a leaf. */
            int have = 0;
            for (size_t j = 0; j < dst->n && !have; j++) {
                uint64_t u;
                have = key_type(&dst->v[j], &u) && u == PSBT_IN_TAP_LEAF_SCRIPT &&
                       vec_cmp(dst->v[j].value.data, dst->v[j].value.len, e->value.data,
                               e->value.len) == 0;
            }
            if (have) {
                continue;
            }
        }
        map_add(dst, e->key.data, e->key.len, e->value.data, e->value.len);
    }
}

static void merge_input(struct psbt_input *d, const struct psbt_input *s)
{
    if (!d->non_witness_utxo && s->non_witness_utxo) {
        d->non_witness_utxo = xmalloc(sizeof(struct tx));
        tx_copy(d->non_witness_utxo, s->non_witness_utxo);
    }
    if (!d->has_witness_utxo && s->has_witness_utxo) {
        d->has_witness_utxo = 1;
        d->witness_utxo.value_sat = s->witness_utxo.value_sat;
        sign_bytes_set(&d->witness_utxo.script_pubkey, s->witness_utxo.script_pubkey.data,
                       s->witness_utxo.script_pubkey.len);
    }
    merge_map(&d->fields, &s->fields, 1);
    const struct bytes *sb[] = {&s->redeem_script, &s->witness_script, &s->final_script_sig,
                                &s->tap_key_sig};
    struct bytes *db[] = {&d->redeem_script, &d->witness_script, &d->final_script_sig,
                          &d->tap_key_sig};
    for (int i = 0; i < 4; i++) {
        if (!db[i]->len && sb[i]->len) {
            sign_bytes_set(db[i], sb[i]->data, sb[i]->len);
        }
    }
    if (!d->final_witness_count && s->final_witness_count) {
        d->final_witness = witness_dup(s->final_witness, s->final_witness_count);
        d->final_witness_count = s->final_witness_count;
    }
    if (!d->has_tap_internal_key && s->has_tap_internal_key) {
        d->has_tap_internal_key = 1;
        memcpy(d->tap_internal_key, s->tap_internal_key, 32);
    }
    if (!d->has_tap_merkle_root && s->has_tap_merkle_root) {
        d->has_tap_merkle_root = 1;
        memcpy(d->tap_merkle_root, s->tap_merkle_root, 32);
    }
    if (!d->has_sequence && s->has_sequence) {
        d->has_sequence = 1;
        d->sequence = s->sequence;
    }
    if (!d->has_time_locktime && s->has_time_locktime) {
        d->has_time_locktime = 1;
        d->time_locktime = s->time_locktime;
    }
    if (!d->has_height_locktime && s->has_height_locktime) {
        d->has_height_locktime = 1;
        d->height_locktime = s->height_locktime;
    }
}

static void merge_output(struct psbt_output *d, const struct psbt_output *s)
{
    merge_map(&d->fields, &s->fields, 0);
    if (!d->redeem_script.len && s->redeem_script.len) {
        sign_bytes_set(&d->redeem_script, s->redeem_script.data, s->redeem_script.len);
    }
    if (!d->witness_script.len && s->witness_script.len) {
        sign_bytes_set(&d->witness_script, s->witness_script.data, s->witness_script.len);
    }
}

int psbt_combine(struct psbt *out, const struct psbt *const *ps, size_t n)
{
    psbt_copy(out, ps[0]);
    for (size_t k = 1; k < n; k++) {
        const struct psbt *o = ps[k];
        uint8_t a[32], b[32];
        if (!unique_id(out, a) || !unique_id(o, b) || memcmp(a, b, 32) != 0 ||
            out->version != o->version) {
            psbt_clear(out);
            return RC_INVALID;
        }
        for (size_t i = 0; i < out->n_inputs; i++) {
            merge_input(&out->inputs[i], &o->inputs[i]);
        }
        for (size_t i = 0; i < out->n_outputs; i++) {
            merge_output(&out->outputs[i], &o->outputs[i]);
        }
        if (!out->has_fallback_locktime && o->has_fallback_locktime) {
            out->has_fallback_locktime = 1;
            out->fallback_locktime = o->fallback_locktime;
        }
        if (out->has_tx_modifiable || o->has_tx_modifiable) {
            uint8_t x = out->has_tx_modifiable ? out->tx_modifiable : 0;
            uint8_t y = o->has_tx_modifiable ? o->tx_modifiable : 0;
            out->tx_modifiable = (uint8_t)((x & y & ~4u) | ((x | y) & 4u));
            out->has_tx_modifiable = 1;
        }
        merge_map(&out->fields, &o->fields, 0);
    }
    return RC_OK;
}

/* ---- signing and finalizing ---------------------------------------------------------- */

/* Core's PrecomputePSBTData: the unsigned transaction and its hashes (with the spent
 * outputs when every input has one). */
struct psbt_txdata {
    struct tx tx;
    struct tx_out *utxos;
    struct tx_precomputed pd;
};

static int txdata_init(struct psbt_txdata *t, const struct psbt *p)
{
    memset(t, 0, sizeof(*t));
    if (psbt_get_unsigned_tx(p, &t->tx) != RC_OK) {
        return 0;
    }
    t->utxos = xcalloc(p->n_inputs ? p->n_inputs : 1, sizeof(*t->utxos));
    int all = 1;
    for (size_t i = 0; i < p->n_inputs; i++) {
        const struct tx_out *u = psbt_input_utxo(&p->inputs[i]);
        if (u) {
            t->utxos[i].value_sat = u->value_sat;
            sign_bytes_set(&t->utxos[i].script_pubkey, u->script_pubkey.data, u->script_pubkey.len);
        } else {
            all = 0;
        }
    }
    sighash_precompute(&t->pd, &t->tx, all ? t->utxos : NULL, all ? p->n_inputs : 0);
    return 1;
}

static void txdata_clear(struct psbt_txdata *t)
{
    for (size_t i = 0; t->utxos && i < t->tx.vin_count; i++) {
        free(t->utxos[i].script_pubkey.data);
    }
    tx_clear(&t->tx);
    free(t->utxos);
}

/* Core's PSBTInputSignedAndVerified. */
static int input_signed_verified(const struct psbt *p, size_t idx, const struct tx_precomputed *pd)
{
    const struct psbt_input *in = &p->inputs[idx];
    const struct tx_out *u = psbt_input_utxo(in);
    struct tx tx;
    if (!u || psbt_get_unsigned_tx(p, &tx) != RC_OK) {
        return 0;
    }
    struct script_checker chk = {.tx = &tx, .in_idx = idx, .amount = u->value_sat, .txdata = pd};
    enum script_error err;
    int ok = script_verify(in->final_script_sig.data, in->final_script_sig.len,
                           u->script_pubkey.data, u->script_pubkey.len, in->final_witness,
                           in->final_witness_count, SCRIPT_FLAGS_STANDARD, &chk, &err);
    tx_clear(&tx);
    return ok;
}

/* Core's PSBTInput::FillSignatureData. */
static void fill_sigdata(const struct psbt_input *in, struct sign_data *d)
{
    if (in->final_script_sig.len) {
        sign_bytes_set(&d->script_sig, in->final_script_sig.data, in->final_script_sig.len);
        d->complete = 1;
    }
    if (in->final_witness_count) {
        d->stack = witness_dup(in->final_witness, in->final_witness_count);
        d->stack_count = in->final_witness_count;
        d->complete = 1;
    }
    if (d->complete) {
        return;
    }
    for (size_t i = 0; i < in->fields.n; i++) {
        const struct psbt_kv *e = &in->fields.v[i];
        uint64_t t;
        if (!key_type(e, &t)) {
            continue;
        }
        if (t == PSBT_IN_PARTIAL_SIG) {
            sign_data_add_sig(d, e->key.data + 1, e->key.len - 1, e->value.data, e->value.len);
        } else if (t == PSBT_IN_BIP32_DERIVATION) {
            sign_data_add_pubkey(d, e->key.data + 1, e->key.len - 1);
        }
    }
    sign_bytes_set(&d->redeem_script, in->redeem_script.data, in->redeem_script.len);
    sign_bytes_set(&d->witness_script, in->witness_script.data, in->witness_script.len);
    sign_bytes_set(&d->tap_key_sig, in->tap_key_sig.data, in->tap_key_sig.len);
    if (in->has_tap_internal_key) {
        d->has_internal_key = 1;
        memcpy(d->internal_key, in->tap_internal_key, 32);
    }
    if (in->has_tap_merkle_root) {
        d->has_merkle_root = 1;
        memcpy(d->merkle_root, in->tap_merkle_root, 32);
    }
}

/* Core's PSBTInput::FromSignatureData. */
static void from_sigdata(struct psbt_input *in, const struct sign_data *d)
{
    if (d->complete) {
        /* partial_sigs, hd_keypaths and the scripts go; the finals come. */
        struct psbt_map kept = {0};
        for (size_t i = 0; i < in->fields.n; i++) {
            uint64_t t;
            const struct psbt_kv *e = &in->fields.v[i];
            if (key_type(e, &t) && (t == PSBT_IN_PARTIAL_SIG || t == PSBT_IN_BIP32_DERIVATION)) {
                continue;
            }
            map_add(&kept, e->key.data, e->key.len, e->value.data, e->value.len);
        }
        map_clear(&in->fields);
        in->fields = kept;
        sign_bytes_set(&in->redeem_script, NULL, 0);
        sign_bytes_set(&in->witness_script, NULL, 0);
        if (d->script_sig.len) {
            sign_bytes_set(&in->final_script_sig, d->script_sig.data, d->script_sig.len);
        }
        if (d->stack_count) {
            witness_free(in->final_witness, in->final_witness_count);
            in->final_witness = witness_dup(d->stack, d->stack_count);
            in->final_witness_count = d->stack_count;
        }
        return;
    }
    for (size_t i = 0; i < d->n_sigs; i++) {
        uint8_t key[66];
        key[0] = PSBT_IN_PARTIAL_SIG;
        memcpy(key + 1, d->sigs[i].pubkey, d->sigs[i].pubkey_len);
        if (!map_find(&in->fields, key, d->sigs[i].pubkey_len + 1)) {
            map_add(&in->fields, key, d->sigs[i].pubkey_len + 1, d->sigs[i].sig.data,
                    d->sigs[i].sig.len);
        }
    }
    if (!in->redeem_script.len && d->redeem_script.len) {
        sign_bytes_set(&in->redeem_script, d->redeem_script.data, d->redeem_script.len);
    }
    if (!in->witness_script.len && d->witness_script.len) {
        sign_bytes_set(&in->witness_script, d->witness_script.data, d->witness_script.len);
    }
    if (d->tap_key_sig.len) {
        sign_bytes_set(&in->tap_key_sig, d->tap_key_sig.data, d->tap_key_sig.len);
    }
    static const uint8_t zero[32];
    if (d->has_internal_key && memcmp(d->internal_key, zero, 32) != 0) {
        in->has_tap_internal_key = 1;
        memcpy(in->tap_internal_key, d->internal_key, 32);
    }
    if (d->has_merkle_root && memcmp(d->merkle_root, zero, 32) != 0) {
        in->has_tap_merkle_root = 1;
        memcpy(in->tap_merkle_root, d->merkle_root, 32);
    }
}

static int is_p2tr(const struct bytes *spk)
{
    return spk->len == 34 && spk->data[0] == OP_1 && spk->data[1] == 32;
}

static void copy_missing(struct sign_data *dst, const struct sign_data *src)
{
    for (size_t i = 0; i < src->n_missing_pubkeys; i++) {
        dst->missing_pubkeys = xrealloc(dst->missing_pubkeys, (i + 1) * 20);
        memcpy(dst->missing_pubkeys[i], src->missing_pubkeys[i], 20);
    }
    dst->n_missing_pubkeys = src->n_missing_pubkeys;
    for (size_t i = 0; i < src->n_missing_sigs; i++) {
        dst->missing_sigs = xrealloc(dst->missing_sigs, (i + 1) * 20);
        memcpy(dst->missing_sigs[i], src->missing_sigs[i], 20);
    }
    dst->n_missing_sigs = src->n_missing_sigs;
    dst->has_missing_redeem = src->has_missing_redeem;
    memcpy(dst->missing_redeem, src->missing_redeem, 20);
    dst->has_missing_witness = src->has_missing_witness;
    memcpy(dst->missing_witness, src->missing_witness, 32);
}

enum psbt_sign_result psbt_sign_input(struct psbt *p, size_t idx, const struct sign_provider *prov,
                                      const struct tx_precomputed *txdata, int sighash,
                                      int finalize, struct sign_data *missing)
{
    struct psbt_input *in = &p->inputs[idx];
    struct tx tx;
    if (psbt_get_unsigned_tx(p, &tx) != RC_OK) {
        return PSBT_SIGN_INVALID_TX;
    }
    enum psbt_sign_result res = PSBT_SIGN_OK;
    struct sign_data d;
    sign_data_init(&d);
    if (input_signed_verified(p, idx, txdata)) {
        goto out;
    }
    fill_sigdata(in, &d);
    int require_witness = 0;
    struct tx_out utxo;
    if (in->non_witness_utxo) {
        const struct tx_out *u = psbt_input_utxo(in);
        if (!u) {
            res = PSBT_SIGN_MISSING_INPUTS;
            goto out;
        }
        utxo = *u;
    } else if (in->has_witness_utxo) {
        utxo = in->witness_utxo;
        /* A witness UTXO is not proven by a txid: only a witness signature commits to it. */
        require_witness = 1;
    } else {
        res = PSBT_SIGN_MISSING_INPUTS;
        goto out;
    }
    int tr = is_p2tr(&utxo.script_pubkey);
    int ht = sighash >= 0 ? sighash : (tr ? SIGHASH_DEFAULT : SIGHASH_ALL);
    if (in->has_sighash && in->sighash != ht) {
        res = PSBT_SIGN_SIGHASH_MISMATCH;
        goto out;
    }
    if (tr ? ht != SIGHASH_DEFAULT : (ht != SIGHASH_DEFAULT && ht != SIGHASH_ALL)) {
        in->has_sighash = 1;
        in->sighash = ht;
    }
    if (ht == SIGHASH_DEFAULT) {
        if (in->tap_key_sig.len && in->tap_key_sig.len != 64) {
            res = PSBT_SIGN_SIGHASH_MISMATCH;
            goto out;
        }
    } else {
        if (in->tap_key_sig.len && (in->tap_key_sig.len != 65 || in->tap_key_sig.data[64] != ht)) {
            res = PSBT_SIGN_SIGHASH_MISMATCH;
            goto out;
        }
    }
    for (size_t i = 0; i < in->fields.n; i++) {
        const struct psbt_kv *e = &in->fields.v[i];
        uint64_t t;
        if (!key_type(e, &t)) {
            continue;
        }
        if (t == PSBT_IN_TAP_SCRIPT_SIG &&
            (ht == SIGHASH_DEFAULT ? e->value.len != 64
                                   : e->value.len != 65 || e->value.data[64] != ht)) {
            res = PSBT_SIGN_SIGHASH_MISMATCH;
            goto out;
        }
        if (t == PSBT_IN_PARTIAL_SIG && ht != SIGHASH_DEFAULT &&
            e->value.data[e->value.len - 1] != ht) {
            res = PSBT_SIGN_SIGHASH_MISMATCH;
            goto out;
        }
    }
    d.witness = 0;
    struct sign_creator c = {.mode = txdata ? SIGN_REAL : SIGN_DUMMY,
                             .tx = &tx,
                             .in_idx = idx,
                             .amount = utxo.value_sat,
                             .txdata = txdata,
                             .sighash_type = ht};
    int complete = sign_produce(prov, &c, utxo.script_pubkey.data, utxo.script_pubkey.len, &d);
    if (require_witness && !d.witness) {
        res = PSBT_SIGN_INCOMPLETE;
        goto out;
    }
    if (!finalize && d.complete) {
        d.complete = 0;
    }
    /* utxo may point into in's own storage: copy before in changes. */
    struct tx_out u = {.value_sat = utxo.value_sat};
    sign_bytes_set(&u.script_pubkey, utxo.script_pubkey.data, utxo.script_pubkey.len);
    from_sigdata(in, &d);
    if (d.witness) {
        in->has_witness_utxo = 1;
        in->witness_utxo.value_sat = u.value_sat;
        free(in->witness_utxo.script_pubkey.data);
        in->witness_utxo.script_pubkey = u.script_pubkey;
    } else {
        free(u.script_pubkey.data);
    }
    if (missing) {
        copy_missing(missing, &d);
    }
    res = complete ? PSBT_SIGN_OK : PSBT_SIGN_INCOMPLETE;
out:
    sign_data_clear(&d);
    tx_clear(&tx);
    return res;
}

int psbt_finalize(struct psbt *p)
{
    struct psbt_txdata t;
    if (!txdata_init(&t, p)) {
        return 0;
    }
    int complete = 1;
    for (size_t i = 0; i < p->n_inputs; i++) {
        int ht = p->inputs[i].has_sighash ? p->inputs[i].sighash : -1;
        complete &= psbt_sign_input(p, i, NULL, &t.pd, ht, 1, NULL) == PSBT_SIGN_OK;
    }
    txdata_clear(&t);
    return complete;
}

int psbt_finalize_extract(struct psbt *p, struct tx *tx)
{
    if (!psbt_finalize(p)) {
        return 0;
    }
    if (psbt_get_unsigned_tx(p, tx) != RC_OK) {
        return 0;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct psbt_input *in = &p->inputs[i];
        sign_bytes_set(&tx->vin[i].script_sig, in->final_script_sig.data, in->final_script_sig.len);
        tx->vin[i].witness = witness_dup(in->final_witness, in->final_witness_count);
        tx->vin[i].witness_count = in->final_witness_count;
    }
    tx_compute_hashes(tx);
    return 1;
}

void psbt_remove_unneeded_utxos(struct psbt *p)
{
    for (size_t i = 0; i < p->n_inputs; i++) {
        const struct psbt_input *in = &p->inputs[i];
        int ver;
        const uint8_t *prog;
        size_t prog_len;
        if (!in->has_witness_utxo ||
            !script_is_witness_program(in->witness_utxo.script_pubkey.data,
                                       in->witness_utxo.script_pubkey.len, &ver, &prog,
                                       &prog_len) ||
            ver == 0 || (in->has_sighash && (in->sighash & 0x80) == SIGHASH_ANYONECANPAY)) {
            return;
        }
    }
    for (size_t i = 0; i < p->n_inputs; i++) {
        struct psbt_input *in = &p->inputs[i];
        if (in->non_witness_utxo) {
            tx_clear(in->non_witness_utxo);
            free(in->non_witness_utxo);
            in->non_witness_utxo = NULL;
        }
    }
}

/* ---- analysis ------------------------------------------------------------------------ */

const char *psbt_role_name(enum psbt_role r)
{
    static const char *names[] = {"creator", "updater", "signer", "finalizer", "extractor"};
    return names[r];
}

void psbt_analysis_clear(struct psbt_analysis *a)
{
    for (size_t i = 0; i < a->n_inputs; i++) {
        sign_data_clear(&a->inputs[i].missing);
    }
    free(a->inputs);
    memset(a, 0, sizeof(*a));
}

static void set_invalid(struct psbt_analysis *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_invalid(struct psbt_analysis *a, const char *fmt, ...)
{
    psbt_analysis_clear(a);
    a->next = PSBT_ROLE_CREATOR;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof(a->error), fmt, ap);
    va_end(ap);
}

void psbt_analyze(const struct psbt *orig, struct psbt_analysis *a)
{
    memset(a, 0, sizeof(*a));
    struct psbt p;
    struct tx mtx;
    psbt_copy(&p, orig);
    if (psbt_get_unsigned_tx(&p, &mtx) != RC_OK) {
        set_invalid(a, "PSBT cannot be made into a valid transaction");
        psbt_clear(&p);
        return;
    }
    int calc_fee = 1;
    int64_t in_amt = 0;
    a->n_inputs = p.n_inputs;
    a->inputs = xcalloc(p.n_inputs ? p.n_inputs : 1, sizeof(*a->inputs));
    struct psbt_txdata t;
    txdata_init(&t, &p);
    for (size_t i = 0; i < p.n_inputs; i++) {
        struct psbt_input *in = &p.inputs[i];
        struct psbt_input_analysis *ia = &a->inputs[i];
        ia->next = PSBT_ROLE_EXTRACTOR;
        const struct tx_out *u = psbt_input_utxo(in);
        int64_t uv = u ? u->value_sat : 0;
        int unspendable = u && script_is_unspendable(u->script_pubkey.data, u->script_pubkey.len);
        if (u) {
            if (!amount_in_range(uv) || !amount_in_range(in_amt + uv)) {
                set_invalid(a, "PSBT is not valid. Input %zu has invalid value", i);
                goto out;
            }
            in_amt += uv;
            ia->has_utxo = 1;
        } else {
            if (in->non_witness_utxo && in->prevout.n >= in->non_witness_utxo->vout_count) {
                set_invalid(a, "PSBT is not valid. Input %zu specifies invalid prevout", i);
                goto out;
            }
            ia->next = PSBT_ROLE_UPDATER;
            calc_fee = 0;
        }
        if (unspendable) {
            set_invalid(a, "PSBT is not valid. Input %zu spends unspendable output", i);
            goto out;
        }
        if (!input_signed_verified(&p, i, &t.pd)) {
            ia->is_final = 0;
            struct sign_data out;
            sign_data_init(&out);
            int ok = psbt_sign_input(&p, i, NULL, &t.pd, -1, 1, &out) == PSBT_SIGN_OK;
            if (!ok) {
                copy_missing(&ia->missing, &out);
                if (!out.n_missing_pubkeys && !out.has_missing_redeem && !out.has_missing_witness &&
                    out.n_missing_sigs) {
                    ia->next = PSBT_ROLE_SIGNER;
                } else {
                    ia->next = PSBT_ROLE_UPDATER;
                }
            } else {
                ia->next = PSBT_ROLE_FINALIZER;
            }
            sign_data_clear(&out);
        } else if (u) {
            ia->is_final = 1;
        }
    }
    a->next = PSBT_ROLE_EXTRACTOR;
    for (size_t i = 0; i < p.n_inputs; i++) {
        if (a->inputs[i].next < a->next) {
            a->next = a->inputs[i].next;
        }
    }
    if (calc_fee) {
        int64_t out_amt = 0;
        for (size_t i = 0; i < p.n_outputs; i++) {
            int64_t v = p.outputs[i].amount;
            if (!amount_in_range(out_amt) || !amount_in_range(v) || !amount_in_range(out_amt + v)) {
                out_amt = -1;
                break;
            }
            out_amt += v;
        }
        if (!amount_in_range(out_amt)) {
            set_invalid(a, "PSBT is not valid. Output amount invalid");
            goto out;
        }
        int64_t fee = in_amt - out_amt;
        a->has_fee = 1;
        a->fee_sat = fee;
        int success = 1;
        struct tx_out *spent = xcalloc(p.n_inputs ? p.n_inputs : 1, sizeof(*spent));
        for (size_t i = 0; i < p.n_inputs && success; i++) {
            struct psbt_input *in = &p.inputs[i];
            const struct tx_out *u;
            if (psbt_sign_input(&p, i, NULL, NULL, -1, 1, NULL) != PSBT_SIGN_OK ||
                !(u = psbt_input_utxo(in))) {
                success = 0;
                break;
            }
            sign_bytes_set(&mtx.vin[i].script_sig, in->final_script_sig.data,
                           in->final_script_sig.len);
            witness_free(mtx.vin[i].witness, mtx.vin[i].witness_count);
            mtx.vin[i].witness = witness_dup(in->final_witness, in->final_witness_count);
            mtx.vin[i].witness_count = in->final_witness_count;
            spent[i] = *u;
        }
        if (success) {
            tx_compute_hashes(&mtx);
            int64_t sigop_cost = tx_sigop_cost(&mtx, spent, SCRIPT_FLAGS_STANDARD);
            int64_t w = (int64_t)tx_weight(&mtx);
            if (sigop_cost * 20 > w) {
                w = sigop_cost * 20;
            }
            int64_t size = (w + 3) / 4;
            a->has_estimate = 1;
            a->estimated_vsize = (size_t)size;
            /* CFeeRate(fee, size).GetFeePerK(): fee * 1000 / size rounded down. */
            int64_t num = fee * 1000;
            int64_t q = size > 0 ? num / size : 0;
            if (size > 0 && (num % size != 0) && ((num < 0) != (size < 0))) {
                q--;
            }
            a->estimated_feerate_per_kvb = q;
        }
        free(spent);
    }
out:
    txdata_clear(&t);
    tx_clear(&mtx);
    psbt_clear(&p);
}
