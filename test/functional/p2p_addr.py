#!/usr/bin/env python3
"""The address manager: addresses heard of, automatic outbound connections, peers.dat,
-seednode.

Every outbound connection goes through a SOCKS5 proxy the test runs (socks5.py), so the
node only ever dials loopback: the proxy routes the public-looking addresses the test made
up to a second bitnoded (node A) or to a Python peer.

- an inbound Python peer sends addrv2 with ten made-up addresses: getnodeaddresses and
  getaddrmaninfo show them (new table);
- with no -connect, the node opens outbound-full-relay connections to them (the proxy sees
  the CONNECTs; they land on node A), one per network group, and a completed handshake
  moves an address to the tried table;
- getaddr from an inbound peer is answered from the address manager (at most 23%);
- peers.dat keeps them across a restart; a corrupt peers.dat stops start-up with Core's
  error (feature_addrman_anchors.py has the other cases);
- -seednode: an addr-fetch connection asks for addresses (getaddr) and is dropped once
  they came;
- relay (Core's RelayAddress / MaybeSendAddr): a small addrv2 of fresh routable addresses
  goes to another addr-relay peer at its next trickle (mock clock), not back to its source,
  not twice; stale addresses and messages of more than ten are not relayed; an inbound
  peer is not relayed to before it sent addr/addrv2/getaddr; a second getaddr is ignored
  with Core's line; without the addr permission the getaddr answer is cached (the same to
  every peer).
"""

import os
import time

import p2p
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until
from socks5 import Socks5Server

SERVICES = p2p.NODE_NETWORK | p2p.NODE_WITNESS


