#include "rpc/client.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rpc/json.h"

struct convert_param {
    const char *method;
    int index;
    const char *name;
    bool also_string; /* JSON if it parses, else the string itself (Core's also_string) */
};

static const struct convert_param convert_table[] = {
    {"stop", 0, "wait", false},     {"logging", 0, "include", false}, {"logging", 1, "exclude", false},
    {"echojson", 0, "arg0", false}, {"echojson", 1, "arg1", false},   {"echojson", 2, "arg2", false},
    {"echojson", 3, "arg3", false}, {"echojson", 4, "arg4", false},   {"echojson", 5, "arg5", false},
    {"echojson", 6, "arg6", false}, {"echojson", 7, "arg7", false},   {"echojson", 8, "arg8", false},
    {"echojson", 9, "arg9", false},
    {"setmocktime", 0, "timestamp", false},
    {"mockscheduler", 0, "delta_time", false},
    /* Blockchain (Core's vRPCConvertParams). */
    {"getblockhash", 0, "height", false},
    {"gettxoutproof", 0, "txids", false},
    {"getdescriptoractivity", 0, "blockhashes", false},
    {"getdescriptoractivity", 1, "scanobjects", false},
    {"getdescriptoractivity", 2, "include_mempool", false},
    {"getopenrpcinfo", 0, "show_hidden", false},
    {"getblock", 1, "verbosity", false},
    {"getblock", 1, "verbose", false},
    {"getblockheader", 1, "verbose", false},
    {"gettxout", 1, "n", false},
    {"gettxout", 2, "include_mempool", false},
    {"gettxoutsetinfo", 1, "hash_or_height", true},
    {"gettxoutsetinfo", 2, "use_index", false},
    {"getrawtransaction", 1, "verbosity", false},
    {"getrawtransaction", 1, "verbose", false},
    {"decoderawtransaction", 1, "iswitness", false},
    {"verifychain", 0, "checklevel", false},
    {"verifychain", 1, "nblocks", false},
    {"waitfornewblock", 0, "timeout", false},
    {"waitforblock", 1, "timeout", false},
    {"waitforblockheight", 0, "height", false},
    {"waitforblockheight", 1, "timeout", false},
    {"pruneblockchain", 0, "height", false},
    {"getchaintxstats", 0, "nblocks", false},
    {"getblockstats", 0, "hash_or_height", true},
    {"getblockstats", 1, "stats", false},
    {"dumptxoutset", 2, "options", false},
    {"dumptxoutset", 2, "rollback", true},
    {"dumptxoutset", 2, "in_memory", false},
    {"scantxoutset", 1, "scanobjects", false},
    {"scanblocks", 1, "scanobjects", false},
    {"scanblocks", 2, "start_height", false},
    {"scanblocks", 3, "stop_height", false},
    {"scanblocks", 5, "options", false},
    {"scanblocks", 5, "filter_false_positives", false},
    /* Network. */
    {"getblockfrompeer", 1, "peer_id", false},
    {"setban", 2, "bantime", false},
    {"setban", 3, "absolute", false},
    {"setnetworkactive", 0, "state", false},
    {"disconnectnode", 1, "nodeid", false},
    {"getnodeaddresses", 0, "count", false},
    {"addnode", 2, "v2transport", false},
    {"addconnection", 2, "v2transport", false},
    {"addpeeraddress", 1, "port", false},
    {"addpeeraddress", 2, "tried", false},
    {"sendmsgtopeer", 0, "peer_id", false},
    {"getorphantxs", 0, "verbosity", false},
    /* Mempool and raw transactions. */
    {"createrawtransaction", 0, "inputs", false},
    {"createrawtransaction", 1, "outputs", false},
    {"createrawtransaction", 2, "locktime", false},
    {"createrawtransaction", 3, "replaceable", false},
    {"createrawtransaction", 4, "version", false},
    {"signrawtransactionwithkey", 1, "privkeys", false},
    {"signrawtransactionwithkey", 2, "prevtxs", false},
    {"sendrawtransaction", 1, "maxfeerate", false},
    {"sendrawtransaction", 2, "maxburnamount", false},
    {"testmempoolaccept", 0, "rawtxs", false},
    {"testmempoolaccept", 1, "maxfeerate", false},
    {"submitpackage", 0, "package", false},
    {"submitpackage", 1, "maxfeerate", false},
    {"submitpackage", 2, "maxburnamount", false},
    {"combinerawtransaction", 0, "txs", false},
    {"createpsbt", 0, "inputs", false},
    {"createpsbt", 1, "outputs", false},
    {"createpsbt", 2, "locktime", false},
    {"createpsbt", 3, "replaceable", false},
    {"createpsbt", 4, "version", false},
    {"createpsbt", 5, "psbt_version", false},
    {"combinepsbt", 0, "txs", false},
    {"finalizepsbt", 1, "extract", false},
    {"converttopsbt", 1, "permitsigdata", false},
    {"converttopsbt", 2, "iswitness", false},
    {"converttopsbt", 3, "psbt_version", false},
    {"utxoupdatepsbt", 1, "descriptors", false},
    {"getrawmempool", 0, "verbose", false},
    {"getrawmempool", 1, "mempool_sequence", false},
    {"getmempoolancestors", 1, "verbose", false},
    {"getmempooldescendants", 1, "verbose", false},
    {"gettxspendingprevout", 0, "outputs", false},
    {"gettxspendingprevout", 1, "options", false},
    {"gettxspendingprevout", 1, "mempool_only", false},
    {"gettxspendingprevout", 1, "return_spending_tx", false},
    {"importmempool", 1, "options", false},
    {"importmempool", 1, "use_current_time", false},
    {"importmempool", 1, "apply_fee_delta_priority", false},
    {"importmempool", 1, "apply_unbroadcast_set", false},
    /* Mining and generating. */
    {"getblocktemplate", 0, "template_request", false},
    {"getnetworkhashps", 0, "nblocks", false},
    {"getnetworkhashps", 1, "height", false},
    {"prioritisetransaction", 1, "dummy", false},
    {"prioritisetransaction", 2, "fee_delta", false},
    {"generatetoaddress", 0, "nblocks", false},
    {"generatetoaddress", 2, "maxtries", false},
    {"generatetodescriptor", 0, "num_blocks", false},
    {"generatetodescriptor", 2, "maxtries", false},
    {"generateblock", 1, "transactions", false},
    {"generateblock", 2, "submit", false},
    /* Util and fee estimation. */
    {"createmultisig", 0, "nrequired", false},
    {"createmultisig", 1, "keys", false},
    {"deriveaddresses", 1, "range", false},
    {"estimatesmartfee", 0, "conf_target", false},
    {"estimaterawfee", 0, "conf_target", false},
    {"estimaterawfee", 1, "threshold", false},
};

