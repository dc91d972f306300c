/* bitnode-util's script commands, for people debugging a script or a block by hand.
 *
 *   decodescript HEX
 *   verify-tx TXHEX PREVOUTS_JSON FLAGS
 *   verify-block BLOCK.bin SPENT.json.xz --height H
 *
 * FLAGS: comma-separated names as in Core's test vectors (P2SH,WITNESS,...), or
 * "consensus" / "standard" / "NONE". PREVOUTS_JSON: a JSON array (inline text, or @FILE)
 * with one entry per input in input order, either tx_valid.json style
 * [txid, vout, scriptPubKey_asm, amount_sats] or an object
 * {"scriptPubKey": hex, "amount_sats": N} (or "value_sats"). SPENT.json.xz: either the
 * per-input format of mainnet-blocks-with-spent-outputs ({"txout": {"value", "script_pubkey"}}
 * per non-coinbase input in block order) or the UTXO-view format of mainnet-edge-case-blocks
 * ({"txid","vout","value_sats","script_pubkey"}); the block's own outputs fill the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/params.h"
#include "crypto/hash.h"
#include "primitives/block.h"
#include "primitives/tx.h"
#include "rpc/blockjson.h"
#include "rpc/json.h"
#include "script/block_verify.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_asm.h"
#include "script/script_error.h"
#include "script/solver.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

int util_cmd_decodescript(int argc, char **argv, const struct chain_params *chain);
int util_cmd_verify_tx(int argc, char **argv);
int util_cmd_verify_block(int argc, char **argv, const struct chain_params *chain);

static int parse_flags_arg(const char *s, uint32_t *flags)
{
    if (strcmp(s, "consensus") == 0) {
        *flags = SCRIPT_FLAGS_CONSENSUS;
        return RC_OK;
    }
    if (strcmp(s, "standard") == 0) {
        *flags = SCRIPT_FLAGS_STANDARD;
        return RC_OK;
    }
    return script_flags_parse(flags, s);
}

int util_cmd_decodescript(int argc, char **argv, const struct chain_params *chain)
{
    struct buf s;
    if (argc != 1) {
        fprintf(stderr, "usage: bitnode-util decodescript HEX\n");
        return 2;
    }
    buf_init(&s);
    if (hex_decode(&s, argv[0]) != RC_OK) {
        fprintf(stderr, "decodescript: argument must be hexadecimal string (not '%s')\n", argv[0]);
        return 1;
    }
    /* The same answer as the decodescript RPC (Core's shape, with desc and segwit). */
    json_t *o = rpc_decodescript_json(s.data, s.len, chain);
    char *out = rpc_json_dumps(o, 2);
    printf("%s\n", out);
    free(out);
    json_decref(o);
    buf_clear(&s);
    return 0;
}

