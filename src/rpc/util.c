/* The util RPC group: validateaddress, createmultisig, getdescriptorinfo, deriveaddresses,
 * verifymessage, signmessagewithprivkey (Core's rpc/output_script.cpp and
 * rpc/signmessage.cpp), getindexinfo; and getzmqnotifications (Core's zmq group). */
#include "rpc/util.h"

#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "index/blockfilterindex.h"
#include "index/coinstatsindex.h"
#include "index/txospenderindex.h"
#include "notify/zmq.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "sign/descriptor.h"
#include "sign/message.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "script/solver.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

static const struct chain_params *req_params(const struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    return cs ? chainstate_params(cs) : chain_params_get("main");
}

/* ---- validateaddress ------------------------------------------------------------------- */

/* Core's DescribeAddress: the fields of each destination type. */
static void describe_address(json_t *r, const uint8_t *spk, size_t len)
{
    enum script_type t = script_solve(spk, len, NULL, NULL);
    int version = 0;
    const uint8_t *prog = NULL;
    size_t prog_len = 0;
    int witness = script_is_witness_program(spk, len, &version, &prog, &prog_len);
    if (t != SCRIPT_TYPE_WITNESS_UNKNOWN) {
        json_object_set_new(
            r, "isscript",
            json_boolean(t == SCRIPT_TYPE_SCRIPTHASH || t == SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH ||
                         t == SCRIPT_TYPE_WITNESS_V1_TAPROOT || t == SCRIPT_TYPE_ANCHOR));
    }
    json_object_set_new(r, "iswitness", json_boolean(witness));
    if (witness && t != SCRIPT_TYPE_ANCHOR) {
        char hex[2 * 40 + 1];
        hex_encode(hex, prog, prog_len);
        json_object_set_new(r, "witness_version", json_integer(version));
        json_object_set_new(r, "witness_program", json_string(hex));
    }
}

static json_t *rpc_validateaddress(struct rpc_request *req)
{
    const struct chain_params *p = req_params(req);
    const json_t *arg = rpc_param(req, 0);
    const char *addr = json_string_value(arg);
    size_t len = strlen(addr), n_locs = 0;
    int *locs = xcalloc(len ? len : 1, sizeof(int));
    char err[256];
    struct buf spk;
    buf_init(&spk);
    json_t *r = json_object();
    int valid = address_to_script_err_loc(&spk, addr, p, err, sizeof(err), locs, &n_locs) == RC_OK;
    if (len != json_string_length(arg)) {
        /* A NUL inside the string: Core reads all of it, which no decoder accepts. */
        valid = 0;
        n_locs = 0;
        snprintf(err, sizeof(err), "Invalid or unsupported Segwit (Bech32) or Base58 encoding.");
    }
    json_object_set_new(r, "isvalid", json_boolean(valid));
    if (valid) {
        char enc[ADDRESS_MAX_LEN];
        CHECK_ALWAYS(address_from_script(enc, sizeof(enc), spk.data, spk.len, p) == RC_OK);
        json_object_set_new(r, "address", json_string(enc));
        char *hex = hex_encode_alloc(spk.data, spk.len);
        json_object_set_new(r, "scriptPubKey", json_string(hex));
        free(hex);
        describe_address(r, spk.data, spk.len);
    } else {
        json_t *where = json_array();
        for (size_t i = 0; i < n_locs; i++) {
            json_array_append_new(where, json_integer(locs[i]));
        }
        json_object_set_new(r, "error_locations", where);
        json_object_set_new(r, "error", json_string(err));
    }
    free(locs);
    buf_clear(&spk);
    return r;
}

/* ---- createmultisig -------------------------------------------------------------------- */

/* Core's HexToPubKey: 0 with the key, or -1 after rpc_error. */
static int hex_to_pubkey(struct rpc_request *req, const json_t *v, uint8_t out[65], size_t *len)
{
    if (!json_is_string(v)) {
        rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type string",
                  rpc_json_type_name(v));
        return -1;
    }
    const char *hx = json_string_value(v);
    struct buf b;
    buf_init(&b);
    int is_hex = *hx && strlen(hx) == json_string_length(v) && hex_decode(&b, hx) == RC_OK;
    size_t n = b.len;
    if (is_hex) {
        memcpy(out, b.data, n <= 65 ? n : 65);
    }
    buf_clear(&b);
    if (!is_hex) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Pubkey \"%s\" must be a hex string", hx);
        return -1;
    }
    if (n != 33 && n != 65) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                  "Pubkey \"%s\" must have a length of either 33 or 65 bytes", hx);
        return -1;
    }
    if (!script_pubkey_fully_valid(out, n)) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Pubkey \"%s\" must be cryptographically valid.",
                  hx);
        return -1;
    }
    *len = n;
    return 0;
}

