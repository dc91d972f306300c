/* createrawtransaction, combinerawtransaction, signrawtransactionwithkey and the PSBT methods,
 * with Core's arguments, results and errors. See rawtransaction_sign.h. */
#include "rpc/rawtransaction_sign.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/amount.h"
#include "crypto/base58.h"
#include "crypto/hash.h"
#include "mempool/mempool.h"
#include "primitives/serialize.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "sign/psbt.h"
#include "script/script.h"
#include "sign/sign.h"
#include "script/solver.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Core's TX_MIN_STANDARD_VERSION / TX_MAX_STANDARD_VERSION and MAX_BIP125_RBF_SEQUENCE. */
#define TX_MIN_STANDARD_VERSION 1
#define TX_MAX_STANDARD_VERSION 3
#define MAX_BIP125_RBF_SEQUENCE 0xfffffffdu

static const struct chain_params *params_of(struct rpc_request *req)
{
    return req->ctx->node->cs ? chainstate_params(req->ctx->node->cs) : chain_params_get("main");
}

static json_t *type_error(struct rpc_request *req, const json_t *v, const char *expected)
{
    return rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type %s",
                     rpc_json_type_name(v), expected);
}

int rpc_decode_hex_tx(struct tx *tx, const char *hex, int try_legacy, int try_witness)
{
    struct buf raw;
    struct reader r;
    int ok = 0;
    buf_init(&raw);
    if (!hex || hex_decode(&raw, hex) != RC_OK) {
        buf_clear(&raw);
        return 0;
    }
    for (int pass = 0; pass < 2 && !ok; pass++) {
        int witness = pass == 0;
        if (witness ? !try_witness : !try_legacy) {
            continue;
        }
        reader_init(&r, raw.data, raw.len);
        ok = tx_parse(tx, &r, witness) == RC_OK && reader_left(&r) == 0;
        if (!ok && r.rc == RC_OK) {
            tx_clear(tx);
        }
    }
    buf_clear(&raw);
    return ok;
}

static char *tx_hex(const struct tx *tx)
{
    struct buf b;
    buf_init(&b);
    tx_serialize(tx, &b, 1);
    char *s = hex_encode_alloc(b.data, b.len);
    buf_clear(&b);
    return s;
}

/* Core's ParseHexV(v, name): 0 with the bytes appended, or -1 after rpc_error. */
static int parse_hex_v(struct rpc_request *req, const json_t *v, const char *name, struct buf *out)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (!json_is_string(v)) {
        type_error(req, v, "string");
        return -1;
    }
    if (!*s || strlen(s) % 2 || hex_decode(out, s) != RC_OK) {
        rpc_error(req, RPC_INVALID_PARAMETER, "%s must be hexadecimal string (not '%s')", name, s);
        return -1;
    }
    return 0;
}

/* ---- createrawtransaction / createpsbt ----------------------------------------------- */

/* The inputs of ConstructTransaction (param 0) into tx, each sequence from its "sequence"
 * or else from the replaceable option (has_rbf, rbf) and the locktime. Returns 0, or -1
 * after rpc_error. */
static int construct_inputs(struct rpc_request *req, struct tx *tx, json_t *inputs,
                            int has_rbf, int rbf)
{
    size_t n_in = inputs ? json_array_size(inputs) : 0;
    tx->vin = xcalloc(n_in ? n_in : 1, sizeof(*tx->vin));
    for (size_t i = 0; i < n_in; i++) {
        json_t *o = json_array_get(inputs, i);
        if (!json_is_object(o)) {
            type_error(req, o, "object");
            return -1;
        }
        struct tx_in *in = &tx->vin[tx->vin_count];
        json_t *txid = json_object_get(o, "txid");
        if (rpc_value_hash(req, txid ? txid : json_null(), "txid", in->prevout.txid)) {
            return -1;
        }
        json_t *vout = json_object_get(o, "vout");
        if (!rpc_json_is_number(vout)) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, missing vout key");
            return -1;
        }
        int64_t n;
        if (rpc_value_int(req, vout, INT32_MIN, INT32_MAX, &n)) {
            return -1;
        }
        if (n < 0) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, vout cannot be negative");
            return -1;
        }
        in->prevout.n = (uint32_t)n;
        if (!has_rbf || rbf) {
            in->sequence = MAX_BIP125_RBF_SEQUENCE;
        } else if (tx->locktime) {
            in->sequence = SEQUENCE_FINAL - 1;
        } else {
            in->sequence = SEQUENCE_FINAL;
        }
        json_t *seq = json_object_get(o, "sequence");
        if (rpc_json_is_number(seq)) {
            int64_t s;
            if (rpc_value_int(req, seq, INT64_MIN, INT64_MAX, &s)) {
                return -1;
            }
            if (s < 0 || s > (int64_t)SEQUENCE_FINAL) {
                rpc_error(req, RPC_INVALID_PARAMETER,
                          "Invalid parameter, sequence number is out of range");
                return -1;
            }
            in->sequence = (uint32_t)s;
        }
        tx->vin_count++;
    }
    return 0;
}

/* Core's NormalizeOutputs: outputs (param 1) as an object, or an array of one-key objects,
 * into *pairs, a new array of [key, value] in order, duplicates kept as Core keeps them.
 * Returns 0, or -1 after rpc_error (*pairs NULL). */
static int normalize_outputs(struct rpc_request *req, json_t *outputs, json_t **pairs)
{
    *pairs = NULL;
    if (!outputs) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Invalid parameter, output argument must be non-null");
        return -1;
    }
    if (!json_is_object(outputs) && !json_is_array(outputs)) {
        type_error(req, outputs, "array");
        return -1;
    }
    json_t *list = json_array();
    const char *k;
    json_t *v;
    if (json_is_object(outputs)) {
        json_object_foreach(outputs, k, v)
        {
            /* A key repeated in the request is read as given (Core's multidict case). */
            json_array_append_new(list, json_pack("[s#O]", k, (int)rpc_json_key_len(k), v));
        }
        *pairs = list;
        return 0;
    }
    size_t i;
    json_t *e;
    json_array_foreach(outputs, i, e)
    {
        if (!json_is_object(e) || json_object_size(e) != 1) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      json_is_object(e)
                          ? "Invalid parameter, key-value pair must contain exactly one key"
                          : "Invalid parameter, key-value pair not an object as expected");
            json_decref(list);
            return -1;
        }
        json_object_foreach(e, k, v)
        {
            /* A key repeated in the request is read as given (Core's multidict case). */
            json_array_append_new(list, json_pack("[s#O]", k, (int)rpc_json_key_len(k), v));
        }
    }
    *pairs = list;
    return 0;
}

/* One output of ConstructTransaction: "data" (hex, once) as an OP_RETURN output, else an
 * address (not one already paid) with its amount; appended to tx. Returns 0, or -1 after
 * rpc_error. */
static int construct_output(struct rpc_request *req, struct tx *tx, const char *name, json_t *v,
                            int *has_data)
{
    struct buf spk;
    buf_init(&spk);
    int64_t amount = 0;
    if (strcmp(name, "data") == 0) {
        if (*has_data) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, duplicate key: data");
            return -1;
        }
        *has_data = 1;
        struct buf data;
        buf_init(&data);
        /* Core reads the value with getValStr: a non-string is its text. */
        const char *s = json_is_string(v) ? json_string_value(v) : "";
        if (!*s || strlen(s) % 2 || hex_decode(&data, s) != RC_OK) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Data must be hexadecimal string (not '%s')", s);
            buf_clear(&data);
            return -1;
        }
        buf_put_u8(&spk, OP_RETURN);
        script_push_data(&spk, data.data, data.len);
        buf_clear(&data);
    } else {
        int valid = address_to_script(&spk, name, params_of(req)) == RC_OK;
        const char *aerr;
        if (rpc_json_amount_parse(v, &amount, &aerr) != RC_OK) {
            rpc_error(req, RPC_TYPE_ERROR, "%s", aerr);
            buf_clear(&spk);
            return -1;
        }
        if (!valid) {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid Bitcoin address: %s", name);
            buf_clear(&spk);
            return -1;
        }
        for (size_t j = 0; j < tx->vout_count; j++) {
            const struct bytes *o = &tx->vout[j].script_pubkey;
            if (o->len == spk.len && memcmp(o->data, spk.data, spk.len) == 0 &&
                !(o->len && o->data[0] == OP_RETURN)) {
                rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, duplicated address: %s",
                          name);
                buf_clear(&spk);
                return -1;
            }
        }
    }
    tx->vout[tx->vout_count].value_sat = amount;
    tx->vout[tx->vout_count].script_pubkey.data = spk.data;
    tx->vout[tx->vout_count].script_pubkey.len = spk.len;
    tx->vout_count++;
    return 0;
}

