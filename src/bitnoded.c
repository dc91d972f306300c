/* bitnoded: the daemon. main() is the start-up as a numbered list; shutdown runs the steps
 * that succeeded in reverse. Everything else lives in the layers (design.md). */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "consensus/arith256.h"
#include "consensus/params.h"
#include "net/net.h"
#include "rpc/net.h"
#include "rpc/auth.h"
#include "rpc/blockchain.h"
#include "rpc/blockstats.h"
#include "rpc/mining.h"
#include "rpc/rawtransaction.h"
#include "rpc/util.h"
#include "rpc/control.h"
#include "rpc/fees.h"
#include "rpc/jsonrpc.h"
#include "rpc/server.h"
#include "options.h"
#include "util/args.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/shutdown.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/import.h"
#include "validation/validator.h"
#include "bitnoded-mempool.h"
#include "mempool/mempool.h"
#include "mempool/miner.h"
#include "mempool/fees.h"
#include "rpc/mempool.h"
#include "rpc/scan.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

struct node {
    struct args *args;
    char *datadir; /* base datadir */
    char *net_dir; /* datadir + chain subfolder */
    int lock_fd;
    char *pid_path;    /* set once the pid file exists */
    char *cookie_path; /* set once the cookie exists */
    struct rpc_auth *auth;
    struct rpc_server *rpc;
    struct rpc_context *rpc_ctx; /* the RPC methods' state; outlives the server */
    int ready_fd; /* -daemon: the pipe to the waiting parent, else -1 */
    struct chainstate *cs;
    struct validator *val;   /* the validation thread: every change to cs goes through it */
    struct net *net;         /* peers; NULL until started */
    struct mempool *mempool; /* the transaction pool (its writer: the validation thread) */
    int mempool_loaded;      /* mempool.dat was read (so a dump may replace it) */
    struct fee_estimator *fees; /* fee estimation (NULL with -blocksonly, as Core) */
    struct node_pool pool;      /* what the chainstate's hooks feed */
    int reindexing;          /* -reindex, or one that was interrupted */
    pthread_t import_thread; /* -loadblock / -reindex files */
    int import_started;
    atomic_int failed; /* a system error stopped validation: the node exits with 1 */
    struct chain_params custom_signet; /* -signetchallenge's network */
    struct chain_params custom_params; /* the network with -minimumchainwork */
    const struct chain_params *params;  /* the network: built-in, or &custom_signet */
};

/* -dbcache in MiB, clamped as Core does to at least 4 MiB. */
static size_t dbcache_bytes(const struct args *a)
{
    int64_t mib = args_get_int(a, "dbcache", 450);
    if (mib < 4) {
        mib = 4;
    }
    if (mib > (int64_t)1 << 20) {
        mib = (int64_t)1 << 20;
    }
    return (size_t)mib << 20;
}

/* -par: script check threads, the validation thread included (checkqueue.h has the rule). */
static int script_threads(const struct args *a)
{
    int64_t par = args_get_int(a, "par", 0);
    if (par < -1024) {
        par = -1024;
    }
    if (par > 1024) {
        par = 1024;
    }
    return (int)par;
}

/* -maxsigcachesize in MiB (Core's default 32), clamped to 0..16 GiB; 0 turns it off. */
static size_t sigcache_bytes(const struct args *a)
{
    int64_t mib = args_get_int(a, "maxsigcachesize", 32);
    if (mib < 0) {
        mib = 0;
    }
    if (mib > (int64_t)16 << 10) {
        mib = (int64_t)16 << 10;
    }
    return (size_t)mib << 20;
}

/* -assumevalid as Core's uint256::FromUserHex reads it: an optional 0x, then up to 64 hex
 * digits, zero-padded on the left (so 0 disables). Returns 0 with *set and hash32 (internal
 * order), or RC_INVALID. */
static int assume_valid(const struct args *a, int *set, uint8_t hash32[32])
{
    const char *v = args_get(a, "assumevalid", NULL);
    char padded[65];
    *set = v != NULL;
    memset(hash32, 0, 32);
    if (!v) {
        return RC_OK;
    }
    if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        v += 2;
    }
    size_t len = strlen(v);
    if (len > 64) {
        return RC_INVALID;
    }
    memset(padded, '0', 64 - len);
    memcpy(padded + 64 - len, v, len + 1);
    return hex_decode_hash32_rev(hash32, padded) == 0 ? RC_OK : RC_INVALID;
}

/* The validation thread stopped connecting for good: -stopatheight was reached (wherever the
 * chain was connected: start-up, import, submitblock), or a storage failure (a full disk):
 * Core's AbortNode, a clean stop; what was written stays consistent, and a restart with
 * space goes on from there. Runs on the validation thread. */
static void on_validation_halt(void *ctx, int rc)
{
    struct node *n = ctx;
    if (rc) {
        LOG_ERROR("validation failed: %s; shutting down", rc_str(rc));
        atomic_store(&n->failed, 1);
    } else {
        LOG_INFO("-stopatheight reached: shutting down");
    }
    shutdown_request();
}

static int import_interrupted(void)
{
    return shutdown_requested();
}

static int clear_reindexing(struct chainstate *cs, void *ctx)
{
    return chainstate_set_reindexing(cs, 0);
}

/* The import thread: waits for the blocks stored past the tip to be connected, then reads
 * our own blk files for a reindex, then every -loadblock file, handing their blocks to the
 * validation thread. Stops between blocks when shutdown is requested. */
