/* The UTXO snapshot RPCs: dumptxoutset writes the UTXO set in Core's snapshot format
 * (coins/snapshot.h), which Core's loadtxoutset reads; loadtxoutset reads one (Core's or
 * ours) into a snapshot chainstate (validation/assumeutxo.c). */
#include "rpc/snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coins/snapshot.h"
#include "mempool/mempool.h"
#include "net/net.h"
#include "node/context.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/protocol.h"
#include "util/fs.h"
#include "util/rc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

struct dump_call {
    const struct block_index *base; /* NULL: the tip */
    const char *temp_path;          /* the rollback's store; NULL: in memory */
    FILE *f;
    struct chainstate_snapshot snap;
};

static int dump_call(struct chainstate *cs, void *ctx)
{
    struct dump_call *c = ctx;
    return chainstate_write_snapshot(cs, c->base, c->temp_path, c->f, &c->snap);
}

/* Core's choice of the snapshot's block: "latest" is the tip, the rollback option names a
 * block by height or hash. 0 with *base (NULL: the tip), or an RPC error set. */
static int pick_base(struct rpc_request *req, const char *type, const json_t *options,
                     const struct block_index **base)
{
    json_t *rollback = options ? json_object_get(options, "rollback") : NULL;
    *base = NULL;
    if (rollback) {
        if (type[0] && strcmp(type, "rollback") != 0) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "Invalid snapshot type \"%s\" specified with rollback option", type);
            return -1;
        }
        struct chainstate *cs = req->ctx->node->cs;
        chainstate_read_lock(cs);
        *base = rpc_block_by_hash_or_height(req, rollback, "rollback");
        chainstate_read_unlock(cs);
        return *base ? 0 : -1;
    }
    if (strcmp(type, "rollback") == 0) {
        /* Core rolls back to the highest height the chain parameters hold a snapshot for. */
        struct chainstate *cs = req->ctx->node->cs;
        const struct chain_params *p = chainstate_params(cs);
        int max = -1;
        for (size_t i = 0; i < p->assumeutxo_count; i++) {
            max = p->assumeutxo[i].height > max ? p->assumeutxo[i].height : max;
        }
        if (max < 0) {
            rpc_error(req, RPC_INTERNAL_ERROR, "Internal bug detected: snapshot_heights.size() > 0");
            return -1;
        }
        json_t *h = json_integer(max);
        chainstate_read_lock(cs);
        *base = rpc_block_by_hash_or_height(req, h, "rollback");
        chainstate_read_unlock(cs);
        json_decref(h);
        return *base ? 0 : -1;
    }
    if (strcmp(type, "latest") != 0) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Invalid snapshot type \"%s\" specified. Please specify \"rollback\" or "
                  "\"latest\"",
                  type);
        return -1;
    }
    return 0;
}

/* The rollback's temporary store: temp_utxo_<height> beside the file, as Core names it. */
static void temp_store_path(char *out, size_t len, const char *file, int height)
{
    const char *slash = strrchr(file, '/');
    int dir = slash ? (int)(slash - file) : 0;
    snprintf(out, len, "%.*s/temp_utxo_%d", dir, file, height);
}

/* A path argument relative to the chain's data directory unless absolute (Core's
 * AbsPathJoin). */
static void net_path(struct rpc_request *req, const char *arg, char *out, size_t len)
{
    char *p = fs_path_join(req->ctx->node->net_dir, arg);
    snprintf(out, len, "%s", p);
    free(p);
}

static json_t *dump_result(const struct dump_call *c, const char *path)
{
    json_t *r = json_object();
    json_object_set_new(r, "coins_written", json_integer((json_int_t)c->snap.coins));
    json_object_set_new(r, "base_hash", rpc_hash_json(c->snap.base_hash));
    json_object_set_new(r, "base_height", json_integer(c->snap.base_height));
    json_object_set_new(r, "path", json_string(path));
    json_object_set_new(r, "txoutset_hash", rpc_hash_json(c->snap.txoutset_hash));
    json_object_set_new(r, "nchaintx", json_integer((json_int_t)c->snap.chain_tx));
    return r;
}