/* Core's ConstructTransaction from params 0..3 and the version at params[4]. */
static int construct_tx(struct rpc_request *req, struct tx *tx)
{
    json_t *rbf_v = rpc_param(req, 3);
    int has_rbf = rbf_v != NULL, rbf = rbf_v && json_is_true(rbf_v);
    tx_init(tx);
    if (rpc_param(req, 2)) {
        int64_t lt = rpc_arg_int(req, 2);
        if (lt < 0 || lt > 0xffffffffLL) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, locktime out of range");
            return -1;
        }
        tx->locktime = (uint32_t)lt;
    }
    int64_t version = rpc_arg_int(req, 4);
    if (version < TX_MIN_STANDARD_VERSION || version > TX_MAX_STANDARD_VERSION) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, version out of range(%d~%d)",
                  TX_MIN_STANDARD_VERSION, TX_MAX_STANDARD_VERSION);
        return -1;
    }
    tx->version = (int32_t)version;
    json_t *pairs;
    if (construct_inputs(req, tx, rpc_param(req, 0), has_rbf, rbf) ||
        normalize_outputs(req, rpc_param(req, 1), &pairs)) {
        return -1;
    }
    int rc = -1, has_data = 0;
    size_t n_out = json_array_size(pairs);
    tx->vout = xcalloc(n_out ? n_out : 1, sizeof(*tx->vout));
    for (size_t i = 0; i < n_out; i++) {
        json_t *pair = json_array_get(pairs, i);
        if (construct_output(req, tx, json_string_value(json_array_get(pair, 0)),
                             json_array_get(pair, 1), &has_data)) {
            goto out;
        }
    }
    if (has_rbf && rbf && tx->vin_count > 0) {
        int signals = 0;
        for (size_t i = 0; i < tx->vin_count; i++) {
            signals |= tx->vin[i].sequence <= MAX_BIP125_RBF_SEQUENCE;
        }
        if (!signals) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "Invalid parameter combination: Sequence number(s) contradict replaceable "
                      "option");
            goto out;
        }
    }
    tx_compute_hashes(tx);
    rc = 0;
out:
    json_decref(pairs);
    return rc;
}

json_t *rpc_createrawtransaction(struct rpc_request *req)
{
    struct tx tx;
    if (construct_tx(req, &tx)) {
        tx_clear(&tx);
        return NULL;
    }
    char *hx = tx_hex(&tx);
    json_t *r = json_string(hx);
    free(hx);
    tx_clear(&tx);
    return r;
}

/* The psbt_version argument at index i (Core's default 2). */
static int psbt_version_arg(struct rpc_request *req, size_t i, uint32_t *v)
{
    int64_t x = rpc_arg_int(req, i);
    if (x != 0 && x != 2) {
        rpc_error(req, RPC_INVALID_PARAMETER, "The PSBT version can only be 2 or 0");
        return -1;
    }
    *v = (uint32_t)x;
    return 0;
}

static json_t *psbt_result(const struct psbt *p)
{
    char *s = psbt_to_base64(p);
    json_t *r = json_string(s);
    free(s);
    return r;
}

json_t *rpc_createpsbt(struct rpc_request *req)
{
    struct tx tx;
    uint32_t v;
    if (construct_tx(req, &tx) || psbt_version_arg(req, 5, &v)) {
        tx_clear(&tx);
        return NULL;
    }
    struct psbt p;
    psbt_from_tx(&p, &tx, v);
    json_t *r = psbt_result(&p);
    psbt_clear(&p);
    tx_clear(&tx);
    return r;
}

json_t *rpc_converttopsbt(struct rpc_request *req)
{
    json_t *permit = rpc_param(req, 1), *isw = rpc_param(req, 2);
    int try_witness = isw ? json_is_true(isw) : 1;
    int try_legacy = isw ? !json_is_true(isw) : 1;
    struct tx tx;
    uint32_t v;
    if (!rpc_decode_hex_tx(&tx, json_string_value(rpc_param(req, 0)), try_legacy, try_witness)) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed");
    }
    for (size_t i = 0; i < tx.vin_count; i++) {
        if ((tx.vin[i].script_sig.len || tx.vin[i].witness_count) && !json_is_true(permit)) {
            tx_clear(&tx);
            return rpc_error(req, RPC_DESERIALIZATION_ERROR,
                             "Inputs must not have scriptSigs and scriptWitnesses");
        }
    }
    if (psbt_version_arg(req, 3, &v)) {
        tx_clear(&tx);
        return NULL;
    }
    struct psbt p;
    psbt_from_tx(&p, &tx, v); /* scripts and witnesses are left behind */
    json_t *r = psbt_result(&p);
    psbt_clear(&p);
    tx_clear(&tx);
    return r;
}

/* ---- coins --------------------------------------------------------------------------- */

/* Core's FindCoins: the outputs ops name, from the pool's transactions first (Core's
 * CCoinsViewMemPool: an output of a pool transaction, spent or not), else the active chain's
 * unspent outputs (found[i] set, coins[i] filled; caller clears them). Returns 0, or -1 after
 * rpc_error when the store fails. */
static int find_coins(struct rpc_request *req, const struct outpoint *ops, size_t n,
                      struct coin *coins, int *found)
{
    struct chainstate *cs = req->ctx->node->cs;
    memset(coins, 0, n * sizeof(*coins));
    memset(found, 0, n * sizeof(*found));
    if (!cs) {
        return 0;
    }
    struct mempool *mp = req->ctx->node->mempool;
    chainstate_read_lock(cs);
    if (mp) {
        mempool_read_lock(mp);
    }
    for (size_t i = 0; i < n; i++) {
        struct mempool_entry *e = mp ? mempool_get(mp, ops[i].txid) : NULL;
        if (e) {
            if (ops[i].n < e->tx.vout_count) {
                const struct tx_out *o = &e->tx.vout[ops[i].n];
                coins[i].value_sat = o->value_sat;
                coins[i].script_pubkey.len = o->script_pubkey.len;
                coins[i].script_pubkey.data =
                    o->script_pubkey.len ? xmalloc(o->script_pubkey.len) : NULL;
                if (o->script_pubkey.len) {
                    memcpy(coins[i].script_pubkey.data, o->script_pubkey.data,
                           o->script_pubkey.len);
                }
                coins[i].height = 0x7fffffff; /* Core's MEMPOOL_HEIGHT */
                found[i] = 1;
            }
            continue;
        }
        int rc = chainstate_tip(cs) ? chainstate_get_coin(cs, &ops[i], &coins[i]) : RC_NOT_FOUND;
        if (rc == RC_OK) {
            found[i] = 1;
        } else if (rc != RC_NOT_FOUND) {
            if (mp) {
                mempool_read_unlock(mp);
            }
            chainstate_read_unlock(cs);
            rpc_error(req, RPC_DATABASE_ERROR, "UTXO set lookup failed: %s", rc_str(rc));
            return -1;
        }
    }
    if (mp) {
        mempool_read_unlock(mp);
    }
    chainstate_read_unlock(cs);
    return 0;
}

static void coins_clear(struct coin *coins, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        coin_clear(&coins[i]);
    }
    free(coins);
}

/* ---- combinerawtransaction ----------------------------------------------------------- */

