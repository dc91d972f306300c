/* bitnoded: the daemon. main() is the start-up as a numbered list of steps, each a call;
 * shutdown runs the steps that succeeded in reverse. The options become each subsystem's
 * options struct in src/node/ (*_args.c); the handles the steps create live in one
 * node_context, which RPC reaches through one pointer. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mempool/fees.h"
#include "mempool/mempool.h"
#include "mempool/miner.h"
#include "net/net.h"
#include "notify/command.h"
#include "node/settings.h"
#include "node/zmq.h"
#include "node/chain_args.h"
#include "node/chainstate_args.h"
#include "node/context.h"
#include "node/indexes.h"
#include "node/mempool.h"
#include "node/mempool_args.h"
#include "node/net_args.h"
#include "options.h"
#include "rpc/auth.h"
#include "rpc/blockchain.h"
#include "rpc/blockstats.h"
#include "rpc/blockfilter.h"
#include "rpc/prune.h"
#include "rpc/snapshot.h"
#include "rpc/control.h"
#include "rpc/fees.h"
#include "rpc/jsonrpc.h"
#include "rpc/mempool.h"
#include "rpc/mining.h"
#include "rpc/net.h"
#include "rpc/net_hidden.h"
#include "rpc/rawtransaction.h"
#include "rpc/scan.h"
#include "util/lockedpool.h"
#include "rpc/txoutproof.h"
#include "rpc/descactivity.h"
#include "rpc/openrpc.h"
#include "rpc/server.h"
#include "rpc/util.h"
#include "kv/kv.h"
#include "util/args.h"
#include "util/buf.h"
#include "util/config.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/scheduler.h"
#include "util/shutdown.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/import.h"
#include "validation/validator.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

struct node {
    struct args *args;
    char *datadir; /* base datadir */
    char *conf_path; /* the config file read; else the one looked for (NULL: -noconf) */
    int conf_found;  /* conf_path was read */
    char *net_dir; /* datadir + chain subfolder */
    char *blocks_dir; /* the block files: -blocksdir/<chain>/blocks, else net_dir/blocks */
    int blocks_lock_fd;
    int lock_fd;
    char *pid_path;    /* set once the pid file exists */
    char *cookie_path; /* set once the cookie exists */
    struct rpc_auth *auth;
    struct rpc_server *rpc;
    struct rpc_context *rpc_ctx;  /* the RPC methods' state; outlives the server */
    int ready_fd;                 /* -daemon: the pipe to the waiting parent, else -1 */
    struct node_context ctx;      /* the running parts: chainstate, validator, net, mempool */
    struct node_chain chain;      /* the network's parameters */
    struct chainstate_options co; /* checked at step 6, used at step 14 */
    int64_t maxmempool;           /* -maxmempool, MB */
    int reindexing;               /* -reindex, or one that was interrupted */
    struct scheduler *scheduler;  /* periodic jobs (Core's scheduler thread) */
    pthread_t import_thread;      /* -loadblock / -reindex files */
    int import_started;
    atomic_int failed; /* a system error stopped validation: the node exits with 1 */
    atomic_int fatal_reported; /* report_fatal printed it */
    int step;          /* how far start-up got, for the shutdown in reverse */
};

/* Core's AbortNode: a fatal error on the console too, once, with what failed and how to
 * repair it: a stored block that does not read back names its file and position and
 * -reindex (chainstate_fatal_message); a store's error is the backend's own message, which
 * names the store (kv_last_error, kept per thread: this runs on the thread that met it);
 * else the failing part's own message (own, "" none): e.g. the import's reading of a block
 * file that shrank. */
static void report_fatal_why(struct node *n, int rc, const char *own)
{
    if (atomic_exchange(&n->fatal_reported, 1)) {
        return;
    }
    const char *why = n->ctx.cs ? chainstate_fatal_message(n->ctx.cs) : "";
    if (!*why) {
        why = own;
    }
    char msg[1024];
    if (*why) {
        snprintf(msg, sizeof(msg), "%s", why);
    } else if (rc == RC_BACKEND && strstr(kv_last_error(NULL), strerror(ENOSPC))) {
        /* A store's write that found the disk full: not damage, no repair but room (Core's
         * words for a store's failure while flushing). */
        snprintf(msg, sizeof(msg), "System error while flushing: %s", kv_last_error(NULL));
    } else if (rc == RC_BACKEND && kv_last_error(NULL)[0]) {
        snprintf(msg, sizeof(msg), "%s. Please restart with -reindex or -reindex-chainstate "
                 "to recover", kv_last_error(NULL));
    } else {
        snprintf(msg, sizeof(msg), "%s", rc_str(rc));
    }
    /* Core's FATAL_INTERNAL_ERROR warning: getblockchaininfo and the others list it while
     * the node shuts down. */
    node_warnings_set(&n->ctx.warnings, NODE_WARNING_FATAL, msg);
    fprintf(stderr, "Error: A fatal internal error occurred, see debug.log for details: %s\n",
            msg);
    fflush(stderr);
    LOG_ERROR("A fatal internal error occurred: %s", msg);
}

static void report_fatal(struct node *n, int rc)
{
    report_fatal_why(n, rc, "");
}

/* The validation thread stopped connecting for good: -stopatheight was reached (wherever the
 * chain was connected: start-up, import, submitblock), or a storage failure (a full disk):
 * Core's AbortNode, a clean stop; what was written stays consistent, and a restart with
 * space goes on from there. Runs on the validation thread. */
static void init_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void on_validation_halt(void *ctx, int rc)
{
    struct node *n = ctx;
    if (rc) {
        /* Core's AbortNode: the failure on stderr too, in its words when it has some. */
        LOG_ERROR("validation failed: %s; shutting down", rc_str(rc));
        report_fatal(n, rc);
        atomic_store(&n->failed, 1);
    } else {
        LOG_INFO("-stopatheight reached: shutting down");
    }
    shutdown_request();
}

/* A store failed for good on a thread of its own (an optional index's: Core's
 * BaseIndex::FatalErrorf), or validation halted (its own callback has said it already):
 * Core's AbortNode, once. Runs on the failing thread. */
static void on_store_fatal(void *ctx, int rc)
{
    struct node *n = ctx;
    report_fatal(n, rc);
    atomic_store(&n->failed, 1);
    shutdown_request();
}

static int import_interrupted(void)
{
    return shutdown_requested();
}

/* The reindex is done once the block index it built is on disk: flushed first, so that a
 * kill after the flag is cleared cannot leave block files the index does not know. */
static int clear_reindexing(struct chainstate *cs, void *ctx)
{
    (void)ctx;
    int rc = chainstate_flush(cs, FLUSH_ALWAYS);
    return rc == RC_OK ? chainstate_set_reindexing(cs, 0) : rc;
}

/* The blocks connected at start-up are on disk before the log says so (a kill after
 * "stored blocks connected" redoes none of them). */
static int flush_connected(struct chainstate *cs, void *ctx)
{
    (void)ctx;
    return chainstate_flush(cs, FLUSH_ALWAYS);
}

/* The import thread (Core's initload): waits for the blocks stored past the tip to be
 * connected, then reads our own blk files for a reindex, then every -loadblock file, then
 * the saved mempool (node_mempool_load), handing their blocks to the
 * validation thread. Stops between blocks when shutdown is requested. */
