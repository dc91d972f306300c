/* net/localaddr: Core's mapLocalHost rules. AddLocal refuses unroutable addresses, unreachable
 * ones unless forced, and low scores without -discover; one entry per host, a better or equal
 * score taking the new port; SeenLocal votes; the list in Core's map order; GetLocal prefers
 * the address most reachable from the peer, then the score, and keeps privacy networks
 * apart; GetLocalAddrForPeer takes the peer's view of us when discovering (host and port from
 * an inbound peer, the host only from an outbound one). */
#include <stdlib.h>
#include <string.h>

#include "net/localaddr.h"
#include "net/netaddr.h"
#include "test.h"
#include "util/rc.h"

#define ONION "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"

static struct net_addr addr(const char *s)
{
    struct net_addr a;
    memset(&a, 0, sizeof(a));
    CHECK_EQ_INT(net_addr_parse(s, 8333, 0, &a, NULL, 0), RC_OK);
    return a;
}

static void fmt(const struct net_addr *a, char out[NET_ADDR_STR_LEN])
{
    net_addr_format(a, 1, out);
}

static struct localaddr_peer peer(const char *s, int inbound)
{
    struct localaddr_peer p;
    memset(&p, 0, sizeof(p));
    p.addr = addr(s);
    p.network = net_addr_network(&p.addr);
    p.inbound = inbound;
    return p;
}

static void test_add_rules(void)
{
    struct localaddr *t;
    CHECK_EQ_INT(localaddr_new(&t, 0, 1, 18444), RC_OK);
    struct net_addr priv = addr("192.168.1.1"), pub = addr("2.2.2.2:1000");
    CHECK_EQ_INT(localaddr_add(t, &priv, LOCAL_MANUAL, 1), 0); /* not routable */
    CHECK_EQ_INT(localaddr_add(t, &pub, LOCAL_BIND, 1), 0);    /* no -discover */
    CHECK_EQ_INT(localaddr_add(t, &pub, LOCAL_MANUAL, 0), 0);  /* not reachable */
    CHECK_EQ_INT(localaddr_add(t, &pub, LOCAL_MANUAL, 1), 1);
    CHECK(localaddr_is_local(t, &pub));
    struct net_addr other_port = addr("2.2.2.2:5");
    CHECK(localaddr_is_local(t, &other_port)); /* ports aside, as Core's map key */
    CHECK_EQ_INT(localaddr_score(t, &pub), LOCAL_MANUAL);
    /* The same host again: an equal score counts one more and takes the new port. */
    CHECK_EQ_INT(localaddr_add(t, &other_port, LOCAL_MANUAL, 1), 1);
    struct localaddr_entry *v;
    size_t n;
    localaddr_list(t, &v, &n);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(v[0].addr.port, 5);
    CHECK_EQ_INT(v[0].score, LOCAL_MANUAL + 1);
    free(v);
    /* Added without a port: the listen port. */
    struct net_addr third = addr("3.3.3.3");
    CHECK_EQ_INT(localaddr_add_ip(t, &third, LOCAL_MANUAL, 1), 1);
    CHECK_EQ_INT(localaddr_listen_port(t), 18444);
    localaddr_list(t, &v, &n);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(v[1].addr.port, 18444);
    free(v);
    localaddr_remove(t, &other_port);
    CHECK(!localaddr_is_local(t, &pub));
    localaddr_free(t);
    localaddr_free(NULL);
}

static void test_discover_scores(void)
{
    struct localaddr *t;
    localaddr_new(&t, 1, 1, 8333);
    CHECK(localaddr_discover(t));
    struct net_addr a = addr("5.5.5.5:1");
    CHECK_EQ_INT(localaddr_add(t, &a, LOCAL_IF, 1), 1);
    struct net_addr b = addr("5.5.5.5:2");
    CHECK_EQ_INT(localaddr_add(t, &b, LOCAL_BIND, 1), 1); /* better: score 3, port 2 */
    struct net_addr c = addr("5.5.5.5:3");
    CHECK_EQ_INT(localaddr_add(t, &c, LOCAL_IF, 1), 1); /* worse: nothing changes */
    CHECK_EQ_INT(localaddr_score(t, &a), LOCAL_BIND + 1);
    struct localaddr_entry *v;
    size_t n;
    localaddr_list(t, &v, &n);
    CHECK_EQ_INT(v[0].addr.port, 2);
    free(v);
    CHECK_EQ_INT(localaddr_seen(t, &c), 1);
    CHECK_EQ_INT(localaddr_score(t, &a), LOCAL_BIND + 2);
    struct net_addr unknown = addr("6.6.6.6");
    CHECK_EQ_INT(localaddr_seen(t, &unknown), 0);
    localaddr_free(t);
}