json_t *rpc_combinerawtransaction(struct rpc_request *req)
{
    json_t *txs = rpc_param(req, 0);
    size_t n = json_array_size(txs);
    if (n < 2) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR,
                         "Missing transactions. At least two transactions required.");
    }
    struct tx *v = xcalloc(n, sizeof(*v));
    size_t parsed = 0;
    json_t *r = NULL;
    struct coin *coins = NULL;
    size_t n_coins = 0;
    int *found = NULL;
    for (; parsed < n; parsed++) {
        json_t *e = json_array_get(txs, parsed);
        if (!json_is_string(e)) {
            type_error(req, e, "string");
            goto out;
        }
        if (!rpc_decode_hex_tx(&v[parsed], json_string_value(e), 1, 1)) {
            rpc_error(req, RPC_DESERIALIZATION_ERROR,
                      "TX decode failed for tx %zu. Make sure the tx has at least one input.",
                      parsed);
            goto out;
        }
    }
    /* Mergeable: the same transaction without scriptSigs and witnesses. */
    for (size_t k = 1; k < n; k++) {
        struct tx a, b;
        tx_copy(&a, &v[0]);
        tx_copy(&b, &v[k]);
        /* The txid leaves out witnesses; blank the scriptSigs too. */
        for (size_t i = 0; i < a.vin_count; i++) {
            free(a.vin[i].script_sig.data);
            a.vin[i].script_sig.data = NULL;
            a.vin[i].script_sig.len = 0;
        }
        for (size_t i = 0; i < b.vin_count; i++) {
            free(b.vin[i].script_sig.data);
            b.vin[i].script_sig.data = NULL;
            b.vin[i].script_sig.len = 0;
        }
        tx_compute_hashes(&a);
        tx_compute_hashes(&b);
        int same = memcmp(a.txid, b.txid, 32) == 0;
        tx_clear(&a);
        tx_clear(&b);
        if (!same) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "Transaction number %zu not compatible with first transaction", k + 1);
            goto out;
        }
    }
    struct tx *merged = &v[0];
    size_t nin = merged->vin_count;
    struct outpoint *ops = xcalloc(nin ? nin : 1, sizeof(*ops));
    for (size_t i = 0; i < nin; i++) {
        ops[i] = merged->vin[i].prevout;
    }
    coins = xcalloc(nin ? nin : 1, sizeof(*coins));
    n_coins = nin;
    found = xcalloc(nin ? nin : 1, sizeof(*found));
    int frc = find_coins(req, ops, nin, coins, found);
    free(ops);
    if (frc) {
        goto out;
    }
    struct tx constant;
    tx_copy(&constant, merged);
    tx_compute_hashes(&constant);
    for (size_t i = 0; i < nin; i++) {
        if (!found[i]) {
            rpc_error(req, RPC_VERIFY_ERROR, "Input not found or already spent");
            tx_clear(&constant);
            goto out;
        }
        struct tx_out spent = {.value_sat = coins[i].value_sat,
                               .script_pubkey = coins[i].script_pubkey};
        struct sign_data d;
        sign_data_init(&d);
        for (size_t k = 0; k < n; k++) {
            if (v[k].vin_count > i) {
                struct sign_data dk;
                sign_data_init(&dk);
                sign_data_from_tx(&dk, &v[k], i, &spent);
                sign_data_merge(&d, &dk);
                sign_data_clear(&dk);
            }
        }
        struct sign_creator c = {.mode = SIGN_REAL,
                                 .tx = &constant,
                                 .in_idx = i,
                                 .amount = spent.value_sat,
                                 .sighash_type = SIGHASH_ALL};
        sign_produce(NULL, &c, spent.script_pubkey.data, spent.script_pubkey.len, &d);
        sign_data_update_input(&merged->vin[i], &d);
        sign_data_clear(&d);
    }
    tx_clear(&constant);
    tx_compute_hashes(merged);
    char *hx = tx_hex(merged);
    r = json_string(hx);
    free(hx);
out:
    for (size_t k = 0; k < parsed && k < n; k++) {
        tx_clear(&v[k]);
    }
    free(v);
    if (coins) {
        coins_clear(coins, n_coins);
    }
    free(found);
    return r;
}

/* ---- signrawtransactionwithkey ------------------------------------------------------- */

/* Core's map<COutPoint, Coin> for signing: what the UTXO set and prevtxs say. */
struct coin_entry {
    struct outpoint op;
    int have;          /* not spent */
    struct tx_out out; /* script owned */
};

struct coin_map {
    struct coin_entry *v;
    size_t n;
};

static struct coin_entry *coin_map_find(struct coin_map *m, const struct outpoint *op)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].op.n == op->n && memcmp(m->v[i].op.txid, op->txid, 32) == 0) {
            return &m->v[i];
        }
    }
    return NULL;
}

static struct coin_entry *coin_map_get(struct coin_map *m, const struct outpoint *op)
{
    struct coin_entry *e = coin_map_find(m, op);
    if (!e) {
        m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
        e = &m->v[m->n++];
        memset(e, 0, sizeof(*e));
        e->op = *op;
    }
    return e;
}

static void coin_map_clear(struct coin_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].out.script_pubkey.data);
    }
    free(m->v);
}

/* Core's RPCTypeCheckObj for one field: 0, or -1 after rpc_error. */
static int check_field(struct rpc_request *req, json_t *o, const char *key, json_type want,
                       const char *want_name, int allow_null)
{
    json_t *v = json_object_get(o, key);
    int is_null = !v || json_is_null(v);
    if (!allow_null && is_null) {
        rpc_error(req, RPC_TYPE_ERROR, "Missing %s", key);
        return -1;
    }
    int ok = (want == JSON_INTEGER ? rpc_json_is_number(v) : (v && json_typeof(v) == want)) ||
             (allow_null && is_null);
    if (!ok) {
        rpc_error(req, RPC_TYPE_ERROR,
                  "JSON value of type %s for field %s is not of expected type %s",
                  rpc_json_type_name(v ? v : json_null()), key, want_name);
        return -1;
    }
    return 0;
}