static void *import_main(void *arg)
{
    struct node *n = arg;
    log_thread_start("initload");
    struct import_stats st;
    const char **files = NULL;
    size_t nload = args_get_list(n->args, "loadblock", &files);
    int rc = RC_OK;
    char why[512] = ""; /* the import's own reading failure */
    if (!n->reindexing) {
        /* Blocks stored past the chainstate's tip (-reindex-chainstate rebuilds from all of
         * them; after a crash, the ones not yet connected) are connected by the validation
         * thread as soon as it starts, with RPC up, as Core's import thread does:
         * getblockcount shows the progress. */
        chainstate_read_lock(n->ctx.cs);
        struct block_index *before = chainstate_tip(n->ctx.cs);
        chainstate_read_unlock(n->ctx.cs);
        struct validator_job j = {.work = VALIDATOR_ACTIVATE};
        rc = validator_run(n->ctx.val, &j);
        chainstate_read_lock(n->ctx.cs);
        struct block_index *tip = chainstate_tip(n->ctx.cs);
        int height = tip ? tip->height : -1;
        chainstate_read_unlock(n->ctx.cs);
        /* Finished work is written (-reindex-chainstate, blocks stored before a crash): as
         * at the end of an import. */
        if (rc == RC_OK && tip != before && !shutdown_requested()) {
            struct validator_job f = {.work = VALIDATOR_CALL, .fn = flush_connected};
            rc = validator_run(n->ctx.val, &f);
        }
        LOG_INFO("stored blocks connected: tip height %d", height);
    }
    if (n->reindexing && rc == RC_OK) {
        struct importer *im = importer_new(n->ctx.val, 1);
        importer_set_interrupt(im, import_interrupted);
        for (int f = 0; rc == RC_OK && !shutdown_requested(); f++) {
            char path[4300];
            snprintf(path, sizeof(path), "%s/blk%05d.dat", chainstate_blocks_dir(n->ctx.cs), f);
            if (access(path, R_OK) != 0) {
                break;
            }
            LOG_INFO("Reindexing block file blk%05d.dat...", f);
            rc = importer_add_file(im, path, f);
        }
        /* The summary is logged also when stopped early (as Core's "Loaded N blocks"). */
        int frc = importer_finish(im, &st);
        rc = rc ? rc : frc;
        snprintf(why, sizeof(why), "%s", importer_error(im));
        if (rc == RC_OK && !shutdown_requested()) {
            struct validator_job j = {.work = VALIDATOR_CALL, .fn = clear_reindexing};
            rc = validator_run(n->ctx.val, &j);
            LOG_INFO("Reindexing finished");
        }
        importer_free(im);
    }
    if (nload && rc == RC_OK && !shutdown_requested()) {
        struct importer *im = importer_new(n->ctx.val, 0);
        importer_set_interrupt(im, import_interrupted);
        for (size_t i = 0; i < nload && rc == RC_OK && !shutdown_requested(); i++) {
            LOG_INFO("Importing blocks file %s...", files[i]);
            rc = importer_add_file(im, files[i], 0);
            if (rc == RC_NOT_FOUND) {
                rc = RC_OK; /* an unreadable file is logged and skipped, as in Core */
            }
        }
        int frc = importer_finish(im, &st); /* logs its summary also when stopped early */
        rc = rc ? rc : frc;
        snprintf(why, sizeof(why), "%s", importer_error(im));
        importer_free(im);
    }
    free(files);
    /* Then the mempool saved at the last shutdown, as Core's initload thread: getmempoolinfo's
     * "loaded" (what clients wait for at start-up) turns true once the chain is imported. */
    if (rc == RC_OK && !shutdown_requested()) {
        node_mempool_load(n->ctx.mempool, n->ctx.val, n->net_dir);
        atomic_store(&n->ctx.mempool_loaded, true);
    }
    if (rc && rc != RC_STOPPED) {
        /* The validation thread has logged it and asked for the shutdown already when the
         * error was its own; an error of the import thread itself is the same failure. */
        LOG_ERROR("import failed: %s; shutting down", rc_str(rc));
        report_fatal_why(n, rc, why);
        atomic_store(&n->failed, 1);
        shutdown_request();
    }
    return NULL;
}

static void init_error(const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "Error: %s\n", msg);
    LOG_ERROR("%s", msg);
}

/* Core's answer to a chainstate that fails to load (ChainstateLoadStatus::FAILURE, without
 * -reindex): the message, then what to do, on stderr without the "Error: " caption (its
 * noui question), and in the log. */
static void load_failure(const char *msg)
{
    fprintf(stderr, "%s.\nPlease restart with -reindex or -reindex-chainstate to recover.\n", msg);
    LOG_ERROR("%s. Please restart with -reindex or -reindex-chainstate to recover.", msg);
}

/* Core's InitMessage: the stage in the log ("init message: ...") and as RPC's warm-up
 * status. */
static void init_message(struct node *n, const char *text)
{
    LOG_INFO("init message: %s", text);
    if (n->rpc_ctx) {
        rpc_warmup_set(n->rpc_ctx, text);
    }
}

static void on_terminate(int sig)
{
    shutdown_request();
}

static void on_hangup(int sig)
{
    log_reopen_request();
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_terminate;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hangup;
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

/* Resolves path against dir unless it is absolute. Caller frees. */
static char *abs_path(const char *dir, const char *path)
{
    return fs_path_join(dir, path);
}

/* -includeconf on the command line: only its negation, as Core (whose message shows the
 * value as JSON: true for a double negative, else the quoted string). */
static int cmdline_includeconf(const struct args *a, char *err, size_t err_len)
{
    const char **v;
    size_t count = args_get_list(a, "includeconf", &v);
    if (count > 0 && !args_is_negated(a, "includeconf")) {
        if (strcmp(v[0], "1") == 0) {
            snprintf(err, err_len, "-includeconf cannot be used from commandline; -includeconf=true");
        } else {
            snprintf(err, err_len,
                     "-includeconf cannot be used from commandline; -includeconf=\"%s\"", v[0]);
        }
        free(v);
        return RC_INVALID;
    }
    free(v);
    return RC_OK;
}

/* -loglevel (Core's SetLoggingLevel): a global level (no ':' from the fourth character on)
 * or <category>:<level>. bitnode logs at one level, so a valid value changes nothing, but a
 * wrong one stops start-up with Core's words. */
static int check_loglevels(const struct args *a)
{
    static const char *const levels[] = {"info", "debug", "trace"};
    const char **v;
    size_t count = args_get_list(a, "loglevel", &v);
    int rc = RC_OK;
    for (size_t i = 0; i < count && rc == RC_OK; i++) {
        const char *val = v[i], *colon = strlen(val) > 3 ? strchr(val + 3, ':') : NULL;
        const char *level = colon ? colon + 1 : val;
        int ok = 0;
        for (size_t k = 0; k < 3; k++) {
            ok |= strcmp(level, levels[k]) == 0;
        }
        if (!colon && !ok) {
            init_error("Unsupported global logging level -loglevel=%s. Valid values: info, "
                       "debug, trace.",
                       val);
            rc = RC_INVALID;
            continue;
        }
        char cat[64];
        uint32_t mask;
        size_t cl = colon ? (size_t)(colon - val) : 0;
        if (colon && (!ok || cl >= sizeof(cat) || strchr(level, ':') ||
                      (memcpy(cat, val, cl), cat[cl] = 0, log_category_parse(cat, &mask)) ||
                      !mask || mask == LOG_CAT_ALL)) {
            char list[1024] = "";
            for (size_t k = 0; k < log_category_count(); k++) {
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                         k ? ", " : "", log_category_name(k));
            }
            init_error("Unsupported category-specific logging level -loglevel=%s. Expected "
                       "-loglevel=<category>:<loglevel>. Valid categories: %s. Valid loglevels: "
                       "info, debug, trace.",
                       val, list);
            rc = RC_INVALID;
        }
    }
    free(v);
    return rc;
}