static json_t *rpc_dumptxoutset(struct rpc_request *req)
{
    const char *arg = json_string_value(rpc_param(req, 0));
    const json_t *type_arg = rpc_param(req, 1);
    const char *type = type_arg && json_is_string(type_arg) ? json_string_value(type_arg) : "";
    const json_t *options = rpc_param(req, 2);
    struct dump_call c = {0};
    if (pick_base(req, type, options, &c.base)) {
        return NULL;
    }
    char path[4200], temp[4300], store[4400];
    net_path(req, arg, path, sizeof(path));
    struct stat sb;
    int exists = stat(path, &sb) == 0, fifo = exists && S_ISFIFO(sb.st_mode);
    if (exists && !fifo) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "%s already exists. If you are sure this is what you want, move it out "
                         "of the way first",
                         path);
    }
    /* Written beside, then renamed: an interrupted dump never looks complete (a named pipe
     * is written directly). */
    snprintf(temp, sizeof(temp), fifo ? "%s" : "%s.incomplete", path);
    json_t *in_memory = options ? json_object_get(options, "in_memory") : NULL;
    if (c.base && !json_is_true(in_memory)) {
        temp_store_path(store, sizeof(store), temp, c.base->height);
        c.temp_path = store;
    }
    if (!(c.f = fopen(temp, "wb"))) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Couldn't open file %s for writing.", temp);
    }
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = dump_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    if (fclose(c.f) != 0 && rc == RC_OK) {
        rc = RC_IO;
    }
    if (rc == RC_OK && !fifo && rename(temp, path) != 0) {
        rc = RC_IO;
    }
    if (rc != RC_OK) {
        if (!fifo) {
            remove(temp);
        }
        if (rc == RC_INVALID) {
            return rpc_error(req, RPC_MISC_ERROR, "The rollback block is not on the active chain");
        }
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to write the UTXO set to %s (%s)", temp,
                         rc == RC_IO ? strerror(errno) : rc_str(rc));
    }
    return dump_result(&c, path);
}

struct load_call {
    struct snapshot_reader *r;
    uint8_t base_hash[32];
    uint64_t coins;
    size_t mempool_txs;
    struct block_index *base;
    char err[1024];
};

static int load_call(struct chainstate *cs, void *ctx)
{
    struct load_call *c = ctx;
    return chainstate_load_snapshot(cs, c->r, c->base_hash, c->coins, c->mempool_txs, &c->base,
                                    c->err, sizeof(c->err));
}

/* The pool's transactions (Core refuses a snapshot while it holds any: the snapshot's coins
 * replace what they were checked against). */
static size_t mempool_txs(struct rpc_request *req)
{
    struct mempool *mp = req->ctx->node->mempool;
    if (!mp) {
        return 0;
    }
    mempool_read_lock(mp);
    size_t n = mempool_count(mp);
    mempool_read_unlock(mp);
    return n;
}

