/* Unit tests for the RPC server's threads (rpc/server.h): the event loop thread, the
 * -rpcthreads workers and the bounded work queue, driven by client threads over real
 * loopback sockets with keep-alive connections. Run under ThreadSanitizer in the suite
 * (contrib/check.sh's TSan list), this is where the server's locking is checked: requests
 * handed from the loop to the workers and their replies handed back, getrpcinfo reading the
 * active-command list while other workers change it, a full queue answering 503, and a stop
 * while clients are still sending. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node/context.h"
#include "rpc/auth.h"
#include "rpc/control.h"
#include "rpc/jsonrpc.h"
#include "rpc/server.h"
#include "test.h"
#include "util/xmalloc.h"

/* "user:pass" in base64 */
#define AUTH_HEADER "Authorization: Basic dXNlcjpwYXNz\r\n"

struct fixture {
    struct node_context nc;
    struct rpc_context *ctx;
    struct rpc_auth *auth;
    struct rpc_server *srv;
    uint16_t port;
};

/* A server on 127.0.0.1 (a port the kernel picks) with the control methods, started. */
static bool fixture_start(struct fixture *f, int threads, int work_queue)
{
    memset(f, 0, sizeof(*f));
    node_context_init(&f->nc);
    f->ctx = rpc_context_new(&f->nc);
    rpc_control_register(f->ctx);
    rpc_warmup_finished(f->ctx);
    f->auth = rpc_auth_new(NULL);
    rpc_auth_add_plain(f->auth, "user", "pass");
    static const char *const bind[] = {"127.0.0.1"};
    static const char *const allow[] = {"127.0.0.1"};
    struct rpc_server_options opt = {
        .bind = bind, .n_bind = 1, .allow_ip = allow, .n_allow_ip = 1, .port = 0,
        .threads = threads, .work_queue = work_queue, .timeout_s = 30, .auth = f->auth,
        .ctx = f->ctx,
    };
    char err[256] = "";
    if (rpc_server_bind(&opt, &f->srv, err, sizeof(err)) != 0 ||
        rpc_server_start(f->srv, err, sizeof(err)) != 0) {
        printf("# server: %s\n", err);
        return false;
    }
    f->port = rpc_server_port(f->srv);
    return true;
}

static void fixture_free(struct fixture *f)
{
    rpc_server_free(f->srv);
    rpc_context_free(f->ctx);
    rpc_auth_free(f->auth);
}