static void test_order(void)
{
    struct localaddr *t;
    localaddr_new(&t, 0, 1, 8333);
    const char *in[] = {ONION, "[2001:4860::1]:9", "9.9.9.9", "2.2.2.2", "[2001:4860::]:1"};
    for (size_t i = 0; i < 5; i++) {
        struct net_addr a = addr(in[i]);
        CHECK_EQ_INT(localaddr_add(t, &a, LOCAL_MANUAL, 1), 1);
    }
    const char *want[] = {"2.2.2.2:8333", "9.9.9.9:8333", "[2001:4860::]:1", "[2001:4860::1]:9",
                          ONION ":8333"};
    struct localaddr_entry *v;
    size_t n;
    localaddr_list(t, &v, &n);
    CHECK_EQ_INT(n, 5);
    for (size_t i = 0; i < n && i < 5; i++) {
        char s[NET_ADDR_STR_LEN];
        fmt(&v[i].addr, s);
        CHECK_EQ_STR(s, want[i]);
    }
    free(v);
    localaddr_free(t);
}

static void test_best(void)
{
    struct localaddr *t;
    localaddr_new(&t, 1, 1, 8333);
    struct net_addr v4 = addr("2.2.2.2"), v6 = addr("[2001:4860::1]"), onion = addr(ONION);
    localaddr_add(t, &v4, LOCAL_IF, 1);
    localaddr_add(t, &v6, LOCAL_MANUAL, 1);
    localaddr_add(t, &onion, LOCAL_MANUAL, 1);
    struct net_addr out;
    char s[NET_ADDR_STR_LEN];
    /* An IPv4 peer: our IPv4 address, whatever the scores. */
    struct localaddr_peer p4 = peer("8.8.8.8", 1);
    CHECK_EQ_INT(localaddr_best(t, &p4, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "2.2.2.2:8333");
    /* An IPv6 peer: our (untunnelled) IPv6 address. */
    struct localaddr_peer p6 = peer("[2a00::1]", 1);
    CHECK_EQ_INT(localaddr_best(t, &p6, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "[2001:4860::1]:8333");
    /* A peer on onion: only our onion address. */
    struct localaddr_peer po = p4;
    po.network = NETWORK_ONION;
    CHECK_EQ_INT(localaddr_best(t, &po, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, ONION ":8333");
    /* A local peer (the tests'): reachability from unroutable prefers IPv4. */
    struct localaddr_peer pl = peer("127.0.0.1", 1);
    CHECK_EQ_INT(localaddr_best(t, &pl, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "2.2.2.2:8333");
    localaddr_free(t);
    /* Not listening: nothing. */
    localaddr_new(&t, 1, 0, 8333);
    localaddr_add(t, &v4, LOCAL_MANUAL, 1);
    CHECK_EQ_INT(localaddr_best(t, &p4, &out), 0);
    CHECK_EQ_INT(localaddr_for_peer(t, &p4, 0, &out), 0);
    localaddr_free(t);
}

static void test_for_peer(void)
{
    struct localaddr *t;
    struct net_addr out;
    char s[NET_ADDR_STR_LEN];
    /* Nothing known, no -discover: nothing to announce. */
    localaddr_new(&t, 0, 1, 8333);
    struct localaddr_peer in = peer("8.8.8.8:5000", 1);
    in.have_addr_local = 1;
    in.addr_local = addr("7.7.7.7:6000");
    in.addr_local_reachable = 1;
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 0, &out), 0);
    localaddr_free(t);
    /* With -discover and nothing known, the peer's view: host and port from an inbound
     * peer, the host only (our listen port) from an outbound one. */
    localaddr_new(&t, 1, 1, 8333);
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 1, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "7.7.7.7:6000");
    struct localaddr_peer outb = in;
    outb.inbound = 0;
    CHECK_EQ_INT(localaddr_for_peer(t, &outb, 1, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "7.7.7.7:8333");
    /* A view from an unroutable peer, or of an unreachable network, is not taken. */
    struct localaddr_peer local_peer = in;
    local_peer.addr = addr("127.0.0.1");
    CHECK_EQ_INT(localaddr_for_peer(t, &local_peer, 0, &out), 0);
    struct localaddr_peer unreachable = in;
    unreachable.addr_local_reachable = 0;
    CHECK_EQ_INT(localaddr_for_peer(t, &unreachable, 0, &out), 0);
    /* A known address: the peer's view only when the random bit is 0 (score <= MANUAL). */
    struct net_addr mine = addr("2.2.2.2:1234");
    localaddr_add(t, &mine, LOCAL_MANUAL, 1);
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 1, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "2.2.2.2:1234");
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 2, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "7.7.7.7:6000");
    /* Above LOCAL_MANUAL (seen by peers), three random bits must be 0. */
    localaddr_seen(t, &mine);
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 2, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "2.2.2.2:1234");
    CHECK_EQ_INT(localaddr_for_peer(t, &in, 8, &out), 1);
    fmt(&out, s);
    CHECK_EQ_STR(s, "7.7.7.7:6000");
    localaddr_free(t);
}

int main(void)
{
    TEST(test_add_rules);
    TEST(test_discover_scores);
    TEST(test_order);
    TEST(test_best);
    TEST(test_for_peer);
    return test_done();
}
