/* The optional indexes (indexes.h). */
#include "node/indexes.h"

#include <stdio.h>
#include <string.h>

#include "index/blockfilterindex.h"
#include "kv/kv.h"
#include "node/context.h"
#include "util/args.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"

int node_blockfilter_types(const struct args *a, int *basic, char *err, size_t err_len)
{
    *basic = 0;
    const char *v = args_get(a, "blockfilterindex", "0");
    if (strcmp(v, "0") == 0) {
        return RC_OK;
    }
    if (v[0] == 0 || strcmp(v, "1") == 0 || strcmp(v, "basic") == 0) {
        *basic = 1;
        return RC_OK;
    }
    snprintf(err, err_len, "Unknown -blockfilterindex value %s.", v);
    return RC_INVALID;
}

int node_check_index_options(const struct args *a, char *err, size_t err_len)
{
    int basic;
    int rc = node_blockfilter_types(a, &basic, err, err_len);
    if (rc == RC_OK && args_get_bool(a, "peerblockfilters", false) && !basic) {
        snprintf(err, err_len, "Cannot set -peerblockfilters without -blockfilterindex.");
        rc = RC_INVALID;
    }
    return rc;
}

int node_indexes_start(struct node_context *n, int reindex, char *err, size_t err_len)
{
    int basic;
    int rc = node_blockfilter_types(n->args, &basic, err, err_len);
    if (rc || !basic) {
        return rc;
    }
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/indexes/blockfilter", n->net_dir);
    if ((rc = fs_mkdir_p(dir, err, err_len)) != RC_OK) {
        return rc;
    }
    snprintf(dir, sizeof(dir), "%s/indexes/blockfilter/basic", n->net_dir);
    if (reindex && kv_destroy(kv_default_ops(), dir) != RC_OK) {
        snprintf(err, err_len, "cannot wipe the block filter index %s", dir);
        return RC_IO;
    }
    return blockfilter_index_start(&n->blockfilters, n->cs, NULL, dir, err, err_len);
}

void node_indexes_stop(struct node_context *n)
{
    blockfilter_index_stop(n->blockfilters);
    n->blockfilters = NULL;
}
