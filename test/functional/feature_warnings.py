#!/usr/bin/env python3
"""What getnetworkinfo and the "warnings" of getblockchaininfo, getnetworkinfo and
getmininginfo answer is the node's state, as Core's (no constants):

- the clock warning (Core's TimeOffsets, node/timeoffsets.cpp): each outbound peer's version
  time minus ours is kept (the last 50, disconnected peers included); below five samples
  getnetworkinfo's timeoffset is 0; from five on it is their upper median, and past 10
  minutes either way Core's "Your computer's date and time appear to be more than 10
  minutes out of sync with the network, ..." is listed and logged as a warning. Inbound
  peers never count (they could fake it). In-sync peers that outnumber the skewed ones
  clear it;
- a build that is not a pre-release lists nothing at start;
- relayfee and incrementalfee are -minrelaytxfee and -incrementalrelayfee (BTC/kvB), not
  Core's defaults whatever was configured;
- gettxoutsetinfo's disk_size is the coins store's estimate, not 0 (after a restart: LevelDB
  counts its tables, and a new store's coins are still in its log, in Core as here).
"""

import time

import p2p
from blocktools import Key, hash160, segwit_address
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

SKEW = 3600  # an hour ahead
CLOCK = "Your computer's date and time appear to be more than 10 minutes out of sync"


class SkewedPeer(p2p.P2PConnection):
    """A peer whose version carries our time plus skew."""

    def __init__(self, skew, **kw):
        self.skew = skew
        super().__init__(**kw)

    def send_version(self, **fields):
        fields.setdefault("time", int(time.time()) + self.skew)
        super().send_version(**fields)


class FeatureWarningsTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-debug=net", "-connect=0", "-minrelaytxfee=0.00002",
                   "-incrementalrelayfee=0.00003"]]

    def warnings(self):
        node = self.nodes[0]
        w = node.rpc("getblockchaininfo")["warnings"]
        assert_equal(node.rpc("getnetworkinfo")["warnings"], w)
        assert_equal(node.rpc("getmininginfo")["warnings"], w)
        return w

    def outbound(self, skew):
        """One outbound peer through its handshake, then gone (its sample stays)."""
        peer = SkewedPeer(skew)
        port = peer.listen()
        self.nodes[0].rpc("addconnection", "127.0.0.1:%d" % port, "outbound-full-relay", False)
        peer.wait_for_connect()
        peer.sync_with_ping()
        peer.close()
        wait_until(lambda: self.nodes[0].rpc("getconnectioncount") == 0,
                   what="the peer gone")

    def logged(self, text):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return text in f.read()

    def run_test(self):
        node = self.nodes[0]
        self.log("not a pre-release: no warning at start")
        assert_equal(self.warnings(), [])

        self.log("relayfee and incrementalfee are the configured fees")
        info = node.rpc("getnetworkinfo")
        assert_equal(str(info["relayfee"]), "2e-05")
        assert_equal(str(info["incrementalfee"]), "3e-05")
        assert_equal(info["relayfee"], node.rpc("getmempoolinfo")["minrelaytxfee"])
        assert_equal(info["incrementalfee"], node.rpc("getmempoolinfo")["incrementalrelayfee"])

        self.log("gettxoutsetinfo's disk_size: the coins store's estimate")
        addr = segwit_address("bcrt", 0, hash160(Key(0x5106).pubkey))
        node.rpc("generatetoaddress", 200, addr)
        # A restart first, as Core's rpc_blockchain sees it: LevelDB's estimate counts its
        # tables, and coins still only in its log (a new store) are 0 there, as in Core.
        node.stop()
        node.start()
        stats = node.rpc("gettxoutsetinfo")
        assert_equal(stats["txouts"], 200)
        assert_true(stats["disk_size"] > 0, "disk_size %d" % stats["disk_size"])

        self.log("skewed inbound peers do not count")
        inbound = [SkewedPeer(SKEW).connect(node.p2p_port) for _ in range(6)]
        for p in inbound:
            p.sync_with_ping()
        assert_equal(node.rpc("getnetworkinfo")["timeoffset"], 0)
        assert_equal(self.warnings(), [])
        offsets = [p["timeoffset"] for p in node.rpc("getpeerinfo")]
        assert_true(all(abs(o - SKEW) <= 5 for o in offsets), "getpeerinfo %s" % offsets)
        for p in inbound:
            p.close()
        wait_until(lambda: node.rpc("getconnectioncount") == 0, what="inbound peers gone")

        self.log("four skewed outbound peers: no median yet")
        for _ in range(4):
            self.outbound(SKEW)
        assert_equal(node.rpc("getnetworkinfo")["timeoffset"], 0)
        assert_equal(self.warnings(), [])

        self.log("the fifth: the median is an hour, the warning stands (and stays)")
        self.outbound(SKEW)
        assert_true(abs(node.rpc("getnetworkinfo")["timeoffset"] - SKEW) <= 5, "timeoffset")
        w = self.warnings()
        assert_equal(len(w), 1)
        assert_in(CLOCK, w[0])
        assert_true(w[0].endswith("RPC methods to get more info."), w[0])
        assert_true(self.logged("[warning] " + CLOCK), "the warning logged")
        assert_true(self.logged("Added time offset +"), "the sample logged")

        self.log("six in-sync outbound peers: the median is back, the warning gone")
        for _ in range(6):
            self.outbound(0)
        assert_true(abs(node.rpc("getnetworkinfo")["timeoffset"]) <= 5, "timeoffset")
        assert_equal(self.warnings(), [])

        self.log("the fees' defaults without the options: Core's 100 sat/kvB")
        node.stop()
        node.extra_args = ["-connect=0"]
        node.start()
        info = node.rpc("getnetworkinfo")
        assert_equal(str(info["relayfee"]), "1e-06")
        assert_equal(str(info["incrementalfee"]), "1e-06")


if __name__ == "__main__":
    FeatureWarningsTest().main()
