#include "rpc/httpparse.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

#include "rpc/protocol.h"
#include "util/xmalloc.h"

enum state {
    ST_REQUEST_LINE,
    ST_HEADERS,
    ST_BODY,       /* Content-Length bytes */
    ST_CHUNK_SIZE, /* a chunk-size line */
    ST_CHUNK_DATA, /* chunk_left bytes, then a CRLF */
    ST_TRAILERS,   /* after the last chunk: lines up to an empty one */
    ST_DONE,
    ST_FAILED,
};

struct rpc_http_parser {
    enum state state;
    struct rpc_http_message *msg;
    size_t header_bytes;      /* header and trailer bytes consumed, against the limit */
    uint64_t body_want;       /* ST_BODY: the Content-Length */
    uint64_t chunk_left;      /* ST_CHUNK_DATA: bytes of the chunk still to come */
    bool chunk_crlf;          /* ST_CHUNK_DATA: the chunk's data is in; its CRLF is next */
    struct evbuffer *body;    /* the body so far */
    int version_minor;
    char line[RPC_MAX_HEADER_BYTES + 2];
};

struct rpc_http_parser *rpc_http_parser_new(void)
{
    struct rpc_http_parser *p = xcalloc(1, sizeof(*p));
    p->body = evbuffer_new();
    if (!p->body) {
        abort();
    }
    p->version_minor = 1;
    return p;
}

void rpc_http_message_free(struct rpc_http_message *m)
{
    if (!m) {
        return;
    }
    for (size_t i = 0; i < m->n_headers; i++) {
        free(m->headers[i].name);
        free(m->headers[i].value);
    }
    free(m->headers);
    free(m->target);
    free(m->body);
    free(m);
}

void rpc_http_parser_free(struct rpc_http_parser *p)
{
    if (!p) {
        return;
    }
    rpc_http_message_free(p->msg);
    evbuffer_free(p->body);
    free(p);
}

int rpc_http_parser_version_minor(const struct rpc_http_parser *p)
{
    return p->version_minor;
}

const char *rpc_http_message_header(const struct rpc_http_message *m, const char *name)
{
    for (size_t i = 0; i < m->n_headers; i++) {
        if (strcasecmp(m->headers[i].name, name) == 0) {
            return m->headers[i].value;
        }
    }
    return NULL;
}

bool rpc_http_message_keep_alive(const struct rpc_http_message *m)
{
    const char *c = rpc_http_message_header(m, "Connection");
    if (c && strcasecmp(c, "close") == 0) {
        return false;
    }
    if (m->version_minor == 0) {
        return c && strcasecmp(c, "keep-alive") == 0;
    }
    return true;
}

/* Reads one line ending in LF (a CR before it is dropped) into p->line.
 * Returns 1 with *len set, 0 if no whole line is there yet, -1 if the line is too long. */
static int read_line(struct rpc_http_parser *p, struct evbuffer *in, size_t *len,
                     size_t *consumed)
{
    struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
    if (eol.pos < 0) {
        return evbuffer_get_length(in) > RPC_MAX_HEADER_BYTES ? -1 : 0;
    }
    size_t n = (size_t)eol.pos;
    if (n > RPC_MAX_HEADER_BYTES) {
        return -1;
    }
    evbuffer_remove(in, p->line, n + 1);
    *consumed = n + 1;
    if (n > 0 && p->line[n - 1] == '\r') {
        n--;
    }
    p->line[n] = 0;
    *len = n;
    return 1;
}

static enum rpc_http_parse_result fail(struct rpc_http_parser *p, enum rpc_http_parse_result r,
                                       const char *text, const char **why)
{
    p->state = ST_FAILED;
    if (why) {
        *why = text;
    }
    return r;
}

static enum rpc_http_method method_of(const char *m, size_t n)
{
    static const struct {
        const char *name;
        enum rpc_http_method method;
    } known[] = {{"GET", RPC_HTTP_METHOD_GET},
                 {"POST", RPC_HTTP_METHOD_POST},
                 {"HEAD", RPC_HTTP_METHOD_HEAD},
                 {"PUT", RPC_HTTP_METHOD_PUT}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strlen(known[i].name) == n && memcmp(known[i].name, m, n) == 0) {
            return known[i].method;
        }
    }
    return RPC_HTTP_METHOD_UNKNOWN;
}