static void *import_main(void *arg)
{
    struct node *n = arg;
    log_thread_rename("loadblk");
    struct import_stats st;
    const char **files = NULL;
    size_t nload = args_get_list(n->args, "loadblock", &files);
    int rc = RC_OK;
    if (!n->reindexing) {
        /* Blocks stored past the chainstate's tip (-reindex-chainstate rebuilds from all of
         * them; after a crash, the ones not yet connected) are connected by the validation
         * thread as soon as it starts, with RPC up, as Core's import thread does:
         * getblockcount shows the progress. */
        struct validator_job j = {.work = VALIDATOR_ACTIVATE};
        rc = validator_run(n->val, &j);
        chainstate_read_lock(n->cs);
        struct block_index *tip = chainstate_tip(n->cs);
        int height = tip ? tip->height : -1;
        chainstate_read_unlock(n->cs);
        LOG_INFO("stored blocks connected: tip height %d", height);
    }
    if (n->reindexing && rc == RC_OK) {
        struct importer *im = importer_new(n->val, 1);
        importer_set_interrupt(im, import_interrupted);
        for (int f = 0; rc == RC_OK && !shutdown_requested(); f++) {
            char path[4300];
            snprintf(path, sizeof(path), "%s/blk%05d.dat", chainstate_blocks_dir(n->cs), f);
            if (access(path, R_OK) != 0) {
                break;
            }
            LOG_INFO("Reindexing block file blk%05d.dat...", f);
            rc = importer_add_file(im, path, f);
        }
        /* The summary is logged also when stopped early (as Core's "Loaded N blocks"). */
        int frc = importer_finish(im, &st);
        rc = rc ? rc : frc;
        if (rc == RC_OK && !shutdown_requested()) {
            struct validator_job j = {.work = VALIDATOR_CALL, .fn = clear_reindexing};
            rc = validator_run(n->val, &j);
            LOG_INFO("Reindexing finished");
        }
        importer_free(im);
    }
    if (nload && rc == RC_OK && !shutdown_requested()) {
        struct importer *im = importer_new(n->val, 0);
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
        importer_free(im);
    }
    free(files);
    if (rc && rc != RC_STOPPED) {
        /* The validation thread has logged it and asked for the shutdown already when the
         * error was its own; an error of the import thread itself is the same failure. */
        LOG_ERROR("import failed: %s; shutting down", rc_str(rc));
        atomic_store(&n->failed, 1);
        shutdown_request();
    }
    return NULL;
}

static void init_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void init_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "Error: %s\n", msg);
    LOG_ERROR("%s", msg);
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

static int read_config(struct node *n)
{
    char err[512];
    bool explicit_conf = args_is_set(n->args, "conf");
    /* Core's name, so that a bitcoind datadir (and Core's test framework) works as it is;
     * bitnode.conf, bitnode's old name, when there is no bitcoin.conf. */
    char *conf = abs_path(n->datadir, args_get(n->args, "conf", "bitcoin.conf"));
    struct buf text;
    buf_init(&text);
    int rc = fs_read_file(conf, &text, 16u << 20, err, sizeof(err));
    if (rc == RC_NOT_FOUND && !explicit_conf) {
        free(conf);
        conf = abs_path(n->datadir, "bitnode.conf");
        rc = fs_read_file(conf, &text, 16u << 20, err, sizeof(err));
    }
    if (rc == RC_NOT_FOUND && !explicit_conf) {
        rc = RC_OK;
    } else if (rc == RC_NOT_FOUND) {
        init_error("Error reading configuration file: specified config file \"%s\" could not "
                   "be opened.",
                   conf);
    } else if (rc != RC_OK) {
        init_error("Error reading configuration file: %s", err);
    } else {
        rc = args_read_config(n->args, (const char *)text.data, text.len, conf, false, err,
                              sizeof(err));
        if (rc != RC_OK) {
            init_error("Error reading configuration file: %s", err);
        }
    }
    buf_clear(&text);
    free(conf);
    return rc;
}

/* -testactivationheight=name@height (regtest only, as Core's ReadRegTestArgs): the buried
 * deployments' heights in a copy of the network's parameters. Core's names and messages. */
static int apply_test_activation_heights(struct node *n)
{
    const char **v;
    size_t nv = args_get_list(n->args, "testactivationheight", &v);
    int rc = RC_OK;
    if (nv == 0) {
        free(v);
        return RC_OK;
    }
    if (n->params != &n->custom_params) {
        n->custom_params = *n->params;
        n->params = &n->custom_params;
    }
    for (size_t i = 0; i < nv && rc == RC_OK; i++) {
        const char *at = strchr(v[i], '@');
        if (!at) {
            init_error("Invalid format (%s) for -testactivationheight=name@height.", v[i]);
            rc = RC_INVALID;
            break;
        }
        const char *num = at + 1;
        char *end = NULL;
        errno = 0;
        long h = (*num >= '0' && *num <= '9') || *num == '-' ? strtol(num, &end, 10) : -1;
        if (errno || !end || *end || h < 0 || h >= 2147483647L) {
            init_error("Invalid height value (%s) for -testactivationheight=name@height.", v[i]);
            rc = RC_INVALID;
            break;
        }
        size_t len = (size_t)(at - v[i]);
        int *field = NULL;
        if (len == 6 && !strncmp(v[i], "segwit", len)) {
            field = &n->custom_params.segwit_height;
        } else if (len == 5 && !strncmp(v[i], "bip34", len)) {
            field = &n->custom_params.bip34_height;
        } else if (len == 6 && !strncmp(v[i], "dersig", len)) {
            field = &n->custom_params.bip66_height;
        } else if (len == 4 && !strncmp(v[i], "cltv", len)) {
            field = &n->custom_params.bip65_height;
        } else if (len == 3 && !strncmp(v[i], "csv", len)) {
            field = &n->custom_params.csv_height;
        }
        if (!field) {
            init_error("Invalid name (%s) for -testactivationheight=name@height.", v[i]);
            rc = RC_INVALID;
            break;
        }
        *field = (int)h;
    }
    free(v);
    return rc;
}

