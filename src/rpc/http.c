#include "rpc/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "rpc/protocol.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MAX_LISTENERS 8

struct conn {
    struct rpc_http *h;
    struct bufferevent *bev; /* NULL once closed */
    struct event *kick;      /* runs parse() from the loop, for pipelined input */
    struct rpc_http_parser *parser;
    uint64_t id;
    char ip[INET6_ADDRSTRLEN];
    uint16_t port;
    bool busy;        /* a request is out with the handler */
    bool close_after; /* close once the output is written */
    bool writing;     /* a reply is in the output, not all sent yet (counted in unsent) */
    struct conn *prev, *next;
};

struct rpc_http_request {
    struct conn *conn;
    struct rpc_http_message *msg;
};

struct rpc_http {
    struct rpc_http_options opt;
    struct evconnlistener *listeners[MAX_LISTENERS];
    size_t n_listeners;
    struct conn *conns; /* every connection not yet freed */
    uint64_t next_id;
    atomic_int unsent; /* connections with reply bytes not yet sent; read by any thread */
};

const char *rpc_http_reason(int status)
{
    switch (status) {
    case RPC_HTTP_OK:
        return "OK";
    case RPC_HTTP_NO_CONTENT:
        return "No Content";
    case RPC_HTTP_BAD_REQUEST:
        return "Bad Request";
    case RPC_HTTP_UNAUTHORIZED:
        return "Unauthorized";
    case RPC_HTTP_FORBIDDEN:
        return "Forbidden";
    case RPC_HTTP_NOT_FOUND:
        return "Not Found";
    case RPC_HTTP_BAD_METHOD:
        return "Method Not Allowed";
    case RPC_HTTP_PAYLOAD_TOO_LARGE:
        return "Content too large";
    case RPC_HTTP_INTERNAL_SERVER_ERROR:
        return "Internal Server Error";
    case RPC_HTTP_SERVICE_UNAVAILABLE:
        return "Service Unavailable";
    default:
        return "";
    }
}

/* ---- connections --------------------------------------------------------------------- */

/* The output went out (or never will): the connection no longer counts as unsent. */
static void done_writing(struct conn *c)
{
    if (c->writing) {
        c->writing = false;
        atomic_fetch_sub(&c->h->unsent, 1);
    }
}

static void conn_unlink_free(struct conn *c)
{
    done_writing(c);
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        c->h->conns = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    if (c->bev) {
        bufferevent_free(c->bev);
    }
    event_free(c->kick);
    rpc_http_parser_free(c->parser);
    free(c);
}

/* Closes the socket; the connection itself goes when no request of it is out. */
static void conn_close(struct conn *c)
{
    if (!c->bev) {
        return;
    }
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Disconnecting HTTP client %s:%u (id=%llu)", c->ip,
        c->port, (unsigned long long)c->id);
    bufferevent_free(c->bev);
    c->bev = NULL;
    done_writing(c);
    if (!c->busy) {
        conn_unlink_free(c);
    }
}

static void add_date(struct evbuffer *out)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    evbuffer_add_printf(out, "Date: %s\r\n", date);
}

struct reply {
    int version_minor;
    int status;
    const char *const *extra; /* name, value pairs */
    size_t n_extra;
    const void *body;
    size_t len;
    bool head;                /* send no body */
    const char *connection;   /* a Connection header, or NULL */
};

/* Queues the status line, the headers and the body on the connection's output. */
static void write_reply(struct conn *c, const struct reply *r)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);
    evbuffer_add_printf(out, "HTTP/1.%d %d %s\r\n", r->version_minor, r->status,
                        rpc_http_reason(r->status));
    bool has_type = false;
    for (size_t i = 0; i < r->n_extra; i++) {
        evbuffer_add_printf(out, "%s: %s\r\n", r->extra[2 * i], r->extra[2 * i + 1]);
        has_type |= strcasecmp(r->extra[2 * i], "Content-Type") == 0;
    }
    if (r->version_minor >= 1) {
        add_date(out);
    }
    bool needs_body = r->status != RPC_HTTP_NO_CONTENT && r->status >= 200;
    if (needs_body) {
        evbuffer_add_printf(out, "Content-Length: %zu\r\n", r->len);
        if (!has_type) {
            evbuffer_add_printf(out, "Content-Type: text/html; charset=ISO-8859-1\r\n");
        }
    }
    if (r->connection) {
        evbuffer_add_printf(out, "Connection: %s\r\n", r->connection);
    }
    evbuffer_add(out, "\r\n", 2);
    if (needs_body && !r->head && r->len > 0) {
        evbuffer_add(out, r->body, r->len);
    }
    if (!c->writing) {
        c->writing = true;
        atomic_fetch_add(&c->h->unsent, 1);
    }
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG,
        "HTTPResponse (status code: %d size: %zu) added to send buffer for client %s:%u "
        "(id=%llu)",
        r->status, evbuffer_get_length(out), c->ip, c->port, (unsigned long long)c->id);
}

