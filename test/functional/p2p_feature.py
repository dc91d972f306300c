#!/usr/bin/env python3
"""BIP434's feature message and protocol version 70017 (Core's p2p_bip434_feature, in short):

- the node speaks 70017 (its version message, getnetworkinfo);
- a feature message between version and verack from a 70017 peer is read: an unknown feature
  is logged ("unknown feature advertised: <id>") and the peer stays;
- Core's reasons to disconnect, each with its line: a feature after verack, a feature from a
  peer whose version is below 70017, a payload that is not a 4-80 byte id and at most 512
  bytes of data with nothing after.
"""

import p2p
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until


def compact(n):
    return bytes([n]) if n < 0xfd else b"\xfd" + n.to_bytes(2, "little")


def feature(fid, data=b"", trailing=b""):
    return p2p.frame("feature", compact(len(fid)) + fid + compact(len(data)) + data + trailing)


class P2PFeatureTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-debug=net"]]

    def logged(self, text):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return text in f.read()

    def peer_id(self):
        return max(p["id"] for p in self.nodes[0].rpc("getpeerinfo"))

    def half_open(self, version=70017):
        """A peer that sent its version and got the node's, but no verack yet."""
        peer = p2p.P2PConnection(handshake=False, version=version)
        peer.connect(self.nodes[0].p2p_port, wait_for_verack=False)
        peer.send_version()
        peer.wait_for(lambda: peer.peer_version is not None, 10, desc="the node's version")
        return peer

    def run_test(self):
        node = self.nodes[0]
        assert_equal(node.rpc("getnetworkinfo")["protocolversion"], 70017)

        self.log("an unknown feature between version and verack: logged, the peer stays")
        peer = self.half_open()
        assert_equal(peer.peer_version.version, 70017)
        pid = self.peer_id()
        peer.send_raw(feature(b"bitnode-test/x1", b"\x01\x02"))
        peer.send_message(p2p.MsgVerack())
        peer.wait_for(lambda: peer.verack_received, 10, desc="verack")
        peer.sync_with_ping()
        assert_true(self.logged("unknown feature advertised: bitnode-test/x1"), "the line")
        assert_true(peer.is_connected, "still connected")

        self.log("a feature after verack disconnects")
        peer.send_raw(feature(b"late"))
        peer.wait_for_disconnect(timeout=10)
        assert_true(self.logged("feature received after verack, disconnecting peer=%d" % pid),
                    "the after-verack line")

        self.log("a feature from a 70016 peer disconnects")
        old = self.half_open(version=70016)
        pid = self.peer_id()
        old.send_raw(feature(b"abcd"))
        old.wait_for_disconnect(timeout=10)
        assert_true(self.logged("feature received with incompatible version 70016, "
                                "disconnecting peer=%d" % pid), "the version line")

        for what, msg in (("a 3-byte id", feature(b"abc")),
                          ("an 81-byte id", feature(b"x" * 81)),
                          ("513 bytes of data", feature(b"abcd", b"\x00" * 513)),
                          ("a trailing byte", feature(b"abcd", b"", b"\x00"))):
            self.log("%s disconnects" % what)
            bad = self.half_open()
            pid = self.peer_id()
            bad.send_raw(msg)
            bad.wait_for_disconnect(timeout=10)
            wait_until(lambda: self.logged("invalid feature payload, disconnecting peer=%d" % pid),
                       what="the payload line")


if __name__ == "__main__":
    P2PFeatureTest().main()