class P2PAddrTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def run_test(self):
        node, a = self.nodes
        a.start(["-maxtipage=2000000000"])
        fetcher = {}
        made_up = ["%d.%d.1.1" % (20 + i, 30 + i) for i in range(10)]

        def route(host, port):
            if host in made_up:
                return ("127.0.0.1", a.p2p_port)
            if host == "99.99.1.1" and "port" in fetcher:
                return ("127.0.0.1", fetcher["port"])
            return None
        proxy = Socks5Server(route)
        # -test=addrman: the address manager's bucket key is fixed, so whether two made-up
        # addresses share a slot of the new table (and one is not kept) is the same in every
        # run, not a 1-in-400 chance with a random key.
        args = ["-proxy=127.0.0.1:%d" % proxy.port, "-listen=1", "-debug=net", "-test=addrman",
                "-whitelist=addr@127.0.0.1",  # no addr rate limit for the test peers
                "-maxtipage=2000000000"]
        node.start(args)

        self.log("addresses from an inbound peer land in the new table")
        peer = p2p.P2PConnection().connect(node.p2p_port)
        now = int(time.time())
        peer.send_message(p2p.MsgAddrV2([p2p.NetAddrV2.from_ip(ip, 18444, SERVICES, now - 60)
                                         for ip in made_up]))
        peer.sync_with_ping()
        wait_until(lambda: len(node.rpc("getnodeaddresses", 0)) == 10, timeout=10,
                   what="ten addresses")
        got = sorted(x["address"] for x in node.rpc("getnodeaddresses", 0))
        assert_equal(got, sorted(made_up))
        info = node.rpc("getaddrmaninfo")
        assert_equal(info["ipv4"]["total"], 10)

        self.log("automatic outbound connections go to them (through the proxy)")
        wait_until(lambda: sum(1 for p in node.rpc("getpeerinfo")
                               if p["connection_type"] == "outbound-full-relay") >= 3,
                   timeout=60, what="outbound-full-relay peers")
        asked = {r["host"] for r in proxy.requests}
        assert_true(asked <= set(made_up), "only made-up addresses dialled: %s" % asked)
        wait_until(lambda: node.rpc("getaddrmaninfo")["all_networks"]["tried"] >= 1,
                   timeout=30, what="an address in tried")

        self.log("getaddr is answered from the address manager, at most 23%")
        q = p2p.P2PConnection().connect(node.p2p_port)
        q.send_message(p2p.MsgGetAddr())
        msg = q.wait_for(lambda: q.message_count["addrv2"] + q.message_count["addr"] > 0,
                         timeout=10, desc="an addr answer")
        answers = [m for m in q.messages if m.command in ("addr", "addrv2")]
        assert_true(len(answers[0].addrs) <= 2, "at most 23% of ten")
        q.close()
        peer.close()

        self.log("peers.dat keeps them across a restart")
        node.stop()
        assert_true(os.path.exists(os.path.join(node.net_dir, "peers.dat")), "peers.dat written")
        node.start(args + ["-maxconnections=0"])
        assert_equal(node.rpc("getaddrmaninfo")["all_networks"]["total"], 10)
        node.stop()

        self.log("a corrupt peers.dat stops start-up, as in Core")
        path = os.path.join(node.net_dir, "peers.dat")
        with open(path, "r+b") as f:
            f.seek(40)
            f.write(b"\xff" * 16)
        node.assert_start_fails(args + ["-maxconnections=0"],
                                "Error: Invalid or corrupt peers.dat (Corrupt AddrMan "
                                "serialization: nNew=")
        os.remove(path)

        self.log("-seednode: asked for addresses, then dropped")
        seed = p2p.P2PConnection()
        fetcher["port"] = seed.listen()
        node.start(args + ["-seednode=99.99.1.1:18444"])
        seed.wait_for_connect(timeout=30)
        seed.wait_for("getaddr", timeout=30)
        seed.send_message(p2p.MsgAddrV2([p2p.NetAddrV2.from_ip("77.%d.1.1" % i, 18444, SERVICES,
                                                               int(time.time()) - 60)
                                         for i in range(5)]))
        seed.wait_for_disconnect(timeout=30)
        try:
            wait_until(lambda: node.rpc("getaddrmaninfo")["all_networks"]["total"] >= 5,
                       timeout=10, what="the seed's addresses")
        except Exception:
            with open(node.debug_log, errors="replace") as f:
                said = [l.rstrip() for l in f if "addr" in l.lower()]
            self.log("the node's addr lines:\n  " + "\n  ".join(said[-20:]))
            raise
        seed.close()
        proxy.close()
        node.stop()
        self.relay(node, args)

    def relay(self, node, args):
        self.log("addresses are relayed as in Core")
        node.start(args + ["-connect=0"])
        source = p2p.P2PConnection().connect(node.p2p_port)
        silent = p2p.P2PConnection().connect(node.p2p_port)  # never asks: not relayed to
        receiver = p2p.P2PConnection().connect(node.p2p_port)
        receiver.send_message(p2p.MsgGetAddr())
        receiver.wait_for(lambda: receiver.message_count["addrv2"] > 0, timeout=10,
                          desc="the getaddr answer")
        first = [sorted(a.ip for a in m.addrs) for m in receiver.messages
                 if m.command == "addrv2"][0]
        receiver.send_message(p2p.MsgGetAddr())
        receiver.sync_with_ping()
        with open(node.debug_log, errors="replace") as f:
            assert_in('Ignoring repeated "getaddr". peer=%d' % 2, f.read())

        def relayed(conn):
            return {a.ip for m in conn.messages if m.command in ("addr", "addrv2")
                    for a in m.addrs}

        now = int(time.time())
        fresh = ["55.%d.1.1" % i for i in range(3)]
        stale = "56.1.1.1"
        many = ["57.%d.1.1" % i for i in range(11)]
        source.send_message(p2p.MsgAddrV2(
            [p2p.NetAddrV2.from_ip(ip, 8333, SERVICES, now - 60) for ip in fresh] +
            [p2p.NetAddrV2.from_ip(stale, 8333, SERVICES, now - 3600)]))
        source.send_message(p2p.MsgAddrV2(
            [p2p.NetAddrV2.from_ip(ip, 8333, SERVICES, now - 60) for ip in many]))
        source.sync_with_ping()
        # The trickle is a Poisson timer of 30 s on average: move the mock clock past it, in
        # steps short enough for the pings to be answered in time.
        mock = [now]

        def advance(steps):
            for _ in range(steps):
                mock[0] += 5 * 60
                node.rpc("setmocktime", mock[0])
                time.sleep(0.3)

        wait_until(lambda: advance(1) or set(fresh) <= relayed(receiver), timeout=20,
                   what="relayed addrs")
        got = relayed(receiver) - set(first)
        assert_equal(sorted(got), sorted(fresh))
        assert_equal(relayed(source) & set(fresh), set())
        assert_equal(relayed(silent), set())

        self.log("an address is not sent to the same peer twice")
        count = receiver.message_count["addrv2"]
        source.send_message(p2p.MsgAddrV2(
            [p2p.NetAddrV2.from_ip(fresh[0], 8333, SERVICES, mock[0] - 60)]))
        source.sync_with_ping()
        advance(4)
        receiver.sync_with_ping()
        assert_equal(receiver.message_count["addrv2"], count)

        for c in (source, silent, receiver):
            c.close()
        node.stop()

        self.log("the getaddr answer is cached (peers without the addr permission)")
        node.start([x for x in args if not x.startswith("-whitelist")] + ["-connect=0"])
        answers = []
        for _ in range(3):
            c = p2p.P2PConnection().connect(node.p2p_port)
            c.send_message(p2p.MsgGetAddr())
            c.wait_for(lambda: c.message_count["addrv2"] > 0, timeout=10,
                       desc="the getaddr answer")
            answers.append([sorted(a.ip for a in m.addrs) for m in c.messages
                            if m.command == "addrv2"][0])
            c.close()
        assert_true(len(answers[0]) > 0, "an answer")
        assert_equal(answers[1], answers[0])
        assert_equal(answers[2], answers[0])
        node.stop()


if __name__ == "__main__":
    P2PAddrTest().main()