static int same_script(const struct bytes *a, const struct buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Core's ParsePrevouts with a keystore. */
static int parse_prevouts(struct rpc_request *req, json_t *prevtxs, struct sign_provider *prov,
                          struct coin_map *coins)
{
    size_t i;
    json_t *p;
    if (!prevtxs) {
        return 0;
    }
    json_array_foreach(prevtxs, i, p)
    {
        if (!json_is_object(p)) {
            rpc_error(req, RPC_DESERIALIZATION_ERROR,
                      "expected object with {\"txid'\",\"vout\",\"scriptPubKey\"}");
            return -1;
        }
        if (check_field(req, p, "txid", JSON_STRING, "string", 0) ||
            check_field(req, p, "vout", JSON_INTEGER, "number", 0) ||
            check_field(req, p, "scriptPubKey", JSON_STRING, "string", 0)) {
            return -1;
        }
        struct outpoint op;
        int64_t n;
        if (rpc_value_hash(req, json_object_get(p, "txid"), "txid", op.txid) ||
            rpc_value_int(req, json_object_get(p, "vout"), INT32_MIN, INT32_MAX, &n)) {
            return -1;
        }
        if (n < 0) {
            rpc_error(req, RPC_DESERIALIZATION_ERROR, "vout cannot be negative");
            return -1;
        }
        op.n = (uint32_t)n;
        struct buf spk;
        buf_init(&spk);
        if (parse_hex_v(req, json_object_get(p, "scriptPubKey"), "scriptPubKey", &spk)) {
            buf_clear(&spk);
            return -1;
        }
        struct coin_entry *e = coin_map_find(coins, &op);
        if (e && e->have && !same_script(&e->out.script_pubkey, &spk)) {
            struct buf a, b;
            buf_init(&a);
            buf_init(&b);
            rpc_script_asm(&a, e->out.script_pubkey.data, e->out.script_pubkey.len, 0);
            rpc_script_asm(&b, spk.data, spk.len, 0);
            rpc_error(req, RPC_DESERIALIZATION_ERROR,
                      "Previous output scriptPubKey mismatch:\n%s\nvs:\n%s", (char *)a.data,
                      (char *)b.data);
            buf_clear(&a);
            buf_clear(&b);
            buf_clear(&spk);
            return -1;
        }
        e = coin_map_get(coins, &op);
        e->have = 1;
        e->out.value_sat = MAX_MONEY;
        json_t *amount = json_object_get(p, "amount");
        if (amount) {
            const char *aerr;
            if (rpc_json_amount_parse(amount, &e->out.value_sat, &aerr) != RC_OK) {
                rpc_error(req, RPC_TYPE_ERROR, "%s", aerr);
                buf_clear(&spk);
                return -1;
            }
        }
        sign_bytes_set(&e->out.script_pubkey, spk.data, spk.len);
        int is_p2sh = script_is_p2sh(spk.data, spk.len);
        int is_p2wsh = spk.len == 34 && spk.data[0] == OP_0 && spk.data[1] == 32;
        int rc = 0;
        if (is_p2sh || is_p2wsh) {
            rc = -1;
            struct buf script, redeem, wout, want;
            buf_init(&script);
            buf_init(&redeem);
            buf_init(&wout);
            buf_init(&want);
            if (check_field(req, p, "redeemScript", JSON_STRING, "string", 1) ||
                check_field(req, p, "witnessScript", JSON_STRING, "string", 1)) {
                goto done;
            }
            json_t *rs = json_object_get(p, "redeemScript"),
                   *ws = json_object_get(p, "witnessScript");
            if (rs && json_is_null(rs)) {
                rs = NULL;
            }
            if (ws && json_is_null(ws)) {
                ws = NULL;
            }
            if (!rs && !ws) {
                rpc_error(req, RPC_INVALID_PARAMETER, "Missing redeemScript/witnessScript");
                goto done;
            }
            /* Work from the witness script when there is one. */
            if (parse_hex_v(req, ws ? ws : rs, ws ? "witnessScript" : "redeemScript", &script)) {
                goto done;
            }
            sign_provider_add_script(prov, script.data, script.len);
            /* Also the P2WSH of it, for P2SH-P2WSH given through redeemScript. */
            uint8_t h[32];
            hash_sha256(h, script.data, script.len);
            buf_put_u8(&wout, OP_0);
            script_push_data(&wout, h, 32);
            sign_provider_add_script(prov, wout.data, wout.len);
            if (ws && rs && strcmp(json_string_value(ws), json_string_value(rs)) != 0) {
                if (parse_hex_v(req, rs, "redeemScript", &redeem)) {
                    goto done;
                }
                if (redeem.len != wout.len || memcmp(redeem.data, wout.data, wout.len) != 0) {
                    rpc_error(req, RPC_INVALID_PARAMETER,
                              "redeemScript does not correspond to witnessScript");
                    goto done;
                }
            }
            int match;
            if (is_p2sh) {
                uint8_t h20[20];
                struct buf w2;
                buf_init(&w2);
                hash_hash160(h20, script.data, script.len);
                match = memcmp(spk.data + 2, h20, 20) == 0;
                hash_hash160(h20, wout.data, wout.len);
                match = match || memcmp(spk.data + 2, h20, 20) == 0;
                buf_clear(&w2);
            } else {
                match = memcmp(spk.data + 2, h, 32) == 0;
            }
            if (!match) {
                rpc_error(req, RPC_INVALID_PARAMETER,
                          "redeemScript/witnessScript does not match scriptPubKey");
                goto done;
            }
            rc = 0;
        done:
            buf_clear(&script);
            buf_clear(&redeem);
            buf_clear(&wout);
            buf_clear(&want);
        }
        buf_clear(&spk);
        if (rc) {
            return -1;
        }
    }
    return 0;
}

/* Core's ParseSighashString: 0 with *ht (SIGHASH_DEFAULT when not given), or -1. */
static int parse_sighash(struct rpc_request *req, const json_t *v, int *ht)
{
    static const struct {
        const char *name;
        int v;
    } map[] = {{"DEFAULT", SIGHASH_DEFAULT},
               {"ALL", SIGHASH_ALL},
               {"ALL|ANYONECANPAY", SIGHASH_ALL | SIGHASH_ANYONECANPAY},
               {"NONE", SIGHASH_NONE},
               {"NONE|ANYONECANPAY", SIGHASH_NONE | SIGHASH_ANYONECANPAY},
               {"SINGLE", SIGHASH_SINGLE},
               {"SINGLE|ANYONECANPAY", SIGHASH_SINGLE | SIGHASH_ANYONECANPAY}};
    *ht = SIGHASH_DEFAULT;
    if (!v) {
        return 0;
    }
    const char *s = json_string_value(v);
    for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(s, map[i].name) == 0) {
            *ht = map[i].v;
            return 0;
        }
    }
    rpc_error(req, RPC_INVALID_PARAMETER, "'%s' is not a valid sighash parameter.", s ? s : "");
    return -1;
}

static json_t *witness_json(const struct tx_in *in)
{
    json_t *w = json_array();
    for (size_t i = 0; i < in->witness_count; i++) {
        char *hx = hex_encode_alloc(in->witness[i].data, in->witness[i].len);
        json_array_append_new(w, json_string(hx));
        free(hx);
    }
    return w;
}

json_t *rpc_signrawtransactionwithkey(struct rpc_request *req)
{
    const struct chain_params *cp = params_of(req);
    struct tx tx;
    if (!rpc_decode_hex_tx(&tx, json_string_value(rpc_param(req, 0)), 1, 1)) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR,
                         "TX decode failed. Make sure the tx has at least one input.");
    }
    struct sign_provider prov;
    struct coin_map coins = {0};
    json_t *r = NULL;
    struct sign_tx_error *errs = NULL;
    size_t n_errs = 0;
    const struct tx_out **spent = NULL;
    sign_provider_init(&prov);
    size_t i;
    json_t *k;
    json_array_foreach(rpc_param(req, 1), i, k)
    {
        if (!json_is_string(k)) {
            type_error(req, k, "string");
            goto out;
        }
        uint8_t key[32];
        int compressed;
        if (address_decode_wif(key, &compressed, json_string_value(k), cp) != RC_OK ||
            sign_provider_add_key(&prov, key, compressed) != RC_OK) {
            memset(key, 0, sizeof(key));
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid private key");
            goto out;
        }
        memset(key, 0, sizeof(key));
    }
    /* The UTXO set's coins for the inputs, then prevtxs over them. */
    {
        size_t n = tx.vin_count;
        struct outpoint *ops = xcalloc(n ? n : 1, sizeof(*ops));
        struct coin *cs = xcalloc(n ? n : 1, sizeof(*cs));
        int *found = xcalloc(n ? n : 1, sizeof(*found));
        for (size_t j = 0; j < n; j++) {
            ops[j] = tx.vin[j].prevout;
        }
        int frc = find_coins(req, ops, n, cs, found);
        for (size_t j = 0; j < n && !frc; j++) {
            struct coin_entry *e = coin_map_get(&coins, &ops[j]);
            if (found[j] && !e->have) {
                e->have = 1;
                e->out.value_sat = cs[j].value_sat;
                sign_bytes_set(&e->out.script_pubkey, cs[j].script_pubkey.data,
                               cs[j].script_pubkey.len);
            }
        }
        coins_clear(cs, n);
        free(found);
        free(ops);
        if (frc) {
            goto out;
        }
    }
    if (parse_prevouts(req, rpc_param(req, 2), &prov, &coins)) {
        goto out;
    }
    int ht;
    if (parse_sighash(req, rpc_param(req, 3), &ht)) {
        goto out;
    }
    spent = xcalloc(tx.vin_count ? tx.vin_count : 1, sizeof(*spent));
    for (size_t j = 0; j < tx.vin_count; j++) {
        struct coin_entry *e = coin_map_find(&coins, &tx.vin[j].prevout);
        spent[j] = e && e->have ? &e->out : NULL;
    }
    int complete = sign_tx(&tx, &prov, spent, ht, &errs, &n_errs);
    json_t *errors = json_array();
    for (size_t j = 0; j < n_errs; j++) {
        const struct tx_in *in = &tx.vin[errs[j].in_idx];
        if (strcmp(errs[j].msg, "Missing amount") == 0) {
            const struct tx_out *o = spent[errs[j].in_idx];
            char *hx = hex_encode_alloc(o->script_pubkey.data, o->script_pubkey.len);
            if (strlen(hx) > 30) {
                hx[30] = 0;
            }
            rpc_error(req, RPC_TYPE_ERROR,
                      "Missing amount for CTxOut(nValue=%" PRId64 ".%08" PRId64
                      ", scriptPubKey=%s)",
                      (int64_t)(o->value_sat / COIN), (int64_t)(o->value_sat % COIN), hx);
            free(hx);
            json_decref(errors);
            goto out;
        }
        char *ss = hex_encode_alloc(in->script_sig.data, in->script_sig.len);
        json_t *e = json_object();
        json_object_set_new(e, "txid", rpc_hash_json(in->prevout.txid));
        json_object_set_new(e, "vout", json_integer(in->prevout.n));
        json_object_set_new(e, "witness", witness_json(in));
        json_object_set_new(e, "scriptSig", json_string(ss));
        json_object_set_new(e, "sequence", json_integer(in->sequence));
        json_object_set_new(e, "error", json_string(errs[j].msg));
        json_array_append_new(errors, e);
        free(ss);
    }
    char *hx = tx_hex(&tx);
    r = json_object();
    json_object_set_new(r, "hex", json_string(hx));
    json_object_set_new(r, "complete", json_boolean(complete));
    if (json_array_size(errors)) {
        json_object_set_new(r, "errors", errors);
    } else {
        json_decref(errors);
    }
    free(hx);
