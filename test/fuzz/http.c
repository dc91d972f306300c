/* Fuzz target: what an RPC client controls before it is authenticated, the bytes of its
 * HTTP requests. The input goes through the request parser (rpc/httpparse.h) in pieces
 * whose sizes its first byte chooses, each whole request taken and the parser run on the
 * rest (pipelining). Nothing may crash, leak or read out of bounds; a request taken has a
 * body within the limit and a NUL after it, and the parser never holds more than the
 * limits allow.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a fixed set of requests and
 * their mutations, as a test of the suite.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "rpc/httpparse.h"
#include "rpc/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    size_t piece = (size_t)data[0] % 64 + 1;
    data++;
    size--;
    struct rpc_http_parser *p = rpc_http_parser_new();
    struct evbuffer *in = evbuffer_new();
    size_t requests = 0;
    for (size_t i = 0; i < size; i += piece) {
        evbuffer_add(in, data + i, piece < size - i ? piece : size - i);
        enum rpc_http_parse_result r;
        while ((r = rpc_http_parse(p, in, NULL)) == RPC_HTTP_PARSE_DONE) {
            struct rpc_http_message *m = rpc_http_parser_take(p);
            if (!m || m->body_len > RPC_MAX_BODY_BYTES || m->body[m->body_len] != 0 ||
                strlen(m->target) > RPC_MAX_HEADER_BYTES || m->version_minor < 0 ||
                m->version_minor > 9) {
                abort();
            }
            (void)rpc_http_message_header(m, "Content-Length");
            (void)rpc_http_message_keep_alive(m);
            rpc_http_message_free(m);
            requests++;
        }
        if (r != RPC_HTTP_PARSE_MORE) {
            break;
        }
        /* Unparsed input never grows past a line's limit. */
        if (evbuffer_get_length(in) > RPC_MAX_HEADER_BYTES + piece) {
            abort();
        }
    }
    (void)requests;
    evbuffer_free(in);
    rpc_http_parser_free(p);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

/* Runs seed, then seed with each byte replaced by a few others, in several piece sizes. */
static size_t run_mutations(const char *seed)
{
    static const char swaps[] = {'\0', '\r', '\n', ' ', ':', '0', 'f', ';', '9'};
    size_t n = strlen(seed), count = 0;
    uint8_t *buf = malloc(n + 1);
    for (size_t pos = 0; pos <= n; pos++) {
        for (size_t s = 0; s < (pos < n ? sizeof(swaps) : 1); s++) {
            buf[0] = (uint8_t)(pos * 7 + s);
            memcpy(buf + 1, seed, n);
            if (pos < n) {
                buf[1 + pos] = (uint8_t)swaps[s];
            }
            LLVMFuzzerTestOneInput(buf, n + 1);
            count++;
        }
    }
    free(buf);
    return count;
}

static size_t builtin_inputs(void)
{
    size_t count = 0;
    static const char *const seeds[] = {
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbodyGET /x HTTP/1.0\n\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;e=1\r\nbody\r\n0\r\nT: x\r\n\r\n",
        "GET /rest/block/00.json?x=1 HTTP/1.1\r\nConnection: close\r\nA:  b \r\n\r\n",
        "PUT / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nz",
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        count += run_mutations(seeds[i]);
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs,
                            "requests and their mutations through the HTTP parser");
}
#endif
