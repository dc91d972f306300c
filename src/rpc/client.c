#include "rpc/client.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rpc/json.h"

struct convert_param {
    const char *method;
    int index;
    const char *name;
};

static const struct convert_param convert_table[] = {
    {"stop", 0, "wait"},     {"logging", 0, "include"}, {"logging", 1, "exclude"},
    {"echojson", 0, "arg0"}, {"echojson", 1, "arg1"},   {"echojson", 2, "arg2"},
    {"echojson", 3, "arg3"}, {"echojson", 4, "arg4"},   {"echojson", 5, "arg5"},
    {"echojson", 6, "arg6"}, {"echojson", 7, "arg7"},   {"echojson", 8, "arg8"},
    {"echojson", 9, "arg9"},
    /* Blockchain (Core's vRPCConvertParams). */
    {"getblockhash", 0, "height"},
    {"getblock", 1, "verbosity"},
    {"getblockheader", 1, "verbose"},
    {"gettxout", 1, "n"},
    {"gettxout", 2, "include_mempool"},
    {"gettxoutsetinfo", 1, "hash_or_height"},
    {"gettxoutsetinfo", 2, "use_index"},
    {"getrawtransaction", 1, "verbosity"},
    {"decoderawtransaction", 1, "iswitness"},
    {"verifychain", 0, "checklevel"},
    {"verifychain", 1, "nblocks"},
    {"waitfornewblock", 0, "timeout"},
    {"waitforblock", 1, "timeout"},
    {"waitforblockheight", 0, "height"},
    {"waitforblockheight", 1, "timeout"},
    {"getblockstats", 0, "hash_or_height"},
    {"getblockstats", 1, "stats"},
};

static bool convert_by_index(const char *method, size_t index)
{
    for (size_t i = 0; i < sizeof(convert_table) / sizeof(convert_table[0]); i++) {
        if (strcmp(convert_table[i].method, method) == 0 &&
            (size_t)convert_table[i].index == index) {
            return true;
        }
    }
    return false;
}

static bool convert_by_name(const char *method, const char *name)
{
    for (size_t i = 0; i < sizeof(convert_table) / sizeof(convert_table[0]); i++) {
        if (strcmp(convert_table[i].method, method) == 0 &&
            strcmp(convert_table[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

static json_t *to_value(const char *s, bool convert, char *err, size_t err_len)
{
    if (!convert) {
        return json_string(s);
    }
    json_t *v = rpc_json_parse(s, strlen(s));
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
        json_t *v = to_value(words[i], convert_by_index(method, i), err, err_len);
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
            v = to_value(words[i], convert_by_index(method, json_array_size(positional)), err,
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
        v = to_value(eq + 1, convert_by_name(method, name), err, err_len);
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
