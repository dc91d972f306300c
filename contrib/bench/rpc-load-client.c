/* The RPC load benchmark's client (contrib/bench/rpc-load.sh): many keep-alive JSON-RPC
 * connections, each sending its next request as soon as the last answer arrived, until
 * SIGTERM/SIGINT or the given seconds are up. Built by make, never run by the tests.
 *
 *   rpc-load-client PORT USER:PASSWORD SECONDS CLIENTS HASHES TXIDS
 *
 * HASHES: one block hash per line, by height. TXIDS: "height txid" lines. The requests go
 * round the methods getblock <hash> 1, gettxout <txid> 0, getblockchaininfo and
 * getrawtransaction <txid> 1, each for a block or transaction at or below the height the
 * last getblockchaininfo answer gave (the node is importing: the chain grows under the
 * load). Each connection is a non-blocking socket under one poll() loop, so the client
 * itself costs little CPU next to the node.
 *
 * Prints, per method and in all: requests answered, JSON-RPC errors, HTTP 503 (work queue
 * full), other HTTP statuses, reconnections, and the latency p50/p90/p99/max in ms of the
 * answers that were not 503 (those come back at once without work); then the requests per
 * second, 503s included. An answer that took a second or more is printed when it comes
 * ("slow METHOD sent_utc HH:MM:SS ms N status S"), to be matched with the node's log. One "key value" per line for the script to read. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr, SOCK_NONBLOCK */
#endif
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_CLIENTS 1024
#define NMETHODS 4
#define RBUF (8 << 20) /* a verbose getblock of a full block fits */

static const char *const method_name[NMETHODS] = {"getblock", "gettxout", "getblockchaininfo",
                                                  "getrawtransaction"};

struct lat {
    uint32_t *v; /* microseconds */
    size_t n, cap;
    uint64_t ok, rpc_err, http503, http_other;
};

struct conn {
    int fd;
    int method;
    int64_t sent_us;
    char *req;
    size_t req_len, req_off;
    char *buf;
    size_t len;
    int waiting; /* a request is out */
};

static volatile sig_atomic_t stop_flag;
static struct lat lats[NMETHODS];
static char **hashes, **txids;
static int *txid_height;
static size_t n_hashes, n_txids;
static long height = -1;
static uint64_t reconnects;
static char auth_b64[256];
static uint16_t port;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void base64(const char *in, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n) {
            v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        }
        if (i + 2 < n) {
            v |= (unsigned char)in[i + 2];
        }
        out[o++] = t[(v >> 18) & 63];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = 0;
}

static char **read_lines(const char *path, size_t *n, int with_height)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1024;
    char **v = xmalloc(cap * sizeof(*v));
    char line[256];
    *n = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *s = line;
        if (with_height) {
            char *sp = strchr(line, ' ');
            if (!sp) {
                continue;
            }
            *sp = 0;
            s = sp + 1;
            txid_height = realloc(txid_height, (*n + 1) * sizeof(int));
            txid_height[*n] = atoi(line);
        }
        if (*n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof(*v));
        }
        v[(*n)++] = strdup(s);
    }
    fclose(f);
    return v;
}

/* A random transaction at or below the known height (any when none is known yet: the
 * answer is then an error, counted as such). */
static const char *pick_txid(void)
{
    if (!n_txids) {
        return "00";
    }
    for (int tries = 0; tries < 64; tries++) {
        size_t i = (size_t)rand() % n_txids;
        if (txid_height[i] <= height) {
            return txids[i];
        }
    }
    return txids[0];
}