/* A refused request: Core's no-store error reply, then the connection closes. */
static void refuse(struct conn *c, int status, const char *why)
{
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "%s from client %s:%u (id=%llu): %s",
        status == RPC_HTTP_PAYLOAD_TOO_LARGE ? "HTTP request body too large"
                                             : "Error reading HTTP request",
        c->ip, c->port, (unsigned long long)c->id, why ? why : "");
    static const char *const no_store[] = {"Cache-Control", "no-store"};
    struct reply r = {.version_minor = rpc_http_parser_version_minor(c->parser),
                      .status = status,
                      .extra = no_store,
                      .n_extra = 1};
    write_reply(c, &r);
    c->close_after = true;
    bufferevent_disable(c->bev, EV_READ);
    evbuffer_drain(bufferevent_get_input(c->bev), evbuffer_get_length(bufferevent_get_input(c->bev)));
}

static const char *method_text(const struct rpc_http_message *m)
{
    return m->method_text[0] ? m->method_text : "unknown";
}

/* Parses what has arrived; hands a whole request to the handler. */
static void parse(struct conn *c)
{
    if (!c->bev || c->busy || c->close_after) {
        return;
    }
    const char *why = NULL;
    enum rpc_http_parse_result r = rpc_http_parse(c->parser, bufferevent_get_input(c->bev), &why);
    if (r == RPC_HTTP_PARSE_BAD) {
        refuse(c, RPC_HTTP_BAD_REQUEST, why);
        return;
    }
    if (r == RPC_HTTP_PARSE_TOO_LARGE) {
        refuse(c, RPC_HTTP_PAYLOAD_TOO_LARGE, why);
        return;
    }
    if (r != RPC_HTTP_PARSE_DONE) {
        return;
    }
    struct rpc_http_request *req = xcalloc(1, sizeof(*req));
    req->conn = c;
    req->msg = rpc_http_parser_take(c->parser);
    char target[200];
    log_sanitize(target, sizeof(target), req->msg->target);
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Received a %s request for %s from %s:%u (id=%llu)",
        method_text(req->msg), target, c->ip, c->port, (unsigned long long)c->id);
    /* One request at a time: the next (pipelined) one waits in the buffers, and the idle
     * timeout does not run while this one is being answered. */
    c->busy = true;
    bufferevent_disable(c->bev, EV_READ);
    c->h->opt.on_request(c->h->opt.arg, req);
}

