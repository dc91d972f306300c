#!/usr/bin/env python3
"""Inbound slots and the share of them transaction-relaying peers may take (Core's
p2p_connection_limits and the tx-relay cap of its p2p_eviction, with the same log lines):

- -maxconnections=13 leaves 2 inbound slots, and -inboundrelaypercent (default 50) lets 1 of
  them relay transactions: a second relaying peer finds the first protected and is dropped
  after its version, without a verack ("failed to find a tx-relaying eviction candidate");
- a peer whose version asks for no transactions takes the other slot, then a third peer
  finds both protected ("failed to find an eviction candidate - connection dropped (full)");
- with -peerbloomfilters, a blocks-only peer that loads a filter becomes a relayer: with the
  relaying slot taken by a protected peer, it is dropped ("connection dropped after
  filterload message");
- -inboundrelaypercent=0 admits no relaying peer, =100 every one;
- when an unprotected relaying peer exists, the newcomer stays and that one goes ("selected
  inbound connection for eviction"); peers that relay no transactions are never chosen for
  the cap.
"""

import struct
import time

import p2p
from blocktools import ser_compact_size
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until


class P2PInboundLimitsTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-debug=net", "-maxconnections=13"]]

    def log_text(self):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return f.read()

    def wait_log(self, text, since):
        wait_until(lambda: text in self.log_text()[since:], timeout=10, what=text)

    def peers(self):
        return len(self.nodes[0].rpc("getpeerinfo"))

    def restart(self, *args):
        node = self.nodes[0]
        node.stop()
        node.start(["-debug=net"] + list(args))

    def relayer(self):
        return p2p.P2PConnection().connect(self.nodes[0].p2p_port)

    def blocks_only(self, services=p2p.P2P_SERVICES):
        return p2p.P2PConnection(relay=False, services=services).connect(self.nodes[0].p2p_port)

    def dropped_after_version(self):
        """A relaying peer that the cap drops: it gets no verack, and the line is logged."""
        since = len(self.log_text())
        late = p2p.P2PConnection().connect(self.nodes[0].p2p_port, wait_for_verack=False)
        late.wait_for_disconnect(timeout=10)
        self.wait_log("failed to find a tx-relaying eviction candidate - connection dropped "
                      "after version message, peer=", since)
        assert_true(not late.verack_received, "no verack for the dropped peer")

    def run_test(self):
        node = self.nodes[0]
        self.log("2 inbound slots, 1 of them for a transaction relayer")
        first = self.relayer()
        self.dropped_after_version()
        wait_until(lambda: self.peers() == 1, what="one peer left")
        assert_true(first.is_connected, "the first relayer stays")
        first.close()
        wait_until(lambda: self.peers() == 0, what="no peer")

        self.log("a blocks-only peer takes the other slot; then every slot is taken")
        quiet = self.blocks_only()
        second = self.relayer()
        wait_until(lambda: self.peers() == 2, what="two peers")
        since = len(self.log_text())
        third = p2p.P2PConnection(version_on_connect=False).connect(node.p2p_port,
                                                                    wait_for_verack=False)
        third.wait_for_disconnect(timeout=10)
        self.wait_log("failed to find an eviction candidate - connection dropped (full)", since)
        assert_equal(self.peers(), 2)
        assert_true(quiet.is_connected and second.is_connected, "both stay")

        self.log("a filterload makes a blocks-only peer a relayer, which the cap weighs")
        self.restart("-maxconnections=13", "-peerbloomfilters")
        quiet = self.blocks_only()
        second = self.relayer()
        wait_until(lambda: self.peers() == 2, what="two peers")
        since = len(self.log_text())
        quiet.send_raw(p2p.frame("filterload", ser_compact_size(100) + b"\xbb" * 100 +
                                 struct.pack("<IIB", 0, 0, 0)))
        quiet.wait_for_disconnect(timeout=10)
        self.wait_log("failed to find a tx-relaying eviction candidate - connection dropped "
                      "after filterload message, peer=", since)
        wait_until(lambda: self.peers() == 1, what="one peer left")
        assert_true(second.is_connected, "the relayer stays")

        self.log("-inboundrelaypercent=0: no relayer; =100: every slot")
        self.restart("-maxconnections=13", "-inboundrelaypercent=0")
        self.dropped_after_version()
        assert_equal(self.peers(), 0)
        self.restart("-maxconnections=13", "-inboundrelaypercent=100")
        a, b = self.relayer(), self.relayer()
        wait_until(lambda: self.peers() == 2, what="two relayers")

        self.log("only relaying peers are candidates for the cap")
        # 22 inbound slots, none for relayers: 21 blocks-only peers without services (no
        # block-relay protection either) are never chosen, the relayer is dropped.
        self.restart("-maxconnections=33", "-inboundrelaypercent=0")
        quiet = [self.blocks_only(services=0) for _ in range(21)]
        wait_until(lambda: self.peers() == 21, what="21 blocks-only peers")
        self.dropped_after_version()
        assert_equal(self.peers(), 21)
        for q in quiet:
            q.close()

        self.log("an unprotected relayer makes room for the newcomer")
        # 40 inbound slots, 24 for relayers (60%). 20 relayers are protected by the fixed rules
        # (4 by network group, 8 by ping, 4 by transaction, 4 by block: here, among equals,
        # by age), 2 of the other 4 by uptime or for being local: one of the 2 youngest goes.
        self.restart("-maxconnections=51", "-inboundrelaypercent=60")
        relayers = []
        for _ in range(24):
            relayers.append(self.relayer())
            time.sleep(0.05)
        wait_until(lambda: self.peers() == 24, what="24 relayers")
        since = len(self.log_text())
        newcomer = self.relayer()  # its verack: it was kept
        self.wait_log("selected inbound connection for eviction, disconnecting peer=", since)
        wait_until(lambda: sum(1 for r in relayers if not r.is_connected) == 1,
                   what="one relayer evicted")
        wait_until(lambda: self.peers() == 24, what="24 peers again")
        assert_true(newcomer.is_connected, "the newcomer stays")


if __name__ == "__main__":
    P2PInboundLimitsTest().main()
