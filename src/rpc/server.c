#include "rpc/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "rpc/auth.h"
#include "rpc/http.h"
#include "rpc/jsonrpc.h"
#include "rpc/rest.h"
#include "rpc/protocol.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define WWW_AUTH_HEADER "Basic realm=\"jsonrpc\""
#define MAX_LISTEN 8

struct work_item {
    struct rpc_server *srv;
    struct rpc_http_request *req; /* answered on the event loop thread */
    /* borrowed from the request, which the loop leaves alone until it is answered */
    const char *body;
    size_t body_len;
    const char *auth_header; /* NULL if absent */
    char *uri;               /* the path ("/"), or the whole target for REST */
    const char *peer;
    /* the reply, filled by a worker */
    int status;
    char *reply_body;
    bool want_auth_header;
    /* a REST request: its reply is the body of reply_len bytes with these headers */
    bool rest;
    size_t reply_len;
    const char *content_type;  /* NULL: none */
    const char *cache_control; /* NULL: none */
};

struct rpc_server {
    struct rpc_server_options opt; /* the pointers inside are not used after bind */
    atomic_int names;              /* numbers the workers' thread names */
    struct rpc_auth *auth;
    struct rpc_context *ctx; /* borrowed */
    struct rpc_subnet *allow;
    size_t n_allow;
    int listen_fd[MAX_LISTEN];
    size_t n_listen;
    uint16_t bound_port;

    struct event_base *base;
    struct rpc_http *http;
    pthread_t http_thread;
    bool http_running;

    pthread_mutex_t queue_mutex;
    pthread_cond_t queue_cond;
    struct work_item **queue; /* ring buffer of opt.work_queue items; guarded by queue_mutex */
    size_t q_head, q_len;     /* guarded by queue_mutex */
    bool q_stop;              /* guarded by queue_mutex */
    pthread_t *workers;
    int n_workers;

    atomic_bool stopping;
    atomic_int in_flight; /* requests accepted and not yet answered */
    bool stopped;
};

/* ---- subnets ------------------------------------------------------------------------- */

static void mask_from_prefix(uint8_t *mask, int bytes, int prefix)
{
    memset(mask, 0, 16);
    for (int i = 0; i < bytes; i++) {
        int bits = prefix - 8 * i;
        mask[i] = bits >= 8 ? 0xff : bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));
    }
}

int rpc_subnet_parse(const char *s, struct rpc_subnet *out)
{
    char addr[INET6_ADDRSTRLEN + 1];
    const char *slash = strchr(s, '/');
    size_t alen = slash ? (size_t)(slash - s) : strlen(s);
    if (alen == 0 || alen >= sizeof(addr)) {
        return RC_INVALID;
    }
    memcpy(addr, s, alen);
    addr[alen] = 0;
    if (addr[0] == '[' && alen > 2 && addr[alen - 1] == ']') { /* "[::1]", as Core takes it */
        memmove(addr, addr + 1, alen - 2);
        addr[alen - 2] = 0;
    }
    memset(out, 0, sizeof(*out));
    int bytes;
    if (inet_pton(AF_INET, addr, out->addr) == 1) {
        out->family = AF_INET;
        bytes = 4;
    } else if (inet_pton(AF_INET6, addr, out->addr) == 1) {
        out->family = AF_INET6;
        bytes = 16;
    } else {
        return RC_INVALID;
    }
    if (!slash) {
        mask_from_prefix(out->mask, bytes, bytes * 8);
    } else {
        const char *m = slash + 1;
        char *end;
        errno = 0;
        long prefix = strtol(m, &end, 10);
        if (*m && *end == 0 && errno == 0) {
            if (prefix < 0 || prefix > bytes * 8) {
                return RC_INVALID;
            }
            mask_from_prefix(out->mask, bytes, (int)prefix);
        } else if (inet_pton(out->family, m, out->mask) != 1) {
            return RC_INVALID;
        }
    }
    for (int i = 0; i < bytes; i++) {
        out->addr[i] &= out->mask[i];
    }
    return RC_OK;
}