static void make_request(struct conn *c)
{
    char body[512];
    long h = height < 0 ? 0 : height;
    switch (c->method) {
    case 0:
        snprintf(body, sizeof(body), "{\"method\":\"getblock\",\"params\":[\"%s\",1],\"id\":1}",
                 n_hashes ? hashes[(size_t)rand() % ((size_t)h + 1 < n_hashes ? (size_t)h + 1
                                                                              : n_hashes)]
                          : "00");
        break;
    case 1:
        snprintf(body, sizeof(body), "{\"method\":\"gettxout\",\"params\":[\"%s\",0],\"id\":1}",
                 pick_txid());
        break;
    case 2:
        snprintf(body, sizeof(body), "{\"method\":\"getblockchaininfo\",\"params\":[],\"id\":1}");
        break;
    default:
        snprintf(body, sizeof(body),
                 "{\"method\":\"getrawtransaction\",\"params\":[\"%s\",1],\"id\":1}", pick_txid());
    }
    size_t blen = strlen(body);
    free(c->req);
    c->req = xmalloc(blen + 512);
    c->req_len = (size_t)snprintf(c->req, blen + 512,
                                  "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic %s\r\n"
                                  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                                  auth_b64, blen, body);
    c->req_off = 0;
    c->sent_us = now_us();
    c->waiting = 1;
}

static int conn_open(struct conn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        return -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    c->len = 0;
    return 0;
}

/* The connection failed or was closed by the node: a new one, the request sent again. */
static void conn_reset(struct conn *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    reconnects++;
    c->fd = -1;
    if (conn_open(c) == 0) {
        c->req_off = 0;
        c->sent_us = now_us();
    }
}

static void record(int method, int64_t us, int status, const char *body)
{
    struct lat *l = &lats[method];
    if (us >= 1000000) { /* a stall: when (to match with the node's debug.log) */
        time_t sent = time(NULL) - (time_t)(us / 1000000);
        struct tm tm;
        char when[32];
        strftime(when, sizeof(when), "%H:%M:%S", gmtime_r(&sent, &tm));
        printf("slow %s sent_utc %s ms %.0f status %d\n", method_name[method], when, us / 1000.0,
               status);
    }
    if (status == 503) {
        l->http503++; /* answered at once without work: not in the latencies */
        return;
    }
    if (status != 200 && !(status == 404 || status == 500)) {
        l->http_other++;
    } else if (!strstr(body, "\"error\":null")) {
        l->rpc_err++;
    } else {
        l->ok++;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 65536;
        l->v = realloc(l->v, l->cap * sizeof(uint32_t));
    }
    l->v[l->n++] = (uint32_t)(us > UINT32_MAX ? UINT32_MAX : us);
    if (method == 2 && status == 200) {
        const char *b = strstr(body, "\"blocks\":");
        if (b) {
            long h = atol(b + 9);
            if (h > height) {
                height = h;
            }
        }
    }
}

/* A whole answer in c->buf: its latency recorded, the next request made. 1 when one was
 * taken, 0 when more bytes are needed, -1 on a malformed answer. */
static int take_response(struct conn *c)
{
    if (c->len == 0) {
        return 0;
    }
    c->buf[c->len] = 0;
    char *end = strstr(c->buf, "\r\n\r\n");
    if (!end) {
        return 0;
    }
    int status = 0;
    if (sscanf(c->buf, "HTTP/1.%*d %d", &status) != 1) {
        return -1;
    }
    const char *cl = strcasestr(c->buf, "Content-Length:");
    size_t body_len = cl && cl < end ? (size_t)strtoul(cl + 15, NULL, 10) : 0;
    size_t total = (size_t)(end + 4 - c->buf) + body_len;
    if (c->len < total) {
        return 0;
    }
    char saved = c->buf[total];
    c->buf[total] = 0;
    record(c->method, now_us() - c->sent_us, status, end + 4);
    c->buf[total] = saved;
    memmove(c->buf, c->buf + total, c->len - total);
    c->len -= total;
    c->method = (c->method + 1) % NMETHODS;
    make_request(c);
    return 1;
}

