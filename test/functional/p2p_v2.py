#!/usr/bin/env python3
"""BIP324's v2 transport between bitnoded nodes, and its fallbacks (Core's p2p_v2_transport,
in short):

- -v2transport (on by default) offers NODE_P2P_V2; -v2transport=0 does not, and refuses an
  addnode that asks for v2;
- two nodes connect over v2 through a relay that records the bytes: both report
  transport_protocol_type "v2" and the same session_id, blocks sync, and the stream holds
  neither the network magic nor a message name in the clear;
- a v2 attempt to a v1-only peer (a bitnoded with -v2transport=0, and a test peer that hangs
  up on anything but v1) is retried with v1 ("retrying with v1 transport protocol for
  peer=N") and syncs;
- an inbound peer is "detecting" until 16 bytes tell v1 from v2; Core's reasons to drop a
  v2 peer: another network's v1 version ("V1 peer with wrong MessageStart"), and garbage
  without a terminator after 64 + 4095 + 16 bytes, not a byte earlier.
"""

import socket
import threading

import p2p
from blocktools import REGTEST_MAGIC
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

ADDR = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"  # BIP173's regtest P2WPKH example
NODE_P2P_V2 = 1 << 11


class Relay:
    """Forwards one TCP connection to a node's port and keeps every byte of both ways."""

    def __init__(self, target_port):
        self.target = target_port
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(1)
        self.port = self.ls.getsockname()[1]
        self.data = {"up": bytearray(), "down": bytearray()}
        self.lock = threading.Lock()
        threading.Thread(target=self._run, daemon=True).start()

    def _pipe(self, src, dst, key):
        try:
            while True:
                d = src.recv(65536)
                if not d:
                    break
                with self.lock:
                    self.data[key] += d
                dst.sendall(d)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _run(self):
        a, _ = self.ls.accept()
        b = socket.create_connection(("127.0.0.1", self.target))
        threading.Thread(target=self._pipe, args=(a, b, "up"), daemon=True).start()
        threading.Thread(target=self._pipe, args=(b, a, "down"), daemon=True).start()

    def stream(self, key):
        with self.lock:
            return bytes(self.data[key])


def log_has(node, text):
    with open(node.debug_log, errors="replace") as f:
        return text in f.read()


def peer_by_port(node, port):
    for p in node.rpc("getpeerinfo"):
        if p["addr"].endswith(":%d" % port):
            return p
    return None