/* "METHOD SP target SP HTTP/1.d": exactly three words split by single spaces. */
static const char *parse_request_line(struct rpc_http_parser *p, const char *line, size_t len)
{
    if (len < strlen("GET / HTTP/1.0")) {
        return "HTTP request line too short";
    }
    if (memchr(line, 0, len)) {
        return "Invalid request line contains NUL";
    }
    const char *sp1 = memchr(line, ' ', len);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line)) : NULL;
    if (!sp2 || memchr(sp2 + 1, ' ', len - (size_t)(sp2 + 1 - line))) {
        return "HTTP request line malformed";
    }
    const char *ver = sp2 + 1;
    size_t ver_len = len - (size_t)(ver - line);
    if (ver_len < 5 || memcmp(ver, "HTTP/", 5) != 0) {
        return "HTTP request line malformed";
    }
    const char *dot = memchr(ver + 5, '.', ver_len - 5);
    if (!dot || memchr(dot + 1, '.', ver_len - (size_t)(dot + 1 - ver))) {
        return "HTTP request line malformed";
    }
    if (dot - (ver + 5) != 1 || ver_len - (size_t)(dot + 1 - ver) != 1 || ver[5] != '1' ||
        dot[1] < '0' || dot[1] > '9') {
        return "HTTP bad version";
    }
    struct rpc_http_message *m = xcalloc(1, sizeof(*m));
    size_t mlen = (size_t)(sp1 - line);
    m->method = method_of(line, mlen);
    size_t keep = mlen < sizeof(m->method_text) - 1 ? mlen : sizeof(m->method_text) - 1;
    memcpy(m->method_text, line, keep);
    m->target = xstrndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
    m->version_minor = dot[1] - '0';
    p->version_minor = m->version_minor;
    p->msg = m;
    return NULL;
}

static char *trimmed(const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    return xstrndup(s, n);
}

/* One field line "name: value". store false: checked only (trailers). */
static const char *parse_field(struct rpc_http_parser *p, const char *line, size_t len, bool store)
{
    if (memchr(line, 0, len) || memchr(line, '\r', len)) {
        return "Header contains invalid character";
    }
    const char *colon = memchr(line, ':', len);
    if (!colon) {
        return "HTTP header missing colon (:)";
    }
    size_t name_len = (size_t)(colon - line);
    for (size_t i = 0; i < name_len; i++) {
        if (strchr(" \t\n\r\f\v", line[i])) {
            return "Invalid header field-name contains whitespace";
        }
    }
    if (name_len == 0) {
        return "Empty HTTP header name";
    }
    if (!store) {
        return NULL;
    }
    struct rpc_http_message *m = p->msg;
    if (m->n_headers == m->cap_headers) {
        m->cap_headers = m->cap_headers ? 2 * m->cap_headers : 16;
        m->headers = xrealloc(m->headers, m->cap_headers * sizeof(*m->headers));
    }
    m->headers[m->n_headers].name = xstrndup(line, name_len);
    m->headers[m->n_headers].value = trimmed(colon + 1, len - name_len - 1);
    m->n_headers++;
    return NULL;
}

/* Reads field lines up to the empty one. Returns 1 at the end, 0 for more, or fails. */
static int parse_fields(struct rpc_http_parser *p, struct evbuffer *in, bool store,
                        const char **err)
{
    for (;;) {
        size_t len, used;
        int r = read_line(p, in, &len, &used);
        if (r < 0) {
            *err = "HTTP headers exceed size limit";
            return -1;
        }
        if (r == 0) {
            return 0;
        }
        p->header_bytes += used;
        if (p->header_bytes > RPC_MAX_HEADER_BYTES) {
            *err = "HTTP headers exceed size limit";
            return -1;
        }
        if (len == 0) {
            return 1;
        }
        if ((*err = parse_field(p, p->line, len, store)) != NULL) {
            return -1;
        }
    }
}

static bool parse_u64(const char *s, int base, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ') {
        return false;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || *end != 0) {
        return false;
    }
    *out = v;
    return true;
}

/* After the headers: how the body comes (Core's LoadBody). */
static enum rpc_http_parse_result begin_body(struct rpc_http_parser *p, const char **why)
{
    const char *te = rpc_http_message_header(p->msg, "Transfer-Encoding");
    if (te && strcasecmp(te, "chunked") == 0) {
        p->state = ST_CHUNK_SIZE;
        return RPC_HTTP_PARSE_MORE;
    }
    const char *cl = NULL;
    for (size_t i = 0; i < p->msg->n_headers; i++) {
        if (strcasecmp(p->msg->headers[i].name, "Content-Length") != 0) {
            continue;
        }
        if (cl && strcmp(cl, p->msg->headers[i].value) != 0) {
            return fail(p, RPC_HTTP_PARSE_BAD, "Differing Content-Length values", why);
        }
        cl = p->msg->headers[i].value;
    }
    p->body_want = 0;
    if (cl && !parse_u64(cl, 10, &p->body_want)) {
        return fail(p, RPC_HTTP_PARSE_BAD, "Cannot parse Content-Length value", why);
    }
    if (p->body_want > RPC_MAX_BODY_BYTES) {
        return fail(p, RPC_HTTP_PARSE_TOO_LARGE, "Max body size exceeded", why);
    }
    p->state = ST_BODY;
    return RPC_HTTP_PARSE_MORE;
}