static void on_event(struct conn *c, short revents)
{
    if (revents & (POLLERR | POLLHUP | POLLNVAL) && !(revents & POLLIN)) {
        conn_reset(c);
        return;
    }
    if ((revents & POLLOUT) && c->req_off < c->req_len) {
        ssize_t w = send(c->fd, c->req + c->req_off, c->req_len - c->req_off, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN) {
            conn_reset(c);
            return;
        }
        c->req_off += w > 0 ? (size_t)w : 0;
    }
    if (revents & POLLIN) {
        ssize_t r = recv(c->fd, c->buf + c->len, RBUF - 1 - c->len, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
            conn_reset(c);
            return;
        }
        c->len += r > 0 ? (size_t)r : 0;
        int t;
        while ((t = take_response(c)) == 1) {
        }
        if (t < 0 || c->len >= RBUF - 1) {
            conn_reset(c);
        }
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, struct lat *l)
{
    qsort(l->v, l->n, sizeof(uint32_t), cmp_u32);
    double p50 = l->n ? l->v[l->n / 2] / 1000.0 : 0, p90 = l->n ? l->v[l->n * 9 / 10] / 1000.0 : 0;
    double p99 = l->n ? l->v[l->n * 99 / 100] / 1000.0 : 0, mx = l->n ? l->v[l->n - 1] / 1000.0 : 0;
    printf("%s answered %llu ok %llu rpc_errors %llu http503 %llu http_other %llu "
           "p50_ms %.2f p90_ms %.2f p99_ms %.2f max_ms %.2f\n",
           name, (unsigned long long)(l->ok + l->rpc_err + l->http503 + l->http_other),
           (unsigned long long)l->ok, (unsigned long long)l->rpc_err,
           (unsigned long long)l->http503, (unsigned long long)l->http_other, p50, p90, p99, mx);
}

static void print_results(double secs)
{
    struct lat all = {0};
    for (int m = 0; m < NMETHODS; m++) {
        struct lat copy = lats[m];
        copy.v = xmalloc(copy.n * sizeof(uint32_t));
        memcpy(copy.v, lats[m].v, copy.n * sizeof(uint32_t));
        report(method_name[m], &copy);
        free(copy.v);
        all.ok += lats[m].ok;
        all.rpc_err += lats[m].rpc_err;
        all.http503 += lats[m].http503;
        all.http_other += lats[m].http_other;
        all.v = realloc(all.v, (all.n + lats[m].n + 1) * sizeof(uint32_t));
        memcpy(all.v + all.n, lats[m].v, lats[m].n * sizeof(uint32_t));
        all.n += lats[m].n;
    }
    report("all", &all);
    uint64_t answered = all.ok + all.rpc_err + all.http503 + all.http_other;
    printf("seconds %.1f rps %.1f reconnects %llu last_height %ld\n", secs,
           secs > 0 ? answered / secs : 0, (unsigned long long)reconnects, height);
    free(all.v);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: rpc-load-client PORT USER:PASSWORD SECONDS CLIENTS HASHES TXIDS\n");
        return 2;
    }
    port = (uint16_t)atoi(argv[1]);
    base64(argv[2], auth_b64);
    double seconds = atof(argv[3]);
    int nclients = atoi(argv[4]);
    if (nclients < 1 || nclients > MAX_CLIENTS) {
        fprintf(stderr, "CLIENTS: 1..%d\n", MAX_CLIENTS);
        return 2;
    }
    hashes = read_lines(argv[5], &n_hashes, 0);
    txids = read_lines(argv[6], &n_txids, 1);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    srand(1);
    static struct conn cs[MAX_CLIENTS];
    struct pollfd pf[MAX_CLIENTS];
    for (int i = 0; i < nclients; i++) {
        cs[i].buf = xmalloc(RBUF);
        cs[i].method = i % NMETHODS;
        if (conn_open(&cs[i]) != 0) {
            perror("connect");
            return 1;
        }
        make_request(&cs[i]);
    }
    int64_t t0 = now_us();
    while (!stop_flag && (now_us() - t0) < (int64_t)(seconds * 1e6)) {
        for (int i = 0; i < nclients; i++) {
            if (cs[i].fd < 0 && conn_open(&cs[i]) == 0) { /* the node refused: again */
                cs[i].req_off = 0;
                cs[i].sent_us = now_us();
            }
            pf[i].fd = cs[i].fd;
            pf[i].events = POLLIN | (cs[i].req_off < cs[i].req_len ? POLLOUT : 0);
            pf[i].revents = 0;
        }
        int r = poll(pf, (nfds_t)nclients, 100);
        if (r < 0 && errno != EINTR) {
            perror("poll");
            break;
        }
        for (int i = 0; r > 0 && i < nclients; i++) {
            if (pf[i].revents) {
                on_event(&cs[i], pf[i].revents);
            }
        }
    }
    print_results((now_us() - t0) / 1e6);
    return 0;
}