class P2PV2Test(BitnodeTestFramework):
    num_nodes = 3
    # The framework starts nodes with v2transport=0 (as Core's): -v2transport=1 is the default
    # a node has outside tests.
    extra_args = [["-debug=net", "-v2transport=1"], ["-debug=net", "-v2transport=1"],
                  ["-debug=net", "-v2transport=0"]]

    def run_test(self):
        n0, n1, n2 = self.nodes

        self.log("the service bit follows -v2transport")
        info = n0.rpc("getnetworkinfo")
        assert_equal(int(info["localservices"], 16) & NODE_P2P_V2, NODE_P2P_V2)
        assert_true("P2P_V2" in info["localservicesnames"], info["localservicesnames"])
        info = n2.rpc("getnetworkinfo")
        assert_equal(int(info["localservices"], 16) & NODE_P2P_V2, 0)
        assert_true("P2P_V2" not in info["localservicesnames"], info["localservicesnames"])
        assert_raises_rpc_error(-8, "Error: v2transport requested but not enabled (see -v2transport)",
                                n2.rpc, "addnode", "127.0.0.1:%d" % n0.p2p_port, "onetry", True)

        self.log("two nodes over v2, through a relay that records the bytes")
        relay = Relay(n1.p2p_port)
        n0.rpc("addnode", "127.0.0.1:%d" % relay.port, "onetry")
        wait_until(lambda: len(n1.rpc("getpeerinfo")) == 1 and
                   n1.rpc("getpeerinfo")[0]["transport_protocol_type"] == "v2" and
                   n1.rpc("getpeerinfo")[0]["version"] > 0, what="the v2 link")
        p0 = peer_by_port(n0, relay.port)
        p1 = n1.rpc("getpeerinfo")[0]
        assert_equal(p0["transport_protocol_type"], "v2")
        assert_equal(len(p0["session_id"]), 64)
        assert_equal(p0["session_id"], p1["session_id"])
        n0.rpc("generatetoaddress", 5, ADDR)
        tip = n0.rpc("getbestblockhash")
        wait_until(lambda: n1.rpc("getbestblockhash") == tip, what="node1 synced over v2")
        assert_true(log_has(n0, "start sending v2 handshake to peer=%d" % p0["id"]),
                    "the handshake logged")
        for key in ("up", "down"):
            stream = relay.stream(key)
            assert_true(len(stream) > 5 * 80, "blocks went %s" % key)
            assert_true(REGTEST_MAGIC not in stream, "no magic in the clear (%s)" % key)
            for name in (b"version", b"verack", b"sendcmpct", b"headers", b"getheaders",
                         b"wtxidrelay", b"sendaddrv2", b"ping", b"feefilter"):
                assert_true(name not in stream, "%r not in the clear (%s)" % (name, key))

        self.log("a v2 attempt to a bitnoded without v2 is retried with v1")
        n0.rpc("addnode", "127.0.0.1:%d" % n2.p2p_port, "onetry")
        wait_until(lambda: any(p["addr"].endswith(":%d" % n2.p2p_port) and p["version"] > 0
                               for p in n0.rpc("getpeerinfo")), what="the v1 link to node2")
        p = peer_by_port(n0, n2.p2p_port)
        assert_equal(p["transport_protocol_type"], "v1")
        assert_equal(p["session_id"], "")
        assert_true(log_has(n0, "retrying with v1 transport protocol for peer="),
                    "the retry logged")
        wait_until(lambda: n2.rpc("getbestblockhash") == tip, what="node2 synced over v1")
        assert_equal(n2.rpc("getpeerinfo")[0]["transport_protocol_type"], "v1")

        self.log("a v1-only test peer: the node's v2 attempt, then v1")
        peer = p2p.P2PConnection()
        port = peer.listen()
        n0.rpc("addnode", "127.0.0.1:%d" % port, "onetry", True)
        peer.wait_for_connect()
        assert_equal(peer.v2_attempts, 1)
        assert_equal(peer_by_port(n0, port)["transport_protocol_type"], "v1")
        peer.close()

        self.log("an inbound v1 peer: detecting until 16 bytes, then v1")
        prefix = REGTEST_MAGIC + b"version" + b"\x00" * 5
        def inbound():
            return [p for p in n0.rpc("getpeerinfo") if p["inbound"]]
        with socket.create_connection(("127.0.0.1", n0.p2p_port)) as s:
            s.sendall(prefix[:-1])
            wait_until(lambda: len(inbound()) == 1, what="the inbound peer")
            assert_equal(inbound()[0]["transport_protocol_type"], "detecting")
            s.sendall(prefix[-1:])
            wait_until(lambda: inbound()[0]["transport_protocol_type"] == "v1",
                       what="v1 detected")
        wait_until(lambda: len(inbound()) == 0, what="the inbound peer gone")

        self.log("another network's v1 node is dropped, with Core's words")
        signet = bytes.fromhex("0a03cf40")
        with socket.create_connection(("127.0.0.1", n0.p2p_port)) as s:
            s.sendall(signet + prefix[4:] + b"somepayload")
            wait_until(lambda: log_has(n0, "V2 transport error: V1 peer with wrong MessageStart "
                                       "0a03cf40"), what="the wrong-network line")

        self.log("garbage without a terminator: dropped after 64 + 4095 + 16 bytes")
        limit = 64 + 4095 + 16
        with socket.create_connection(("127.0.0.1", n0.p2p_port)) as s:
            s.sendall(b"\x00" * (limit - 1))
            wait_until(lambda: any(p["inbound"] and p["bytesrecv"] == limit - 1
                                   for p in n0.rpc("getpeerinfo")), what="all bytes read")
            pid = [p["id"] for p in n0.rpc("getpeerinfo")
                   if p["inbound"] and p["bytesrecv"] == limit - 1][0]
            s.sendall(b"\x00")
            wait_until(lambda: pid not in [p["id"] for p in n0.rpc("getpeerinfo")],
                       what="the peer dropped")
            assert_true(log_has(n0, "V2 transport error: missing garbage terminator, peer=%d"
                                % pid), "the terminator line")


if __name__ == "__main__":
    P2PV2Test().main()