bool rpc_subnet_match(const struct rpc_subnet *subnet, const char *ip)
{
    uint8_t a[16];
    int bytes = subnet->family == AF_INET ? 4 : 16;
    if (inet_pton(subnet->family, ip, a) != 1) {
        /* An IPv4-mapped IPv6 peer ("::ffff:1.2.3.4") against an IPv4 subnet. */
        if (subnet->family == AF_INET && strncmp(ip, "::ffff:", 7) == 0 &&
            inet_pton(AF_INET, ip + 7, a) == 1) {
            bytes = 4;
        } else {
            return false;
        }
    }
    for (int i = 0; i < bytes; i++) {
        if ((a[i] & subnet->mask[i]) != subnet->addr[i]) {
            return false;
        }
    }
    return true;
}

/* ---- binding ------------------------------------------------------------------------- */

/* Splits "host", "host:port", "[v6]", "[v6]:port" (a bare v6 address has no port). */
static int split_host_port(const char *s, char *host, size_t host_len, uint16_t *port)
{
    const char *colon = strrchr(s, ':');
    const char *h = s;
    size_t hl = strlen(s);
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close) {
            return RC_INVALID;
        }
        h = s + 1;
        hl = (size_t)(close - s - 1);
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] != 0 && close[1] != ':') {
            return RC_INVALID;
        }
    } else if (colon && strchr(s, ':') != colon) {
        colon = NULL; /* several colons: a bare IPv6 address */
    } else if (colon) {
        hl = (size_t)(colon - s);
    }
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end != 0 || colon[1] == 0 || p <= 0 || p > 65535) {
            return RC_INVALID;
        }
        *port = (uint16_t)p;
    }
    if (hl == 0 || hl >= host_len) {
        return RC_INVALID;
    }
    memcpy(host, h, hl);
    host[hl] = 0;
    return RC_OK;
}

