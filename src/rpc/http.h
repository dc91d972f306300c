/* The HTTP/1.1 connections of the RPC port, on libevent bufferevents, behaving as Core's own
 * HTTP server (v31): persistent connections (HTTP/1.1 by default, HTTP/1.0 with
 * "Connection: keep-alive"), pipelined requests answered one at a time in order, chunked
 * request bodies, Core's limits and status lines (httpparse.h: 400 "Bad Request" and 413
 * "Content too large", then the connection closes), and -rpcservertimeout as an idle
 * timeout that does not run while a request is being answered.
 *
 * Threads: everything here runs on the thread of the event base, except that a request's
 * accessors may be called from any thread while the request is being answered (the loop does
 * not touch a request it handed out). rpc_http_respond() must run on the loop thread (hop
 * there with event_base_once).
 */
#ifndef BITNODE_RPC_HTTP_H
#define BITNODE_RPC_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/httpparse.h"

struct event_base;
struct rpc_http;
struct rpc_http_request;

/* Called on the loop thread with a whole request, which the callee must answer exactly once
 * with rpc_http_respond() (at once or later). */
typedef void (*rpc_http_request_cb)(void *arg, struct rpc_http_request *req);
/* Called on the loop thread for each accepted connection: false closes it unanswered. */
typedef bool (*rpc_http_allow_cb)(void *arg, const char *ip);

struct rpc_http_options {
    struct event_base *base; /* borrowed */
    const int *listen_fds;   /* bound, listening, non-blocking; taken over (closed at free) */
    size_t n_listen;
    int timeout_s; /* idle timeout; <= 0: none */
    rpc_http_request_cb on_request;
    rpc_http_allow_cb allow;
    void *arg;
};

/** Starts accepting on the sockets. Returns 0 with *out set, or RC_IO. */
int rpc_http_new(const struct rpc_http_options *opt, struct rpc_http **out);
/** Closes the listeners and every connection; the loop must not be running. Requests still
 *  out are abandoned (their replies must not be sent). NULL: no-op. */
void rpc_http_free(struct rpc_http *h);

/** Answers req and frees it. extra: header lines ("Name", "value") pairs, n_extra pairs. A
 *  body without a Content-Type among them goes as "text/html; charset=ISO-8859-1" (Core's,
 *  from libevent). A HEAD request gets the headers only. Loop thread only. */
void rpc_http_respond(struct rpc_http_request *req, int status, const char *const *extra,
                      size_t n_extra, const void *body, size_t len);

/** How many connections have reply bytes not yet handed to the kernel (any thread): a stop
 *  waits for 0 before it ends the loop, so that the last replies (the stop RPC's) go out. */
int rpc_http_unsent(const struct rpc_http *h);

/** The parsed request (method, target, headers, body). */
const struct rpc_http_message *rpc_http_request_message(const struct rpc_http_request *req);
/** The peer's numeric address and port. */
const char *rpc_http_request_peer(const struct rpc_http_request *req, uint16_t *port);

/** Core's reason phrase for a status ("Content too large" for 413), "" if none. */
const char *rpc_http_reason(int status);

#endif