/* -debug and -debugexclude (Core's SetLoggingCategories): -debug's values after its last
 * "0" or "none" are enabled (the ones before it are dropped unchecked), then the excluded
 * ones disabled. */
static int setup_debug_categories(struct node *n)
{
    const char **v;
    size_t count = args_get_list(n->args, "debug", &v);
    int rc = check_loglevels(n->args);
    log_set_ips(args_get_bool(n->args, "logips", false));
    size_t from = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(v[i], "0") == 0 || strcmp(v[i], "none") == 0) {
            from = i + 1;
        }
    }
    for (size_t i = from; i < count && rc == RC_OK; i++) {
        uint32_t mask;
        if (log_category_parse(v[i], &mask) != RC_OK) {
            init_error("Unsupported logging category -debug=%s.", v[i]);
            rc = RC_INVALID;
        }
        log_categories_enable(mask);
    }
    free(v);
    count = args_get_list(n->args, "debugexclude", &v);
    for (size_t i = 0; i < count && rc == RC_OK; i++) {
        uint32_t mask;
        if (log_category_parse(v[i], &mask) != RC_OK) {
            init_error("Unsupported logging category -debugexclude=%s.", v[i]);
            rc = RC_INVALID;
        }
        log_categories_disable(mask);
    }
    free(v);
    return rc;
}

static int open_log(struct node *n)
{
    char err[512];
    char *path = NULL;
    if (!args_is_negated(n->args, "debuglogfile")) {
        path = abs_path(n->net_dir, args_get(n->args, "debuglogfile", "debug.log"));
    }
    bool daemon_mode =
        args_get_bool(n->args, "daemon", false) || args_get_bool(n->args, "daemonwait", false);
    struct log_options lo = {
        .file_path = path,
        .print_to_console = args_get_bool(n->args, "printtoconsole", !daemon_mode),
        .no_timestamps = !args_get_bool(n->args, "logtimestamps", true),
        .time_micros = args_get_bool(n->args, "logtimemicros", false),
        .thread_names = args_get_bool(n->args, "logthreadnames", false),
    };
    int rc = log_open(&lo, err, sizeof(err));
    if (rc != RC_OK) {
        init_error("%s", err);
    }
    free(path);
    return rc;
}

static int check_port(const struct args *a, const char *name, int64_t def, uint16_t *out)
{
    int64_t v = args_get_int(a, name, def);
    if (v < 1 || v > 65535) {
        init_error("Invalid port specified in -%s: '%s'", name, args_get(a, name, ""));
        return RC_INVALID;
    }
    *out = (uint16_t)v;
    return RC_OK;
}

static int setup_rpc_auth(struct node *n)
{
    char err[512];
    n->ctx.locked = locked_pool_new();
    n->auth = rpc_auth_new(n->ctx.locked);
    const char *password = args_get(n->args, "rpcpassword", "");
    if (password[0] == 0) {
        /* -rpccookieperms: who may read the cookie (Core's InterpretPermString). */
        const char *perms = args_get(n->args, "rpccookieperms", NULL);
        mode_t mode = 0600;
        if (perms && strcmp(perms, "owner") != 0) {
            if (strcmp(perms, "group") != 0 && strcmp(perms, "all") != 0) {
                LOG_ERROR("Invalid -rpccookieperms=%s; must be one of 'owner', 'group', or "
                          "'all'.",
                          perms);
                init_error("Unable to start HTTP server. See debug log for details.");
                return RC_INVALID;
            }
            mode = strcmp(perms, "group") == 0 ? 0640 : 0644;
        }
        char *secret;
        n->cookie_path = abs_path(n->net_dir, args_get(n->args, "rpccookiefile", ".cookie"));
        if (rpc_cookie_generate(n->cookie_path, &secret, err, sizeof(err)) != RC_OK) {
            LOG_ERROR("Unable to open cookie authentication file: %s", err);
            init_error("Unable to start HTTP server. See debug log for details.");
            free(n->cookie_path);
            n->cookie_path = NULL;
            return RC_IO;
        }
        if (mode != 0600 && chmod(n->cookie_path, mode) != 0) {
            LOG_WARN("Unable to set permissions on cookie authentication file %s",
                     n->cookie_path);
        }
        rpc_auth_add_plain(n->auth, RPC_COOKIE_USER, secret);
        free(secret);
        LOG_INFO("Generated RPC authentication cookie %s", n->cookie_path);
    } else {
        rpc_auth_add_plain(n->auth, args_get(n->args, "rpcuser", ""), password);
    }
    const char **lines;
    size_t count = args_get_list(n->args, "rpcauth", &lines);
    int rc = RC_OK;
    for (size_t i = 0; i < count; i++) {
        if (rpc_auth_add_rpcauth(n->auth, lines[i]) != RC_OK) {
            LOG_WARN("Invalid -rpcauth argument.");
            init_error("Unable to start HTTP server. See debug log for details.");
            rc = RC_INVALID;
            break;
        }
    }
    free(lines);
    count = args_get_list(n->args, "rpcwhitelist", &lines);
    for (size_t i = 0; i < count; i++) {
        rpc_auth_add_whitelist(n->auth, lines[i]);
    }
    free(lines);
    rpc_auth_set_whitelist_default(n->auth, args_get_bool(n->args, "rpcwhitelistdefault",
                                                          count > 0));
    return rc;
}

static int bind_rpc(struct node *n)
{
    char err[512];
    uint16_t port;
    const struct fs_chain_info *chain = fs_chain_info(args_chain(n->args));
    if (check_port(n->args, "rpcport", chain->rpc_port, &port) != RC_OK) {
        return RC_INVALID;
    }
    /* Core's DEFAULT_HTTP_THREADS and DEFAULT_HTTP_WORKQUEUE: 32 keep-alive clients at once
     * (contrib/bench/rpc-load.sh) fit without a 503 (they got 98% 503s at 4 and 16). */
    int64_t threads = args_get_int(n->args, "rpcthreads", RPC_DEFAULT_THREADS);
    int64_t depth = args_get_int(n->args, "rpcworkqueue", RPC_DEFAULT_WORK_QUEUE);
    int64_t timeout = args_get_int(n->args, "rpcservertimeout", 30);
    const char **binds, **allow;
    size_t n_bind = args_get_list(n->args, "rpcbind", &binds);
    size_t n_allow = args_get_list(n->args, "rpcallowip", &allow);
    n->rpc_ctx = rpc_context_new(&n->ctx);
    rpc_set_doccheck(n->rpc_ctx, args_get_bool(n->args, "rpcdoccheck", false));
    struct rpc_server_options opt = {
        .bind = binds,
        .n_bind = n_bind,
        .allow_ip = allow,
        .n_allow_ip = n_allow,
        .port = port,
        .threads = threads < 1    ? 1
                   : threads > 64 ? 64
                                  : (int)threads,
        .work_queue = depth < 1       ? 1
                      : depth > 65536 ? 65536
                                      : (int)depth,
        .timeout_s = timeout < 1      ? 1
                     : timeout > 3600 ? 3600
                                      : (int)timeout,
        .auth = n->auth,
        .ctx = n->rpc_ctx,
        .rest = args_get_bool(n->args, "rest", false),
        .cjdns_reachable = args_get_bool(n->args, "cjdnsreachable", false),
    };
    int rc = rpc_server_bind(&opt, &n->rpc, err, sizeof(err));
    if (rc != RC_OK) {
        init_error("%s", err);
        if (rc == RC_IO) {
            fprintf(stderr,
                    "Unable to start HTTP server. Is bitnoded already running on port "
                    "%u?\n",
                    port);
        }
    }
    free(binds);
    free(allow);
    return rc;
}