out:
    free(errs);
    free(spent);
    coin_map_clear(&coins);
    sign_provider_clear(&prov);
    tx_clear(&tx);
    return r;
}

/* ---- PSBTs --------------------------------------------------------------------------- */

static int decode_psbt(struct rpc_request *req, const json_t *v, struct psbt *p)
{
    char err[300];
    if (!json_is_string(v)) {
        type_error(req, v, "string");
        return -1;
    }
    if (psbt_parse_base64(p, json_string_value(v), err, sizeof(err)) != RC_OK) {
        rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed %s", err);
        return -1;
    }
    return 0;
}

static json_t *hex_json(const uint8_t *p, size_t n)
{
    char *hx = hex_encode_alloc(p, n);
    json_t *j = json_string(hx);
    free(hx);
    return j;
}

/* Core's WriteHDKeypath: "m/0h/1/2h" from little-endian 32-bit indexes. */
static json_t *keypath_json(const uint8_t *p, size_t n)
{
    struct buf b;
    buf_init(&b);
    buf_append(&b, "m", 1);
    for (size_t i = 0; i + 4 <= n; i += 4) {
        char part[16];
        uint32_t x = rd_u32le(p + i);
        int len = snprintf(part, sizeof(part), "/%u%s", x & 0x7fffffffu, (x >> 31) ? "h" : "");
        buf_append(&b, part, (size_t)len);
    }
    buf_put_u8(&b, 0);
    json_t *j = json_string((char *)b.data);
    buf_clear(&b);
    return j;
}

/* A BIP32 derivation: pubkey, master_fingerprint, path from an origin (fingerprint, path). */
static json_t *deriv_json(const uint8_t *pk, size_t pk_len, const uint8_t *origin, size_t n)
{
    json_t *o = json_object();
    json_object_set_new(o, "pubkey", hex_json(pk, pk_len));
    json_object_set_new(o, "master_fingerprint", hex_json(origin, 4));
    json_object_set_new(o, "path", keypath_json(origin + 4, n - 4));
    return o;
}

/* A taproot derivation value: leaf hashes then an origin. */
static json_t *tap_deriv_json(const uint8_t *x, const struct bytes *v)
{
    struct reader r;
    uint64_t cnt = 0;
    reader_init(&r, v->data, v->len);
    ser_get_compact(&r, &cnt, "count");
    json_t *o = deriv_json(x, 32, v->data + r.pos + cnt * 32, v->len - r.pos - cnt * 32);
    json_t *hs = json_array();
    for (uint64_t i = 0; i < cnt; i++) {
        json_array_append_new(hs, hex_json(v->data + r.pos + i * 32, 32));
    }
    json_object_set_new(o, "leaf_hashes", hs);
    return o;
}

/* ScriptToUniv(script, out) without address: asm, hex, type. */
static json_t *script_json_short(const struct bytes *s)
{
    struct buf a;
    buf_init(&a);
    rpc_script_asm(&a, s->data, s->len, 0);
    json_t *o = json_object();
    json_object_set_new(o, "asm", json_string((char *)a.data));
    json_object_set_new(o, "hex", hex_json(s->data, s->len));
    json_object_set_new(o, "type",
                        json_string(script_type_name(script_solve(s->data, s->len, NULL, NULL))));
    buf_clear(&a);
    return o;
}

static json_t *proprietary_json(const struct psbt_kv *e)
{
    struct reader r;
    const uint8_t *id;
    size_t id_len;
    uint64_t subtype = 0;
    reader_init(&r, e->key.data + 1, e->key.len - 1);
    ser_get_varbytes(&r, &id, &id_len, "identifier");
    ser_get_compact(&r, &subtype, "subtype");
    json_t *o = json_object();
    json_object_set_new(o, "identifier", hex_json(id, id_len));
    json_object_set_new(o, "subtype", json_integer((json_int_t)subtype));
    json_object_set_new(o, "key", hex_json(e->key.data, e->key.len));
    json_object_set_new(o, "value", hex_json(e->value.data, e->value.len));
    return o;
}

static void add_proprietary_unknown(json_t *obj, const struct psbt_map *m, enum psbt_map_kind kind,
                                    int always)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, kind, 0xfc, &n);
    if (n || always) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, proprietary_json(v[i]));
        }
        json_object_set_new(obj, "proprietary", a);
    }
    free(v);
    v = psbt_map_sorted(m, kind, -1, &n);
    if (n || always) {
        json_t *u = json_object();
        for (size_t i = 0; i < n; i++) {
            char *k = hex_encode_alloc(v[i]->key.data, v[i]->key.len);
            json_object_set_new(u, k, hex_json(v[i]->value.data, v[i]->value.len));
            free(k);
        }
        json_object_set_new(obj, "unknown", u);
    }
    free(v);
}

/* bip32_derivs of a map. */
static void add_derivs(json_t *obj, const struct psbt_map *m, enum psbt_map_kind kind, int t)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, kind, t, &n);
    if (n) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, deriv_json(v[i]->key.data + 1, v[i]->key.len - 1,
                                                v[i]->value.data, v[i]->value.len));
        }
        json_object_set_new(obj, "bip32_derivs", a);
    }
    free(v);
}

static void add_tap_derivs(json_t *obj, const struct psbt_map *m, enum psbt_map_kind kind, int t)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, kind, t, &n);
    if (n) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, tap_deriv_json(v[i]->key.data + 1, &v[i]->value));
        }
        json_object_set_new(obj, "taproot_bip32_derivs", a);
    }
    free(v);
}

static void add_musig_participants(json_t *obj, const struct psbt_map *m, enum psbt_map_kind kind,
                                   int t)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, kind, t, &n);
    if (n) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_object(), *parts = json_array();
            json_object_set_new(o, "aggregate_pubkey", hex_json(v[i]->key.data + 1, 33));
            for (size_t j = 0; j + 33 <= v[i]->value.len; j += 33) {
                json_array_append_new(parts, hex_json(v[i]->value.data + j, 33));
            }
            json_object_set_new(o, "participant_pubkeys", parts);
            json_array_append_new(a, o);
        }
        json_object_set_new(obj, "musig2_participant_pubkeys", a);
    }
    free(v);
}

/* Core's SighashToStr. */
static const char *sighash_str(uint8_t ht)
{
    switch (ht) {
    case SIGHASH_ALL:
        return "ALL";
    case SIGHASH_ALL | SIGHASH_ANYONECANPAY:
        return "ALL|ANYONECANPAY";
    case SIGHASH_NONE:
        return "NONE";
    case SIGHASH_NONE | SIGHASH_ANYONECANPAY:
        return "NONE|ANYONECANPAY";
    case SIGHASH_SINGLE:
        return "SINGLE";
    case SIGHASH_SINGLE | SIGHASH_ANYONECANPAY:
        return "SINGLE|ANYONECANPAY";
    default:
        return "";
    }
}