int util_cmd_verify_tx(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: verify-tx TXHEX PREVOUTS_JSON|@FILE FLAGS\n");
        return 2;
    }
    int ret = 1;
    struct buf raw, jtext;
    struct tx tx;
    buf_init(&raw);
    buf_init(&jtext);
    tx_init(&tx);
    json_t *j = NULL;
    struct tx_out *spent = NULL;
    enum script_error *errs = NULL;
    char err[256];
    uint32_t flags;
    if (parse_flags_arg(argv[2], &flags) != RC_OK) {
        fprintf(stderr, "verify-tx: unknown flag in '%s'\n", argv[2]);
        goto out;
    }
    if (hex_decode(&raw, argv[0]) != RC_OK ||
        tx_deserialize(&tx, raw.data, raw.len, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "verify-tx: bad transaction: %s\n", err);
        goto out;
    }
    if (argv[1][0] == '@') {
        if (file_read_all(&jtext, argv[1] + 1, NULL, 0) != RC_OK) {
            fprintf(stderr, "verify-tx: cannot read %s\n", argv[1] + 1);
            goto out;
        }
    } else {
        buf_append(&jtext, argv[1], strlen(argv[1]) + 1);
    }
    json_error_t jerr;
    j = json_loads((const char *)jtext.data, 0, &jerr);
    if (!j || json_array_size(j) != tx.vin_count) {
        fprintf(stderr, "verify-tx: PREVOUTS_JSON must be an array with one entry per input"
                        " (%zu)\n",
                tx.vin_count);
        goto out;
    }
    spent = xcalloc(tx.vin_count + 1, sizeof(*spent));
    for (size_t i = 0; i < tx.vin_count; i++) {
        json_t *e = json_array_get(j, i);
        struct buf spk;
        buf_init(&spk);
        int ok;
        if (json_is_array(e)) {
            const char *a = json_string_value(json_array_get(e, 2));
            ok = a && script_asm_parse(&spk, a, err, sizeof(err)) == RC_OK;
            spent[i].value_sat = json_integer_value(json_array_get(e, 3));
        } else {
            const char *h = json_string_value(json_object_get(e, "scriptPubKey"));
            json_t *v = json_object_get(e, "amount_sats");
            if (!v) {
                v = json_object_get(e, "value_sats");
            }
            ok = h && hex_decode(&spk, h) == RC_OK;
            spent[i].value_sat = json_integer_value(v);
        }
        spent[i].script_pubkey.data = spk.data; /* ownership passes */
        spent[i].script_pubkey.len = spk.len;
        if (!ok) {
            fprintf(stderr, "verify-tx: bad prevout %zu\n", i);
            goto out;
        }
    }
    errs = xcalloc(tx.vin_count + 1, sizeof(*errs));
    size_t failed = script_verify_tx(&tx, spent, flags, NULL, errs);
    for (size_t i = 0; i < tx.vin_count; i++) {
        if (errs[i] == SCRIPT_ERR_OK) {
            printf("input %zu: OK\n", i);
        } else {
            printf("input %zu: %s (%s)\n", i, script_error_name(errs[i]),
                   script_error_string(errs[i]));
        }
    }
    printf("inputs checked: %zu, failed: %zu\n", tx.vin_count, failed);
    ret = failed ? 1 : 0;
out:
    if (spent) {
        for (size_t i = 0; i < tx.vin_count; i++) {
            free(spent[i].script_pubkey.data);
        }
    }
    free(spent);
    free(errs);
    json_decref(j);
    tx_clear(&tx);
    buf_clear(&raw);
    buf_clear(&jtext);
    return ret;
}

static void print_fail(void *ctx, size_t tx_idx, size_t in_idx, enum script_error err)
{
    const struct block *b = ctx;
    char txid[65];
    hex_encode_rev(txid, b->txs[tx_idx].txid, 32);
    printf("FAIL tx %zu (%s) input %zu: %s\n", tx_idx, txid, in_idx, script_error_name(err));
}