static json_t *rpc_loadtxoutset(struct rpc_request *req)
{
    const char *arg = json_string_value(rpc_param(req, 0));
    char path[4200];
    net_path(req, arg, path, sizeof(path));
    FILE *f = fopen(path, "rb");
    if (!f) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Couldn't open file %s for reading.", path);
    }
    struct load_call c = {0};
    struct chainstate *cs = req->ctx->node->cs;
    if (snapshot_reader_new(&c.r, f, chainstate_params(cs)->magic, c.base_hash, &c.coins, c.err,
                            sizeof(c.err)) != 0) {
        fclose(f);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Unable to parse metadata: %s", c.err);
    }
    c.mempool_txs = mempool_txs(req);
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = load_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    snapshot_reader_free(c.r);
    fclose(f);
    if (rc != RC_OK) {
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to load UTXO snapshot: %s. (%s)",
                         rc == RC_INVALID ? c.err : rc_str(rc), path);
    }
    /* It cannot serve the blocks below the snapshot yet: a limited peer (Core's). */
    if (req->ctx->node->net) {
        net_remove_local_services(req->ctx->node->net, NODE_NETWORK);
    }
    json_t *r = json_object();
    json_object_set_new(r, "coins_loaded", json_integer((json_int_t)c.coins));
    json_object_set_new(r, "tip_hash", rpc_hash_json(c.base->hash));
    json_object_set_new(r, "base_height", json_integer(c.base->height));
    json_object_set_new(r, "path", json_string(path));
    return r;
}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "dumptxoutset",
     .handler = rpc_dumptxoutset,
     .description =
         "Write the serialized UTXO set to a file. This can be used in loadtxoutset afterwards "
         "if this snapshot height is supported in the chainparams as well.\n"
         "This creates a temporary UTXO database when rolling back, keeping the main chain "
         "intact. Should the node experience an unclean shutdown the temporary database may "
         "need to be removed from the datadir manually.\n"
         "For deep rollbacks, make sure to use no RPC timeout (bitnode-cli -rpcclienttimeout=0) "
         "as it may take several minutes.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "path",
          .type = RPC_ARG_STR,
          .description = "Path to the output file. If relative, will be prefixed by datadir."},
         {.names = "type",
          .type = RPC_ARG_STR,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "\"\"",
          .description =
              "The type of snapshot to create. Can be \"latest\" to create a snapshot of the "
              "current UTXO set or \"rollback\" to temporarily roll back the state of the node "
              "to a historical block before creating the snapshot of a historical UTXO set. "
              "This parameter can be omitted if a separate \"rollback\" named parameter is "
              "specified indicating the height or hash of a specific historical block. If "
              "\"rollback\" is specified and separate \"rollback\" named parameter is not "
              "specified, this will roll back to the latest valid snapshot block that can "
              "currently be loaded with loadtxoutset."},
         {.names = "options",
          .type = RPC_ARG_OBJ_NAMED_PARAMS,
          .fallback = RPC_ARG_OMITTED,
          .description = "",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "rollback",
               .type = RPC_ARG_NUM,
               .fallback = RPC_ARG_OMITTED,
               .description =
                   "Height or hash of the block to roll back to before creating the snapshot. "
                   "Note: The further this number is from the tip, the longer this process will "
                   "take. Consider setting a higher -rpcclienttimeout value in this case.",
               .type_str = {"", "string or numeric"},
               .skip_type_check = true},
              {.names = "in_memory",
               .type = RPC_ARG_BOOL,
               .fallback = RPC_ARG_DEFAULT,
               .default_value = "false",
               .description = "If true, the temporary UTXO-set database used during rollback is "
                              "kept entirely in memory. This can significantly speed up the "
                              "process but requires sufficient free RAM (over 10 GB on "
                              "mainnet)."})}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_NUM,
                             .key = "coins_written",
                             .description = "the number of coins written in the snapshot"},
                            {.type = RPC_RES_STR_HEX,
                             .key = "base_hash",
                             .description = "the hash of the base of the snapshot"},
                            {.type = RPC_RES_NUM,
                             .key = "base_height",
                             .description = "the height of the base of the snapshot"},
                            {.type = RPC_RES_STR,
                             .key = "path",
                             .description = "the absolute path that the snapshot was written to"},
                            {.type = RPC_RES_STR_HEX,
                             .key = "txoutset_hash",
                             .description = "the hash of the UTXO set contents"},
                            {.type = RPC_RES_NUM,
                             .key = "nchaintx",
                             .description =
                                 "the number of transactions in the chain up to and including "
                                 "the base block"})}),
     .examples = RPC_EXAMPLE_CLI("-rpcclienttimeout=0 dumptxoutset", "utxo.dat latest")
         RPC_EXAMPLE_CLI("-rpcclienttimeout=0 dumptxoutset", "utxo.dat rollback")
             RPC_EXAMPLE_CLI("-rpcclienttimeout=0 -named dumptxoutset", "utxo.dat rollback=853456")
                 RPC_EXAMPLE_CLI("-rpcclienttimeout=0 -named dumptxoutset",
                                 "utxo.dat rollback=853456 in_memory=true")},
    {.category = "blockchain",
     .name = "loadtxoutset",
     .handler = rpc_loadtxoutset,
     .description =
         "Load the serialized UTXO set from a file.\n"
         "Once this snapshot is loaded, its contents will be deserialized into a second "
         "chainstate data structure, which is then used to sync to the network's tip. "
         "Meanwhile, the original chainstate will complete the initial block download process "
         "in the background, eventually validating up to the block that the snapshot is based "
         "upon.\n\n"
         "The result is a usable bitcoind instance that is current with the network tip in a "
         "matter of minutes rather than hours. UTXO snapshot are typically obtained from "
         "third-party sources (HTTP, torrent, etc.) which is reasonable since their contents "
         "are always checked by hash.\n\n"
         "You can find more information on this process in the `assumeutxo` design document "
         "(<https://github.com/bitcoin/bitcoin/blob/master/doc/design/assumeutxo.md>).",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "path",
                       .type = RPC_ARG_STR,
                       .description = "path to the snapshot file. If relative, will be prefixed "
                                      "by datadir."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_NUM,
                             .key = "coins_loaded",
                             .description = "the number of coins loaded from the snapshot"},
                            {.type = RPC_RES_STR_HEX,
                             .key = "tip_hash",
                             .description = "the hash of the base of the snapshot"},
                            {.type = RPC_RES_NUM,
                             .key = "base_height",
                             .description = "the height of the base of the snapshot"},
                            {.type = RPC_RES_STR,
                             .key = "path",
                             .description =
                                 "the absolute path that the snapshot was loaded from"})}),
     .examples = RPC_EXAMPLE_CLI("-rpcclienttimeout=0 loadtxoutset", "utxo.dat")},
};

void rpc_snapshot_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
