/* The "warnings" field (warnings.h). */
#include "rpc/warnings.h"

json_t *rpc_warnings_json(struct node_context *n)
{
    char msgs[NODE_WARNING_COUNT][NODE_WARNING_MAX_LEN];
    size_t k = 0;
    if (n) {
        node_warnings_get(&n->warnings, msgs, &k);
    }
    if (n && n->deprecated_warnings) {
        return json_string(k ? msgs[k - 1] : "");
    }
    json_t *a = json_array();
    for (size_t i = 0; i < k; i++) {
        json_array_append_new(a, json_string(msgs[i]));
    }
    return a;
}