int util_cmd_verify_block(int argc, char **argv, const struct chain_params *chain)
{
    const char *bpath = NULL, *spath = NULL;
    long height = -1;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--height") == 0 && i + 1 < argc) {
            height = strtol(argv[++i], NULL, 10);
        } else if (strncmp(argv[i], "--height=", 9) == 0) {
            height = strtol(argv[i] + 9, NULL, 10);
        } else if (!bpath) {
            bpath = argv[i];
        } else if (!spath) {
            spath = argv[i];
        } else {
            bpath = NULL;
            break;
        }
    }
    if (!bpath || !spath || height < 0) {
        fprintf(stderr, "usage: verify-block BLOCK.bin SPENT.json.xz --height H\n");
        return 2;
    }
    int ret = 1;
    struct buf raw, text, scripts;
    struct block b;
    buf_init(&raw);
    buf_init(&text);
    buf_init(&scripts);
    block_init(&b);
    json_t *j = NULL;
    struct tx_out *spent = NULL;
    struct spent_entry *view = NULL;
    size_t *offs = NULL;
    size_t n_spent = 0;
    char err[256];
    if (file_read_all(&raw, bpath, NULL, 0) != RC_OK ||
        block_parse(&b, raw.data, raw.len, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "verify-block: cannot read or parse %s: %s\n", bpath, err);
        goto out;
    }
    json_error_t jerr;
    if (file_read_all(&text, spath, NULL, 0) != RC_OK ||
        !(j = json_loads((const char *)text.data, 0, &jerr)) || !json_is_array(j)) {
        fprintf(stderr, "verify-block: cannot read %s\n", spath);
        goto out;
    }
    size_t nj = json_array_size(j);
    int per_input = nj > 0 && json_object_get(json_array_get(j, 0), "txout") != NULL;
    offs = xcalloc(nj + 1, sizeof(*offs));
    for (size_t k = 0; k < nj; k++) {
        json_t *e = json_array_get(j, k);
        json_t *o = per_input ? json_object_get(e, "txout") : e;
        const char *hex = json_string_value(json_object_get(o, "script_pubkey"));
        offs[k] = scripts.len;
        if (!hex || hex_decode(&scripts, hex) != RC_OK) {
            fprintf(stderr, "verify-block: bad entry %zu in %s\n", k, spath);
            goto out;
        }
    }
    offs[nj] = scripts.len;
    if (per_input) {
        n_spent = nj;
        spent = xcalloc(nj + 1, sizeof(*spent));
        for (size_t k = 0; k < nj; k++) {
            json_t *o = json_object_get(json_array_get(j, k), "txout");
            spent[k].value_sat = json_integer_value(json_object_get(o, "value"));
            spent[k].script_pubkey.data = scripts.data + offs[k];
            spent[k].script_pubkey.len = offs[k + 1] - offs[k];
        }
    } else {
        view = xcalloc(nj + 1, sizeof(*view));
        for (size_t k = 0; k < nj; k++) {
            json_t *e = json_array_get(j, k);
            const char *txid = json_string_value(json_object_get(e, "txid"));
            if (!txid || hex_decode_hash32_rev(view[k].prevout.txid, txid) != RC_OK) {
                fprintf(stderr, "verify-block: bad txid in entry %zu\n", k);
                goto out;
            }
            view[k].prevout.n = (uint32_t)json_integer_value(json_object_get(e, "vout"));
            view[k].out.value_sat = json_integer_value(json_object_get(e, "value_sats"));
            view[k].out.script_pubkey.data = scripts.data + offs[k];
            view[k].out.script_pubkey.len = offs[k + 1] - offs[k];
        }
        size_t mt, mi;
        if (script_block_resolve_spent(&b, view, nj, &spent, &n_spent, &mt, &mi) != RC_OK) {
            fprintf(stderr, "verify-block: no spent output for tx %zu input %zu\n", mt, mi);
            goto out;
        }
    }
    uint32_t flags = script_block_flags(chain, (int)height, b.hash);
    struct script_block_result res;
    if (script_verify_block(&b, spent, n_spent, flags, NULL, 0, print_fail, &b, &res) !=
        RC_OK) {
        fprintf(stderr, "verify-block: %zu spent outputs do not match the block's inputs\n",
                n_spent);
        goto out;
    }
    char hash[65];
    hex_encode_rev(hash, b.hash, 32);
    printf("block %s height %ld flags 0x%x\n", hash, height, flags);
    printf("inputs checked: %zu, failed: %zu\n", res.inputs_checked, res.inputs_failed);
    ret = res.inputs_failed ? 1 : 0;
out:
    free(offs);
    free(spent);
    free(view);
    json_decref(j);
    block_clear(&b);
    buf_clear(&raw);
    buf_clear(&text);
    buf_clear(&scripts);
    return ret;
}

#ifdef SCRIPT_CMDS_MAIN
int main(int argc, char **argv)
{
    const struct chain_params *chain = chain_params_get("main");
    if (argc < 2) {
        return 2;
    }
    if (strcmp(argv[1], "decodescript") == 0) {
        return util_cmd_decodescript(argc - 2, argv + 2, chain);
    }
    if (strcmp(argv[1], "verify-tx") == 0) {
        return util_cmd_verify_tx(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "verify-block") == 0) {
        return util_cmd_verify_block(argc - 2, argv + 2, chain);
    }
    return 2;
}
#endif