enum output_type { OUT_LEGACY, OUT_P2SH_SEGWIT, OUT_BECH32 };

static json_t *rpc_createmultisig(struct rpc_request *req)
{
    const struct chain_params *p = req_params(req);
    int64_t required = rpc_arg_int(req, 0);
    json_t *keys = rpc_param(req, 1);
    size_t n = json_array_size(keys);
    uint8_t(*pk)[65] = xcalloc(n ? n : 1, 65);
    size_t *pk_len = xcalloc(n ? n : 1, sizeof(size_t));
    json_t *r = NULL;
    struct buf script, spk, desc;
    buf_init(&script);
    buf_init(&spk);
    buf_init(&desc);

    for (size_t i = 0; i < n; i++) {
        if (hex_to_pubkey(req, json_array_get(keys, i), pk[i], &pk_len[i])) {
            goto out;
        }
    }
    const char *type_s = json_string_value(rpc_param(req, 2));
    enum output_type type;
    if (strcmp(type_s, "legacy") == 0) {
        type = OUT_LEGACY;
    } else if (strcmp(type_s, "p2sh-segwit") == 0) {
        type = OUT_P2SH_SEGWIT;
    } else if (strcmp(type_s, "bech32") == 0) {
        type = OUT_BECH32;
    } else if (strcmp(type_s, "bech32m") == 0) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                  "createmultisig cannot create bech32m multisig addresses");
        goto out;
    } else {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Unknown address type '%s'", type_s);
        goto out;
    }
    /* Core's AddAndGetMultisigDestination. */
    if (required < 1) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "a multisignature address must require at least one key to redeem");
        goto out;
    }
    if ((int64_t)n < required) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "not enough keys supplied (got %zu keys, but need at least %d to redeem)", n,
                  (int)required);
        goto out;
    }
    if (n > MAX_PUBKEYS_PER_MULTISIG) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Number of keys involved in the multisignature address creation > %d\nReduce "
                  "the number",
                  MAX_PUBKEYS_PER_MULTISIG);
        goto out;
    }
    script_push_int(&script, required);
    enum output_type chosen = type;
    int hybrid = 0;
    for (size_t i = 0; i < n; i++) {
        script_push_data(&script, pk[i], pk_len[i]);
        if (pk_len[i] != 33) {
            type = OUT_LEGACY; /* uncompressed keys have no segwit form */
        }
        hybrid |= pk[i][0] >= 6;
    }
    script_push_int(&script, (int64_t)n);
    buf_put_u8(&script, OP_CHECKMULTISIG);
    if (type == OUT_LEGACY && script.len > MAX_SCRIPT_ELEMENT_SIZE) {
        rpc_error(req, RPC_INVALID_PARAMETER, "redeemScript exceeds size limit: %zu > %d",
                  script.len, MAX_SCRIPT_ELEMENT_SIZE);
        goto out;
    }
    /* The address, and Core's InferDescriptor of it with the redeem script known. */
    uint8_t h[32];
    if (type == OUT_BECH32) {
        hash_sha256(h, script.data, script.len);
        buf_put_u8(&spk, OP_0);
        script_push_data(&spk, h, 32);
    } else {
        struct buf inner;
        buf_init(&inner);
        if (type == OUT_P2SH_SEGWIT) {
            hash_sha256(h, script.data, script.len);
            buf_put_u8(&inner, OP_0);
            script_push_data(&inner, h, 32);
        } else {
            buf_append(&inner, script.data, script.len);
        }
        hash_hash160(h, inner.data, inner.len);
        buf_clear(&inner);
        buf_put_u8(&spk, OP_HASH160);
        script_push_data(&spk, h, 20);
        buf_put_u8(&spk, OP_EQUAL);
    }
    char addr[ADDRESS_MAX_LEN];
    CHECK_ALWAYS(address_from_script(addr, sizeof(addr), spk.data, spk.len, p) == RC_OK);
    const char *wrap = type == OUT_BECH32 ? "wsh(" : type == OUT_P2SH_SEGWIT ? "sh(wsh(" : "sh(";
    if (hybrid) {
        /* Core infers no multi() over hybrid keys: the address is all it can say. */
        buf_append(&desc, "addr(", 5);
        buf_append(&desc, addr, strlen(addr));
        buf_put_u8(&desc, ')');
    } else {
        char num[16];
        buf_append(&desc, wrap, strlen(wrap));
        snprintf(num, sizeof(num), "multi(%d", (int)required);
        buf_append(&desc, num, strlen(num));
        for (size_t i = 0; i < n; i++) {
            char hx[131];
            hex_encode(hx, pk[i], pk_len[i]);
            buf_put_u8(&desc, ',');
            buf_append(&desc, hx, strlen(hx));
        }
        buf_append(&desc, "))))", type == OUT_P2SH_SEGWIT ? 3 : 2);
    }
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];
    CHECK_ALWAYS(script_descriptor_checksum(cs, (const char *)desc.data, desc.len) == RC_OK);
    buf_put_u8(&desc, '#');
    buf_append(&desc, cs, strlen(cs));
    buf_put_u8(&desc, 0);

    r = json_object();
    json_object_set_new(r, "address", json_string(addr));
    char *hex = hex_encode_alloc(script.data, script.len);
    json_object_set_new(r, "redeemScript", json_string(hex));
    free(hex);
    json_object_set_new(r, "descriptor", json_string((const char *)desc.data));
    if (type != chosen) {
        json_object_set_new(r, "warnings",
                            json_pack("[s]", "Unable to make chosen address type, please ensure "
                                             "no uncompressed public keys are present."));
    }
