#!/usr/bin/env python3
"""BIP157 serving with -peerblockfilters: getcfilters, getcfheaders and getcfcheckpt.

A node with -blockfilterindex -peerblockfilters imports regtest-small:
- it offers NODE_COMPACT_FILTERS in its version; a node without -peerblockfilters does not
  and drops a peer that asks for filters; -peerblockfilters alone stops start-up with Core's
  words;
- cfilter messages (one per block asked for) carry the filters getblockfilter gives;
  cfheaders the previous header and each filter's hash, so that chaining them gives
  getblockfilter's headers; cfcheckpt the header of every 1000th block;
- as Core, a peer is disconnected for an unknown filter type, an unknown stop block, a start
  above the stop, or more blocks than a message may carry (1000 filters, 2000 headers).
"""
import os
import struct

from blocktools import hash_from_hex, read_compact_size, sha256d
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import P2PConnection

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"
NODE_COMPACT_FILTERS = 1 << 6


def request(kind, start, stop_hex, filter_type=0):
    if kind == "getcfcheckpt":
        return bytes([filter_type]) + hash_from_hex(stop_hex)
    return bytes([filter_type]) + struct.pack("<I", start) + hash_from_hex(stop_hex)


class P2PBlockFiltersTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def connect(self, node):
        conn = P2PConnection()
        conn.connect(node.p2p_port)
        return conn

    def run_test(self):
        node, plain = self.nodes
        plain.assert_start_fails(["-peerblockfilters"],
                                 "Cannot set -peerblockfilters without -blockfilterindex.")
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE,
                    "-blockfilterindex", "-peerblockfilters"])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        wait_until(lambda: node.rpc("getindexinfo")["basic block filter index"]["synced"] and
                   node.rpc("getindexinfo")["basic block filter index"]["best_block_height"]
                   == 1300, timeout=120, what="index synced")
        hashes = [node.rpc("getblockhash", h) for h in range(1301)]
        rpc_filters = [node.rpc("getblockfilter", h) for h in hashes]

        conn = self.connect(node)
        assert_true(conn.peer_version.services & NODE_COMPACT_FILTERS, "NODE_COMPACT_FILTERS")

        self.log("cfilter: one per block, getblockfilter's")
        mark = conn.log_index()
        conn.send("getcfilters", request("getcfilters", 100, hashes[299]))
        got = [conn.wait_for("cfilter", since=mark if i == 0 else None) for i in range(200)]
        for i, m in enumerate(got):
            p = m.payload
            assert_equal(p[0], 0)
            assert_equal(p[1:33], hash_from_hex(hashes[100 + i]))
            n, pos = read_compact_size(p, 33)
            assert_equal(p[pos:pos + n].hex(), rpc_filters[100 + i]["filter"])
            assert_equal(pos + n, len(p))

        self.log("cfheaders: chaining the filter hashes gives getblockfilter's headers")
        conn.send("getcfheaders", request("getcfheaders", 1, hashes[1300]))
        p = conn.wait_for("cfheaders").payload
        assert_equal(p[0], 0)
        assert_equal(p[1:33], hash_from_hex(hashes[1300]))
        prev = p[33:65]
        assert_equal(prev, hash_from_hex(rpc_filters[0]["header"]))
        n, pos = read_compact_size(p, 65)
        assert_equal(n, 1300)
        for i in range(n):
            fh = p[pos + 32 * i:pos + 32 * (i + 1)]
            assert_equal(fh, sha256d(bytes.fromhex(rpc_filters[1 + i]["filter"])))
            prev = sha256d(fh + prev)
            assert_equal(prev, hash_from_hex(rpc_filters[1 + i]["header"]))

        self.log("cfcheckpt: every 1000th header")
        conn.send("getcfcheckpt", request("getcfcheckpt", 0, hashes[1300]))
        p = conn.wait_for("cfcheckpt").payload
        assert_equal(p[1:33], hash_from_hex(hashes[1300]))
        n, pos = read_compact_size(p, 33)
        assert_equal(n, 1)
        assert_equal(p[pos:pos + 32], hash_from_hex(rpc_filters[1000]["header"]))
        conn.send("getcfcheckpt", request("getcfcheckpt", 0, hashes[999]))
        assert_equal(conn.wait_for("cfcheckpt").payload[33], 0)
        conn.sync_with_ping()

        self.log("Core's disconnects")
        for kind, start, stop, ftype in [("getcfilters", 0, hashes[10], 1),
                                         ("getcfilters", 0, "11" * 32, 0),
                                         ("getcfheaders", 20, hashes[10], 0),
                                         ("getcfilters", 0, hashes[1000], 0),
                                         ("getcfheaders", 0, hashes[1300], 0)]:
            if kind == "getcfheaders" and start == 0:
                # 1301 headers are allowed (2000): this one must be answered
                conn.send(kind, request(kind, start, stop, ftype))
                conn.wait_for("cfheaders")
                continue
            c = self.connect(node)
            c.send(kind, request(kind, start, stop, ftype))
            c.wait_for_disconnect()
        conn.sync_with_ping()
        node.stop()

        self.log("without -peerblockfilters: no service bit, a request is dropped")
        node.start([TIPAGE, "-blockfilterindex"])
        c = self.connect(node)
        assert_equal(c.peer_version.services & NODE_COMPACT_FILTERS, 0)
        c.send("getcfilters", request("getcfilters", 0, node.rpc("getblockhash", 5)))
        c.wait_for_disconnect()


if __name__ == "__main__":
    P2PBlockFiltersTest().main()