/* -daemon: forks; the parent waits until the child says it is ready (exit 0) or dies
 * (exit 1). Returns in the child only. */
static int daemonize(struct node *n)
{
    int p[2];
    if (pipe(p) != 0) {
        init_error("pipe: %s", strerror(errno));
        return RC_IO;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        init_error("fork: %s", strerror(errno));
        return RC_IO;
    }
    if (pid > 0) {
        close(p[1]);
        char c = 1;
        ssize_t r;
        do {
            r = read(p[0], &c, 1);
        } while (r < 0 && errno == EINTR);
        if (r == 1 && c == 0) {
            _exit(0);
        }
        fprintf(stderr, "Error during initialization - check debug.log for details\n");
        _exit(1);
    }
    close(p[0]);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    setsid();
    n->ready_fd = p[1];
    return RC_OK;
}

static void signal_ready(struct node *n)
{
    if (n->ready_fd < 0) {
        return;
    }
    char c = 0;
    ssize_t w = write(n->ready_fd, &c, 1);
    (void)w;
    close(n->ready_fd);
    n->ready_fd = -1;
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        if (devnull > STDERR_FILENO) {
            close(devnull);
        }
    }
}

/* -bind / -whitebind / -whitelist / -connect / -addnode and the rest: the P2P service,
 * started. 0, or RC_INVALID / RC_IO after init_error. */
