/* Unit tests for the HTTP request parser (rpc/httpparse.h): Core's limits (8192-byte request
 * line and header section, 32 MiB body), its refusals (400 for malformed input, 413 for a
 * body over the limit), chunked bodies, pipelined requests, and input arriving a byte at a
 * time. */
#include <string.h>

#include <event2/buffer.h>

#include "rpc/httpparse.h"
#include "rpc/protocol.h"
#include "test.h"
#include "util/xmalloc.h"

/* Feeds text (n bytes) in one piece, or one byte at a time; returns the last result and
 * the request taken on DONE (or NULL). Leftover input stays in *in when given. */
static enum rpc_http_parse_result feed(const char *text, size_t n, bool bytewise,
                                       struct rpc_http_message **out, struct evbuffer *keep)
{
    struct rpc_http_parser *p = rpc_http_parser_new();
    struct evbuffer *in = keep ? keep : evbuffer_new();
    enum rpc_http_parse_result r = RPC_HTTP_PARSE_MORE;
    size_t step = bytewise ? 1 : n;
    for (size_t i = 0; i < n && r == RPC_HTTP_PARSE_MORE; i += step) {
        evbuffer_add(in, text + i, step < n - i ? step : n - i);
        r = rpc_http_parse(p, in, NULL);
    }
    *out = r == RPC_HTTP_PARSE_DONE ? rpc_http_parser_take(p) : NULL;
    rpc_http_parser_free(p);
    if (!keep) {
        evbuffer_free(in);
    }
    return r;
}

static enum rpc_http_parse_result feed_str(const char *text, struct rpc_http_message **out)
{
    return feed(text, strlen(text), false, out, NULL);
}

/* The result of text alone, the request (if any) freed. */
static int result_of(const char *text)
{
    struct rpc_http_message *m;
    int r = feed_str(text, &m);
    rpc_http_message_free(m);
    return r;
}

static void test_simple_post(void)
{
    const char *req = "POST / HTTP/1.1\r\nHost: x\r\nAuthorization:  Basic abc \r\n"
                      "Content-Length: 5\r\n\r\nhello";
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        struct rpc_http_message *m;
        CHECK_EQ_INT(feed(req, strlen(req), bytewise, &m, NULL), RPC_HTTP_PARSE_DONE);
        CHECK(m != NULL);
        if (!m) {
            continue;
        }
        CHECK_EQ_INT(m->method, RPC_HTTP_METHOD_POST);
        CHECK_EQ_STR(m->method_text, "POST");
        CHECK_EQ_STR(m->target, "/");
        CHECK_EQ_INT(m->version_minor, 1);
        CHECK_EQ_STR(rpc_http_message_header(m, "authorization"), "Basic abc");
        CHECK_EQ_INT(m->body_len, 5);
        CHECK_EQ_STR(m->body, "hello");
        CHECK(rpc_http_message_keep_alive(m));
        rpc_http_message_free(m);
    }
}

