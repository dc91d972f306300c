#!/usr/bin/env python3
"""The node's own addresses (Core's mapLocalHost) and its self-announcement, as Core's
feature_bind_port_externalip.py and p2p_addr_selfannouncement.py check them, on loopback only.

- getnetworkinfo's localaddresses with -externalip: the port given, else Core's
  GetListenPort (the first -bind with a port, else the first -whitebind without noban, else
  -port); several -externalip in Core's order (network, then address), the same host twice
  scoring one more with the later port, an onion address under -onlynet=ipv4 (added even
  though unreachable), a private address left out; -externalip=0.0.0.0 stops start-up with
  Core's "Cannot resolve -externalip address".
- an inbound peer whose version names one of our addresses votes for it (SeenLocal: score 5).
- self-announcement (Core's MaybeSendAddr): out of initial block download, an inbound peer
  that sent getaddr gets our address alone in its first addr message (addrv2 and v1), time
  the mock time and services our local services, then the getaddr answer; an outbound
  peer gets it too (alone); 20 days of mock time later each gets it again, with Core's
  "Advertising address" line; without -externalip (and -discover=0) nothing is announced.
"""

import time

from framework import BitnodeTestFramework, assert_equal, assert_true, free_port, wait_until
from p2p import MsgGetAddr, MsgHeaders, NetAddr, P2PConnection

ONION = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"
DAY = 24 * 60 * 60


class LocalAddrTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        self.local_addresses(node)
        self.seen_local(node)
        self.self_announcement(node)

    def locals_with(self, node, args):
        node.start(args)
        got = node.rpc("getnetworkinfo")["localaddresses"]
        node.stop()
        return [(x["address"], x["port"], x["score"]) for x in got]

    @staticmethod
    def addrs_of(conn):
        with conn.lock:
            return [m for m in conn.messages if m.command in ("addr", "addrv2")]

    def local_addresses(self, node):
        self.log("localaddresses: -externalip's port, else -bind's, -whitebind's, -port")
        p = node.p2p_port
        b, w = free_port(), free_port()
        cases = [
            (["-externalip=2.2.2.2"], p),
            (["-externalip=2.2.2.2:30006"], 30006),
            (["-externalip=2.2.2.2", "-bind=127.0.0.1:%d" % b], b),
            (["-externalip=2.2.2.2", "-bind=127.0.0.1"], p),
            (["-externalip=2.2.2.2:30011", "-bind=127.0.0.1:%d" % b], 30011),
            (["-externalip=2.2.2.2", "-whitebind=127.0.0.1:%d" % w], w),
            (["-externalip=2.2.2.2", "-bind=127.0.0.1:%d" % b, "-whitebind=127.0.0.1:%d" % w], b),
            (["-externalip=2.2.2.2", "-whitebind=noban@127.0.0.1:%d" % w], p),
        ]
        for args, port in cases:
            assert_equal(self.locals_with(node, args), [("2.2.2.2", port, 4)])

        self.log("several addresses, in Core's order; the same host twice")
        got = self.locals_with(node, ["-externalip=2.2.2.2", "-externalip=[2001:4860::1]:99",
                                      "-externalip=8.8.8.8:1", "-externalip=2.2.2.2:5",
                                      "-externalip=10.0.0.1", "-externalip=" + ONION,
                                      "-onlynet=ipv4"])
        assert_equal(got, [("2.2.2.2", 5, 5), ("8.8.8.8", 1, 4), ("2001:4860::1", 99, 4),
                           (ONION, p, 4)])
        node.assert_start_fails(["-externalip=0.0.0.0"],
                                "Cannot resolve -externalip address: '0.0.0.0'")

    def seen_local(self, node):
        self.log("an inbound peer that sees us at our address votes for it")
        node.start(["-externalip=2.2.2.2"])
        peer = P2PConnection(version_on_connect=False).connect(node.p2p_port,
                                                               wait_for_verack=False)
        peer.send_version(addr_recv=NetAddr("2.2.2.2", 1234))
        peer.wait_for("verack", timeout=10)
        peer.sync_with_ping()
        got = node.rpc("getnetworkinfo")["localaddresses"]
        assert_equal([(x["address"], x["score"]) for x in got], [("2.2.2.2", 5)])
        peer.close()
        node.stop()

    def self_announcement(self, node):
        # -peertimeout as Core's framework sets it: a peer is not dropped as silent when the
        # mock clock jumps days ahead.
        node.start(["-externalip=2.2.2.2", "-maxtipage=2000000000", "-debug=net",
                    "-connect=0", "-peertimeout=999999999"])
        info = node.rpc("getnetworkinfo")
        port = info["localaddresses"][0]["port"]
        services = int(info["localservices"], 16)
        assert_true(not node.rpc("getblockchaininfo")["initialblockdownload"], "out of IBD")
        for i in range(10):  # something for the getaddr answers
            node.rpc("addpeeraddress", "%d.%d.1.1" % (1 + i, i), 8333)
        mock = [0]
        line = "Advertising address 2.2.2.2:%d to peer=" % port

        def is_ours(a, when):
            return (a.ip, a.port, a.services, a.time) == ("2.2.2.2", port, services, when)

        def advertised(text=line):
            with open(node.debug_log, errors="replace") as f:
                return f.read().count(text)

        # One peer at a time, as in Core's test: with another peer to download from, the
        # headers-sync peer would be dropped as stalling once the clock jumps.
        for outbound, addrv2 in ((False, True), (False, False), (True, False), (True, True)):
            kind = "outbound" if outbound else "inbound"
            self.log("%s peer (addrv2=%s): our address first, alone" % (kind, addrv2))
            before = advertised()
            # The clock back to today, as Core's test sets it for each peer: 40 days on, the
            # addresses of the getaddr answer would be too old to give.
            mock[0] = int(time.time())
            node.rpc("setmocktime", mock[0])
            if outbound:
                peer = P2PConnection(addrv2=addrv2)
                lport = peer.listen()
                node.rpc("addconnection", "127.0.0.1:%d" % lport, "outbound-full-relay", False)
                peer.wait_for_connect(timeout=30)
                peer.sync_with_ping()
                # Our tip's header from it: an outbound peer that never shows our chain
                # would be evicted once the clock moves on (as Core's test protects its).
                tip = node.rpc("getblockheader", node.rpc("getbestblockhash"), False)
                peer.send_message(MsgHeaders([bytes.fromhex(tip)]))
            else:
                peer = P2PConnection(addrv2=addrv2).connect(node.p2p_port)
                peer.send_message(MsgGetAddr())
            peer.sync_with_ping()
            want = 1 if outbound else 2  # an inbound peer's getaddr is answered too
            wait_until(lambda: len(self.addrs_of(peer)) >= want, timeout=10, what="addr")
            msgs = self.addrs_of(peer)
            assert_equal(len(msgs), want)
            assert_equal(msgs[0].command, "addrv2" if addrv2 else "addr")
            assert_equal(len(msgs[0].addrs), 1)
            assert_true(is_ours(msgs[0].addrs[0], mock[0]), "ours: %r" % msgs[0].addrs)
            if not outbound:
                assert_true(all(a.ip != "2.2.2.2" for a in msgs[1].addrs), "answer apart")
            assert_equal(advertised(), before + 1)

            self.log("%s peer: 20 days later, announced again" % kind)
            for k in range(2):
                mock[0] += 20 * DAY
                node.rpc("setmocktime", mock[0])
                peer.sync_with_ping()
                wait_until(lambda: len(self.addrs_of(peer)) == want + k + 1, timeout=10,
                           what="a new announcement")
                last = self.addrs_of(peer)[-1]
                assert_equal(len(last.addrs), 1)
                assert_true(is_ours(last.addrs[0], mock[0]), "ours: %r" % last.addrs)
            assert_equal(advertised(), before + 3)
            peer.close()
            wait_until(lambda: node.rpc("getconnectioncount") == 0, timeout=10, what="gone")
        node.stop()

        self.log("no -externalip: nothing announced")
        was = advertised("Advertising address")
        node.start(["-maxtipage=2000000000", "-debug=net"])
        assert_equal(node.rpc("getnetworkinfo")["localaddresses"], [])
        peer = P2PConnection().connect(node.p2p_port)
        peer.send_message(MsgGetAddr())
        peer.sync_with_ping()
        time.sleep(0.3)
        assert_true(all(a.ip != "2.2.2.2" for m in self.addrs_of(peer) for a in m.addrs),
                    "no self-announcement")
        assert_equal(advertised("Advertising address"), was)
        peer.close()
        node.stop()


if __name__ == "__main__":
    LocalAddrTest().main()