/* The records of type t in m as an object under name: the key's data (after its type byte)
 * in hex to the value in hex. Nothing when there is none. */
static void add_keyed_hex(json_t *o, const struct psbt_map *m, int t, const char *name)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, PSBT_MAP_INPUT, t, &n);
    if (n) {
        json_t *x = json_object();
        for (size_t i = 0; i < n; i++) {
            char *k = hex_encode_alloc(v[i]->key.data + 1, v[i]->key.len - 1);
            json_object_set_new(x, k, hex_json(v[i]->value.data, v[i]->value.len));
            free(k);
        }
        json_object_set_new(o, name, x);
    }
    free(v);
}

/* The input's UTXO (witness and non-witness), its value added to *total_in, or *have_all
 * cleared when it is unknown or out of range. */
static void add_input_utxo(json_t *o, const struct psbt_input *in, const struct chain_params *cp,
                           int64_t *total_in, int *have_all)
{
    int have_utxo = 0;
    int64_t value = 0;
    if (in->has_witness_utxo) {
        json_t *w = json_object();
        json_object_set_new(w, "amount", rpc_json_amount(in->witness_utxo.value_sat));
        json_object_set_new(w, "scriptPubKey",
                            rpc_script_pubkey_json(in->witness_utxo.script_pubkey.data,
                                                   in->witness_utxo.script_pubkey.len, cp, 1));
        json_object_set_new(o, "witness_utxo", w);
        value = in->witness_utxo.value_sat;
        have_utxo = 1;
    }
    if (in->non_witness_utxo) {
        json_object_set_new(o, "non_witness_utxo",
                            rpc_tx_json(in->non_witness_utxo, cp, NULL, 1, 0));
        value = in->non_witness_utxo->vout[in->prevout.n].value_sat;
        have_utxo = 1;
    }
    if (have_utxo && amount_in_range(value) && amount_in_range(*total_in + value)) {
        *total_in += value;
    } else {
        *have_all = 0;
    }
}

/* final_scriptSig (asm and hex) and final_scriptwitness, when the input has them. */
static void add_input_finals(json_t *o, const struct psbt_input *in)
{
    if (in->final_script_sig.len) {
        struct buf a;
        buf_init(&a);
        rpc_script_asm(&a, in->final_script_sig.data, in->final_script_sig.len, 1);
        json_t *s = json_object();
        json_object_set_new(s, "asm", json_string((char *)a.data));
        json_object_set_new(s, "hex",
                            hex_json(in->final_script_sig.data, in->final_script_sig.len));
        json_object_set_new(o, "final_scriptSig", s);
        buf_clear(&a);
    }
    if (in->final_witness_count) {
        json_t *w = json_array();
        for (size_t i = 0; i < in->final_witness_count; i++) {
            json_array_append_new(w, hex_json(in->final_witness[i].data, in->final_witness[i].len));
        }
        json_object_set_new(o, "final_scriptwitness", w);
    }
}

/* The taproot script-path signatures, and the leaf scripts: one entry per (script, leaf
 * version), with its control blocks. */
static void add_input_tap_scripts(json_t *o, const struct psbt_map *m)
{
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, PSBT_MAP_INPUT, PSBT_IN_TAP_SCRIPT_SIG, &n);
    if (n) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *s = json_object();
            json_object_set_new(s, "pubkey", hex_json(v[i]->key.data + 1, 32));
            json_object_set_new(s, "leaf_hash", hex_json(v[i]->key.data + 33, 32));
            json_object_set_new(s, "sig", hex_json(v[i]->value.data, v[i]->value.len));
            json_array_append_new(a, s);
        }
        json_object_set_new(o, "taproot_script_path_sigs", a);
    }
    free(v);
    v = psbt_map_sorted(m, PSBT_MAP_INPUT, PSBT_IN_TAP_LEAF_SCRIPT, &n);
    if (n) {
        json_t *a = json_array();
        for (size_t i = 0; i < n;) {
            size_t j = i;
            json_t *s = json_object(), *cbs = json_array();
            json_object_set_new(s, "script", hex_json(v[i]->value.data, v[i]->value.len - 1));
            json_object_set_new(s, "leaf_ver", json_integer(v[i]->value.data[v[i]->value.len - 1]));
            while (j < n && v[j]->value.len == v[i]->value.len &&
                   memcmp(v[j]->value.data, v[i]->value.data, v[i]->value.len) == 0) {
                json_array_append_new(cbs, hex_json(v[j]->key.data + 1, v[j]->key.len - 1));
                j++;
            }
            json_object_set_new(s, "control_blocks", cbs);
            json_array_append_new(a, s);
            i = j;
        }
        json_object_set_new(o, "taproot_scripts", a);
    }
    free(v);
}

/* The MuSig2 public nonces and partial signatures of the input. */
static void add_input_musig(json_t *o, const struct psbt_map *m)
{
    static const char *mk[] = {"musig2_pubnonces", "musig2_partial_sigs"};
    static const char *mv[] = {"pubnonce", "partial_sig"};
    for (int t = 0; t < 2; t++) {
        size_t n;
        const struct psbt_kv **v =
            psbt_map_sorted(m, PSBT_MAP_INPUT, PSBT_IN_MUSIG2_PUB_NONCE + t, &n);
        if (n) {
            json_t *a = json_array();
            for (size_t i = 0; i < n; i++) {
                static const uint8_t zero[32];
                json_t *s = json_object();
                json_object_set_new(s, "participant_pubkey", hex_json(v[i]->key.data + 1, 33));
                json_object_set_new(s, "aggregate_pubkey", hex_json(v[i]->key.data + 34, 33));
                if (v[i]->key.len > 67 && memcmp(v[i]->key.data + 67, zero, 32) != 0) {
                    json_object_set_new(s, "leaf_hash", hex_json(v[i]->key.data + 67, 32));
                }
                json_object_set_new(s, mv[t], hex_json(v[i]->value.data, v[i]->value.len));
                json_array_append_new(a, s);
            }
            json_object_set_new(o, mk[t], a);
        }
        free(v);
    }
}

/* One input of decodepsbt, its keys in Core's order. */
static json_t *input_json(const struct psbt *p, const struct psbt_input *in,
                          const struct chain_params *cp, int64_t *total_in, int *have_all)
{
    json_t *o = json_object();
    const struct psbt_map *m = &in->fields;
    add_input_utxo(o, in, cp, total_in, have_all);
    add_keyed_hex(o, m, PSBT_IN_PARTIAL_SIG, "partial_signatures");
    if (in->has_sighash) {
        json_object_set_new(o, "sighash", json_string(sighash_str((uint8_t)in->sighash)));
    }
    if (in->redeem_script.len) {
        json_object_set_new(o, "redeem_script", script_json_short(&in->redeem_script));
    }
    if (in->witness_script.len) {
        json_object_set_new(o, "witness_script", script_json_short(&in->witness_script));
    }
    add_derivs(o, m, PSBT_MAP_INPUT, PSBT_IN_BIP32_DERIVATION);
    add_input_finals(o, in);
    static const char *pre[] = {"ripemd160_preimages", "sha256_preimages", "hash160_preimages",
                                "hash256_preimages"};
    for (int t = 0; t < 4; t++) {
        add_keyed_hex(o, m, PSBT_IN_RIPEMD160 + t, pre[t]);
    }
    if (p->version >= 2) {
        json_object_set_new(o, "previous_txid", rpc_hash_json(in->prevout.txid));
        json_object_set_new(o, "previous_vout", json_integer(in->prevout.n));
        if (in->has_sequence) {
            json_object_set_new(o, "sequence", json_integer(in->sequence));
        }
        if (in->has_time_locktime) {
            json_object_set_new(o, "time_locktime", json_integer(in->time_locktime));
        }
        if (in->has_height_locktime) {
            json_object_set_new(o, "height_locktime", json_integer(in->height_locktime));
        }
    }
    if (in->tap_key_sig.len) {
        json_object_set_new(o, "taproot_key_path_sig",
                            hex_json(in->tap_key_sig.data, in->tap_key_sig.len));
    }
    add_input_tap_scripts(o, m);
    add_tap_derivs(o, m, PSBT_MAP_INPUT, PSBT_IN_TAP_BIP32_DERIVATION);
    if (in->has_tap_internal_key) {
        json_object_set_new(o, "taproot_internal_key", hex_json(in->tap_internal_key, 32));
    }
    if (in->has_tap_merkle_root) {
        json_object_set_new(o, "taproot_merkle_root", hex_json(in->tap_merkle_root, 32));
    }
    add_musig_participants(o, m, PSBT_MAP_INPUT, PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS);
    add_input_musig(o, m);
    add_proprietary_unknown(o, m, PSBT_MAP_INPUT, 0);
    return o;
}