static void test_methods_and_versions(void)
{
    struct rpc_http_message *m;
    CHECK_EQ_INT(feed_str("TRACE /x HTTP/1.0\n\n", &m), RPC_HTTP_PARSE_DONE);
    CHECK(m && m->method == RPC_HTTP_METHOD_UNKNOWN && m->version_minor == 0);
    CHECK(m && !rpc_http_message_keep_alive(m));
    rpc_http_message_free(m);
    CHECK_EQ_INT(feed_str("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &m),
                 RPC_HTTP_PARSE_DONE);
    CHECK(m && rpc_http_message_keep_alive(m));
    rpc_http_message_free(m);
    CHECK_EQ_INT(feed_str("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", &m),
                 RPC_HTTP_PARSE_DONE);
    CHECK(m && !rpc_http_message_keep_alive(m));
    rpc_http_message_free(m);
    CHECK_EQ_INT(result_of("GET / HTTP/1.9\r\n\r\n"), RPC_HTTP_PARSE_DONE);
    /* Core's invalid versions and request lines */
    CHECK_EQ_INT(result_of("GET / \r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/9.9\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/INVALID\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / NOTHTTP/1.1\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/1.10\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET  / HTTP/1.1\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET /\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    static const char nul[] = "GET /safe\0/../etc/passwd HTTP/1.1\r\n\r\n";
    CHECK_EQ_INT(feed(nul, sizeof(nul) - 1, false, &m, NULL), RPC_HTTP_PARSE_BAD);
}

static void test_header_rules(void)
{
    CHECK_EQ_INT(result_of("GET / HTTP/1.1\r\nAuthorization : x\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/1.1\r\nA: Basic\r\n abc\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/1.1\r\nA: x\ry\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/1.1\r\nnocolon\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("GET / HTTP/1.1\r\n: empty\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab"),
                 RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab"),
                 RPC_HTTP_PARSE_DONE);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n"), RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: 33554433\r\n\r\n"),
                 RPC_HTTP_PARSE_TOO_LARGE);
    CHECK_EQ_INT(result_of("POST / HTTP/1.1\r\nContent-Length: 33554432\r\n\r\n"),
                 RPC_HTTP_PARSE_MORE);
}

/* A request line or header section of n bytes. */
static char *sized_request(size_t uri_len, size_t n_headers)
{
    size_t cap = uri_len + n_headers * 32 + 64;
    char *s = xmalloc(cap);
    size_t o = (size_t)snprintf(s, cap, "GET /");
    memset(s + o, 'x', uri_len);
    o += uri_len;
    o += (size_t)snprintf(s + o, cap - o, " HTTP/1.1\r\n");
    for (size_t i = 0; i < n_headers; i++) {
        o += (size_t)snprintf(s + o, cap - o, "header_%04zu: foo\r\n", i); /* 18 bytes */
    }
    snprintf(s + o, cap - o, "\r\n");
    return s;
}

static void test_limits(void)
{
    char *s = sized_request(RPC_MAX_HEADER_BYTES - 1000, 0);
    CHECK_EQ_INT(result_of(s), RPC_HTTP_PARSE_DONE);
    free(s);
    s = sized_request(RPC_MAX_HEADER_BYTES, 0);
    CHECK_EQ_INT(result_of(s), RPC_HTTP_PARSE_BAD);
    free(s);
    /* 454 lines of 18 bytes and the final CRLF: 8174 bytes, under; 456 lines: over */
    s = sized_request(1, 454);
    CHECK_EQ_INT(result_of(s), RPC_HTTP_PARSE_DONE);
    free(s);
    s = sized_request(1, 456);
    CHECK_EQ_INT(result_of(s), RPC_HTTP_PARSE_BAD);
    free(s);
    /* a line that never ends is refused once it is over the limit, not buffered for ever */
    struct rpc_http_parser *p = rpc_http_parser_new();
    struct evbuffer *in = evbuffer_new();
    char chunk[1024];
    memset(chunk, 'x', sizeof(chunk));
    evbuffer_add(in, "GET /", 5);
    enum rpc_http_parse_result r = RPC_HTTP_PARSE_MORE;
    for (int i = 0; i < 20 && r == RPC_HTTP_PARSE_MORE; i++) {
        evbuffer_add(in, chunk, sizeof(chunk));
        r = rpc_http_parse(p, in, NULL);
    }
    CHECK_EQ_INT(r, RPC_HTTP_PARSE_BAD);
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_BAD); /* refused for good */
    evbuffer_free(in);
    rpc_http_parser_free(p);
}

static void test_chunked(void)
{
    const char *req = "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\nContent-Length: 4\r\n\r\n"
                      "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n";
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        struct rpc_http_message *m;
        CHECK_EQ_INT(feed(req, strlen(req), bytewise, &m, NULL), RPC_HTTP_PARSE_DONE);
        CHECK(m && m->body_len == 16 && strcmp(m->body, "hello 0123456789") == 0);
        rpc_http_message_free(m);
    }
    const char *hdr = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    char buf[256];
    snprintf(buf, sizeof(buf), "%s5\r\nhelloXX\r\n0\r\n\r\n", hdr);
    CHECK_EQ_INT(result_of(buf), RPC_HTTP_PARSE_BAD);
    snprintf(buf, sizeof(buf), "%szz\r\n", hdr);
    CHECK_EQ_INT(result_of(buf), RPC_HTTP_PARSE_BAD);
    snprintf(buf, sizeof(buf), "%s2000001\r\n", hdr); /* 32 MiB + 1 */
    CHECK_EQ_INT(result_of(buf), RPC_HTTP_PARSE_TOO_LARGE);
    snprintf(buf, sizeof(buf), "%s1000000\r\n", hdr); /* 16 MiB, then 16 MiB + 1 */
    struct rpc_http_parser *p = rpc_http_parser_new();
    struct evbuffer *in = evbuffer_new();
    evbuffer_add(in, buf, strlen(buf));
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_MORE);
    char *zeros = xcalloc(1, 1 << 24);
    evbuffer_add(in, zeros, 1 << 24);
    evbuffer_add(in, "\r\n1000001\r\n", 11);
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_TOO_LARGE);
    free(zeros);
    evbuffer_free(in);
    rpc_http_parser_free(p);
}

static void test_pipelined(void)
{
    const char *two = "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nabGET /x HTTP/1.0\r\n\r\n";
    struct rpc_http_parser *p = rpc_http_parser_new();
    struct evbuffer *in = evbuffer_new();
    evbuffer_add(in, two, strlen(two));
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_DONE);
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_DONE); /* until taken */
    struct rpc_http_message *m = rpc_http_parser_take(p);
    CHECK(m && strcmp(m->body, "ab") == 0);
    rpc_http_message_free(m);
    CHECK(rpc_http_parser_take(p) == NULL);
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_DONE);
    m = rpc_http_parser_take(p);
    CHECK(m && strcmp(m->target, "/x") == 0 && m->version_minor == 0 && m->body_len == 0);
    rpc_http_message_free(m);
    CHECK_EQ_INT(evbuffer_get_length(in), 0);
    CHECK_EQ_INT(rpc_http_parse(p, in, NULL), RPC_HTTP_PARSE_MORE);
    evbuffer_free(in);
    rpc_http_parser_free(p);
}

int main(void)
{
    TEST(test_simple_post);
    TEST(test_methods_and_versions);
    TEST(test_header_rules);
    TEST(test_limits);
    TEST(test_chunked);
    TEST(test_pipelined);
    return test_done();
}