/* One step of a chunked body. Returns 1 to go on, 0 for more input, or fails. */
static int chunk_step(struct rpc_http_parser *p, struct evbuffer *in, const char **err,
                      bool *too_large)
{
    size_t len, used;
    if (p->state == ST_CHUNK_SIZE) {
        int r = read_line(p, in, &len, &used);
        if (r <= 0) {
            *err = "Cannot parse chunk length value";
            return r;
        }
        char *semi = strchr(p->line, ';'); /* chunk extensions are allowed and ignored */
        if (semi) {
            *semi = 0;
        }
        char *t = trimmed(p->line, strlen(p->line));
        uint64_t size;
        bool ok = parse_u64(t, 16, &size);
        free(t);
        if (!ok) {
            *err = "Cannot parse chunk length value";
            return -1;
        }
        size_t have = evbuffer_get_length(p->body);
        if (size > RPC_MAX_BODY_BYTES - have) {
            *err = "Chunk will exceed max body size";
            *too_large = true;
            return -1;
        }
        p->state = size == 0 ? ST_TRAILERS : ST_CHUNK_DATA;
        p->chunk_left = size;
        p->chunk_crlf = false;
        return 1;
    }
    if (!p->chunk_crlf) {
        size_t avail = evbuffer_get_length(in);
        size_t take = avail < p->chunk_left ? avail : (size_t)p->chunk_left;
        evbuffer_remove_buffer(in, p->body, take);
        p->chunk_left -= take;
        if (p->chunk_left > 0) {
            return 0;
        }
        p->chunk_crlf = true;
    }
    int r = read_line(p, in, &len, &used);
    if (r < 0 || (r == 1 && len != 0)) {
        *err = "Improperly terminated chunk";
        return -1;
    }
    if (r == 1) {
        p->state = ST_CHUNK_SIZE;
    }
    return r;
}

static void finish(struct rpc_http_parser *p)
{
    struct rpc_http_message *m = p->msg;
    m->body_len = evbuffer_get_length(p->body);
    m->body = xmalloc(m->body_len + 1);
    evbuffer_remove(p->body, m->body, m->body_len);
    m->body[m->body_len] = 0;
    p->state = ST_DONE;
}

/* Runs the states while input moves them on. */
static enum rpc_http_parse_result step(struct rpc_http_parser *p, struct evbuffer *in,
                                       const char **why)
{
    const char *err = NULL;
    size_t len, used;
    int r;
    switch (p->state) {
    case ST_REQUEST_LINE:
        r = read_line(p, in, &len, &used);
        if (r < 0) {
            return fail(p, RPC_HTTP_PARSE_BAD, "HTTP request line too long", why);
        }
        if (r == 0) {
            return RPC_HTTP_PARSE_MORE;
        }
        if ((err = parse_request_line(p, p->line, len)) != NULL) {
            return fail(p, RPC_HTTP_PARSE_BAD, err, why);
        }
        p->header_bytes = 0;
        p->state = ST_HEADERS;
        return step(p, in, why);
    case ST_HEADERS:
    case ST_TRAILERS:
        r = parse_fields(p, in, p->state == ST_HEADERS, &err);
        if (r < 0) {
            return fail(p, RPC_HTTP_PARSE_BAD, err, why);
        }
        if (r == 0) {
            return RPC_HTTP_PARSE_MORE;
        }
        if (p->state == ST_TRAILERS) {
            finish(p);
            return RPC_HTTP_PARSE_DONE;
        }
        if ((r = begin_body(p, why)) != RPC_HTTP_PARSE_MORE) {
            return (enum rpc_http_parse_result)r;
        }
        return step(p, in, why);
    case ST_BODY: {
        size_t want = (size_t)p->body_want - evbuffer_get_length(p->body);
        size_t avail = evbuffer_get_length(in);
        evbuffer_remove_buffer(in, p->body, avail < want ? avail : want);
        if (evbuffer_get_length(p->body) < p->body_want) {
            return RPC_HTTP_PARSE_MORE;
        }
        finish(p);
        return RPC_HTTP_PARSE_DONE;
    }
    case ST_CHUNK_SIZE:
    case ST_CHUNK_DATA: {
        bool too_large = false;
        while ((r = chunk_step(p, in, &err, &too_large)) == 1 && p->state != ST_TRAILERS) {
        }
        if (r < 0) {
            return fail(p, too_large ? RPC_HTTP_PARSE_TOO_LARGE : RPC_HTTP_PARSE_BAD, err, why);
        }
        return r == 0 ? RPC_HTTP_PARSE_MORE : step(p, in, why);
    }
    case ST_DONE:
        return RPC_HTTP_PARSE_DONE;
    case ST_FAILED:
        break;
    }
    if (why) {
        *why = "request refused earlier";
    }
    return RPC_HTTP_PARSE_BAD;
}

enum rpc_http_parse_result rpc_http_parse(struct rpc_http_parser *p, struct evbuffer *in,
                                          const char **why)
{
    if (why) {
        *why = NULL;
    }
    return step(p, in, why);
}

struct rpc_http_message *rpc_http_parser_take(struct rpc_http_parser *p)
{
    if (p->state != ST_DONE) {
        return NULL;
    }
    struct rpc_http_message *m = p->msg;
    p->msg = NULL;
    p->state = ST_REQUEST_LINE;
    p->header_bytes = 0;
    p->version_minor = 1;
    return m;
}