/* Opens a listening socket on host:port. Returns the fd or -1 with err filled. */
static int listen_on(const char *host, uint16_t port, char *err, size_t err_len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res;
    char portstr[8];
    snprintf(portstr, sizeof(portstr), "%u", port);
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0) {
        snprintf(err, err_len, "cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) {
        snprintf(err, err_len, "socket: %s", strerror(errno));
        freeaddrinfo(res);
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (res->ai_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    /* Replies go out at once: with Nagle's algorithm a reply larger than a segment waited
     * for the client's delayed ACK (Linux's accepted sockets inherit this). */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        snprintf(err, err_len, "Binding RPC on address %s port %u failed: %s", host, port,
                 strerror(errno));
        close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    evutil_make_socket_nonblocking(fd);
    return fd;
}

static uint16_t socket_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        return 0;
    }
    if (ss.ss_family == AF_INET) {
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

int rpc_server_bind(const struct rpc_server_options *opt, struct rpc_server **out, char *err,
                    size_t err_len)
{
    struct rpc_server *s = xcalloc(1, sizeof(*s));
    s->opt = *opt;
    s->auth = opt->auth;
    s->ctx = opt->ctx;
    if (s->opt.threads < 1) {
        s->opt.threads = 1;
    }
    if (s->opt.work_queue < 1) {
        s->opt.work_queue = 1;
    }
    pthread_mutex_init(&s->queue_mutex, NULL);
    pthread_cond_init(&s->queue_cond, NULL);
    s->allow = xcalloc(opt->n_allow_ip + 2, sizeof(*s->allow));
    rpc_subnet_parse("127.0.0.0/8", &s->allow[s->n_allow++]);
    rpc_subnet_parse("::1", &s->allow[s->n_allow++]);
    for (size_t i = 0; i < opt->n_allow_ip; i++) {
        /* With -cjdnsreachable an fc00::/8 address is CJDNS, which has no subnets (Core's
         * LookupSubNet). */
        struct rpc_subnet *sn = &s->allow[s->n_allow];
        if (rpc_subnet_parse(opt->allow_ip[i], sn) != RC_OK ||
            (opt->cjdns_reachable && sn->family == AF_INET6 && sn->addr[0] == 0xfc &&
             strchr(opt->allow_ip[i], '/'))) {
            snprintf(err, err_len,
                     "Invalid -rpcallowip subnet specification: %s. Valid values are a single "
                     "IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0), a "
                     "network/CIDR (e.g. 1.2.3.4/24), all ipv4 (0.0.0.0/0), or all ipv6 (::/0). "
                     "RFC4193 is allowed only if -cjdnsreachable=0.",
                     opt->allow_ip[i]);
            rpc_server_free(s);
            return RC_INVALID;
        }
        s->n_allow++;
    }

    /* Core's rules (GetBindAddresses): both -rpcallowip and -rpcbind, or only loopback. */
    const char *defaults_local[] = {"::1", "127.0.0.1"};
    const char *const *binds = defaults_local;
    size_t n_binds = 2;
    bool defaults = true;
    if (opt->n_allow_ip == 0 && opt->n_bind > 0) {
        LOG_WARN("Option -rpcbind was ignored because -rpcallowip was not specified, refusing "
                 "to allow everyone to connect");
    } else if (opt->n_allow_ip > 0 && opt->n_bind == 0) {
        LOG_WARN("Option -rpcallowip was specified without -rpcbind; this doesn't usually "
                 "make sense");
    } else if (opt->n_bind > 0) {
        binds = opt->bind;
        n_binds = opt->n_bind;
        defaults = false;
    }
    char first_err[768] = "";
    for (size_t i = 0; i < n_binds && s->n_listen < MAX_LISTEN; i++) {
        char host[256];
        uint16_t port = opt->port;
        if (split_host_port(binds[i], host, sizeof(host), &port) != RC_OK) {
            snprintf(err, err_len, "Invalid port specified in -rpcbind: '%s'", binds[i]);
            rpc_server_free(s);
            return RC_INVALID;
        }
        /* With port 0 (tests), every socket after the first reuses the first's port. */
        if (port == 0 && s->n_listen > 0) {
            port = s->bound_port;
        }
        char e[768];
        int fd = listen_on(host, port, e, sizeof(e));
        if (fd < 0) {
            LOG_WARN("%s", e);
            if (!first_err[0]) {
                snprintf(first_err, sizeof(first_err), "%s", e);
            }
            if (!defaults) {
                snprintf(err, err_len, "%s", e);
                rpc_server_free(s);
                return RC_IO;
            }
            continue;
        }
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Binding RPC on address %s port %u", host,
            socket_port(fd));
        if (s->n_listen == 0) {
            s->bound_port = socket_port(fd);
        }
        s->listen_fd[s->n_listen++] = fd;
    }
    if (s->n_listen == 0) {
        snprintf(err, err_len, "Unable to bind any endpoint for RPC server (%s)", first_err);
        rpc_server_free(s);
        return RC_IO;
    }
    *out = s;
    return RC_OK;
}

uint16_t rpc_server_port(const struct rpc_server *s)
{
    return s->bound_port;
}

/* ---- replies (event loop thread) ----------------------------------------------------- */

static void work_item_free(struct work_item *w)
{
    free(w->uri);
    free(w->reply_body);
    free(w);
}

/* Answers req on the loop thread. body may be NULL. */
static void send_reply(struct rpc_server *s, struct rpc_http_request *req, int status,
                       const char *body, bool json, bool auth_challenge)
{
    const char *extra[4];
    size_t n = 0;
    if (auth_challenge) {
        extra[2 * n] = "WWW-Authenticate";
        extra[2 * n + 1] = WWW_AUTH_HEADER;
        n++;
    }
    if (json) {
        extra[2 * n] = "Content-Type";
        extra[2 * n + 1] = "application/json";
        n++;
    }
    rpc_http_respond(req, status, extra, n, body, body ? strlen(body) : 0);
    atomic_fetch_sub(&s->in_flight, 1);
}

/* A REST reply (rest.h): any bytes, Core's Content-Type and Cache-Control. */
static void send_rest_reply(struct rpc_server *s, struct work_item *w)
{
    const char *extra[4];
    size_t n = 0;
    if (w->content_type) {
        extra[2 * n] = "Content-Type";
        extra[2 * n + 1] = w->content_type;
        n++;
    }
    if (w->cache_control) {
        extra[2 * n] = "Cache-Control";
        extra[2 * n + 1] = w->cache_control;
        n++;
    }
    rpc_http_respond(w->req, w->status, extra, n, w->reply_body, w->reply_len);
    atomic_fetch_sub(&s->in_flight, 1);
}

/* Core's WriteNoStoreErrorReply: "Cache-Control: no-store" and an optional text. */
static void send_status(struct rpc_server *s, struct rpc_http_request *req, int status,
                        const char *text)
{
    static const char *const no_store[] = {"Cache-Control", "no-store"};
    rpc_http_respond(req, status, no_store, 1, text, text ? strlen(text) : 0);
    atomic_fetch_sub(&s->in_flight, 1);
}

static void reply_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct work_item *w = arg;
    if (w->rest) {
        send_rest_reply(w->srv, w);
    } else {
        send_reply(w->srv, w->req, w->status, w->reply_body, w->reply_body != NULL,
                   w->want_auth_header);
    }
    work_item_free(w);
}