/* Step 17: the P2P service from its options (node/net_args.c), started. */
static int start_net(struct node *n)
{
    char err[1024];
    init_message(n, "Starting network threads\u2026");
    struct node_net_args na;
    int rc = node_net_options(&na, n->args, n->ctx.params, node_chain_is_custom_signet(&n->chain),
                              err, sizeof(err));
    if (rc) {
        init_error("%s", err);
    } else {
        na.o.val = n->ctx.val;
        na.o.net_dir = n->net_dir;
        na.o.mempool = n->ctx.mempool;
        if (args_get_bool(n->args, "peerblockfilters", false)) {
            na.o.block_filters = n->ctx.blockfilters;
        }
        /* A UTXO snapshot not validated yet: the blocks below it may be missing, so the node
         * serves as a limited one (Core). */
        int validated;
        chainstate_read_lock(n->ctx.cs);
        int snapshot = chainstate_snapshot_base(n->ctx.cs, &validated) && !validated;
        chainstate_read_unlock(n->ctx.cs);
        na.o.pruned = n->co.prune_target != 0;
        na.o.clock_warning = node_warnings_clock;
        na.o.clock_warning_ctx = &n->ctx.warnings;
        if (net_new(&n->ctx.net, &na.o, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            rc = RC_IO;
        } else if (snapshot ? net_remove_local_services(n->ctx.net, NODE_NETWORK) : (void)0,
                   net_set_mocktime(n->ctx.net, args_get_int(n->args, "mocktime", 0)),
                   net_start(n->ctx.net) != RC_OK) {
            init_error("cannot start the net thread");
            rc = RC_IO;
        }
    }
    node_net_args_clear(&na); /* net_new copied what it keeps */
    return rc;
}

static void print_usage(const struct args *a)
{
    printf("bitnode daemon version v%s\n\n"
           "The bitnode daemon (bitnoded) is a headless program that connects to the Bitcoin\n"
           "network to validate and relay transactions and blocks.\n\n"
           "Usage:  bitnoded [options]                     Start bitnoded\n\n",
           PACKAGE_VERSION);
    args_print_help(a, stdout);
}

/* The default datadir was ~/.bitnode before it became Core's ~/.bitcoin: a node that used it
 * would otherwise start over elsewhere without a word. */
static void warn_old_default_datadir(const char *default_datadir)
{
    const char *home = getenv("HOME");
    char *old = fs_path_join(home && *home ? home : "/", ".bitnode");
    if (fs_is_dir(old)) {
        char msg[8400];
        snprintf(msg, sizeof(msg),
                 "%s, bitnode's old default data directory, exists, but the default is now %s "
                 "(Bitcoin Core's): start with -datadir=%s to use it.",
                 old, default_datadir, old);
        LOG_WARN("%s", msg);
        fprintf(stderr, "Warning: %s\n", msg);
    }
    free(old);
}

/* Steps 3 and 4 (Core's InitConfig up to SelectParams): -datadir must exist; the config
 * file, looked for in it (or in the default datadir, which is not created for that), may
 * move the datadir (datadir=; the new one's file is not read). */
static int setup_datadir(struct node *n, char **orig_datadir)
{
    char err[1024];
    const char *given = args_get(n->args, "datadir", "");
    if (given[0] && !fs_is_dir(given)) {
        init_error("Specified data directory \"%s\" does not exist.", given);
        return RC_INVALID;
    }
    *orig_datadir = given[0] ? xstrdup(given) : fs_default_datadir();
    if (!given[0]) {
        warn_old_default_datadir(*orig_datadir);
    }
    char *read_path;
    if (config_read_files(n->args, *orig_datadir, true, &read_path, err, sizeof(err)) != RC_OK) {
        init_error("Error reading configuration file: %s", err);
        return RC_INVALID;
    }
    n->conf_found = read_path != NULL;
    n->conf_path = read_path ? read_path : config_file_path(n->args, *orig_datadir);
    given = args_get(n->args, "datadir", "");
    n->datadir = given[0] ? xstrdup(given) : fs_default_datadir();
    return RC_OK;
}

/* Step 5: the chain; the datadir (created if new, with the empty wallets/ a bitcoind datadir
 * has: Core makes it even with -disablewallet, its test framework's cached chain expects it;
 * bitnode has no wallet), a bitcoin.conf in it that is not the file read (Core's error), the
 * chain's subfolder and settings.json. */
static int setup_chain_dir(struct node *n, const char *orig_datadir)
{
    char err[4096];
    if (args_select_chain(n->args, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        return RC_INVALID;
    }
    n->net_dir = fs_path_join(n->datadir, fs_chain_info(args_chain(n->args))->subdir);
    snprintf(n->ctx.net_dir, sizeof(n->ctx.net_dir), "%s", n->net_dir);
    char *base_wallets = fs_path_join(n->datadir, "wallets");
    char *wallets = fs_path_join(n->net_dir, "wallets");
    int rc = RC_OK;
    if (!fs_is_dir(n->datadir)) {
        rc = fs_mkdir_p(base_wallets, err, sizeof(err));
    }
    if (rc == RC_OK) {
        rc = config_check_ignored(n->args, n->datadir, orig_datadir,
                                  n->conf_found ? n->conf_path : NULL, err, sizeof(err));
    }
    if (rc == RC_OK) {
        rc = fs_mkdir_p(wallets, err, sizeof(err));
    }
    free(wallets);
    free(base_wallets);
    if (rc == RC_OK) {
        rc = node_settings_init(n->args, n->net_dir, err, sizeof(err));
    }
    if (rc != RC_OK) {
        init_error("%s", err);
    }
    return rc;
}

/* Step 8: the blocks directory (Core's GetBlocksDirPath): -blocksdir/<chain>/blocks (the
 * directory given must exist; checked in step 6), else net_dir/blocks; created. */
static int setup_blocks_dir(struct node *n, char *err, size_t err_len)
{
    const char *given = args_get(n->args, "blocksdir", NULL);
    if (given && *given) {
        char cwd[4096];
        char *base = given[0] == '/' || !getcwd(cwd, sizeof(cwd)) ? xstrdup(given)
                                                                  : fs_path_join(cwd, given);
        char *chain = fs_path_join(base, fs_chain_info(args_chain(n->args))->subdir);
        n->blocks_dir = fs_path_join(chain, "blocks");
        free(chain);
        free(base);
    } else {
        n->blocks_dir = fs_path_join(n->net_dir, "blocks");
    }
    n->co.blocks_dir = given && *given ? n->blocks_dir : NULL;
    return fs_mkdir_p(n->blocks_dir, err, err_len);
}

/* Step 6: every option's value checked (what bitnode does not do refused), the debug
 * categories, the network's parameters and the chainstate's options. */
static int check_options(struct node *n)
{
    char err[1024];
    uint16_t port;
    if (args_validate(n->args, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        return RC_INVALID;
    }
    const char *blocksdir = args_get(n->args, "blocksdir", NULL);
    if (blocksdir && *blocksdir && !fs_is_dir(blocksdir)) {
        init_error("Specified blocks directory \"%s\" does not exist.", blocksdir);
        return RC_INVALID;
    }
    if (setup_debug_categories(n) != RC_OK) {
        return RC_INVALID;
    }
    if (node_chain_params(&n->chain, n->args, err, sizeof(err)) != RC_OK ||
        node_chainstate_options(&n->co, n->args, n->chain.params, n->net_dir, err, sizeof(err)) !=
            RC_OK ||
        node_maxmempool(n->args, &n->maxmempool, err, sizeof(err)) != RC_OK ||
        node_check_index_options(n->args, err, sizeof(err)) != RC_OK ||
        node_zmq_check(n->args, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        return RC_INVALID;
    }
    n->ctx.params = n->chain.params;
    n->ctx.args = n->args;
    if (n->chain.params->signet_blocks) {
        char hx[9];
        hex_encode(hx, n->chain.params->magic, 4);
        LOG_INFO("Signet derived magic (message start): %s", hx);
    }
    /* -port: the P2P port; checked now, used once the node has peers. */
    if (args_is_set(n->args, "port") && check_port(n->args, "port", 0, &port) != RC_OK) {
        return RC_INVALID;
    }
    return RC_OK;
}

/* The options' warnings, as Core reports each kind: an InitWarning is printed ("Warning: ")
 * and logged, a LogWarning only logged; the unrecognized sections are one InitWarning, a
 * line each. */
static void log_args_warnings(const struct args *a)
{
    char sections[4096] = "";
    size_t len = 0;
    for (size_t i = 0; i < args_warning_count(a); i++) {
        const char *w = args_warning(a, i);
        enum args_warning_kind kind = args_warning_kind(a, i);
        if (kind == ARGS_WARNING_SECTION) {
            int k = snprintf(sections + len, sizeof(sections) - len, "%s%s", len ? "\n" : "", w);
            len = k < 0 || (size_t)k >= sizeof(sections) - len ? len : len + (size_t)k;
            continue;
        }
        LOG_WARN("%s", w);
        if (kind == ARGS_WARNING_INIT) {
            fprintf(stderr, "Warning: %s\n", w);
        }
    }
    if (len) {
        LOG_WARN("%s", sections);
        fprintf(stderr, "Warning: %s\n", sections);
    }
}

/* Step 9's rest: what the log says first (version, datadir, chain, warnings, the options
 * accepted and ignored). */
static void log_start(struct node *n)
{
    LOG_INFO("bitnode version v%s", PACKAGE_VERSION);
    char *default_datadir = fs_default_datadir();
    LOG_INFO("Default data directory %s", default_datadir);
    free(default_datadir);
    LOG_INFO("Using data directory %s", n->net_dir);
    if (!n->conf_path) {
        LOG_INFO("Config file: <disabled>");
    } else if (n->conf_found) {
        LOG_INFO("Config file: %s", n->conf_path);
    } else {
        LOG_INFO("Config file: %s (not found, skipping)", n->conf_path);
    }
    LOG_INFO("Using chain %s", args_chain(n->args));
    if (strcmp(args_chain(n->args), "test") == 0) {
        LOG_INFO("Warning: Support for testnet3 is deprecated and will be removed in an upcoming "
                 "release. Consider switching to testnet4.");
    }
    log_args_warnings(n->args);
    args_log(n->args);
    /* Core's options bitnode accepts and does not do: one line each, with the reason. */
    struct arg_ignored *ign;
    size_t n_ign = args_ignored(n->args, &ign);
    for (size_t i = 0; i < n_ign; i++) {
        LOG_INFO("Ignoring -%s: %s", ign[i].name, ign[i].reason);
    }
    free(ign);
}

/* Step 12: the pid file. */
static int write_pid(struct node *n)
{
    char err[1024];
    char *pid_path = abs_path(n->net_dir, args_get(n->args, "pid", "bitcoind.pid"));
    if (fs_pidfile_write(pid_path, getpid(), err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        free(pid_path);
        return RC_IO;
    }
    n->pid_path = pid_path;
    return RC_OK;
}

/* Step 13: the RPC server's methods, event loop and workers; in warm-up until start-up is
 * done. */
static int start_rpc(struct node *n)
{
    char err[1024];
    rpc_warmup_set(n->rpc_ctx, "Loading block index...");
    rpc_control_register(n->rpc_ctx);
    rpc_blockchain_register(n->rpc_ctx);
    rpc_blockstats_register(n->rpc_ctx);
    rpc_snapshot_register(n->rpc_ctx);
    rpc_blockfilter_register(n->rpc_ctx);
    rpc_prune_register(n->rpc_ctx);
    rpc_rawtransaction_register(n->rpc_ctx);
    rpc_mining_register(n->rpc_ctx);
    rpc_util_register(n->rpc_ctx);
    rpc_net_register(n->rpc_ctx);
    rpc_net_hidden_register(n->rpc_ctx);
    rpc_mempool_register(n->rpc_ctx);
    rpc_scan_register(n->rpc_ctx);
    rpc_txoutproof_register(n->rpc_ctx);
    rpc_descactivity_register(n->rpc_ctx);
    rpc_openrpc_register(n->rpc_ctx);
    rpc_fees_register(n->rpc_ctx);
    if (rpc_server_start(n->rpc, err, sizeof(err)) != RC_OK) {
        init_error("Unable to start HTTP server: %s", err);
        return RC_IO;
    }
    LOG_INFO("RPC server listening on port %u", rpc_server_port(n->rpc));
    return RC_OK;
}

/* Core's LoadChainTip line and VerifyLoadedChainstate: the last -checkblocks blocks (6; 0:
 * all) checked at -checklevel (3: read, checked, undo data read, disconnected on a copy of
 * the coins; 4: connected again). Not while a reindex rebuilds the chain. 0, or RC_INVALID
 * after load_failure ("Corrupted block database detected"). */
static int verify_loaded_chain(struct node *n)
{
    struct block_index *tip = chainstate_tip(n->ctx.cs);
    if (!tip) {
        return RC_OK;
    }
    char hx[65], date[TIME_ISO_LEN];
    hex_encode_rev(hx, tip->hash, 32);
    time_format_iso(date, tip->header.time);
    LOG_INFO("Loaded best chain: hashBestChain=%s height=%d date=%s progress=%f", hx, tip->height,
             date, chainstate_guess_progress(n->ctx.cs, tip));
    if (n->reindexing || n->co.reindex_chainstate) {
        return RC_OK;
    }
    if (!tip->prev) {
        return RC_OK; /* Core's VerifyDB: nothing to check on the genesis block */
    }
    init_message(n, "Verifying blocks\u2026");
    int64_t level = args_get_int(n->args, "checklevel", 3), blocks = args_get_int(n->args, "checkblocks", 6);
    level = level < 0 ? 0 : level > 4 ? 4 : level;
    long long shown = blocks <= 0 || blocks > tip->height ? tip->height : blocks; /* 0: all */
    LOG_INFO("Verifying last %lld blocks at level %lld", shown, (long long)level);
    int ok = 1;
    char why[1024] = "";
    uint64_t good_txs = 0;
    int rc = chainstate_verify(n->ctx.cs, (int)level, (int)blocks, &ok, why, sizeof(why),
                               &good_txs);
    if (rc == RC_OK && ok != 0) { /* -1: stopped at pruned blocks, as Core's start-up */
        LOG_INFO("Verification: checked last %lld blocks at level %lld", shown, (long long)level);
        if (level >= 3) {
            LOG_INFO("Verification: no coin database inconsistencies (%llu transactions)",
                     (unsigned long long)good_txs);
        }
        return RC_OK;
    }
    if (rc == RC_BACKEND || rc == RC_IO) {
        /* A store that fails while read (Core's dbwrapper_error in VerifyDB): its message,
         * which names the damaged file, with Core's words for it. */
        char msg[1200];
        snprintf(msg, sizeof(msg), "Error loading databases (%s)", kv_last_error(NULL));
        load_failure(msg);
        return RC_INVALID;
    }
    /* Core's "Verification error: ..." log line; on the console too, before Core's message,
     * so that the damaged file and position are named where the operator looks. */
    const char *what = rc ? chainstate_fatal_message(n->ctx.cs) : why;
    LOG_ERROR("Verification error: %s", what[0] ? what : rc_str(rc));
    fprintf(stderr, "Verification error: %s\n", what[0] ? what : rc_str(rc));
    load_failure("Corrupted block database detected");
    return RC_INVALID;
}

/* Core's check where it makes the fee estimator (none with -blocksonly), once the log is
 * open and before the chainstate loads: Core's tests look for the error in the chain's
 * debug.log. */
static int check_fee_estimator_args(const struct node *n)
{
    if (!args_get_bool(n->args, "blocksonly", false) &&
        args_get_bool(n->args, "acceptstalefeeestimates", false) &&
        strcmp(args_chain(n->args), "regtest") != 0) {
        init_error("acceptstalefeeestimates is not supported on %s chain.", args_chain(n->args));
        return RC_INVALID;
    }
    return RC_OK;
}

/* Step 14a: the chainstate (block index, coins, the blocks stored past its tip), its tip
 * listener for the waits, and a reindex's flag. */
/* 1 if -test=<name> was given (regtest only: checked with the options). */
static int has_test_option(const struct args *a, const char *name)
{
    const char **tv = NULL;
    size_t nt = args_get_list(a, "test", &tv);
    int found = 0;
    for (size_t i = 0; i < nt && !found; i++) {
        found = strcmp(tv[i], name) == 0;
    }
    free(tv);
    return found;
}

static int open_chainstate(struct node *n)
{
    char err[1024];
    if (n->co.reindex) {
        LOG_INFO("-reindex: wiping the block index and the chainstate");
    }
    if (n->co.prune_target == CHAINSTATE_PRUNE_MANUAL) {
        LOG_INFO("Block pruning enabled. Use RPC call pruneblockchain(height) to manually "
                 "prune block and undo files.");
    } else if (n->co.prune_target) {
        LOG_INFO("Prune configured to target %llu MiB on disk for block and undo files.",
                 (unsigned long long)(n->co.prune_target >> 20));
    }
    init_message(n, "Loading block index\u2026");
    int rc = chainstate_open(&n->ctx.cs, &n->co, err, sizeof(err));
    if ((rc == RC_INVALID || rc == RC_CORRUPT) && !n->co.reindex && !shutdown_requested() &&
        has_test_option(n->args, "reindex_after_failure_noninteractive_yes")) {
        /* Core's answer yes to its question "Do you want to rebuild the databases now?" */
        LOG_ERROR("%s; rebuilding the databases (-test=reindex_after_failure_noninteractive_yes)",
                  err);
        n->co.reindex = 1;
        rc = chainstate_open(&n->ctx.cs, &n->co, err, sizeof(err));
    }
    if (rc == RC_INVALID || rc == RC_CORRUPT) {
        load_failure(err);
        return RC_INVALID;
    }
    if (rc != RC_OK) {
        init_error("%s", err);
        return RC_IO;
    }
    chainstate_set_interrupt(n->ctx.cs, import_interrupted); /* stop connecting on shutdown */
    int64_t mock = args_get_int(n->args, "mocktime", 0);
    chainstate_set_mocktime(n->ctx.cs, mock); /* -mocktime */
    struct block_index *t = chainstate_tip(n->ctx.cs);
    if (t && (int64_t)t->header.time > (mock ? mock : (int64_t)time(NULL)) + 2 * 60 * 60) {
        /* Core's VerifyLoadedChainstate: a tip more than MAX_FUTURE_BLOCK_TIME ahead. */
        load_failure("The block database contains a block which appears to be from the future. "
                     "This may be due to your computer's date and time being set incorrectly. "
                     "Only rebuild the block database if you are sure that your computer's date "
                     "and time are correct");
        return RC_INVALID;
    }
    int was = 0;
    chainstate_is_reindexing(n->ctx.cs, &was);
    n->reindexing = n->co.reindex || was;
    if (was && !n->co.reindex) {
        LOG_INFO("resuming an interrupted reindex");
    }
    if (verify_loaded_chain(n) != RC_OK) {
        return RC_INVALID;
    }
    if (n->co.reindex && chainstate_set_reindexing(n->ctx.cs, 1) != RC_OK) {
        init_error("cannot write the block index in %s", n->net_dir);
        return RC_IO;
    }
    struct block_index *tip = chainstate_tip(n->ctx.cs);
    LOG_INFO("block index %zu entries, tip height %d", block_tree_size(chainstate_tree(n->ctx.cs)),
             tip ? tip->height : -1);
    n->ctx.blocknotify = args_get(n->args, "blocknotify", NULL);
    n->ctx.alertnotify = args_get(n->args, "alertnotify", NULL);
    struct chainstate_listener fatal = {.ctx = n, .fatal_error = on_store_fatal};
    if (node_notify_attach(&n->ctx) != RC_OK || chainstate_add_listener(n->ctx.cs, &fatal)) {
        init_error("no room for the chainstate's tip listener");
        return RC_USAGE;
    }
    return RC_OK;
}

/* Core's FEE_FLUSH_INTERVAL: the estimates are written every hour, not only at shutdown. */
#define FEE_FLUSH_INTERVAL_MS (60 * 60 * 1000)

static void flush_fees(void *ctx)
{
    struct node *n = ctx;
    node_fees_write(n->ctx.fees, n->net_dir);
}

/* Step 14b: the mempool and the fee estimator (none with -blocksonly, as Core), their
 * chainstate listener, the miner's options; then the validation thread: from here on only
 * it changes the chainstate. */
static int start_validation(struct node *n)
{
    char err[1024];
    struct mempool_options mo;
    if (node_mempool_options(&mo, n->args, n->ctx.params, n->maxmempool, err, sizeof(err)) ||
        node_miner_options(&n->ctx.miner, n->args, n->ctx.params, err, sizeof(err))) {
        init_error("%s", err);
        return RC_INVALID;
    }
    node_rpc_deprecated(&n->ctx, n->args);
    n->ctx.mempool = mempool_new(&mo);
    if (!args_get_bool(n->args, "blocksonly", false)) {
        n->ctx.fees = fee_estimator_new();
        node_fees_load(n->ctx.fees, n->net_dir,
                       args_get_bool(n->args, "acceptstalefeeestimates", false));
        scheduler_every(n->scheduler, FEE_FLUSH_INTERVAL_MS, flush_fees, n);
    }
    if (node_zmq_start(&n->ctx) != RC_OK) { /* before the mempool's: 'D' before 'A' */
        init_error("no room for the ZMQ listeners");
        return RC_USAGE;
    }
    if (node_mempool_hook(&n->ctx) != RC_OK) {
        init_error("no room for the mempool's chainstate listener");
        return RC_USAGE;
    }
    int irc = node_indexes_start(&n->ctx, n->co.reindex, err, sizeof(err));
    if (irc != RC_OK) {
        init_error("%s", err);
        if (irc == RC_INVALID) {
            /* An index that cannot catch up (pruned data): Core's StartIndexBackgroundSync
             * fails and its fatal error follows. */
            init_error("A fatal internal error occurred, see debug.log for details: Failed to "
                       "start indexes, shutting down\u2026");
        }
        return RC_INVALID;
    }
    if (validator_new(&n->ctx.val, n->ctx.cs, 0, on_validation_halt, n) != RC_OK) {
        init_error("cannot start the validation thread");
        return RC_IO;
    }
    return RC_OK;
}

/* Core's m_assumed_blockchain_size, in GB: what a full chain takes in the blocks directory
 * (a custom signet and regtest: 0). */
static uint64_t assumed_chain_gb(const struct node *n)
{
    switch (n->chain.params->id) {
    case CHAIN_MAIN:
        return 856;
    case CHAIN_TESTNET3:
        return 245;
    case CHAIN_TESTNET4:
        return 31;
    case CHAIN_SIGNET:
        return args_is_set(n->args, "signetchallenge") ? 0 : 24;
    default:
        return 0;
    }
}

/* Core's start-up checks before the import (its step 11): under its 50 MiB margin free in
 * the datadir or the blocks directory the node does not start ("Error: Disk space is low
 * for ..."); on a first start, a disk that cannot take the whole chain (or the prune
 * target) is warned about. Returns 0 or RC_IO. */
static int check_disk_space(struct node *n)
{
    const char *blocks = chainstate_blocks_dir(n->ctx.cs);
    const char *dirs[2] = {n->net_dir, blocks};
    for (int i = 0; i < 2; i++) {
        if (!fs_disk_space_ok(dirs[i], 0)) {
            init_error("Error: Disk space is low for \"%s\"", dirs[i]);
            return RC_IO;
        }
    }
    struct block_index *tip = chainstate_tip(n->ctx.cs); /* nothing else runs yet */
    if (n->reindexing || n->co.reindex_chainstate || (tip && tip->height > 1)) {
        return RC_OK;
    }
    uint64_t gb = assumed_chain_gb(n), need = gb << 30;
    if (n->co.prune_target && n->co.prune_target != CHAINSTATE_PRUNE_MANUAL &&
        n->co.prune_target < need) {
        need = n->co.prune_target;
    }
    if (!fs_disk_space_ok(blocks, need)) {
        char msg[4400];
        snprintf(msg, sizeof(msg), "Disk space for \"%s\" may not accommodate the block files. "
                 "Approximately %llu GB of data will be stored in this directory.",
                 blocks, (unsigned long long)gb);
        LOG_WARN("%s", msg);
        fprintf(stderr, "Warning: %s\n", msg);
    }
    return RC_OK;
}

/* Step 15: in the background, the stored blocks past the tip connected, then the block
 * files imported (-reindex, -loadblock). A chain with nothing connected (a fresh datadir,
 * -reindex-chainstate) has its genesis block connected first, in milliseconds: RPC answers
 * once it is, so that the first getblockcount says 0, not -1 (a fresh Core answers 0). Not
 * waited for with -reindex (the block files are read first), nor past shutdown or 10 s (the
 * validation thread halted: the log says why). */
static int start_import(struct node *n)
{
    int no_tip = chainstate_tip(n->ctx.cs) == NULL; /* nothing else runs yet */
    if (pthread_create(&n->import_thread, NULL, import_main, n) != 0) {
        init_error("cannot start the import thread");
        return RC_IO;
    }
    n->import_started = 1;
    for (int ms = 0; no_tip && !n->reindexing && ms < 10000; ms += 2) {
        chainstate_read_lock(n->ctx.cs);
        int have = chainstate_tip(n->ctx.cs) != NULL;
        chainstate_read_unlock(n->ctx.cs);
        if (have || shutdown_wait(2)) {
            break;
        }
    }
    return RC_OK;
}

/* Step 16: the mempool saved at the last shutdown. */
/* -shutdownnotify (Core's ShutdownNotify, in Interrupt): every command given, each on a
 * thread of its own, all waited for before the shutdown goes on. */
static void *shutdownnotify_main(void *arg)
{
    notify_command_run(arg);
    return NULL;
}

static void run_shutdownnotify(const struct args *a)
{
    const char **cmds;
    size_t n = args_get_list(a, "shutdownnotify", &cmds);
    pthread_t *t = xcalloc(n ? n : 1, sizeof(*t));
    int *started = xcalloc(n ? n : 1, sizeof(*started));
    for (size_t i = 0; i < n; i++) {
        started[i] = pthread_create(&t[i], NULL, shutdownnotify_main, (void *)cmds[i]) == 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (started[i]) {
            pthread_join(t[i], NULL);
        }
    }
    free(started);
    free(t);
    free(cmds);
}

/* The shutdown: the steps that succeeded, in reverse. Returns the exit code's correction:
 * 1 when the chainstate failed to close or validation failed, else exit_code. */
static int shutdown_node(struct node *n, int exit_code)
{
    run_shutdownnotify(n->args);
    LOG_INFO("Shutdown: In progress...");
    if (n->import_started) {
        shutdown_request(); /* the import stops between two blocks */
        pthread_join(n->import_thread, NULL);
    }
    if (n->step >= 13 && n->rpc) {
        rpc_server_stop(n->rpc);
    }
    net_free(n->ctx.net); /* before the validator: its jobs come back first */
    n->ctx.net = NULL;
    validator_free(n->ctx.val); /* the block open on the pool is finished first */
    n->ctx.val = NULL;
    node_indexes_stop(&n->ctx); /* nothing changes the chainstate any more */
    node_zmq_stop(&n->ctx); /* what is queued is sent, the sockets closed */
    if (atomic_load(&n->ctx.mempool_loaded)) {
        node_mempool_dump(n->ctx.mempool, n->net_dir, n->ctx.mempool_dat_version);
    }
    node_mempool_unhook(&n->ctx);
    mempool_free(n->ctx.mempool);
    n->ctx.mempool = NULL;
    n->ctx.scheduler = NULL;
    scheduler_free(n->scheduler); /* its jobs use the fee estimator */
    n->scheduler = NULL;
    node_fees_save(n->ctx.fees, n->net_dir);
    fee_estimator_free(n->ctx.fees);
    n->ctx.fees = NULL;
    node_notify_detach(&n->ctx);
    if (atomic_load(&n->failed)) {
        exit_code = 1;
    }
    if (n->ctx.cs && !atomic_load(&n->failed)) {
        /* Core's ForceFlushStateToDisk at shutdown: a failure (a full disk) is its
         * AbortNode, on the console too, and the exit status 1. */
        int frc = chainstate_flush(n->ctx.cs, FLUSH_ALWAYS);
        if (frc != RC_OK) {
            report_fatal(n, frc);
            atomic_store(&n->failed, 1);
            exit_code = 1;
        }
    }
    if (n->ctx.cs && chainstate_close(n->ctx.cs) != RC_OK) {
        LOG_ERROR("Shutdown: flushing the chainstate failed; it stays consistent on disk");
        exit_code = 1;
    }
    n->ctx.cs = NULL;
    if (n->step >= 10) {
        rpc_server_free(n->rpc);
        n->rpc = NULL;
    }
    rpc_context_free(n->rpc_ctx);
    n->rpc_ctx = NULL;
    if (n->cookie_path) {
        unlink(n->cookie_path);
    }
    rpc_auth_free(n->auth);
    n->auth = NULL;
    locked_pool_free(n->ctx.locked);
    n->ctx.locked = NULL;
    if (n->pid_path) {
        unlink(n->pid_path);
    }
    if (n->step >= 8) {
        fs_unlock_dir(n->lock_fd);
        if (n->blocks_lock_fd >= 0) {
            fs_unlock_dir(n->blocks_lock_fd);
        }
    }
    LOG_INFO("Shutdown: done");
    if (n->step >= 9) {
        log_close();
    }
    if (n->step >= 7) {
        shutdown_clear();
    }
    return exit_code;
}

int main(int argc, char **argv)
{
    struct node n = {.lock_fd = -1, .blocks_lock_fd = -1, .ready_fd = -1};
    char err[1024];
    int exit_code = 1;
    log_thread_rename("main");
    /* Core's private umask: what the node writes (debug.log, the stores, settings) is its
     * owner's alone, directories 0700 and files 0600. */
    umask(0077);
    node_context_init(&n.ctx);

    /* 1. Parse the command line. */
    n.args = args_new(bitnoded_options, bitnoded_options_len);
    if (args_parse_cmdline(n.args, argc, argv, NULL, err, sizeof(err)) != RC_OK ||
        cmdline_includeconf(n.args, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "Error: Error parsing command line arguments: %s\n", err);
        goto out;
    }
    /* 2. -help, -version. */
    if (args_get_bool(n.args, "help", false) || args_get_bool(n.args, "version", false)) {
        if (args_get_bool(n.args, "help", false)) {
            print_usage(n.args);
        } else {
            printf("bitnode daemon version v%s\n", PACKAGE_VERSION);
        }
        exit_code = 0;
        goto out;
    }
    /* 3, 4. The datadir and the config file. 5. The chain and its subfolder. 6. Every
     * option checked; the network's parameters and the chainstate's options. */
    char *orig_datadir = NULL;
    int ok = setup_datadir(&n, &orig_datadir) == RC_OK &&
             setup_chain_dir(&n, orig_datadir) == RC_OK && check_options(&n) == RC_OK;
    free(orig_datadir);
    if (!ok) {
        goto out;
    }
    /* 7. Signals and the shutdown pipe. */
    if (shutdown_init() != RC_OK) {
        init_error("cannot create the shutdown pipe: %s", strerror(errno));
        goto out;
    }
    install_signal_handlers();
    n.step = 7;
    /* 8. Lock the datadir and the blocks directory so that a second daemon cannot use them. */
    if (fs_lock_dir(n.net_dir, &n.lock_fd, err, sizeof(err)) != RC_OK ||
        setup_blocks_dir(&n, err, sizeof(err)) != RC_OK ||
        fs_lock_dir(n.blocks_dir, &n.blocks_lock_fd, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        goto shutdown;
    }
    char *partial = fs_path_join(n.net_dir, "load-chainstate.partial");
    int cut_short = access(partial, F_OK) == 0;
    free(partial);
    if (cut_short) {
        init_error("A bitnode-util load-chainstate into %s did not finish. Run it again (it "
                   "starts over) before starting the node.",
                   n.net_dir);
        goto shutdown;
    }
    n.step = 8;
    /* 9. The debug log. */
    if (open_log(&n) != RC_OK) {
        goto shutdown;
    }
    n.step = 9;
    log_start(&n);
    /* 10. RPC credentials and listening sockets (no threads yet). */
    bool server = args_get_bool(n.args, "server", true);
    if (server && (setup_rpc_auth(&n) != RC_OK || bind_rpc(&n) != RC_OK)) {
        goto shutdown;
    }
    n.step = 10;
    /* 11. -daemon (and -daemonwait: bitnoded's -daemon waits for start-up anyway): to the
     * background now that the lock and the port are ours. */
    if (args_get_bool(n.args, "daemon", false) || args_get_bool(n.args, "daemonwait", false)) {
        printf("bitnode starting\n");
        if (daemonize(&n) != RC_OK) {
            goto shutdown;
        }
        /* Memory locks are not inherited across fork(). */
        locked_pool_relock(n.ctx.locked);
    }
    /* 12. The pid file. */
    if (write_pid(&n) != RC_OK) {
        goto shutdown;
    }
    n.step = 12;
    /* 13. The scheduler's thread (periodic jobs), then the RPC server, in warm-up. */
    if (scheduler_start(&n.scheduler) != RC_OK) {
        init_error("cannot start the scheduler thread");
        goto shutdown;
    }
    n.ctx.scheduler = n.scheduler;
    if (server && start_rpc(&n) != RC_OK) {
        goto shutdown;
    }
    n.step = 13;
    /* -daemon: the foreground process may exit now; from here on errors go to debug.log,
     * and RPC clients see -28 until loading is done. */
    signal_ready(&n);
    exit_code = 0; /* a stop request from here on is a clean exit; failures set 1 again */
    int64_t warmup_ms = args_get_int(n.args, "testwarmupms", 0);
    if (warmup_ms > 0 && shutdown_wait((int)(warmup_ms > 3600000 ? 3600000 : warmup_ms))) {
        goto shutdown; /* stopped while "loading" */
    }
    /* 14. The chainstate, the mempool, the validation thread. 15. The import thread (Core's
     * initload: the stored blocks, the block files, then the mempool saved at the last
     * shutdown). 17. Peers. */
    if (check_fee_estimator_args(&n) != RC_OK || open_chainstate(&n) != RC_OK ||
        (n.step = 14, start_validation(&n) != RC_OK) || check_disk_space(&n) != RC_OK ||
        start_import(&n) != RC_OK) {
        exit_code = 1;
        goto shutdown;
    }
    if (shutdown_requested()) { /* a SIGTERM while loading: no peers, a clean stop (Core) */
        LOG_INFO("Shutdown requested. Exiting.");
        goto shutdown;
    }
    if (start_net(&n) != RC_OK) {
        exit_code = 1;
        goto shutdown;
    }
    if (n.rpc_ctx) {
        rpc_warmup_finished(n.rpc_ctx);
    }
    LOG_INFO("init message: Done loading");
    /* Core's StartupNotify: once, when start-up is done. */
    notify_command_spawn(args_get(n.args, "startupnotify", NULL));
    /* 18. Run until SIGTERM/SIGINT or the stop RPC. */
    shutdown_wait(-1);

shutdown:
    exit_code = shutdown_node(&n, exit_code);
out:
    if (n.ready_fd >= 0) {
        close(n.ready_fd); /* the parent sees EOF: start-up failed */
    }
    node_context_clear(&n.ctx);
    free(n.pid_path);
    free(n.cookie_path);
    free(n.net_dir);
    free(n.blocks_dir);
    free(n.datadir);
    free(n.conf_path);
    args_free(n.args);
    return exit_code;
}
