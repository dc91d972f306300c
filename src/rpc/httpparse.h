/* An HTTP/1.x request parser with Core's limits and strictness (its own server since v31
 * replaced libevent's evhttp): a request line of at most RPC_MAX_HEADER_BYTES, header lines
 * totalling at most RPC_MAX_HEADER_BYTES (chunked trailers count too), a body of at most
 * RPC_MAX_BODY_BYTES given by Content-Length or chunked transfer coding (which wins over
 * Content-Length), and 400 for anything malformed: a NUL or a bare CR, whitespace in a field
 * name, a folded header line, a version other than HTTP/1.x, differing Content-Length values.
 *
 * No I/O: rpc_http_parse() consumes bytes from a libevent buffer as they arrive and says
 * when a request is whole. One parser per connection; not thread-safe.
 */
#ifndef BITNODE_RPC_HTTPPARSE_H
#define BITNODE_RPC_HTTPPARSE_H

#include <stdbool.h>
#include <stddef.h>

struct evbuffer;

enum rpc_http_method {
    RPC_HTTP_METHOD_GET,
    RPC_HTTP_METHOD_POST,
    RPC_HTTP_METHOD_HEAD,
    RPC_HTTP_METHOD_PUT,
    RPC_HTTP_METHOD_UNKNOWN, /* any other token: Core answers 405 */
};

struct rpc_http_header {
    char *name;
    char *value; /* trimmed of surrounding blanks */
};

/* A parsed request. Owned by the parser until taken with rpc_http_parser_take(). */
struct rpc_http_message {
    enum rpc_http_method method;
    char method_text[16]; /* as received, truncated; for logs */
    char *target;         /* the request target, e.g. "/rest/block/00..ff.json?x=1" */
    int version_minor;    /* HTTP/1.<minor> */
    struct rpc_http_header *headers;
    size_t n_headers, cap_headers;
    char *body; /* body_len bytes and a NUL */
    size_t body_len;
};

enum rpc_http_parse_result {
    RPC_HTTP_PARSE_MORE = 0,        /* consumed what there was; the request is not whole */
    RPC_HTTP_PARSE_DONE = 1,        /* a request is whole: take it */
    RPC_HTTP_PARSE_BAD = -1,        /* malformed or over the header limit: answer 400, close */
    RPC_HTTP_PARSE_TOO_LARGE = -2,  /* the body is over the limit: answer 413, close */
};

struct rpc_http_parser;

/** Returns a parser waiting for a request line. Never NULL. */
struct rpc_http_parser *rpc_http_parser_new(void);
/** Frees p and any request it holds (NULL: no-op). */
void rpc_http_parser_free(struct rpc_http_parser *p);
/** Consumes bytes of in (removing them) until a request is whole, more bytes are needed, or
 *  the input is refused. After DONE, take the request; bytes after it (a pipelined request)
 *  stay in in. After BAD or TOO_LARGE the parser refuses everything; *why (may be NULL) is a
 *  static text for the log. */
enum rpc_http_parse_result rpc_http_parse(struct rpc_http_parser *p, struct evbuffer *in,
                                          const char **why);
/** Moves the whole request out (caller frees it with rpc_http_message_free) and readies the
 *  parser for the next one. Returns NULL unless the last parse said DONE. */
struct rpc_http_message *rpc_http_parser_take(struct rpc_http_parser *p);
/** The request version seen so far (1 before a request line was read): replies use it. */
int rpc_http_parser_version_minor(const struct rpc_http_parser *p);
/** Frees m (NULL: no-op). */
void rpc_http_message_free(struct rpc_http_message *m);
/** Returns the first value of header name (case-insensitive), or NULL. */
const char *rpc_http_message_header(const struct rpc_http_message *m, const char *name);
/** Returns whether the connection stays open after the reply, as Core decides it: HTTP/1.1
 *  unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive". */
bool rpc_http_message_keep_alive(const struct rpc_http_message *m);

#endif
