/* The P2P service in one process, for the threads (run under TSan too): node A's chainstate
 * gets test/data/regtest-small through its validator; node B, empty, connects to A on
 * loopback and syncs: the net threads, the validation threads (jobs and their on_done
 * callbacks), net_call from this thread as RPC would, and shutdown while connected. */
#include "test.h"

#include <unistd.h>

#include "net/net.h"
#include "primitives/block.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/rc.h"
#include "util/time.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

struct node {
    char dir[256];
    struct chainstate *cs;
    struct validator *val;
    struct net *net;
};

static int open_node(struct node *nd, const char *name)
{
    snprintf(nd->dir, sizeof(nd->dir), "/tmp/bitnode-net-service-%d-%s", (int)getpid(), name);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", nd->dir, nd->dir);
    if (system(cmd) != 0) {
        return -1;
    }
    struct chainstate_options o = {
        .params = chain_params_get("regtest"),
        .datadir = nd->dir,
        .dbcache_bytes = 16u << 20,
        .par = 2,
        .max_tip_age = 2000000000, /* the chain is old: out of IBD anyway */
    };
    char err[512] = "";
    if (chainstate_open(&nd->cs, &o, err, sizeof(err)) != RC_OK) {
        printf("# chainstate_open: %s\n", err);
        return -1;
    }
    if (validator_new(&nd->val, nd->cs, 0, NULL, NULL) != RC_OK) {
        return -1;
    }
    struct validator_job act = {.work = VALIDATOR_ACTIVATE};
    validator_run(nd->val, &act); /* the genesis block */
    return 0;
}

static int start_net(struct node *nd, int listen, const char *connect)
{
    struct net_bind bind;
    memset(&bind, 0, sizeof(bind));
    net_addr_parse("127.0.0.1", 0, 0, &bind.addr, NULL, 0);
    const char *targets[1] = {connect};
    struct net_options o = {
        .val = nd->val,
        .listen = listen,
        .binds = &bind,
        .n_binds = 1,
        .port = 0,
        .connect = connect ? targets : NULL,
        .n_connect = connect ? 1 : 0,
        .max_connections = 125,
        .max_tip_age = 2000000000,
        .network_active = 1,
        .net_dir = nd->dir,
        .peer_timeout = 60,
        .bantime = 86400,
    };
    char err[256] = "";
    if (net_new(&nd->net, &o, err, sizeof(err)) != RC_OK) {
        printf("# net_new: %s\n", err);
        return -1;
    }
    return net_start(nd->net);
}

static void close_node(struct node *nd)
{
    net_free(nd->net);
    validator_free(nd->val);
    if (nd->cs) {
        CHECK_EQ_INT(chainstate_close(nd->cs), RC_OK);
    }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", nd->dir);
    CHECK_EQ_INT(system(cmd), 0);
}

static int tip_height(struct node *nd, uint8_t hash[32])
{
    chainstate_read_lock(nd->cs);
    struct block_index *tip = chainstate_tip(nd->cs);
    int h = tip ? tip->height : -1;
    if (tip && hash) {
        memcpy(hash, tip->hash, 32);
    }
    chainstate_read_unlock(nd->cs);
    return h;
}

/* Submits every block of the file (magic, size, block records) and waits for the chain. */
static int load_blocks(struct node *nd, const char *path)
{
    struct buf f;
    buf_init(&f);
    char err[256];
    if (file_read_all(&f, path, err, sizeof(err)) != RC_OK) {
        printf("# %s\n", err);
        return -1;
    }
    size_t pos = 0, count = 0;
    while (pos + 8 <= f.len && rd_u32le(f.data + pos) == 0xdab5bffa) {
        uint32_t size = rd_u32le(f.data + pos + 4);
        struct validator_job j = {.work = VALIDATOR_BLOCK, .data = f.data + pos + 8, .len = size};
        if (validator_run(nd->val, &j) != RC_OK) {
            printf("# block %zu: %s\n", count, j.st.reject);
        }
        pos += 8 + size;
        count++;
    }
    struct validator_job act = {.work = VALIDATOR_ACTIVATE};
    validator_run(nd->val, &act);
    buf_clear(&f);
    return (int)count;
}

struct peers_call {
    size_t count;
    int handshakes;
    int64_t synced;
};

static void peers_fn(struct net *n, void *ctx)
{
    struct peers_call *c = ctx;
    struct net_peer_stats *v;
    net_get_peers(n, &v, &c->count);
    for (size_t i = 0; i < c->count; i++) {
        c->handshakes += v[i].handshake_done;
        c->synced = v[i].synced_headers;
    }
    net_peer_stats_free(v, c->count);
}

static void test_two_nodes_sync(void)
{
    struct node a = {0}, b = {0};
    char path[4200];
    snprintf(path, sizeof(path), "%.4096s/regtest-small/blk00000.dat", test_data_dir());
    if (access(path, R_OK) != 0) {
        printf("# %s missing\n", path);
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(open_node(&a, "a"), 0);
    CHECK_EQ_INT(load_blocks(&a, path), 1301);
    uint8_t tip_a[32], tip_b[32];
    CHECK_EQ_INT(tip_height(&a, tip_a), 1300);
    CHECK_EQ_INT(start_net(&a, 1, NULL), RC_OK);
    uint16_t port = 0;
    CHECK(net_listening(a.net, &port) && port != 0);
    char target[64];
    snprintf(target, sizeof(target), "127.0.0.1:%u", port);
    CHECK_EQ_INT(open_node(&b, "b"), 0);
    CHECK_EQ_INT(start_net(&b, 0, target), RC_OK);
    int64_t deadline = time_mono_us() + 120 * 1000000LL;
    while (tip_height(&b, tip_b) < 1300 && time_mono_us() < deadline) {
        struct peers_call c = {0};
        net_call(b.net, peers_fn, &c); /* as RPC does, while the sync runs */
        time_sleep_ms(20);
    }
    CHECK_EQ_INT(tip_height(&b, tip_b), 1300);
    CHECK_EQ_MEM(tip_a, tip_b, 32);
    struct peers_call c = {0};
    CHECK_EQ_INT(net_call(b.net, peers_fn, &c), RC_OK);
    CHECK_EQ_INT(c.count, 1);
    CHECK_EQ_INT(c.handshakes, 1);
    CHECK_EQ_INT(c.synced, 1300);
    struct peers_call ca = {0};
    CHECK_EQ_INT(net_call(a.net, peers_fn, &ca), RC_OK);
    CHECK_EQ_INT(ca.count, 1);
    /* Shut down while connected: B first, then A. */
    close_node(&b);
    close_node(&a);
}

int main(void)
{
    alarm(600);
    TEST(test_two_nodes_sync);
    return test_done();
}