static json_t *output_json(const struct psbt *p, const struct psbt_output *out,
                           const struct chain_params *cp)
{
    json_t *o = json_object();
    const struct psbt_map *m = &out->fields;
    if (out->redeem_script.len) {
        json_object_set_new(o, "redeem_script", script_json_short(&out->redeem_script));
    }
    if (out->witness_script.len) {
        json_object_set_new(o, "witness_script", script_json_short(&out->witness_script));
    }
    add_derivs(o, m, PSBT_MAP_OUTPUT, PSBT_OUT_BIP32_DERIVATION);
    if (p->version >= 2) {
        json_object_set_new(o, "amount", rpc_json_amount(out->amount));
        json_object_set_new(o, "script",
                            rpc_script_pubkey_json(out->script.data, out->script.len, cp, 1));
    }
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(m, PSBT_MAP_OUTPUT, PSBT_OUT_TAP_INTERNAL_KEY, &n);
    if (n) {
        json_object_set_new(o, "taproot_internal_key", hex_json(v[0]->value.data, 32));
    }
    free(v);
    v = psbt_map_sorted(m, PSBT_MAP_OUTPUT, PSBT_OUT_TAP_TREE, &n);
    if (n) {
        json_t *a = json_array();
        struct reader r;
        reader_init(&r, v[0]->value.data, v[0]->value.len);
        while (reader_left(&r)) {
            uint8_t depth = 0, ver = 0;
            const uint8_t *s;
            size_t sl;
            if (reader_u8(&r, &depth, "depth") || reader_u8(&r, &ver, "leaf version") ||
                ser_get_varbytes(&r, &s, &sl, "script")) {
                break;
            }
            json_t *e = json_object();
            json_object_set_new(e, "depth", json_integer(depth));
            json_object_set_new(e, "leaf_ver", json_integer(ver));
            json_object_set_new(e, "script", hex_json(s, sl));
            json_array_append_new(a, e);
        }
        json_object_set_new(o, "taproot_tree", a);
    }
    free(v);
    add_tap_derivs(o, m, PSBT_MAP_OUTPUT, PSBT_OUT_TAP_BIP32_DERIVATION);
    add_musig_participants(o, m, PSBT_MAP_OUTPUT, PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS);
    add_proprietary_unknown(o, m, PSBT_MAP_OUTPUT, 0);
    return o;
}

json_t *rpc_decodepsbt(struct rpc_request *req)
{
    const struct chain_params *cp = params_of(req);
    struct psbt p;
    if (decode_psbt(req, rpc_param(req, 0), &p)) {
        return NULL;
    }
    json_t *r = json_object();
    if (p.version < 2) {
        struct tx tx;
        if (psbt_get_unsigned_tx(&p, &tx) == RC_OK) {
            json_object_set_new(r, "tx", rpc_tx_json(&tx, cp, NULL, 1, 0));
            tx_clear(&tx);
        }
    }
    json_t *xpubs = json_array();
    size_t n;
    const struct psbt_kv **v = psbt_map_sorted(&p.fields, PSBT_MAP_GLOBAL, PSBT_GLOBAL_XPUB, &n);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_object();
        char *b58 = base58check_encode(v[i]->key.data + 1, 78);
        json_object_set_new(x, "xpub", json_string(b58));
        free(b58);
        json_object_set_new(x, "master_fingerprint", hex_json(v[i]->value.data, 4));
        json_object_set_new(x, "path", keypath_json(v[i]->value.data + 4, v[i]->value.len - 4));
        json_array_append_new(xpubs, x);
    }
    free(v);
    json_object_set_new(r, "global_xpubs", xpubs);
    if (p.version >= 2) {
        json_object_set_new(r, "tx_version", json_integer(p.tx_version));
        if (p.has_fallback_locktime) {
            json_object_set_new(r, "fallback_locktime", json_integer(p.fallback_locktime));
        }
        json_object_set_new(r, "input_count", json_integer((json_int_t)p.n_inputs));
        json_object_set_new(r, "output_count", json_integer((json_int_t)p.n_outputs));
        if (p.has_tx_modifiable) {
            json_object_set_new(r, "inputs_modifiable", json_boolean(p.tx_modifiable & 1));
            json_object_set_new(r, "outputs_modifiable", json_boolean(p.tx_modifiable & 2));
            json_object_set_new(r, "has_sighash_single", json_boolean(p.tx_modifiable & 4));
        }
    }
    json_object_set_new(r, "psbt_version", json_integer(p.version));
    add_proprietary_unknown(r, &p.fields, PSBT_MAP_GLOBAL, 1);
    int64_t total_in = 0, total_out = 0;
    int have_all = 1;
    json_t *ins = json_array();
    for (size_t i = 0; i < p.n_inputs; i++) {
        json_array_append_new(ins, input_json(&p, &p.inputs[i], cp, &total_in, &have_all));
    }
    json_object_set_new(r, "inputs", ins);
    json_t *outs = json_array();
    for (size_t i = 0; i < p.n_outputs; i++) {
        json_array_append_new(outs, output_json(&p, &p.outputs[i], cp));
        int64_t a = p.outputs[i].amount;
        if (amount_in_range(a) && amount_in_range(total_out + a)) {
            total_out += a;
        } else {
            have_all = 0;
        }
    }
    json_object_set_new(r, "outputs", outs);
    if (have_all) {
        json_object_set_new(r, "fee", rpc_json_amount(total_in - total_out));
    }
    psbt_clear(&p);
    return r;
}

json_t *rpc_combinepsbt(struct rpc_request *req)
{
    json_t *txs = rpc_param(req, 0);
    size_t n = json_array_size(txs);
    if (n == 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Parameter 'txs' cannot be empty");
    }
    struct psbt *ps = xcalloc(n, sizeof(*ps));
    const struct psbt **pp = xcalloc(n, sizeof(*pp));
    size_t parsed = 0;
    json_t *r = NULL;
    for (; parsed < n; parsed++) {
        if (decode_psbt(req, json_array_get(txs, parsed), &ps[parsed])) {
            goto out;
        }
        pp[parsed] = &ps[parsed];
    }
    struct psbt merged;
    if (psbt_combine(&merged, pp, n) != RC_OK) {
        rpc_error(req, RPC_INVALID_PARAMETER, "PSBTs not compatible (different transactions)");
        goto out;
    }
    r = psbt_result(&merged);
    psbt_clear(&merged);
out:
    for (size_t i = 0; i < parsed; i++) {
        psbt_clear(&ps[i]);
    }
    free(ps);
    free(pp);
    return r;
}

json_t *rpc_finalizepsbt(struct rpc_request *req)
{
    struct psbt p;
    if (decode_psbt(req, rpc_param(req, 0), &p)) {
        return NULL;
    }
    json_t *ex = rpc_param(req, 1);
    int extract = !ex || json_is_true(ex);
    struct tx tx;
    int complete = psbt_finalize_extract(&p, &tx);
    json_t *r = json_object();
    if (complete && extract) {
        char *hx = tx_hex(&tx);
        json_object_set_new(r, "hex", json_string(hx));
        free(hx);
    } else {
        char *s = psbt_to_base64(&p);
        json_object_set_new(r, "psbt", json_string(s));
        free(s);
    }
    if (complete) {
        tx_clear(&tx);
    }
    json_object_set_new(r, "complete", json_boolean(complete));
    psbt_clear(&p);
    return r;
}