/* ---- workers ------------------------------------------------------------------------- */

/* -rpcwhitelist (Core's HTTPReq_JSONRPC): a user without a whitelist when the default
 * allows nothing, or a request (any of a batch) for a method not in the user's whitelist,
 * is refused. A body that is not JSON is left for the dispatch to answer. */
static bool whitelisted(struct rpc_server *s, const struct work_item *w, const char *user)
{
    if (rpc_auth_may_call(s->auth, user, NULL) < 0) {
        LOG_WARN("RPC User %s not allowed to call any methods", user);
        return false;
    }
    json_t *body = json_loadb(w->body, w->body_len, 0, NULL);
    bool ok = true;
    size_t n = json_is_array(body) ? json_array_size(body) : 1;
    for (size_t i = 0; body && ok && i < n; i++) {
        json_t *req = json_is_array(body) ? json_array_get(body, i) : body;
        const char *m = json_string_value(json_object_get(req, "method"));
        if (rpc_auth_may_call(s->auth, user, m ? m : "") != 1) {
            LOG_WARN("RPC User %s not allowed to call method %s", user, m ? m : "");
            ok = false;
        }
    }
    json_decref(body);
    return ok;
}

static void process_rest(struct work_item *w)
{
    char warmup[256];
    bool warming = rpc_warmup_get(w->srv->ctx, warmup, sizeof(warmup));
    struct rest_reply r;
    rest_handle_body(w->srv->ctx, w->uri, (const uint8_t *)w->body, w->body_len,
                     warming ? warmup : NULL, &r);
    w->status = r.status;
    w->reply_body = r.body;
    w->reply_len = r.len;
    w->content_type = r.content_type;
    w->cache_control = r.cache_control;
}

static void process(struct work_item *w)
{
    struct rpc_server *s = w->srv;
    char *user = NULL;
    if (w->rest) {
        process_rest(w);
        return;
    }
    if (!w->auth_header) {
        w->status = RPC_HTTP_UNAUTHORIZED;
        w->want_auth_header = true;
        return;
    }
    if (!rpc_auth_check_header(s->auth, w->auth_header, &user)) {
        LOG_WARN("ThreadRPCServer incorrect password attempt from %s", w->peer);
        /* Deter brute-forcing. */
        time_sleep_ms(250);
        w->status = RPC_HTTP_UNAUTHORIZED;
        w->want_auth_header = true;
        return;
    }
    if (rpc_auth_whitelist_active(s->auth) && !whitelisted(s, w, user)) {
        free(user);
        w->status = RPC_HTTP_FORBIDDEN;
        return;
    }
    struct rpc_reply r;
    rpc_handle_body(s->ctx, w->body, w->body_len, user, w->uri, &r);
    w->status = r.http_status;
    w->reply_body = r.body;
    free(user);
}