static const struct convert_param *find_by_index(const char *method, size_t index)
{
    for (size_t i = 0; i < sizeof(convert_table) / sizeof(convert_table[0]); i++) {
        if (strcmp(convert_table[i].method, method) == 0 &&
            (size_t)convert_table[i].index == index) {
            return &convert_table[i];
        }
    }
    return NULL;
}

static const struct convert_param *find_by_name(const char *method, const char *name)
{
    for (size_t i = 0; i < sizeof(convert_table) / sizeof(convert_table[0]); i++) {
        if (strcmp(convert_table[i].method, method) == 0 &&
            strcmp(convert_table[i].name, name) == 0) {
            return &convert_table[i];
        }
    }
    return NULL;
}

/* A word on the command line: a string, or JSON for the parameters Core converts (and for
 * the also_string ones, the string itself when it is not JSON). */
static json_t *to_value(const char *s, const struct convert_param *cp, char *err, size_t err_len)
{
    if (!cp) {
        return json_string(s);
    }
    json_t *v = rpc_json_parse(s, strlen(s));
    if (!v && cp->also_string) {
        return json_string(s);
    }
    if (!v) {
        snprintf(err, err_len, "Error parsing JSON: %s", s);
    }
    return v;
}

json_t *rpc_client_params_positional(const char *method, char *const *words, size_t n, char *err,
                                     size_t err_len)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *v = to_value(words[i], find_by_index(method, i), err, err_len);
        if (!v) {
            json_decref(arr);
            return NULL;
        }
        json_array_append_new(arr, v);
    }
    return arr;
}

json_t *rpc_client_params_named(const char *method, char *const *words, size_t n, char *err,
                                size_t err_len)
{
    json_t *obj = json_object();
    json_t *positional = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(words[i], '=');
        json_t *v;
        if (!eq) {
            v = to_value(words[i], find_by_index(method, json_array_size(positional)), err,
                         err_len);
            if (!v) {
                goto fail;
            }
            json_array_append_new(positional, v);
            continue;
        }
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)(eq - words[i]), words[i]);
        if (json_object_get(obj, name)) {
            snprintf(err, err_len, "Parameter %s specified multiple times", name);
            goto fail;
        }
        v = to_value(eq + 1, find_by_name(method, name), err, err_len);
        if (!v) {
            goto fail;
        }
        json_object_set_new(obj, name, v);
    }
    if (json_array_size(positional) > 0) {
        json_object_set_new(obj, "args", positional);
    } else {
        json_decref(positional);
    }
    return obj;
fail:
    json_decref(positional);
    json_decref(obj);
    return NULL;
}
