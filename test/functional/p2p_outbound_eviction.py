#!/usr/bin/env python3
"""Outbound peers that do not keep up with our chain (Core's ConsiderEviction, as its
p2p_outbound_eviction checks it), on the mock clock:

- a peer that announces nothing gets, 20 minutes after its handshake, one getheaders from
  the parent of our tip at the time, then 2 more minutes, then it is dropped ("Outbound peer
  has old chain");
- a peer that keeps catching up with the tip we had when its deadline was set (not with our
  current one) gets a new deadline each time, measured from the tip as it was when its
  headers were handled: the next getheaders starts from the parent of that tip even when a
  block is mined right after (the check runs after each message, as Core's SendMessages,
  not at the next tick);
- a full-relay peer that shows our tip, even with headers we already have, is protected
  ("Protecting outbound peer=N from eviction") and is never dropped for it.
"""

import p2p
from blocktools import Key, hash160, segwit_address
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until

CHAIN_SYNC_TIMEOUT = 20 * 60
HEADERS_RESPONSE_TIME = 2 * 60


class P2POutboundEvictionTest(BitnodeTestFramework):
    num_nodes = 1
    # No inactivity checks while the clock jumps (as Core's framework runs its nodes).
    extra_args = [["-debug=net", "-connect=0", "-peertimeout=999999999"]]

    def header(self, block_hash):
        return p2p.Header.from_bytes(bytes.fromhex(
            self.nodes[0].rpc("getblockheader", block_hash, False)))

    def mine(self):
        return self.nodes[0].rpc("generatetoaddress", 1, self.addr)[0]

    def outbound(self):
        peer = p2p.P2PConnection()
        port = peer.listen()
        self.nodes[0].rpc("addconnection", "127.0.0.1:%d" % port, "outbound-full-relay", False)
        peer.wait_for_connect()
        peer.sync_with_ping()
        return peer

    def set_time(self, t):
        self.nodes[0].rpc("setmocktime", t)

    def wait_getheaders_from(self, peer, since, block_hash):
        """The next getheaders after mark since; its locator must start at block_hash."""
        msg = peer.wait_for("getheaders", since=since, timeout=10)
        assert_equal(p2p.hash_hex(msg.locator[0]), block_hash)

    def run_test(self):
        node = self.nodes[0]
        self.addr = segwit_address("bcrt", 0, hash160(Key(0xE71C7).pubkey))
        node.rpc("generatetoaddress", 3, self.addr)
        now = node.rpc("getblockheader", node.rpc("getbestblockhash"))["time"] + 60
        self.set_time(now)

        self.log("a silent peer gets one getheaders, then is dropped")
        tip = node.rpc("getbestblockhash")
        tip_prev = node.rpc("getblockheader", tip)["previousblockhash"]
        peer = self.outbound()
        mark = peer.log_index()
        now += CHAIN_SYNC_TIMEOUT + 1
        self.set_time(now)
        self.wait_getheaders_from(peer, mark, tip_prev)
        assert_true(peer.is_connected, "still connected after the getheaders")
        now += HEADERS_RESPONSE_TIME + 1
        self.set_time(now)
        peer.wait_for_disconnect(timeout=10)

        self.log("a peer catching up with the old tip each time gets new deadlines")
        peer = self.outbound()  # its deadline: measured against the tip now
        prev_prev = node.rpc("getblockheader", node.rpc("getbestblockhash"))["previousblockhash"]
        best = self.mine()  # the peer is one block behind
        peer.sync_with_ping()
        for _ in range(4):
            prev_header = self.header(best)
            best = self.mine()  # two behind
            peer.sync_with_ping()
            mark = peer.log_index()
            now += CHAIN_SYNC_TIMEOUT + 1
            self.set_time(now)
            self.wait_getheaders_from(peer, mark, prev_prev)
            # One behind again: its new deadline is measured against the tip now, 'best',
            # even though the next block is mined as soon as the pong is back.
            peer.send_headers([prev_header])
            peer.sync_with_ping()
            prev_prev = node.rpc("getblockheader", best)["previousblockhash"]
        # Caught up with the tip: no deadline any more.
        peer.send_headers([self.header(best)])
        peer.sync_with_ping()
        now += CHAIN_SYNC_TIMEOUT + 1
        self.set_time(now)
        peer.sync_with_ping()
        now += HEADERS_RESPONSE_TIME + 1
        self.set_time(now)
        peer.sync_with_ping()
        assert_true(peer.is_connected, "the peer that caught up stays")
        peer.close()

        self.log("a peer showing our tip with known headers is protected")
        peer = self.outbound()
        tip = node.rpc("getbestblockhash")
        peer.send_headers([self.header(tip)])
        peer.sync_with_ping()
        peer_id = [p["id"] for p in node.rpc("getpeerinfo")
                   if p["connection_type"] == "outbound-full-relay"][0]
        with open(node.debug_log, errors="replace") as f:
            assert_true("Protecting outbound peer=%d from eviction" % peer_id in f.read(),
                        "protected")
        self.mine()
        peer.sync_with_ping()
        now += CHAIN_SYNC_TIMEOUT + 1
        self.set_time(now)
        peer.sync_with_ping()
        now += HEADERS_RESPONSE_TIME + 1
        self.set_time(now)
        peer.sync_with_ping()
        wait_until(lambda: len(node.rpc("getpeerinfo")) == 1, what="the protected peer stays")
        assert_true(peer.is_connected, "the protected peer stays")


if __name__ == "__main__":
    P2POutboundEvictionTest().main()