out:
    free(pk);
    free(pk_len);
    buf_clear(&script);
    buf_clear(&spk);
    buf_clear(&desc);
    return r;
}

/* ---- getdescriptorinfo, deriveaddresses ------------------------------------------------ */

/* Parses a descriptor argument; NULL after rpc_error (-5 with Core's parse error). */
static struct script_descriptor *parse_desc_arg(struct rpc_request *req, size_t i,
                                                int require_checksum)
{
    const json_t *v = rpc_param(req, i);
    const char *s = json_string_value(v);
    struct script_descriptor *d = NULL;
    char *err = NULL;
    if (strlen(s) != json_string_length(v)) {
        /* A NUL is outside the descriptor character set. */
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid characters in payload");
        return NULL;
    }
    if (script_descriptor_parse(&d, s, require_checksum, req_params(req), &err) != RC_OK) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "%s", err);
        free(err);
        return NULL;
    }
    return d;
}

static json_t *desc_string(const struct script_descriptor *d, size_t alt)
{
    struct buf b;
    buf_init(&b);
    script_descriptor_to_string(&b, d, alt);
    json_t *s = json_string((const char *)b.data);
    buf_clear(&b);
    return s;
}

static json_t *rpc_getdescriptorinfo(struct rpc_request *req)
{
    struct script_descriptor *d = parse_desc_arg(req, 0, 0);
    if (!d) {
        return NULL;
    }
    const char *in = json_string_value(rpc_param(req, 0));
    const char *hash = strchr(in, '#');
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];
    CHECK_ALWAYS(script_descriptor_checksum(cs, in, hash ? (size_t)(hash - in) : strlen(in)) ==
                 RC_OK);
    json_t *r = json_object();
    json_object_set_new(r, "descriptor", desc_string(d, 0));
    size_t n_alt = script_descriptor_multipath_count(d);
    if (n_alt > 1) {
        json_t *all = json_array();
        for (size_t a = 0; a < n_alt; a++) {
            json_array_append_new(all, desc_string(d, a));
        }
        json_object_set_new(r, "multipath_expansion", all);
    }
    json_object_set_new(r, "checksum", json_string(cs));
    json_object_set_new(r, "isrange", json_boolean(script_descriptor_is_range(d)));
    json_object_set_new(r, "issolvable", json_boolean(script_descriptor_is_solvable(d)));
    json_object_set_new(r, "hasprivatekeys", json_boolean(script_descriptor_has_private_keys(d)));
    script_descriptor_free(d);
    return r;
}

int rpc_parse_descriptor_range(struct rpc_request *req, const json_t *v, int64_t *lo,
                               int64_t *hi)
{
    if (rpc_json_is_number(v)) {
        *lo = 0;
        if (rpc_value_int(req, v, INT64_MIN, INT64_MAX, hi)) {
            return -1;
        }
    } else if (json_is_array(v) && json_array_size(v) == 2 &&
               rpc_json_is_number(json_array_get(v, 0)) &&
               rpc_json_is_number(json_array_get(v, 1))) {
        if (rpc_value_int(req, json_array_get(v, 0), INT64_MIN, INT64_MAX, lo) ||
            rpc_value_int(req, json_array_get(v, 1), INT64_MIN, INT64_MAX, hi)) {
            return -1;
        }
        if (*lo > *hi) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "Range specified as [begin,end] must not have begin after end");
            return -1;
        }
    } else {
        rpc_error(req, RPC_INVALID_PARAMETER, "Range must be specified as end or as [begin,end]");
        return -1;
    }
    if (*lo < 0) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Range should be greater or equal than 0");
        return -1;
    }
    if ((*hi >> 31) != 0) {
        rpc_error(req, RPC_INVALID_PARAMETER, "End of range is too high");
        return -1;
    }
    if (*hi >= *lo + 1000000) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Range is too large");
        return -1;
    }
    return 0;
}

