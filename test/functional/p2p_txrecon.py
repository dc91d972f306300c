#!/usr/bin/env python3
"""BIP330's negotiation behind -txreconciliation (Core's p2p_sendtxrcncl, in short):

- with -txreconciliation the node sends sendtxrcncl (version 1, an 8-byte salt) before its
  verack to a peer that relays transactions, and not to one whose version says relay=0;
- a peer's sendtxrcncl then registers it ("Register peer=N (inbound=1)") if it also sent
  wtxidrelay; without wtxidrelay its state is forgotten at verack;
- Core's disconnects, each with its line: sendtxrcncl after verack, twice, version 0;
- without -txreconciliation nothing is sent and a peer's sendtxrcncl is ignored (logged).
"""

import struct

import p2p
from framework import BitnodeTestFramework, assert_equal, assert_true


def sendtxrcncl(version=1, salt=2):
    return p2p.frame("sendtxrcncl", struct.pack("<IQ", version, salt))


class P2PTxReconTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-txreconciliation", "-debug=net", "-debug=txreconciliation"]]

    def logged(self, text):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return text in f.read()

    def peer_id(self):
        return max(p["id"] for p in self.nodes[0].rpc("getpeerinfo"))

    def half_open(self, relay=True):
        """A peer that sent its version and got the node's handshake messages, no verack."""
        peer = p2p.P2PConnection(handshake=False, relay=relay)
        peer.connect(self.nodes[0].p2p_port, wait_for_verack=False)
        peer.send_version()
        peer.wait_for(lambda: any(m.command == "verack" for m in peer.messages), 10,
                      desc="the node's verack")
        return peer

    def finish(self, peer, wtxid=True):
        if wtxid:
            peer.send_message(p2p.MsgWtxidRelay())
        peer.send_message(p2p.MsgVerack())
        peer.sync_with_ping()

    def run_test(self):
        self.log("sendtxrcncl comes before the node's verack, version 1 and a salt")
        peer = self.half_open()
        names = [m.command for m in peer.messages]
        assert_true("sendtxrcncl" in names, "sendtxrcncl sent: %r" % names)
        assert_true(names.index("sendtxrcncl") < names.index("verack"), "before verack")
        msg = peer.messages[names.index("sendtxrcncl")]
        assert_equal(len(msg.payload), 12)
        assert_equal(struct.unpack("<I", msg.payload[:4])[0], 1)
        pid = self.peer_id()
        assert_true(self.logged("Pre-register peer=%d" % pid), "pre-registered")

        self.log("the peer's sendtxrcncl and wtxidrelay register it")
        peer.send_raw(sendtxrcncl())
        self.finish(peer)
        assert_true(self.logged("Register peer=%d (inbound=1)" % pid), "registered")

        self.log("sendtxrcncl after verack disconnects")
        peer.send_raw(sendtxrcncl())
        peer.wait_for_disconnect(timeout=10)
        assert_true(self.logged("sendtxrcncl received after verack, disconnecting peer=%d" % pid),
                    "the after-verack line")
        assert_true(self.logged("Forget txreconciliation state of peer=%d" % pid),
                    "forgotten when gone")

        self.log("twice before verack disconnects")
        peer = self.half_open()
        pid = self.peer_id()
        peer.send_raw(sendtxrcncl() + sendtxrcncl())
        peer.wait_for_disconnect(timeout=10)
        assert_true(self.logged("txreconciliation protocol violation (sendtxrcncl received from "
                                "already registered peer), disconnecting peer=%d" % pid), "twice")

        self.log("version 0 disconnects")
        peer = self.half_open()
        pid = self.peer_id()
        peer.send_raw(sendtxrcncl(version=0))
        peer.wait_for_disconnect(timeout=10)
        assert_true(self.logged("txreconciliation protocol violation, disconnecting peer=%d" % pid),
                    "version 0")

        self.log("without wtxidrelay the state is forgotten at verack")
        peer = self.half_open()
        pid = self.peer_id()
        peer.send_raw(sendtxrcncl())
        self.finish(peer, wtxid=False)
        assert_true(self.logged("Forget txreconciliation state of peer=%d" % pid), "forgotten")
        peer.close()

        self.log("a peer that asked for no transactions gets none, and may not offer them")
        peer = self.half_open(relay=False)
        pid = self.peer_id()
        assert_true("sendtxrcncl" not in [m.command for m in peer.messages], "not sent")
        peer.send_raw(sendtxrcncl())
        peer.wait_for_disconnect(timeout=10)
        assert_true(self.logged("sendtxrcncl received which indicated no tx relay to us, "
                                "disconnecting peer=%d" % pid), "no-relay line")

        self.log("without -txreconciliation: not sent, and ignored")
        self.nodes[0].stop()
        self.nodes[0].start(["-txreconciliation=0"])
        peer = self.half_open()
        pid = self.peer_id()
        assert_true("sendtxrcncl" not in [m.command for m in peer.messages], "not sent")
        peer.send_raw(sendtxrcncl())
        self.finish(peer)
        assert_true(peer.is_connected, "still connected")
        assert_true(self.logged("sendtxrcncl from peer=%d ignored, as our node does not have "
                                "txreconciliation enabled" % pid), "ignored line")
        peer.close()


if __name__ == "__main__":
    P2PTxReconTest().main()