static void *worker_main(void *arg)
{
    struct rpc_server *s = arg;
    char name[32];
    snprintf(name, sizeof(name), "httpworker.%d", atomic_fetch_add(&s->names, 1));
    log_thread_rename(name);
    for (;;) {
        pthread_mutex_lock(&s->queue_mutex);
        while (s->q_len == 0 && !s->q_stop) {
            pthread_cond_wait(&s->queue_cond, &s->queue_mutex);
        }
        if (s->q_len == 0) {
            pthread_mutex_unlock(&s->queue_mutex);
            return NULL;
        }
        struct work_item *w = s->queue[s->q_head];
        s->q_head = (s->q_head + 1) % (size_t)s->opt.work_queue;
        s->q_len--;
        pthread_mutex_unlock(&s->queue_mutex);
        process(w);
        if (event_base_once(s->base, -1, EV_TIMEOUT, reply_cb, w, NULL) != 0) {
            LOG_ERROR("cannot schedule an RPC reply");
            work_item_free(w);
        }
    }
}

/* ---- requests (event loop thread) ---------------------------------------------------- */

static bool allow_peer(void *arg, const char *ip)
{
    struct rpc_server *s = arg;
    for (size_t i = 0; i < s->n_allow; i++) {
        if (rpc_subnet_match(&s->allow[i], ip)) {
            return true;
        }
    }
    return false;
}

/* Core's http_request_cb: 405 for an unknown method, 503 while stopping, then the handler
 * whose path matches ("/" exactly; "/rest/" as a prefix with -rest), or 404. */
static void http_request_cb(void *arg, struct rpc_http_request *req)
{
    struct rpc_server *s = arg;
    const struct rpc_http_message *m = rpc_http_request_message(req);
    atomic_fetch_add(&s->in_flight, 1);
    if (m->method == RPC_HTTP_METHOD_UNKNOWN) {
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "HTTP request rejected: Unknown HTTP request method");
        send_status(s, req, RPC_HTTP_BAD_METHOD, NULL);
        return;
    }
    if (atomic_load(&s->stopping)) {
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Rejecting request while shutting down");
        send_status(s, req, RPC_HTTP_SERVICE_UNAVAILABLE, NULL);
        return;
    }
    const char *target = m->target;
    bool rest = s->opt.rest && strncmp(target, "/rest/", 6) == 0;
    size_t path_len = strcspn(target, "?#");
    if (!rest && !(path_len == 1 && target[0] == '/')) {
        send_status(s, req, RPC_HTTP_NOT_FOUND, NULL);
        return;
    }
    if (!rest && m->method != RPC_HTTP_METHOD_POST) {
        send_reply(s, req, RPC_HTTP_BAD_METHOD, "JSONRPC server handles only POST requests", false,
                   false);
        return;
    }
    struct work_item *w = xcalloc(1, sizeof(*w));
    w->srv = s;
    w->req = req;
    w->rest = rest;
    w->body = m->body;
    w->body_len = m->body_len;
    w->auth_header = rpc_http_message_header(m, "Authorization");
    w->uri = rest ? xstrdup(target) : xstrndup(target, path_len); /* REST reads the query */
    w->peer = rpc_http_request_peer(req, NULL);

    pthread_mutex_lock(&s->queue_mutex);
    bool full = s->q_len >= (size_t)s->opt.work_queue || s->q_stop;
    if (!full) {
        s->queue[(s->q_head + s->q_len) % (size_t)s->opt.work_queue] = w;
        s->q_len++;
        pthread_cond_signal(&s->queue_cond);
    }
    pthread_mutex_unlock(&s->queue_mutex);
    if (full) {
        LOG_WARN("Request rejected because http work queue depth exceeded, it can be "
                 "increased with the -rpcworkqueue= setting");
        work_item_free(w);
        send_status(s, req, RPC_HTTP_SERVICE_UNAVAILABLE, "Work queue depth exceeded");
    }
}

static void *http_thread_main(void *arg)
{
    struct rpc_server *s = arg;
    log_thread_start("http");
    event_base_dispatch(s->base);
    return NULL;
}

