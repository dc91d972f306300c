#!/usr/bin/env python3
"""-proxy (SOCKS5, as Core: so Tor works) and -onion, against a SOCKS5 server the test runs
on loopback (socks5.py).

- node A imports regtest-small and listens;
- node B with -proxy and -connect=15.61.23.23:<A> (a public IPv4 address the proxy routes
  to A): the proxy is asked for it with fresh random credentials (-proxyrandomize), and B
  syncs through it; an unroutable address (loopback) is dialled directly, as Core's proxies
  are per network and such an address is of none;
- node C with -proxy and -connect=node-a.example:<A>: the name goes to the proxy unresolved
  (Tor resolves names), the proxy routes it to A, C syncs;
- an onion address (-connect=<56 chars>.onion) goes to the -onion proxy, which refuses it
  (host unreachable): the node logs Core's "Proxy error: host unreachable" and carries on;
- getnetworkinfo shows the proxy for ipv4, ipv6 and onion, onion reachable.
"""

import os

from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from socks5 import Socks5Server

# The regtest-small chain the repository carries (test/data/), so the test runs in a clone alone.
SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"
ONION = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"


class P2PProxyTest(BitnodeTestFramework):
    num_nodes = 3
    start_nodes_at_setup = False

    def run_test(self):
        a, b, c = self.nodes
        a.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE])
        wait_until(lambda: a.rpc("getblockcount") == 1300, timeout=120, what="A imported")
        tip = a.rpc("getbestblockhash")

        def route(host, port):
            if host in ("15.61.23.23", "node-a.example"):
                return ("127.0.0.1", port)
            return None
        proxy = Socks5Server(route)
        onion_proxy = Socks5Server(lambda host, port: None)

        self.log("B connects to A's IPv4 address through the proxy")
        b.start(["-proxy=127.0.0.1:%d" % proxy.port, "-connect=15.61.23.23:%d" % a.p2p_port,
                 "-onion=127.0.0.1:%d" % onion_proxy.port, TIPAGE, "-debug=net"])
        wait_until(lambda: b.rpc("getbestblockhash") == tip, timeout=120, what="B synced")
        req = proxy.requests[0]
        assert_equal((req["atyp"], req["host"], req["port"]), (1, "15.61.23.23", a.p2p_port))
        assert_true(req["user"] is not None and req["password"] is not None,
                    "random credentials offered (-proxyrandomize)")
        info = {n["name"]: n for n in b.rpc("getnetworkinfo")["networks"]}
        assert_equal(info["ipv4"]["proxy"], "127.0.0.1:%d" % proxy.port)
        assert_equal(info["ipv6"]["proxy"], "127.0.0.1:%d" % proxy.port)
        assert_equal(info["onion"]["proxy"], "127.0.0.1:%d" % onion_proxy.port)
        assert_equal(info["onion"]["reachable"], True)
        assert_equal(info["ipv4"]["proxy_randomize_credentials"], True)

        self.log("a loopback address is dialled directly, not through the proxy")
        asked = len(proxy.requests)
        b.rpc("addnode", "127.0.0.1:%d" % a.p2p_port, "onetry")
        wait_until(lambda: sum(p["addr"] == "127.0.0.1:%d" % a.p2p_port and p["version"] > 0
                               for p in b.rpc("getpeerinfo")) == 1, what="the direct link")
        assert_equal(len(proxy.requests), asked)

        self.log("an onion address goes to the -onion proxy, which refuses it")
        b.rpc("addnode", ONION + ":18444", "onetry")
        wait_until(lambda: any(r["host"] == ONION for r in onion_proxy.requests), timeout=30,
                   what="the onion proxy asked")
        wait_until(lambda: "Proxy error: host unreachable" in open(b.debug_log).read(),
                   timeout=30, what="the refusal logged")
        assert_equal(b.rpc("getblockcount"), 1300)

        self.log("C connects to a name: the proxy resolves it")
        c.start(["-proxy=127.0.0.1:%d" % proxy.port, "-connect=node-a.example:%d" % a.p2p_port,
                 TIPAGE, "-debug=net"])
        wait_until(lambda: c.rpc("getbestblockhash") == tip, timeout=120, what="C synced")
        named = [r for r in proxy.requests if r["atyp"] == 3]
        assert_equal(named[0]["host"], "node-a.example")
        assert_equal(named[0]["port"], a.p2p_port)
        peers = c.rpc("getpeerinfo")
        assert_equal(peers[0]["addr"], "node-a.example:%d" % a.p2p_port)
        self.log("-onlynet=onion: only onion is reachable (with a proxy), addresses of other "
                 "networks are not taken")
        b.stop()
        b.start(["-proxy=127.0.0.1:%d" % proxy.port, "-onlynet=onion", "-connect=0", TIPAGE])
        info = {n["name"]: n["reachable"] for n in b.rpc("getnetworkinfo")["networks"]}
        assert_equal(info, {"ipv4": False, "ipv6": False, "onion": True, "i2p": False,
                            "cjdns": False})
        b.stop()
        b.assert_start_fails(["-onlynet=bogus"], "Unknown network specified in -onlynet: 'bogus'")
        proxy.close()
        onion_proxy.close()


if __name__ == "__main__":
    P2PProxyTest().main()
