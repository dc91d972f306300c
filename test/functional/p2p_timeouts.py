#!/usr/bin/env python3
"""Peer timeouts follow the node's clock, and setmocktime moves that clock (Core's
p2p_timeouts and p2p_ping, in short):

- a peer that never completes the handshake is dropped once 60 s (-peertimeout) have
  passed on the mock clock;
- moving the clock a little does not disturb a peer that answers pings;
- a peer that never answers a ping is dropped once 20 minutes have passed (Core's
  TIMEOUT_INTERVAL), and one that answers stays (with -peertimeout as large as Core's tests
  set it: else the inactivity check drops every peer that was silent for 20 minutes of
  mock time, as Core's does).
"""

import time

import p2p
from framework import BitnodeTestFramework, assert_true, wait_until


class SilentPeer(p2p.P2PConnection):
    def on_ping(self, msg):
        pass  # never answers


class P2PTimeoutsTest(BitnodeTestFramework):
    num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        now = int(time.time())
        node.rpc("setmocktime", now)

        self.log("a handshake that never ends times out on the mock clock")
        mute = p2p.P2PConnection(version_on_connect=False).connect(node.p2p_port,
                                                                    wait_for_verack=False)
        time.sleep(0.5)
        assert_true(mute.is_connected, "still connected before the timeout")
        node.rpc("setmocktime", now + 61)
        mute.wait_for_disconnect(timeout=10)

        self.log("moving the clock a little keeps peers that answer")
        node.stop()
        node.start(["-peertimeout=999999999", "-debug=net"])
        node.rpc("setmocktime", now)
        good = p2p.P2PConnection().connect(node.p2p_port)
        silent = SilentPeer().connect(node.p2p_port)
        node.rpc("setmocktime", now + 70)
        good.sync_with_ping()
        node.rpc("ping")
        time.sleep(0.5)
        assert_true(good.is_connected and silent.is_connected, "both connected")

        self.log("a ping unanswered for 20 minutes drops the peer")
        node.rpc("setmocktime", now + 70 + 20 * 60 + 1)
        silent.wait_for_disconnect(timeout=10)
        good.sync_with_ping()
        assert_true(good.is_connected, "the answering peer stays")
        with open(node.debug_log, errors="replace") as f:
            log = f.read()
        assert_true("ping timeout" in log, "the ping timeout logged (-debug=net, as Core)")
        good.close()


if __name__ == "__main__":
    P2PTimeoutsTest().main()