static int connect_to(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* Sends one keep-alive POST of body and reads the reply. Returns the HTTP status (0 when the
 * connection failed or closed); *body_out gets the reply body (caller frees) when given. */
static int post(int fd, const char *body, char **body_out)
{
    char req[1024];
    int n = snprintf(req, sizeof(req),
                     "POST / HTTP/1.1\r\nHost: x\r\n" AUTH_HEADER
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        return 0;
    }
    char buf[65536];
    size_t have = 0;
    char *end = NULL;
    while (!end) {
        ssize_t r = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
        if (r <= 0) {
            return 0;
        }
        have += (size_t)r;
        buf[have] = 0;
        end = strstr(buf, "\r\n\r\n");
    }
    int status = 0;
    sscanf(buf, "HTTP/1.1 %d", &status);
    const char *cl = strcasestr(buf, "Content-Length:");
    size_t len = cl && cl < end ? strtoul(cl + 15, NULL, 10) : 0;
    size_t head = (size_t)(end + 4 - buf);
    while (have < head + len && have < sizeof(buf) - 1) {
        ssize_t r = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
        if (r <= 0) {
            return 0;
        }
        have += (size_t)r;
    }
    buf[have] = 0;
    if (body_out) {
        *body_out = xstrdup(buf + head);
    }
    return status;
}

struct client {
    uint16_t port;
    int requests;
    atomic_int *ok, *busy, *bad;
    bool quiet; /* a stop cuts connections off: don't print each */
};

/* A client thread: one keep-alive connection (a new one after a 503, which closes it),
 * cycling through methods that touch the server's shared state. */
static void *client_main(void *arg)
{
    struct client *c = arg;
    static const char *const bodies[] = {
        "{\"method\":\"uptime\",\"id\":1}",
        "{\"method\":\"getrpcinfo\",\"id\":2}",
        "[{\"method\":\"uptime\",\"id\":3},{\"method\":\"getrpcinfo\",\"id\":4}]",
        "{\"method\":\"nosuchmethod\",\"id\":5}",
    };
    int fd = connect_to(c->port);
    for (int i = 0; i < c->requests; i++) {
        if (fd < 0) {
            fd = connect_to(c->port);
        }
        char *body = NULL;
        const char *b = bodies[i % 4];
        int st = fd < 0 ? 0 : post(fd, b, &body);
        bool want404 = strstr(b, "nosuchmethod") != NULL;
        if ((st == 200 && !want404 && body && strstr(body, "\"error\":null")) ||
            (st == 404 && want404 && body && strstr(body, "Method not found"))) {
            atomic_fetch_add(c->ok, 1);
        } else if (st == 503) {
            atomic_fetch_add(c->busy, 1);
        } else {
            atomic_fetch_add(c->bad, 1);
            if (!c->quiet && atomic_load(c->bad) <= 3) {
                printf("# client: status %d body %s\n", st, body ? body : "(none)");
            }
        }
        free(body);
        if (st != 200 && st != 404 && fd >= 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return NULL;
}

/* Runs n client threads of `requests` each against f; returns the counts. */
static void run_clients(struct fixture *f, int n, int requests, int *ok, int *busy, int *bad)
{
    atomic_int a_ok = 0, a_busy = 0, a_bad = 0;
    pthread_t th[16];
    struct client c = {f->port, requests, &a_ok, &a_busy, &a_bad, false};
    for (int i = 0; i < n; i++) {
        pthread_create(&th[i], NULL, client_main, &c);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
    }
    *ok = a_ok;
    *busy = a_busy;
    *bad = a_bad;
}

/* Eight keep-alive clients, four workers, a queue that holds them all: every request is
 * answered, none refused. */
static void test_concurrent_clients(void)
{
    struct fixture f;
    bool started = fixture_start(&f, 4, 16);
    CHECK(started);
    if (!started) {
        return;
    }
    int ok, busy, bad;
    run_clients(&f, 8, 60, &ok, &busy, &bad);
    CHECK_EQ_INT(ok, 8 * 60);
    CHECK_EQ_INT(busy, 0);
    CHECK_EQ_INT(bad, 0);
    fixture_free(&f);
}

/* One worker and a queue of one under twelve clients: what does not fit is Core's 503
 * ("Work queue depth exceeded"), everything else is answered, nothing is lost or garbled. */
static void test_full_queue(void)
{
    struct fixture f;
    bool started = fixture_start(&f, 1, 1);
    CHECK(started);
    if (!started) {
        return;
    }
    int ok, busy, bad;
    run_clients(&f, 12, 40, &ok, &busy, &bad);
    CHECK_EQ_INT(ok + busy, 12 * 40);
    CHECK_EQ_INT(bad, 0);
    CHECK(ok > 0);
    printf("# full queue: %d answered, %d refused with 503\n", ok, busy);
    fixture_free(&f);
}

struct stopper {
    struct fixture *f;
};

static void *stop_main(void *arg)
{
    struct stopper *s = arg;
    usleep(20 * 1000);
    rpc_server_stop(s->f->srv);
    return NULL;
}

/* Stopping while clients are sending: no crash, no hang; every request is answered, refused
 * (503) or finds the connection closed. */
static void test_stop_under_load(void)
{
    struct fixture f;
    bool started = fixture_start(&f, 2, 4);
    CHECK(started);
    if (!started) {
        return;
    }
    atomic_int ok = 0, busy = 0, bad = 0;
    struct client c = {f.port, 200, &ok, &busy, &bad, true};
    pthread_t th[6], st;
    for (int i = 0; i < 6; i++) {
        pthread_create(&th[i], NULL, client_main, &c);
    }
    struct stopper s = {&f};
    pthread_create(&st, NULL, stop_main, &s);
    pthread_join(st, NULL);
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
    }
    CHECK_EQ_INT(ok + busy + bad, 6 * 200);
    printf("# stop under load: %d answered, %d refused, %d cut off\n", (int)ok, (int)busy,
           (int)bad);
    fixture_free(&f);
}

int main(void)
{
    TEST(test_concurrent_clients);
    TEST(test_full_queue);
    TEST(test_stop_under_load);
    return test_done();
}
