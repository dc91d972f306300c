/* The optional indexes (indexes.h). */
#include "node/indexes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "index/blockfilterindex.h"
#include "index/coinstatsindex.h"
#include "index/txospenderindex.h"
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

/* The store of one index at <net_dir>/indexes/<sub>/<leaf>, wiped first with -reindex. The
 * wipe is marked by <leaf>.wiping beside it while it deletes files: a kill in the middle
 * (a store with files missing, which would not open) has the next start wipe it again; an
 * index wiped whole just syncs again. */
static int index_dir(struct node_context *n, const char *sub, const char *leaf, int reindex,
                     char *dir, size_t dir_len, char *err, size_t err_len)
{
    snprintf(dir, dir_len, "%s/indexes/%s", n->net_dir, sub);
    int rc = fs_mkdir_p(dir, err, err_len);
    if (rc != RC_OK) {
        return rc;
    }
    snprintf(dir, dir_len, "%s/indexes/%s/%s", n->net_dir, sub, leaf);
    char mark[4300];
    snprintf(mark, sizeof(mark), "%s.wiping", dir);
    if (!reindex && access(mark, F_OK) != 0) {
        return RC_OK;
    }
    if ((rc = fs_touch_synced(mark, err, err_len)) != RC_OK) {
        return rc;
    }
    if (kv_destroy(kv_default_ops(), dir) != RC_OK) {
        snprintf(err, err_len, "cannot wipe the index %s", dir);
        return RC_IO;
    }
    (void)unlink(mark);
    return RC_OK;
}

/* Before Core's layout (the filter index's store at indexes/blockfilter/basic/db) bitnode
 * kept the store at indexes/blockfilter/basic itself: moved into db/ in two renames, each
 * redone by the next start if a kill comes between them. */
static int move_filter_store(struct node_context *n, char *err, size_t err_len)
{
    char basic[4200], moving[4300], marker[4300], db[4300];
    snprintf(basic, sizeof(basic), "%s/indexes/blockfilter/basic", n->net_dir);
    snprintf(moving, sizeof(moving), "%s.moving", basic);
    snprintf(marker, sizeof(marker), "%s/BACKEND", basic);
    snprintf(db, sizeof(db), "%s/db", basic);
    if (access(marker, F_OK) == 0) {
        LOG_INFO("Moving the block filter index store %s to %s (Core's layout)", basic, db);
        if (rename(basic, moving) != 0) {
            snprintf(err, err_len, "cannot move %s: %s", basic, strerror(errno));
            return RC_IO;
        }
    }
    if (access(moving, F_OK) == 0) {
        int rc = fs_mkdir_p(basic, err, err_len);
        if (rc != RC_OK) {
            return rc;
        }
        if (rename(moving, db) != 0) {
            snprintf(err, err_len, "cannot move %s to %s: %s", moving, db, strerror(errno));
            return RC_IO;
        }
    }
    return RC_OK;
}

int node_indexes_start(struct node_context *n, int reindex, char *err, size_t err_len)
{
    int basic;
    int rc = node_blockfilter_types(n->args, &basic, err, err_len);
    char dir[4200];
    if (rc == RC_OK && basic && (rc = move_filter_store(n, err, err_len)) == RC_OK &&
        (rc = index_dir(n, "blockfilter/basic", "db", reindex, dir, sizeof(dir), err, err_len)) ==
            RC_OK) {
        rc = blockfilter_index_start(&n->blockfilters, n->cs, NULL, dir, err, err_len);
    }
    if (rc == RC_OK && args_get_bool(n->args, "coinstatsindex", false) &&
        (rc = index_dir(n, "coinstatsindex", "db", reindex, dir, sizeof(dir), err, err_len)) ==
            RC_OK) {
        rc = coinstats_index_start(&n->coinstats, n->cs, NULL, dir, err, err_len);
    }
    if (rc == RC_OK && args_get_bool(n->args, "txospenderindex", false) &&
        (rc = index_dir(n, "txospenderindex", "db", reindex, dir, sizeof(dir), err, err_len)) ==
            RC_OK) {
        rc = txospender_index_start(&n->spenders, n->cs, NULL, dir, err, err_len);
    }
    return rc;
}

void node_indexes_stop(struct node_context *n)
{
    blockfilter_index_stop(n->blockfilters);
    n->blockfilters = NULL;
    coinstats_index_stop(n->coinstats);
    n->coinstats = NULL;
    txospender_index_stop(n->spenders);
    n->spenders = NULL;
}