static json_t *ids_json(uint8_t (*ids)[20], size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, hex_json(ids[i], 20));
    }
    return a;
}

json_t *rpc_analyzepsbt(struct rpc_request *req)
{
    struct psbt p;
    if (decode_psbt(req, rpc_param(req, 0), &p)) {
        return NULL;
    }
    struct psbt_analysis a;
    psbt_analyze(&p, &a);
    json_t *r = json_object();
    json_t *ins = json_array();
    for (size_t i = 0; i < a.n_inputs; i++) {
        const struct psbt_input_analysis *ia = &a.inputs[i];
        const struct sign_data *m = &ia->missing;
        json_t *o = json_object(), *miss = json_object();
        json_object_set_new(o, "has_utxo", json_boolean(ia->has_utxo));
        json_object_set_new(o, "is_final", json_boolean(ia->is_final));
        json_object_set_new(o, "next", json_string(psbt_role_name(ia->next)));
        if (m->n_missing_pubkeys) {
            json_object_set_new(miss, "pubkeys",
                                ids_json(m->missing_pubkeys, m->n_missing_pubkeys));
        }
        if (m->has_missing_redeem) {
            json_object_set_new(miss, "redeemscript", hex_json(m->missing_redeem, 20));
        }
        if (m->has_missing_witness) {
            json_object_set_new(miss, "witnessscript", hex_json(m->missing_witness, 32));
        }
        if (m->n_missing_sigs) {
            json_object_set_new(miss, "signatures", ids_json(m->missing_sigs, m->n_missing_sigs));
        }
        if (json_object_size(miss)) {
            json_object_set_new(o, "missing", miss);
        } else {
            json_decref(miss);
        }
        json_array_append_new(ins, o);
    }
    if (json_array_size(ins)) {
        json_object_set_new(r, "inputs", ins);
    } else {
        json_decref(ins);
    }
    if (a.has_estimate) {
        json_object_set_new(r, "estimated_vsize", json_integer((json_int_t)a.estimated_vsize));
        json_object_set_new(r, "estimated_feerate", rpc_json_amount(a.estimated_feerate_per_kvb));
    }
    if (a.has_fee) {
        json_object_set_new(r, "fee", rpc_json_amount(a.fee_sat));
    }
    json_object_set_new(r, "next", json_string(psbt_role_name(a.next)));
    if (a.error[0]) {
        json_object_set_new(r, "error", json_string(a.error));
    }
    psbt_analysis_clear(&a);
    psbt_clear(&p);
    return r;
}

/* -txindex: the transaction txid from its block (*out: caller clears and frees), or NULL. */
static int txindex_lookup(struct rpc_request *req, const uint8_t txid[32], struct tx **out)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct block_index *e = NULL;
    int synced;
    *out = NULL;
    if (!cs || !chainstate_txindex_info(cs, &synced)) {
        return 0;
    }
    chainstate_read_lock(cs);
    int rc = chainstate_find_tx(cs, txid, &e);
    if (rc == RC_OK) {
        struct block b;
        struct buf raw;
        buf_init(&raw);
        if (rpc_load_block(req, e, &b, &raw) == 0) {
            for (size_t i = 0; i < b.tx_count; i++) {
                if (memcmp(b.txs[i].txid, txid, 32) == 0) {
                    *out = xmalloc(sizeof(**out));
                    tx_copy(*out, &b.txs[i]);
                    tx_compute_hashes(*out);
                    break;
                }
            }
            block_clear(&b);
        } else {
            /* A block the index points at that cannot be read: an error, not "not found". */
            buf_clear(&raw);
            chainstate_read_unlock(cs);
            return -1;
        }
        buf_clear(&raw);
    } else if (rc != RC_NOT_FOUND) {
        chainstate_read_unlock(cs);
        rpc_error(req, RPC_DATABASE_ERROR, "transaction index: %s", rc_str(rc));
        return -1;
    }
    chainstate_read_unlock(cs);
    return 0;
}

json_t *rpc_utxoupdatepsbt(struct rpc_request *req)
{
    json_t *descs = rpc_param(req, 1);
    if (descs && json_array_size(descs)) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Output descriptors are not supported by this node (utxoupdatepsbt "
                         "takes none)");
    }
    struct psbt p;
    if (decode_psbt(req, rpc_param(req, 0), &p)) {
        return NULL;
    }
    json_t *r = NULL;
    size_t n = p.n_inputs;
    struct outpoint *ops = xcalloc(n ? n : 1, sizeof(*ops));
    struct coin *coins = xcalloc(n ? n : 1, sizeof(*coins));
    int *found = xcalloc(n ? n : 1, sizeof(*found));
    size_t n_lookup = 0;
    size_t *which = xcalloc(n ? n : 1, sizeof(*which));
    /* The whole previous transaction from -txindex (Core also looks in the mempool here:
     * see find_coins for where bitnode's mempool will be consulted). */
    for (size_t i = 0; i < n; i++) {
        struct psbt_input *in = &p.inputs[i];
        if (in->non_witness_utxo) {
            continue;
        }
        struct tx *prev;
        if (txindex_lookup(req, in->prevout.txid, &prev)) {
            goto out;
        }
        if (prev) {
            in->non_witness_utxo = prev;
        } else {
            which[n_lookup] = i;
            ops[n_lookup++] = in->prevout;
        }
    }
    if (find_coins(req, ops, n_lookup, coins, found)) {
        goto out;
    }
    for (size_t k = 0; k < n_lookup; k++) {
        struct psbt_input *in = &p.inputs[which[k]];
        int ver;
        const uint8_t *prog;
        size_t prog_len;
        /* Core's IsSegWitOutput with no descriptors: a witness program. */
        if (found[k] &&
            script_is_witness_program(coins[k].script_pubkey.data, coins[k].script_pubkey.len, &ver,
                                      &prog, &prog_len)) {
            in->has_witness_utxo = 1;
            in->witness_utxo.value_sat = coins[k].value_sat;
            sign_bytes_set(&in->witness_utxo.script_pubkey, coins[k].script_pubkey.data,
                           coins[k].script_pubkey.len);
        }
    }
    /* Core's SignPSBTInput with an empty provider, not finalizing: fills in the witness UTXO
     * from a non-witness one for segwit inputs. The outputs have nothing to gain from an
     * empty provider (Core's UpdatePSBTOutput leaves them as they are). */
    struct tx u;
    if (psbt_get_unsigned_tx(&p, &u) != RC_OK) {
        rpc_error(req, RPC_VERIFY_ERROR, "The transaction cannot be valid");
        goto out;
    }
    struct tx_out *spent = xcalloc(n ? n : 1, sizeof(*spent));
    int all = 1;
    for (size_t i = 0; i < n; i++) {
        const struct tx_out *o = psbt_input_utxo(&p.inputs[i]);
        if (o) {
            spent[i].value_sat = o->value_sat;
            sign_bytes_set(&spent[i].script_pubkey, o->script_pubkey.data, o->script_pubkey.len);
        } else {
            all = 0;
        }
    }
    struct tx_precomputed pd;
    sighash_precompute(&pd, &u, all ? spent : NULL, all ? n : 0);
    int mismatch = 0;
    for (size_t i = 0; i < n && !mismatch; i++) {
        if (psbt_input_is_final(&p.inputs[i])) {
            continue;
        }
        mismatch = psbt_sign_input(&p, i, NULL, &pd, -1, 0, NULL) == PSBT_SIGN_SIGHASH_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        free(spent[i].script_pubkey.data);
    }
    free(spent);
    tx_clear(&u);
    if (mismatch) {
        rpc_error(req, RPC_DESERIALIZATION_ERROR,
                  "Specified sighash value does not match value stored in PSBT");
        goto out;
    }
    psbt_remove_unneeded_utxos(&p);
    r = psbt_result(&p);
out:
    coins_clear(coins, n);
    free(found);
    free(ops);
    free(which);
    psbt_clear(&p);
    return r;
}