static int setup_debug_categories(struct node *n)
{
    const char **v;
    size_t count = args_get_list(n->args, "debug", &v);
    int rc = RC_OK;
    for (size_t i = 0; i < count && rc == RC_OK; i++) {
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
    bool daemon_mode = args_get_bool(n->args, "daemon", false) ||
                       args_get_bool(n->args, "daemonwait", false);
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
    n->auth = rpc_auth_new();
    const char *password = args_get(n->args, "rpcpassword", "");
    if (password[0] == 0) {
        char *secret;
        n->cookie_path = abs_path(n->net_dir, args_get(n->args, "rpccookiefile", ".cookie"));
        if (rpc_cookie_generate(n->cookie_path, &secret, err, sizeof(err)) != RC_OK) {
            init_error("Unable to start HTTP server. See debug log for details. (%s)", err);
            free(n->cookie_path);
            n->cookie_path = NULL;
            return RC_IO;
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
            init_error("Invalid -rpcauth argument.");
            rc = RC_INVALID;
            break;
        }
    }
    free(lines);
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
    int64_t threads = args_get_int(n->args, "rpcthreads", 4);
    int64_t depth = args_get_int(n->args, "rpcworkqueue", 16);
    int64_t timeout = args_get_int(n->args, "rpcservertimeout", 30);
    const char **binds, **allow;
    size_t n_bind = args_get_list(n->args, "rpcbind", &binds);
    size_t n_allow = args_get_list(n->args, "rpcallowip", &allow);
    n->rpc_ctx = rpc_context_new();
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
static int start_net(struct node *n)
{
    struct args *a = n->args;
    char err[256];
    uint16_t port = n->params->default_port;
    if (args_is_set(a, "port") && check_port(a, "port", port, &port) != RC_OK) {
        return RC_INVALID;
    }
    const char **connect = NULL, **addnode = NULL, **seednode = NULL, **binds = NULL,
               **whitebinds = NULL, **whitelist = NULL;
    size_t n_connect = args_get_list(a, "connect", &connect);
    size_t n_addnode = args_get_list(a, "addnode", &addnode);
    size_t n_seednode = args_get_list(a, "seednode", &seednode);
    size_t n_bind = args_get_list(a, "bind", &binds);
    size_t n_whitebind = args_get_list(a, "whitebind", &whitebinds);
    size_t n_whitelist = args_get_list(a, "whitelist", &whitelist);
    /* -noconnect / -connect=0: no automatic connections and no -connect targets. */
    int connect_off = args_is_negated(a, "connect") ||
                      (n_connect == 1 && strcmp(connect[0], "0") == 0);
    if (connect_off) {
        n_connect = 0;
    }
    int64_t maxconn = args_get_int(a, "maxconnections", 125);
    const char *proxy = args_is_negated(a, "proxy") ? NULL : args_get(a, "proxy", NULL);
    const char *onion = args_is_negated(a, "onion") ? NULL : args_get(a, "onion", NULL);
    /* Core: -bind / -whitebind turn listening on; -connect, -proxy and -maxconnections=0
     * turn the default off. */
    int listen_default = (n_bind + n_whitebind > 0) ||
                         !(n_connect > 0 || connect_off || maxconn == 0 || (proxy && proxy[0]));
    /* -onlynet: the networks automatic connections go to. */
    uint32_t onlynet = 0;
    const char **nets = NULL;
    size_t n_nets = args_get_list(a, "onlynet", &nets);
    for (size_t i = 0; i < n_nets; i++) {
        int found = 0;
        for (int k = NETWORK_IPV4; k < NETWORK_COUNT; k++) {
            if (strcasecmp(nets[i], net_network_name(k)) == 0 ||
                (k == NETWORK_ONION && strcasecmp(nets[i], "tor") == 0)) {
                onlynet |= 1u << k;
                found = 1;
            }
        }
        if (!found) {
            init_error("Unknown network specified in -onlynet: '%s'", nets[i]);
            free(nets);
            free(connect);
            free(addnode);
            free(seednode);
            free(binds);
            free(whitebinds);
            free(whitelist);
            return RC_INVALID;
        }
    }
    free(nets);
    struct net_bind *bv = xcalloc(n_bind + n_whitebind + 1, sizeof(*bv));
    struct net_whitelist *wl = xcalloc(n_whitelist + 1, sizeof(*wl));
    size_t nb = 0;
    int rc = RC_OK;
    for (size_t i = 0; i < n_bind && rc == RC_OK; i++) {
        char v[NET_ADDR_STR_LEN];
        snprintf(v, sizeof(v), "%s", binds[i]);
        char *eq = strstr(v, "=onion");
        if (eq && eq[6] == 0) {
            /* Core binds the Tor service's target there; without Tor control it is a
             * listener like the others (Core's test framework passes one). */
            *eq = 0;
            LOG_INFO("-bind=%s=onion: no Tor control here; listening there as on any -bind", v);
        }
        if (net_addr_parse(v, port, 0, &bv[nb].addr, err, sizeof(err)) != RC_OK) {
            init_error("Cannot resolve -bind address: '%s'", v);
            rc = RC_INVALID;
            break;
        }
        nb++;
    }
    for (size_t i = 0; i < n_whitebind && rc == RC_OK; i++) {
        const char *rest;
        uint32_t perms;
        if (net_permissions_parse(whitebinds[i], &perms, &rest, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            rc = RC_INVALID;
            break;
        }
        if (perms & NET_PERM_IMPLICIT) {
            perms = NET_PERM_RELAY | NET_PERM_MEMPOOL | NET_PERM_NOBAN;
        }
        if (net_addr_parse(rest, 0, 0, &bv[nb].addr, err, sizeof(err)) != RC_OK ||
            bv[nb].addr.port == 0) {
            init_error("Need to specify a port with -whitebind: '%s'", rest);
            rc = RC_INVALID;
            break;
        }
        bv[nb++].perms = perms;
    }
    for (size_t i = 0; i < n_whitelist && rc == RC_OK; i++) {
        const char *rest;
        if (net_permissions_parse(whitelist[i], &wl[i].perms, &rest, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            rc = RC_INVALID;
            break;
        }
        if (net_subnet_parse(rest, &wl[i].subnet) != RC_OK) {
            init_error("Invalid netmask specified in -whitelist: '%s'", rest);
            rc = RC_INVALID;
            break;
        }
    }
    /* -uacomment: "(c1; c2)" after the version, as Core's user agent. */
    char uacomment[200] = "";
    {
        const char **cm = NULL;
        size_t ncm = args_get_list(a, "uacomment", &cm);
        size_t used = 0;
        for (size_t i = 0; i < ncm && used + 3 < sizeof(uacomment); i++) {
            int w = snprintf(uacomment + used, sizeof(uacomment) - used, "%s%s", i ? "; " : "",
                             cm[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        free(cm);
        if (used >= sizeof(uacomment) - 3) {
            init_error("Total length of network version string (%zu) exceeds maximum length "
                       "(256). Reduce the number or size of uacomments.", used);
            rc = RC_INVALID;
        }
    }
    int64_t peertimeout = args_get_int(a, "peertimeout", 60);
    if (rc == RC_OK && peertimeout <= 0) {
        init_error("peertimeout must be a positive integer.");
        rc = RC_INVALID;
    }
    if (rc == RC_OK && maxconn < 0) {
        maxconn = 0;
    }
    /* -test=<option>: Core's test-only switches, on regtest only. */
    int det_addrman = 0;
    {
        const char **tv = NULL;
        size_t nt = args_get_list(a, "test", &tv);
        if (rc == RC_OK && nt > 0 && strcmp(args_chain(a), "regtest") != 0) {
            init_error("-test=<option> can only be used with regtest");
            rc = RC_INVALID;
        }
        for (size_t i = 0; i < nt && rc == RC_OK; i++) {
            if (strcmp(tv[i], "addrman") == 0) {
                det_addrman = 1;
            } else if (strcmp(tv[i], "reindex_after_failure_noninteractive_yes") == 0) {
                /* nothing to do: the node never asks interactively */
            } else if (strcmp(tv[i], "bip94") == 0) {
                init_error("-test=bip94: not implemented yet");
                rc = RC_INVALID;
            } else {
                init_error("Unrecognised option \"%s\" provided in -test=<option>.", tv[i]);
                rc = RC_INVALID;
            }
        }
        free(tv);
    }
    if (rc == RC_OK && args_get_bool(a, "v2transport", false)) {
        LOG_INFO("-v2transport: BIP324 needs ElligatorSwift, which this libsecp256k1 lacks; "
                 "every connection uses the v1 transport");
    }
    if (rc == RC_OK) {
        struct net_options o = {
            .val = n->val,
            .listen = args_get_bool(a, "listen", listen_default),
            .binds = bv,
            .n_binds = nb,
            .port = port,
            .connect = connect,
            .n_connect = n_connect,
            .addnode = addnode,
            .n_addnode = n_addnode,
            .seednode = seednode,
            .n_seednode = n_seednode,
            .whitelist = wl,
            .n_whitelist = n_whitelist,
            .max_connections = (int)(maxconn > 100000 ? 100000 : maxconn),
            .max_tip_age = args_get_int(a, "maxtipage", 24 * 60 * 60),
            .dnsseed = args_get_bool(a, "dnsseed", n_connect == 0 && !connect_off),
            .fixedseeds = args_get_bool(a, "fixedseeds", true),
            .network_active = args_get_bool(a, "networkactive", true),
            .net_dir = n->net_dir,
            .peer_timeout = peertimeout,
            .bantime = args_get_int(a, "bantime", 86400),
            .automatic = !connect_off && n_connect == 0 && maxconn > 0,
            .chain = n->params == &n->custom_signet ? "signet-custom" : args_chain(a),
            .proxy = proxy,
            .onion_proxy = onion,
            .proxy_randomize = args_get_bool(a, "proxyrandomize", true),
            .onlynet = onlynet,
            .user_agent_comment = uacomment,
        };
        o.mempool = n->mempool;
        o.blocks_only = args_get_bool(n->args, "blocksonly", false);
        o.deterministic_addrman = det_addrman;
        if (net_new(&n->net, &o, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            rc = RC_IO;
        } else if (net_set_mocktime(n->net, args_get_int(a, "mocktime", 0)),
                   net_start(n->net) != RC_OK) {
            init_error("cannot start the net thread");
            rc = RC_IO;
        }
    }
    /* net_new copied what it keeps (the strings stay in args, which outlives it). */
    free(bv);
    free(wl);
    free(binds);
    free(whitebinds);
    free(whitelist);
    free(connect);
    free(addnode);
    free(seednode);
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

int main(int argc, char **argv)
{
    struct node n = {.lock_fd = -1, .ready_fd = -1};
    char err[1024];
    int exit_code = 1;
    int step = 0; /* how far start-up got, for the shutdown in reverse */
    log_thread_rename("main");

    /* 1. Parse the command line. */
    n.args = args_new(bitnoded_options, bitnoded_options_len);
    if (args_parse_cmdline(n.args, argc, argv, NULL, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "Error parsing command line arguments: %s\n", err);
        goto out;
    }
    /* 2. -help, -version. */
    if (args_get_bool(n.args, "help", false)) {
        print_usage(n.args);
        exit_code = 0;
        goto out;
    }
    if (args_get_bool(n.args, "version", false)) {
        printf("bitnode daemon version v%s\n", PACKAGE_VERSION);
        exit_code = 0;
        goto out;
    }
    /* 3. The datadir: -datadir must exist; the default one is created. */
    if (args_is_set(n.args, "datadir")) {
        n.datadir = xstrdup(args_get(n.args, "datadir", ""));
        if (!fs_is_dir(n.datadir)) {
            init_error("Specified data directory \"%s\" does not exist.", n.datadir);
            goto out;
        }
    } else {
        n.datadir = fs_default_datadir();
        if (fs_mkdir_p(n.datadir, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            goto out;
        }
    }
    /* 4. The config file. */
    if (read_config(&n) != RC_OK) {
        goto out;
    }
    if (args_is_set(n.args, "datadir") && strcmp(args_get(n.args, "datadir", ""), n.datadir)) {
        /* datadir= in the config file moves the datadir (the file is not read again). */
        free(n.datadir);
        n.datadir = xstrdup(args_get(n.args, "datadir", ""));
        if (!fs_is_dir(n.datadir)) {
            init_error("Specified data directory \"%s\" does not exist.", n.datadir);
            goto out;
        }
    }
    /* 5. The chain and its datadir subfolder. */
    if (args_select_chain(n.args, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        goto out;
    }
    n.net_dir = fs_path_join(n.datadir, fs_chain_info(args_chain(n.args))->subdir);
    if (fs_mkdir_p(n.net_dir, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        goto out;
    }
    /* The empty wallets/ directory a bitcoind datadir has (Core makes it even with
     * -disablewallet; its test framework's cached chain expects it). bitnode has no wallet. */
    {
        char *wallets = fs_path_join(n.net_dir, "wallets");
        if (fs_mkdir_p(wallets, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            free(wallets);
            goto out;
        }
        free(wallets);
    }
    /* 6. Check every option's value, and refuse what is not implemented yet. */
    if (args_validate(n.args, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        goto out;
    }
    if (setup_debug_categories(&n) != RC_OK) {
        goto out;
    }
    /* The network's parameters; -signetchallenge makes a signet of its own (Core's messages). */
    n.params = chain_params_get(args_chain(n.args));
    {
        const char **ch;
        size_t nch = args_get_list(n.args, "signetchallenge", &ch);
        if (nch > 1) {
            init_error("-signetchallenge cannot be multiple values.");
            free(ch);
            goto out;
        }
        if (nch == 1 && n.params->signet_blocks) {
            struct buf bin;
            buf_init(&bin);
            int bad = hex_decode(&bin, ch[0]) != RC_OK;
            if (bad) {
                init_error("-signetchallenge must be hex, not '%s'.", ch[0]);
            } else if (chain_params_signet_custom(&n.custom_signet, bin.data, bin.len) != RC_OK) {
                init_error("-signetchallenge: a challenge of %zu bytes is longer than %d", bin.len,
                           CHAIN_SIGNET_CHALLENGE_MAX);
                bad = 1;
            }
            buf_clear(&bin);
            free(ch);
            if (bad) {
                goto out;
            }
            n.params = &n.custom_signet;
            char hx[2 * CHAIN_SIGNET_CHALLENGE_MAX + 1];
            hex_encode(hx, n.params->signet_challenge, n.params->signet_challenge_len);
            LOG_INFO("Signet with challenge %s", hx);
        } else {
            free(ch);
        }
    }
    /* -minimumchainwork: the network's parameters with the operator's minimum (a copy). */
    if (args_is_set(n.args, "minimumchainwork")) {
        const char *v = args_get(n.args, "minimumchainwork", "");
        const char *hexv = (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) ? v + 2 : v;
        size_t len = strlen(hexv);
        char padded[65];
        int ok = len > 0 && len <= 64;
        for (size_t i = 0; ok && i < len; i++) {
            ok = (hexv[i] >= '0' && hexv[i] <= '9') || (hexv[i] >= 'a' && hexv[i] <= 'f') ||
                 (hexv[i] >= 'A' && hexv[i] <= 'F');
        }
        if (!ok) {
            init_error("Invalid minimum work specified (%s), must be up to 64 hex digits", v);
            goto out;
        }
        memset(padded, '0', 64);
        memcpy(padded + 64 - len, hexv, len);
        padded[64] = 0;
        n.custom_params = *n.params;
        u256_from_hex(&n.custom_params.minimum_chain_work, padded);
        n.params = &n.custom_params;
    }
    if (n.params->id == CHAIN_REGTEST && apply_test_activation_heights(&n) != RC_OK) {
        goto out;
    }
    if (args_get_int(n.args, "dbbloombits", 10) < 0 ||
        args_get_int(n.args, "dbbloombits", 10) > 64) {
        init_error("-dbbloombits must be in 0-64");
        goto out;
    }
    if (args_get_int(n.args, "dbbatchsize", 0) < 0 ||
        args_get_int(n.args, "dbcrashratio", 0) < 0 ||
        args_get_int(n.args, "dbcrashratio", 0) > 32767) {
        init_error("-dbbatchsize must not be negative, -dbcrashratio must be in 0-32767");
        goto out;
    }
    /* -maxmempool in MB (Core's rule: 0, or at least 40 clusters of 101 kvB). */
    int64_t maxmempool = args_get_int(n.args, "maxmempool", 300);
    if (maxmempool > ((int64_t)1 << 40) / 1000000) {
        init_error("-maxmempool is set to %" PRId64 " but can't be over %" PRId64 " MB", maxmempool,
                   ((int64_t)1 << 40) / 1000000);
        goto out;
    }
    if (maxmempool < 0 || (maxmempool > 0 && maxmempool * 1000000 < 4040000)) {
        init_error("-maxmempool must be at least 5 MB");
        goto out;
    }
    /* -port: the P2P port; checked now, used once the node has peers. */
    uint16_t p2p_port;
    if (args_is_set(n.args, "port") && check_port(n.args, "port", 0, &p2p_port) != RC_OK) {
        goto out;
    }
    {
        int set;
        uint8_t av[32];
        if (assume_valid(n.args, &set, av) != RC_OK) {
            init_error("Invalid assumevalid block hash specified (%s), must be up to 64 hex "
                       "digits (or 0 to disable)",
                       args_get(n.args, "assumevalid", ""));
            goto out;
        }
    }
    /* 7. Signals and the shutdown pipe. */
    if (shutdown_init() != RC_OK) {
        init_error("cannot create the shutdown pipe: %s", strerror(errno));
        goto out;
    }
    install_signal_handlers();
    step = 7;
    /* 8. Lock the datadir so that a second daemon cannot use it. */
    if (fs_lock_dir(n.net_dir, &n.lock_fd, err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        goto shutdown;
    }
    step = 8;
    /* 9. The debug log. */
    if (open_log(&n) != RC_OK) {
        goto shutdown;
    }
    step = 9;
    LOG_INFO("bitnode version v%s", PACKAGE_VERSION);
    LOG_INFO("Using data directory %s", n.net_dir);
    LOG_INFO("Using chain %s", args_chain(n.args));
    for (size_t i = 0; i < args_warning_count(n.args); i++) {
        LOG_WARN("%s", args_warning(n.args, i));
        fprintf(stderr, "Warning: %s\n", args_warning(n.args, i));
    }
    {
        /* Core's options bitnode accepts and does not do: one line each, with the reason. */
        struct arg_ignored *ign;
        size_t n_ign = args_ignored(n.args, &ign);
        for (size_t i = 0; i < n_ign; i++) {
            LOG_INFO("Ignoring -%s: %s", ign[i].name, ign[i].reason);
        }
        free(ign);
    }
    /* 10. RPC credentials and listening sockets (no threads yet). */
    bool server = args_get_bool(n.args, "server", true);
    if (server) {
        if (setup_rpc_auth(&n) != RC_OK || bind_rpc(&n) != RC_OK) {
            goto shutdown;
        }
    }
    step = 10;
    /* 11. -daemon: go to the background now that the lock and the port are ours. */
    /* -daemonwait: bitnoded's -daemon waits for start-up anyway. */
    if (args_get_bool(n.args, "daemon", false) || args_get_bool(n.args, "daemonwait", false)) {
        printf("bitnode starting\n");
        if (daemonize(&n) != RC_OK) {
            goto shutdown;
        }
    }
    /* 12. The pid file. */
    char *pid_path = abs_path(n.net_dir, args_get(n.args, "pid", "bitnoded.pid"));
    if (fs_pidfile_write(pid_path, getpid(), err, sizeof(err)) != RC_OK) {
        init_error("%s", err);
        free(pid_path);
        goto shutdown;
    }
    n.pid_path = pid_path;
    step = 12;
    /* 13. The RPC server: methods, event loop, workers. Warm-up until start-up is done. */
    if (server) {
        rpc_warmup_set(n.rpc_ctx, "Loading block index...");
        rpc_control_register(n.rpc_ctx);
        rpc_blockchain_register(n.rpc_ctx);
        rpc_blockstats_register(n.rpc_ctx);
        rpc_rawtransaction_register(n.rpc_ctx);
        rpc_mining_register(n.rpc_ctx);
        rpc_util_register(n.rpc_ctx);
        rpc_net_register(n.rpc_ctx);
        rpc_mempool_register(n.rpc_ctx);
        rpc_scan_register(n.rpc_ctx);
        rpc_fees_register(n.rpc_ctx);
        if (rpc_server_start(n.rpc, err, sizeof(err)) != RC_OK) {
            init_error("Unable to start HTTP server: %s", err);
            goto shutdown;
        }
        LOG_INFO("RPC server listening on port %u", rpc_server_port(n.rpc));
    }
    step = 13;
    /* -daemon: the foreground process may exit now; from here on errors go to debug.log,
     * and RPC clients see -28 until loading is done. */
    signal_ready(&n);
    exit_code = 0; /* a stop request from here on is a clean exit; failures set 1 again */
    /* 14. Load the chain: the block index, the chainstate, the blocks stored past its tip;
     * then leave warm-up. */
    int64_t warmup_ms = args_get_int(n.args, "testwarmupms", 0);
    if (warmup_ms > 0 && shutdown_wait((int)(warmup_ms > 3600000 ? 3600000 : warmup_ms))) {
        goto shutdown; /* stopped while "loading" */
    }
    {
        struct chainstate_options co = {
            .params = n.params,
            .datadir = n.net_dir,
            .dbcache_bytes = dbcache_bytes(n.args),
            .mempool_bytes = (size_t)maxmempool * 1000000,
            .reindex = args_get_bool(n.args, "reindex", false),
            .reindex_chainstate = args_get_bool(n.args, "reindex-chainstate", false),
            .stop_at_height = args_get_int(n.args, "stopatheight", 0),
            .flush_every_blocks = (int)args_get_int(n.args, "testflushblocks", 0),
            .txindex = args_get_bool(n.args, "txindex", false),
            .par = script_threads(n.args),
            .sigcache_bytes = sigcache_bytes(n.args),
            .coins_batch_bytes = (size_t)args_get_int(n.args, "dbbatchsize", 0),
            .coins_kv_ops = args_get_bool(n.args, "dbchainstatemem", false) ? &kv_mem_ops : NULL,
            /* On by default: measured, it ends the multi-second stall of each flush of a
             * full cache at about the same import time, for up to half the cache more
             * memory while a generation is written (doc/benchmarks.md). */
            .background_flush = args_get_bool(n.args, "dbbackgroundflush", true),
            /* 0 in the option is no filter; 0 in the field is kv's default. */
            .bloom_bits = args_get_int(n.args, "dbbloombits", 10)
                              ? (int)args_get_int(n.args, "dbbloombits", 10)
                              : -1,
            .db_crash_ratio = (uint32_t)args_get_int(n.args, "dbcrashratio", 0),
            .max_tip_age = args_get_int(n.args, "maxtipage", 24 * 60 * 60),
        };
        assume_valid(n.args, &co.assume_valid_set, co.assume_valid); /* checked at step 6 */
        if (co.reindex) {
            LOG_INFO("-reindex: wiping the block index and the chainstate");
        }
        if (chainstate_open(&n.cs, &co, err, sizeof(err)) != RC_OK) {
            init_error("%s", err);
            exit_code = 1;
            goto shutdown;
        }
        step = 14;
        chainstate_set_interrupt(n.cs, import_interrupted); /* stop connecting on shutdown */
        chainstate_set_mocktime(n.cs, args_get_int(n.args, "mocktime", 0)); /* -mocktime */
        int was = 0;
        chainstate_is_reindexing(n.cs, &was);
        n.reindexing = co.reindex || was;
        if (was && !co.reindex) {
            LOG_INFO("resuming an interrupted reindex");
        }
        if (co.reindex && chainstate_set_reindexing(n.cs, 1) != RC_OK) {
            init_error("cannot write the block index in %s", n.net_dir);
            exit_code = 1;
            goto shutdown;
        }
        struct block_index *tip = chainstate_tip(n.cs);
        LOG_INFO("block index %zu entries, tip height %d", block_tree_size(chainstate_tree(n.cs)),
                 tip ? tip->height : -1);
        if (n.rpc_ctx) {
            rpc_blockchain_set_chainstate(n.rpc_ctx, n.cs); /* its tip callback, first */
        }
        {
            struct mempool_options mo;
            if (node_mempool_options(&mo, n.args, n.params, maxmempool, err, sizeof(err))) {
                init_error("%s", err);
                exit_code = 1;
                goto shutdown;
            }
            struct miner_options mio;
            if (node_miner_options(&mio, n.args, n.params, err, sizeof(err))) {
                init_error("%s", err);
                exit_code = 1;
                goto shutdown;
            }
            if (n.rpc_ctx) {
                rpc_mining_set_options(n.rpc_ctx, &mio);
            }
            n.mempool = mempool_new(&mo);
            if (!args_get_bool(n.args, "blocksonly", false)) {
                n.fees = fee_estimator_new();
                node_fees_load(n.fees, n.net_dir,
                               args_get_bool(n.args, "acceptstalefeeestimates", false));
            }
            n.pool = (struct node_pool){.mp = n.mempool, .fe = n.fees, .cs = n.cs};
            node_mempool_hook(&n.pool);
            if (n.rpc_ctx) {
                rpc_fees_set(n.rpc_ctx, n.fees);
            }
            if (n.rpc_ctx) {
                const char **dep;
                size_t ndep = args_get_list(n.args, "deprecatedrpc", &dep);
                int dep_fullrbf = 0, dep_bip125 = 0;
                for (size_t i = 0; i < ndep; i++) {
                    dep_fullrbf |= strcmp(dep[i], "fullrbf") == 0;
                    dep_bip125 |= strcmp(dep[i], "bip125") == 0;
                }
                free(dep);
                rpc_mempool_set_deprecated(n.rpc_ctx, dep_fullrbf, dep_bip125);
                rpc_mempool_set(n.rpc_ctx, n.mempool, n.net_dir,
                                args_get_bool(n.args, "persistmempoolv1", false) ? 1 : 2);
            }
        }
        /* From here on only the validation thread changes the chainstate. */
        if (validator_new(&n.val, n.cs, 0, on_validation_halt, &n) != RC_OK) {
            init_error("cannot start the validation thread");
            exit_code = 1;
            goto shutdown;
        }
        if (n.rpc_ctx) {
            rpc_blockchain_set_validator(n.rpc_ctx, n.val);
        }
    }
    /* 15. In the background: connect the stored blocks past the tip, then import block
     * files (-reindex, -loadblock). */
    {
        int no_tip = chainstate_tip(n.cs) == NULL; /* nothing else runs yet */
        if (pthread_create(&n.import_thread, NULL, import_main, &n) != 0) {
            init_error("cannot start the import thread");
            exit_code = 1;
            goto shutdown;
        }
        n.import_started = 1;
        /* A chain with nothing connected (a fresh datadir, -reindex-chainstate) has its
         * genesis block connected first, in milliseconds: RPC answers once it is, so that
         * the first getblockcount says 0, not -1 (a fresh Core answers 0). Not waited for
         * with -reindex (the block files are read first), nor past shutdown or 10 s (the
         * validation thread halted: the log says why). */
        for (int ms = 0; no_tip && !n.reindexing && ms < 10000; ms += 2) {
            chainstate_read_lock(n.cs);
            int have = chainstate_tip(n.cs) != NULL;
            chainstate_read_unlock(n.cs);
            if (have || shutdown_wait(2)) {
                break;
            }
        }
    }
    /* 16. The mempool saved at the last shutdown. */
    node_mempool_load(n.mempool, n.val, n.net_dir);
    n.mempool_loaded = 1;
    if (n.rpc_ctx) {
        rpc_mempool_set_loaded(n.rpc_ctx);
    }
    /* 17. Peers. */
    if (start_net(&n) != RC_OK) {
        exit_code = 1;
        goto shutdown;
    }
    if (n.rpc_ctx) {
        rpc_net_set_net(n.rpc_ctx, n.net);
        rpc_warmup_finished(n.rpc_ctx);
    }
    LOG_INFO("init message: Done loading");

    /* 18. Run until SIGTERM/SIGINT or the stop RPC. */
    shutdown_wait(-1);

shutdown:
    LOG_INFO("Shutdown: In progress...");
    if (n.import_started) {
        shutdown_request(); /* the import stops between two blocks */
        pthread_join(n.import_thread, NULL);
    }
    if (step >= 13 && n.rpc) {
        rpc_server_stop(n.rpc);
    }
    if (n.rpc_ctx) {
        rpc_net_set_net(n.rpc_ctx, NULL);
    }
    net_free(n.net); /* before the validator: its jobs come back first */
    n.net = NULL;
    validator_free(n.val); /* the block open on the pool is finished first */
    n.val = NULL;
    if (n.mempool_loaded) {
        node_mempool_dump(n.mempool, n.net_dir,
                          args_get_bool(n.args, "persistmempoolv1", false) ? 1 : 2);
    }
    if (n.rpc_ctx) {
        rpc_mempool_set(n.rpc_ctx, NULL, NULL, 2);
    }
    if (n.cs) {
        chainstate_set_block_hooks(n.cs, NULL);
    }
    mempool_free(n.mempool);
    n.mempool = NULL;
    if (n.rpc_ctx) {
        rpc_fees_set(n.rpc_ctx, NULL);
    }
    node_fees_save(n.fees, n.net_dir);
    fee_estimator_free(n.fees);
    n.fees = NULL;
    if (n.rpc_ctx) {
        rpc_blockchain_set_validator(n.rpc_ctx, NULL);
        rpc_blockchain_set_chainstate(n.rpc_ctx, NULL);
    }
    if (atomic_load(&n.failed)) {
        exit_code = 1;
    }
    if (n.cs) {
        if (chainstate_close(n.cs) != RC_OK) {
            LOG_ERROR("Shutdown: flushing the chainstate failed; it stays consistent on disk");
            exit_code = 1;
        }
        n.cs = NULL;
    }
    if (step >= 10) {
        rpc_server_free(n.rpc);
        n.rpc = NULL;
    }
    rpc_context_free(n.rpc_ctx);
    n.rpc_ctx = NULL;
    if (n.cookie_path) {
        unlink(n.cookie_path);
    }
    rpc_auth_free(n.auth);
    if (n.pid_path) {
        unlink(n.pid_path);
    }
    if (step >= 8) {
        fs_unlock_dir(n.lock_fd);
    }
    LOG_INFO("Shutdown: done");
    if (step >= 9) {
        log_close();
    }
    if (step >= 7) {
        shutdown_clear();
    }
out:
    if (n.ready_fd >= 0) {
        close(n.ready_fd); /* the parent sees EOF: start-up failed */
    }
    free(n.pid_path);
    free(n.cookie_path);
    free(n.net_dir);
    free(n.datadir);
    args_free(n.args);
    return exit_code;
}
