#!/usr/bin/env python3
"""Peer timeouts follow the node's clock, and setmocktime moves that clock (Core's
p2p_timeouts and p2p_ping, in short):

- a peer that never completes the handshake is dropped once 60 s (-peertimeout) have
  passed on the mock clock, with Core's "socket no message in first 60 seconds" line;
- moving the clock a little does not disturb a peer that answers pings; pongs out of turn
  are logged in Core's words;
- a peer that never answers a ping is dropped once 20 minutes have passed (Core's
  TIMEOUT_INTERVAL), and one that answers stays; the clock moves in two steps with traffic
  between, as in Core's p2p_ping, else 20 silent minutes drop both peers first.
"""

import time

import p2p
from framework import BitnodeTestFramework, assert_true, wait_until


class SilentPeer(p2p.P2PConnection):
    def on_ping(self, msg):
        pass  # never answers


class P2PTimeoutsTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-debug=net"]]

    def logged(self, text):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return text in f.read()

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
        # Core's InactivityCheck words: nothing went either way.
        assert_true(self.logged("socket no message in first 60 seconds, never received from "
                                "peer, never sent to peer, disconnecting peer=0"),
                    "the no-message line")

        self.log("moving the clock a little keeps peers that answer")
        node.stop()
        node.start(["-peertimeout=1", "-debug=net"])
        node.rpc("setmocktime", now)
        good = p2p.P2PConnection().connect(node.p2p_port)
        silent = SilentPeer().connect(node.p2p_port)
        # Both handshakes done on the node's side (its verack from us handled) before the clock
        # moves past -peertimeout=1.
        good.sync_with_ping()
        silent.sync_with_ping()
        node.rpc("setmocktime", now + 70)
        good.sync_with_ping()
        self.log("pongs out of turn are logged as Core's ProcessPong does")
        peer_id = [p for p in node.rpc("getpeerinfo") if p["subver"]][0]["id"]
        good.send_message(p2p.MsgPong(5))
        good.send_raw(p2p.frame("pong", b"\x01\x02\x03\x04"))
        good.sync_with_ping()
        wait_until(lambda: self.logged("pong peer=%d: Unsolicited pong without ping, 0 expected, "
                                       "5 received, 8 bytes" % peer_id), what="unsolicited")
        wait_until(lambda: self.logged("pong peer=%d: Short payload, 0 expected, 0 received, "
                                       "4 bytes" % peer_id), what="short payload")
        node.rpc("ping")
        time.sleep(0.5)
        assert_true(good.is_connected and silent.is_connected, "both connected")

        self.log("a ping unanswered for 20 minutes drops the peer")
        # In two steps with traffic between (as Core's p2p_ping): else the 20 minutes without
        # a message would drop both peers first (socket receive timeout).
        node.rpc("setmocktime", now + 70 + 10 * 60)
        # A ping of its own (answered: the node's pong is what it last sent it, so no sending
        # timeout comes first) does not save it.
        silent.sync_with_ping()
        good.sync_with_ping()
        node.rpc("setmocktime", now + 70 + 20 * 60 + 1)
        silent.wait_for_disconnect(timeout=10)
        good.sync_with_ping()
        assert_true(good.is_connected, "the answering peer stays")
        with open(node.debug_log, errors="replace") as f:
            log = f.read()
        assert_true("ping timeout: 12" in log and "s, disconnecting peer=" in log,
                    "the ping timeout logged (-debug=net, as Core)")
        good.close()


if __name__ == "__main__":
    P2PTimeoutsTest().main()