/* Core's DeriveAddresses for one multipath alternative: the array, or NULL after rpc_error. */
static json_t *derive_addresses(struct rpc_request *req, const struct script_descriptor *d,
                                size_t alt, int64_t lo, int64_t hi)
{
    const struct chain_params *p = req_params(req);
    json_t *out = json_array();
    struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    for (int64_t pos = lo; pos <= hi; pos++) {
        size_t n = 0;
        for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
            buf_reset(&spks[i]);
        }
        if (script_descriptor_expand(d, alt, (uint32_t)pos, spks, &n) != RC_OK) {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Cannot derive script without private keys");
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            char addr[ADDRESS_MAX_LEN];
            if (address_from_script(addr, sizeof(addr), spks[i].data, spks[i].len, p) != RC_OK) {
                /* combo()'s P2PK output has no address: it is left out. */
                if (n > 1 &&
                    script_solve(spks[i].data, spks[i].len, NULL, NULL) == SCRIPT_TYPE_PUBKEY) {
                    continue;
                }
                rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                          "Descriptor does not have a corresponding address");
                goto fail;
            }
            json_array_append_new(out, json_string(addr));
        }
    }
    if (json_array_size(out) == 0) {
        rpc_error(req, RPC_MISC_ERROR, "Unexpected empty result");
        goto fail;
    }
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    return out;
fail:
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    json_decref(out);
    return NULL;
}

static json_t *rpc_deriveaddresses(struct rpc_request *req)
{
    int64_t lo = 0, hi = 0;
    const json_t *range = rpc_param(req, 1);
    if (range && rpc_parse_descriptor_range(req, range, &lo, &hi)) {
        return NULL;
    }
    struct script_descriptor *d = parse_desc_arg(req, 0, 1);
    if (!d) {
        return NULL;
    }
    json_t *r = NULL;
    if (!script_descriptor_is_range(d) && range) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Range should not be specified for an un-ranged descriptor");
        goto out;
    }
    if (script_descriptor_is_range(d) && !range) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Range must be specified for a ranged descriptor");
        goto out;
    }
    size_t n_alt = script_descriptor_multipath_count(d);
    if (n_alt == 1) {
        r = derive_addresses(req, d, 0, lo, hi);
        goto out;
    }
    r = json_array();
    for (size_t a = 0; a < n_alt; a++) {
        json_t *one = derive_addresses(req, d, a, lo, hi);
        if (!one) {
            json_decref(r);
            r = NULL;
            goto out;
        }
        json_array_append_new(r, one);
    }
out:
    script_descriptor_free(d);
    return r;
}

/* ---- verifymessage, signmessagewithprivkey --------------------------------------------- */

static json_t *rpc_verifymessage(struct rpc_request *req)
{
    const json_t *msg = rpc_param(req, 2);
    const char *addr = json_string_value(rpc_param(req, 0));
    const char *sig = json_string_value(rpc_param(req, 1));
    /* A NUL inside the address or signature makes it invalid (Core reads the whole string). */
    if (strlen(addr) != json_string_length(rpc_param(req, 0))) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid address");
    }
    enum script_message_result res = script_message_verify(
        addr, sig, json_string_value(msg), json_string_length(msg), req_params(req));
    if (res == SCRIPT_MESSAGE_OK && strlen(sig) != json_string_length(rpc_param(req, 1))) {
        res = SCRIPT_MESSAGE_ERR_MALFORMED_SIGNATURE;
    }
    switch (res) {
    case SCRIPT_MESSAGE_ERR_INVALID_ADDRESS:
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid address");
    case SCRIPT_MESSAGE_ERR_ADDRESS_NO_KEY:
        return rpc_error(req, RPC_TYPE_ERROR, "Address does not refer to key");
    case SCRIPT_MESSAGE_ERR_MALFORMED_SIGNATURE:
        return rpc_error(req, RPC_TYPE_ERROR, "Malformed base64 encoding");
    case SCRIPT_MESSAGE_ERR_PUBKEY_NOT_RECOVERED:
    case SCRIPT_MESSAGE_ERR_NOT_SIGNED:
        return json_false();
    case SCRIPT_MESSAGE_OK:
        return json_true();
    }
    return json_false();
}