static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    parse(arg);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
    (void)bev;
    parse(arg);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    (void)bev;
    struct conn *c = arg;
    done_writing(c);
    if (c->close_after) {
        conn_close(c);
    }
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    struct conn *c = arg;
    if (what & BEV_EVENT_TIMEOUT) {
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "HTTP client idle timeout %s:%u (id=%llu)", c->ip,
            c->port, (unsigned long long)c->id);
    } else if (what & BEV_EVENT_EOF) {
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Received EOF from %s:%u (id=%llu)", c->ip, c->port,
            (unsigned long long)c->id);
    }
    conn_close(c);
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
    (void)l;
    (void)len;
    struct rpc_http *h = arg;
    char ip[INET6_ADDRSTRLEN] = "";
    uint16_t port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        port = ntohs(in->sin_port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
        port = ntohs(in6->sin6_port);
    }
    if (h->opt.allow && !h->opt.allow(h->opt.arg, ip)) {
        LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG,
            "Connection from %s:%u rejected: Client network is not allowed HTTP access", ip, port);
        close(fd);
        return;
    }
    struct bufferevent *bev = bufferevent_socket_new(h->opt.base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        close(fd);
        return;
    }
    struct conn *c = xcalloc(1, sizeof(*c));
    c->h = h;
    c->bev = bev;
    c->kick = event_new(h->opt.base, -1, 0, kick_cb, c);
    c->parser = rpc_http_parser_new();
    c->id = h->next_id++;
    snprintf(c->ip, sizeof(c->ip), "%s", ip);
    c->port = port;
    c->next = h->conns;
    if (h->conns) {
        h->conns->prev = c;
    }
    h->conns = c;
    bufferevent_setcb(bev, read_cb, write_cb, event_cb, c);
    if (h->opt.timeout_s > 0) {
        struct timeval tv = {.tv_sec = h->opt.timeout_s};
        bufferevent_set_timeouts(bev, &tv, &tv);
    }
    bufferevent_enable(bev, EV_READ | EV_WRITE);
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "HTTP Connection accepted from %s:%u (id=%llu)", ip, port,
        (unsigned long long)c->id);
}

static void accept_error_cb(struct evconnlistener *l, void *arg)
{
    (void)l;
    (void)arg;
    LOG(LOG_CAT_HTTP, LOG_LVL_DEBUG, "Error accepting an HTTP connection: %s",
        evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

/* ---- the API ------------------------------------------------------------------------- */

int rpc_http_new(const struct rpc_http_options *opt, struct rpc_http **out)
{
    struct rpc_http *h = xcalloc(1, sizeof(*h));
    h->opt = *opt;
    for (size_t i = 0; i < opt->n_listen && i < MAX_LISTENERS; i++) {
        struct evconnlistener *l = evconnlistener_new(opt->base, accept_cb, h,
                                                      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
                                                      -1, opt->listen_fds[i]);
        if (!l) {
            rpc_http_free(h);
            return RC_IO;
        }
        evconnlistener_set_error_cb(l, accept_error_cb);
        h->listeners[h->n_listeners++] = l;
    }
    *out = h;
    return RC_OK;
}

void rpc_http_free(struct rpc_http *h)
{
    if (!h) {
        return;
    }
    for (size_t i = 0; i < h->n_listeners; i++) {
        evconnlistener_free(h->listeners[i]);
    }
    while (h->conns) {
        conn_unlink_free(h->conns);
    }
    free(h);
}

void rpc_http_respond(struct rpc_http_request *req, int status, const char *const *extra,
                      size_t n_extra, const void *body, size_t len)
{
    struct conn *c = req->conn;
    struct rpc_http_message *m = req->msg;
    c->busy = false;
    if (!c->bev) { /* the client went away meanwhile */
        conn_unlink_free(c);
    } else {
        bool keep_alive = rpc_http_message_keep_alive(m);
        const char *conn_hdr = rpc_http_message_header(m, "Connection");
        bool said_close = conn_hdr && strcasecmp(conn_hdr, "close") == 0;
        struct reply r = {
            .version_minor = m->version_minor,
            .status = status,
            .extra = extra,
            .n_extra = n_extra,
            .body = body,
            .len = len,
            .head = m->method == RPC_HTTP_METHOD_HEAD,
            .connection = said_close                          ? "close"
                          : m->version_minor == 0 && keep_alive ? "keep-alive"
                                                                : NULL,
        };
        write_reply(c, &r);
        if (!keep_alive) {
            c->close_after = true;
        } else {
            bufferevent_enable(c->bev, EV_READ);
            event_active(c->kick, EV_TIMEOUT, 0); /* a pipelined request may be waiting */
        }
    }
    rpc_http_message_free(m);
    free(req);
}

int rpc_http_unsent(const struct rpc_http *h)
{
    return h ? atomic_load(&((struct rpc_http *)h)->unsent) : 0;
}

const struct rpc_http_message *rpc_http_request_message(const struct rpc_http_request *req)
{
    return req->msg;
}

const char *rpc_http_request_peer(const struct rpc_http_request *req, uint16_t *port)
{
    if (port) {
        *port = req->conn->port;
    }
    return req->conn->ip;
}