int rpc_server_start(struct rpc_server *s, char *err, size_t err_len)
{
    static bool threads_enabled;
    if (!threads_enabled) {
        evthread_use_pthreads();
        threads_enabled = true;
    }
    s->base = event_base_new();
    if (!s->base) {
        snprintf(err, err_len, "cannot create the libevent base");
        return RC_IO;
    }
    struct rpc_http_options ho = {.base = s->base,
                                  .listen_fds = s->listen_fd,
                                  .n_listen = s->n_listen,
                                  .timeout_s = s->opt.timeout_s > 0 ? s->opt.timeout_s : 30,
                                  .on_request = http_request_cb,
                                  .allow = allow_peer,
                                  .arg = s};
    if (rpc_http_new(&ho, &s->http) != RC_OK) {
        snprintf(err, err_len, "cannot accept on the RPC socket");
        return RC_IO;
    }
    for (size_t i = 0; i < s->n_listen; i++) {
        s->listen_fd[i] = -1; /* the listeners own them now */
    }
    s->queue = xcalloc((size_t)s->opt.work_queue, sizeof(*s->queue));
    s->workers = xcalloc((size_t)s->opt.threads, sizeof(*s->workers));
    for (int i = 0; i < s->opt.threads; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
            snprintf(err, err_len, "cannot start an RPC worker thread");
            rpc_server_stop(s);
            return RC_IO;
        }
        s->n_workers++;
    }
    if (pthread_create(&s->http_thread, NULL, http_thread_main, s) != 0) {
        snprintf(err, err_len, "cannot start the HTTP thread");
        rpc_server_stop(s);
        return RC_IO;
    }
    s->http_running = true;
    LOG_INFO("Starting HTTP server with %d worker threads", s->opt.threads);
    return RC_OK;
}

void rpc_server_stop(struct rpc_server *s)
{
    if (!s || s->stopped) {
        return;
    }
    s->stopped = true;
    atomic_store(&s->stopping, true);
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Stopping HTTP server");
    pthread_mutex_lock(&s->queue_mutex);
    s->q_stop = true;
    pthread_cond_broadcast(&s->queue_cond);
    pthread_mutex_unlock(&s->queue_mutex);
    for (int i = 0; i < s->n_workers; i++) {
        pthread_join(s->workers[i], NULL);
    }
    s->n_workers = 0;
    /* Let the loop write out the replies the workers produced (at most ~5 s). */
    for (int i = 0; i < 500 && s->http_running &&
                    (atomic_load(&s->in_flight) > 0 || rpc_http_unsent(s->http) > 0);
         i++) {
        time_sleep_ms(10);
    }
    if (s->http_running) {
        event_base_loopexit(s->base, NULL);
        pthread_join(s->http_thread, NULL);
        s->http_running = false;
    }
    /* As Core's StopHTTPServer: the listeners and the clients' connections close now, not
     * when the server is freed (a shutdown's flush can take minutes; a client waiting on a
     * connection nobody reads would wait as long). */
    rpc_http_free(s->http);
    s->http = NULL;
    /* libevent closes a freed bufferevent's socket from its finalizers, which run in the
     * loop or when the base is freed: free it here, or the sockets stay open. */
    if (s->base) {
        event_base_free(s->base);
        s->base = NULL;
    }
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Stopped HTTP server");
}

void rpc_server_free(struct rpc_server *s)
{
    if (!s) {
        return;
    }
    rpc_server_stop(s);
    rpc_http_free(s->http);
    if (s->base) {
        event_base_free(s->base);
    }
    for (size_t i = 0; i < s->n_listen; i++) {
        if (s->listen_fd[i] >= 0) {
            close(s->listen_fd[i]);
        }
    }
    /* Queued items cannot exist after stop: the workers drained the queue. */
    free(s->queue);
    free(s->workers);
    free(s->allow);
    pthread_mutex_destroy(&s->queue_mutex);
    pthread_cond_destroy(&s->queue_cond);
    free(s);
}