static json_t *rpc_signmessagewithprivkey(struct rpc_request *req)
{
    const json_t *key = rpc_param(req, 0), *msg = rpc_param(req, 1);
    uint8_t k[32];
    int compressed = 0;
    char *sig = NULL;
    if (strlen(json_string_value(key)) != json_string_length(key) ||
        address_decode_wif(k, &compressed, json_string_value(key), req_params(req)) != RC_OK) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Invalid private key");
    }
    int rc =
        script_message_sign(&sig, k, compressed, json_string_value(msg), json_string_length(msg));
    memset(k, 0, sizeof(k));
    if (rc != RC_OK) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Sign failed");
    }
    json_t *r = json_string(sig);
    free(sig);
    return r;
}

/* One member of getindexinfo's answer (Core's SummaryToJSON), unless name filters it out. */
static void index_summary(json_t *r, const char *filter, const char *name, int synced,
                          int height)
{
    if (!filter || !*filter || strcmp(filter, name) == 0) {
        json_object_set_new(r, name,
                            json_pack("{s:b,s:i}", "synced", synced, "best_block_height", height));
    }
}

static json_t *rpc_getindexinfo(struct rpc_request *req)
{
    struct node_context *n = req->ctx->node;
    const char *name = json_string_value(rpc_param(req, 0));
    json_t *r = json_object();
    int synced = -1, height;
    chainstate_read_lock(n->cs);
    struct block_index *tip = chainstate_tip(n->cs);
    int txindex = chainstate_txindex_info(n->cs, &synced);
    int tip_height = tip ? tip->height : INT32_MAX;
    chainstate_read_unlock(n->cs);
    /* In Core's order; an empty name filters nothing, as Core's. */
    if (txindex) {
        index_summary(r, name, "txindex", synced >= tip_height, synced);
    }
    if (n->coinstats) {
        coinstats_index_summary(n->coinstats, &synced, &height);
        index_summary(r, name, "coinstatsindex", synced, height);
    }
    if (n->spenders) {
        txospender_index_summary(n->spenders, &synced, &height);
        index_summary(r, name, "txospenderindex", synced, height);
    }
    if (n->blockfilters) {
        blockfilter_index_summary(n->blockfilters, &synced, &height);
        index_summary(r, name, "basic block filter index", synced, height);
    }
    return r;
}

/* getzmqnotifications: the publishers, in Core's order (an empty array without ZMQ, with no
 * -zmqpub option, or when one failed to bind and ZMQ went off). */
static json_t *rpc_getzmqnotifications(struct rpc_request *req)
{
    json_t *r = json_array();
#ifdef ENABLE_ZMQ
    if (req->ctx->node && req->ctx->node->zmq) {
        size_t n;
        const struct notify_zmq_endpoint *eps = notify_zmq_endpoints(req->ctx->node->zmq, &n);
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(r, json_pack("{s:s, s:s, s:i}", "type",
                                               notify_zmq_type_name(eps[i].topic), "address",
                                               eps[i].address, "hwm", eps[i].hwm));
        }
    }
#else
    (void)req;
#endif
    return r;
}

static const struct rpc_method methods[] = {
    {.category = "util",
     .name = "validateaddress",
     .handler = rpc_validateaddress,
     .description = "Return information about the given bitcoin address.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "address",
                                       .type = RPC_ARG_STR,
                                       .description = "The bitcoin address to validate"}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_OBJ,
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_BOOL,
                        .key = "isvalid",
                        .description = "If the address is valid or not"},
                       {.type = RPC_RES_STR,
                        .key = "address",
                        .optional = true,
                        .description = "The bitcoin address validated"},
                       {.type = RPC_RES_STR_HEX,
                        .key = "scriptPubKey",
                        .optional = true,
                        .description = "The hex-encoded output script generated by the address"},
                       {.type = RPC_RES_BOOL,
                        .key = "isscript",
                        .optional = true,
                        .description = "If the key is a script"},
                       {.type = RPC_RES_BOOL,
                        .key = "iswitness",
                        .optional = true,
                        .description = "If the address is a witness address"},
                       {.type = RPC_RES_NUM,
                        .key = "witness_version",
                        .optional = true,
                        .description = "The version number of the witness program"},
                       {.type = RPC_RES_STR_HEX,
                        .key = "witness_program",
                        .optional = true,
                        .description = "The hex value of the witness program"},
                       {.type = RPC_RES_STR,
                        .key = "error",
                        .optional = true,
                        .description = "Error message, if any"},
                       {.type = RPC_RES_ARR,
                        .key = "error_locations",
                        .optional = true,
                        .description = "Indices of likely error locations in address, "
                                       "if known (e.g. Bech32 errors)",
                        .inner = RPC_LIST(struct rpc_result,
                                          {.type = RPC_RES_NUM,
                                           .key = "index",
                                           .description = "index of a potential error"})})}),
     .examples = RPC_EXAMPLES("validateaddress", "\"bc1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl\"",
                              "\"bc1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl\"")},
    {.category = "util",
     .name = "createmultisig",
     .handler = rpc_createmultisig,
     .description = "Creates a multi-signature address with n signatures of m keys required.\n"
                    "It returns a json object with the address and redeemScript.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "nrequired",
          .type = RPC_ARG_NUM,
          .description = "The number of required signatures out of the m keys.",
          .conv = RPC_CONV_INT},
         {.names = "keys",
          .type = RPC_ARG_ARR,
          .description = "The hex-encoded public keys.",
          .inner = RPC_LIST(struct rpc_arg, {.names = "key",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = "The hex-encoded public key"})},
         {.names = "address_type",
          .type = RPC_ARG_STR,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "\"legacy\"",
          .description = "The address type to use. Options are \"legacy\", \"p2sh-segwit\", and "
                         "\"bech32\"."}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_OBJ,
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_STR,
                        .key = "address",
                        .description = "The value of the new multisig address."},
                       {.type = RPC_RES_STR_HEX,
                        .key = "redeemScript",
                        .description = "The string value of the hex-encoded redemption "
                                       "script."},
                       {.type = RPC_RES_STR,
                        .key = "descriptor",
                        .description = "The descriptor for this multisig"},
                       {.type = RPC_RES_ARR,
                        .key = "warnings",
                        .optional = true,
                        .description = "Any warnings resulting from the creation of this "
                                       "multisig",
                        .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR, .key = ""})})}),
     .examples = "\nCreate a multisig address from 2 public keys\n" RPC_EXAMPLE_CLI(
         "createmultisig", "2 "
                           "\"["
                           "\\\"03789ed0bb717d88f7d321a368d905e7430207ebbd82bd342cf11ae157a"
                           "7ace5fd\\\","
                           "\\\"03dbc6764b8884a92e871274b87583e6d5c2a58819473e17e107ef3f6aa"
                           "5a61626\\\"]\"") "\nAs a JSON-RPC call\n" RPC_EXAMPLE_RPC("crea"
                                                                                      "temu"
                                                                                      "ltis"
                                                                                      "ig",
                                                                                      "2, "
                                                                                      "[\"0"
                                                                                      "3789"
                                                                                      "ed0b"
                                                                                      "b717"
                                                                                      "d88f"
                                                                                      "7d32"
                                                                                      "1a36"
                                                                                      "8d90"
                                                                                      "5e74"
                                                                                      "3020"
                                                                                      "7ebb"
                                                                                      "d82b"
                                                                                      "d342"
                                                                                      "cf11"
                                                                                      "ae15"
                                                                                      "7a7a"
                                                                                      "ce5f"
                                                                                      "d\","
                                                                                      "\"03"
                                                                                      "dbc6"
                                                                                      "764b"
                                                                                      "8884"
                                                                                      "a92e"
                                                                                      "8712"
                                                                                      "74b8"
                                                                                      "7583"
                                                                                      "e6d5"
                                                                                      "c2a5"
                                                                                      "8819"
                                                                                      "473e"
                                                                                      "17e1"
                                                                                      "07ef"
                                                                                      "3f6a"
                                                                                      "a5a6"
                                                                                      "1626"
                                                                                      "\""
                                                                                      "]")},
    {.category = "util",
     .name = "deriveaddresses",
     .handler = rpc_deriveaddresses,
     .description =
         "Derives one or more addresses corresponding to an output descriptor.\n"
         "Examples of output descriptors are:\n"
         "    pkh(<pubkey>)                                     P2PKH outputs for the "
         "given "
         "pubkey\n"
         "    wpkh(<pubkey>)                                    Native segwit P2PKH "
         "outputs for "
         "the given pubkey\n"
         "    sh(multi(<n>,<pubkey>,<pubkey>,...))              P2SH-multisig outputs for "
         "the "
         "given threshold and pubkeys\n"
         "    raw(<hex script>)                                 Outputs whose output "
         "script "
         "equals the specified hex-encoded bytes\n"
         "    tr(<pubkey>,multi_a(<n>,<pubkey>,<pubkey>,...))   P2TR-multisig outputs for "
         "the "
         "given threshold and pubkeys\n"
         "\nIn the above, <pubkey> either refers to a fixed public key in hexadecimal "
         "notation, "
         "or to an xpub/xprv optionally followed by one\n"
         "or more path elements separated by \"/\", where \"h\" represents a hardened "
         "child "
         "key.\n"
         "For more information on output descriptors, see the documentation in the "
         "doc/descriptors.md file.\n",
     .args =
         RPC_LIST(struct rpc_arg,
                  {.names = "descriptor", .type = RPC_ARG_STR, .description = "The descriptor."},
                  {.names = "range",
                   .type = RPC_ARG_RANGE,
                   .fallback = RPC_ARG_OMITTED,
                   .description = "If a ranged descriptor is used, this specifies the end or "
                                  "the range (in [begin,end] notation) to derive."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .cond = "for single derivation descriptors",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR, .key = "address", .description = "the derived addresses"})},
         {.type = RPC_RES_ARR,
          .cond = "for multipath descriptors",
          .description = "The derived addresses for each of the multipath expansions of the "
                         "descriptor, in multipath specifier order",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_ARR,
                             .description = "The derived addresses for a multipath descriptor "
                                            "expansion",
                             .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR,
                                                                   .key = "address",
                                                                   .description = "the "
                                                                                  "deri"
                                                                                  "ved "
                                                                                  "addr"
                                                                                  "es"
                                                                                  "s"})})}),
     .examples = "First three native segwit receive addresses\n" RPC_EXAMPLE_CLI(
         "deriveaddresses", "\"wpkh([d34db33f/84h/0h/"
                            "0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9"
                            "nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/"
                            "*)#cjjspncu\" \"[0,2]\"")
         RPC_EXAMPLE_RPC("deriveaddresses",
                         "\"wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8"
                         "PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY"
                         "/0/*)#cjjspncu\", \"[0,2]\"")},
    {.category = "util",
     .name = "getdescriptorinfo",
     .handler = rpc_getdescriptorinfo,
     .description = "Analyses a descriptor.\n",
     .args =
         RPC_LIST(struct rpc_arg,
                  {.names = "descriptor", .type = RPC_ARG_STR, .description = "The descriptor."}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_OBJ,
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_STR,
                        .key = "descriptor",
                        .description = "The descriptor in canonical form, without private keys. "
                                       "For a "
                                       "multipath descriptor, only the first will be returned."},
                       {.type = RPC_RES_ARR,
                        .key = "multipath_expansion",
                        .optional = true,
                        .description = "All descriptors produced by expanding multipath "
                                       "derivation "
                                       "elements. Only if the provided descriptor specifies "
                                       "multipath "
                                       "derivation elements.",
                        .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR, .key = ""})},
                       {.type = RPC_RES_STR,
                        .key = "checksum",
                        .description = "The checksum for the input descriptor"},
                       {.type = RPC_RES_BOOL,
                        .key = "isrange",
                        .description = "Whether the descriptor is ranged"},
                       {.type = RPC_RES_BOOL,
                        .key = "issolvable",
                        .description = "Whether the descriptor is solvable"},
                       {.type = RPC_RES_BOOL,
                        .key = "hasprivatekeys",
                        .description = "Whether the input descriptor contained at least one "
                                       "private "
                                       "key"})}),
     .examples = "Analyse a descriptor\n" RPC_EXAMPLES(
         "getdescriptorinfo",
         "\"wpkh([d34db33f/84h/0h/"
         "0h]0279be667ef9dcbbac55a06295Ce870b07029Bfcdb2dce28d959f2815b16f8"
         "1798)\"",
         "\"wpkh([d34db33f/84h/0h/"
         "0h]0279be667ef9dcbbac55a06295Ce870b07029Bfcdb2dce28d959f2815b16f8"
         "1798)\"")},
    {.category = "util",
     .name = "verifymessage",
     .handler = rpc_verifymessage,
     .description = "Verify a signed message.",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "address",
          .type = RPC_ARG_STR,
          .description = "The bitcoin address to use for the signature."},
         {.names = "signature",
          .type = RPC_ARG_STR,
          .description = "The signature provided by the signer in base 64 encoding "
                         "(see signmessage)."},
         {.names = "message", .type = RPC_ARG_STR, .description = "The message that was signed."}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_BOOL, .description = "If the signature is verified or not."}),
     .examples = "\nUnlock the wallet for 30 seconds\n" RPC_EXAMPLE_CLI("walletpassphrase", "\"mypa"
                                                                                            "ssphra"
                                                                                            "se\" "
                                                                                            "30") "\nCreate the signature\n" RPC_EXAMPLE_CLI(
         "signmessage",
         "\"1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX\" \"my message\"") "\nVerify the "
                                                                  "signature"
                                                                  "\n" RPC_EXAMPLE_CLI(
                                                                      "ver"
                                                                      "ify"
                                                                      "mes"
                                                                      "sag"
                                                                      "e",
                                                                      "\"1"
                                                                      "D1Z"
                                                                      "rZN"
                                                                      "e3J"
                                                                      "Uo7"
                                                                      "Zyc"
                                                                      "KEY"
                                                                      "QQi"
                                                                      "QAW"
                                                                      "d9y"
                                                                      "54F"
                                                                      "4XX"
                                                                      "\" "
                                                                      "\"s"
                                                                      "ign"
                                                                      "atu"
                                                                      "re"
                                                                      "\" "
                                                                      "\"m"
                                                                      "y "
                                                                      "mes"
                                                                      "sag"
                                                                      "e"
                                                                      "\"") "\nAs a JSON-RPC "
                                                                            "call"
                                                                            "\n" RPC_EXAMPLE_RPC("v"
                                                                                                 "e"
                                                                                                 "r"
                                                                                                 "i"
                                                                                                 "f"
                                                                                                 "y"
                                                                                                 "m"
                                                                                                 "e"
                                                                                                 "s"
                                                                                                 "s"
                                                                                                 "a"
                                                                                                 "g"
                                                                                                 "e",
                                                                                                 "\"1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX\", \"signature\", \"my message\"")},
    {.category = "util",
     .name = "signmessagewithprivkey",
     .handler = rpc_signmessagewithprivkey,
     .description = "Sign a message with the private key of an address\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "privkey",
                       .type = RPC_ARG_STR,
                       .description = "The private key to sign the message with."},
                      {.names = "message",
                       .type = RPC_ARG_STR,
                       .description = "The message to create a signature of."}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .key = "signature",
                          .description = "The signature of the message encoded in base 64"}),
     .examples = "\nCreate the signature\n" RPC_EXAMPLE_CLI(
         "signmessagewithprivkey",
         "\"pr"
         "ivke"
         "y\" "
         "\"my"
         " mes"
         "sage"
         "\"") "\nVerify the signature\n" RPC_EXAMPLE_CLI("verifymessage",
                                                          "\"1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX\" "
                                                          "\"signature\" \"my "
                                                          "message\"") "\nAs a JSON-RPC "
                                                                       "call\n" RPC_EXAMPLE_RPC("si"
                                                                                                "gn"
                                                                                                "me"
                                                                                                "ss"
                                                                                                "ag"
                                                                                                "ew"
                                                                                                "it"
                                                                                                "hp"
                                                                                                "ri"
                                                                                                "vk"
                                                                                                "e"
                                                                                                "y",
                                                                                                "\""
                                                                                                "pr"
                                                                                                "iv"
                                                                                                "ke"
                                                                                                "y"
                                                                                                "\""
                                                                                                ", "
                                                                                                "\""
                                                                                                "my"
                                                                                                " "
                                                                                                "me"
                                                                                                "ss"
                                                                                                "ag"
                                                                                                "e"
                                                                                                "\"")},
    {.category = "util",
     .name = "getindexinfo",
     .handler = rpc_getindexinfo,
     .description =
         "Returns the status of one or all available indices currently running in the node.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "index_name",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "Filter results for an index with a specific name."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ,
                             .key = "name",
                             .description = "The name of the index",
                             .inner = RPC_LIST(struct rpc_result,
                                               {.type = RPC_RES_BOOL,
                                                .key = "synced",
                                                .description = "Whether the index is synced or not"},
                                               {.type = RPC_RES_NUM,
                                                .key = "best_block_height",
                                                .description = "The block height to which the "
                                                               "index is synced"})})}),
     .examples = RPC_EXAMPLES("getindexinfo", "", "") RPC_EXAMPLES("getindexinfo", "txindex",
                                                                  "txindex")},
    {.category = "zmq",
     .name = "getzmqnotifications",
     .handler = rpc_getzmqnotifications,
     .description = "Returns information about the active ZeroMQ notifications.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_STR,
                                  .key = "type",
                                  .description = "Type of notification"},
                                 {.type = RPC_RES_STR,
                                  .key = "address",
                                  .description = "Address of the publisher"},
                                 {.type = RPC_RES_NUM,
                                  .key = "hwm",
                                  .description = "Outbound message high water mark"})})}),
     .examples = RPC_EXAMPLES("getzmqnotifications", "", "")},
};
void rpc_util_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
