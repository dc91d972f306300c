#!/usr/bin/env python3
"""Misbehaving peers are disconnected and the node keeps syncing from an honest one.

The node starts empty with -connect to an honest Python peer (p2p.BlockServer) holding the
first 600 blocks of test/data/regtest-small. While it syncs, Python peers connect
inbound and each misbehaves in one way:
  garbage (wrong magic), a truncated frame (the next frame lands in its payload), a 32 MiB
  length prefix, a length over 4,000,000, a header with invalid proof of work,
  non-continuous headers, 2001 headers, an unsolicited block with a bad merkle root;
each is disconnected (local peers are not discouraged, as Core: a new one connects at
once), and none of them crashes the node, stalls it or leaves a trace in its block tree.
Messages before version are ignored as Core does (no answer, no disconnect), and so are, as
Core's, a frame with a bad checksum, a payload that does not decode, a flood of headers
that do not connect and one of low-work headers (a fork from genesis): logged, peer kept.
Then the honest peer announces the other 700 blocks and the node reaches Core's tip and
UTXO set hash.
"""

import json
import os

import p2p
from blocktools import REGTEST_BITS, Block, block_subsidy, create_coinbase, read_block_file
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until

# The regtest-small chain the repository carries (test/data/), so the test runs in a clone alone.
SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")


def solve_header(h, valid=True):
    """Changes h's nonce until its hash does (or, valid=False, does not) meet regtest's
    target."""
    target = (REGTEST_BITS & 0xFFFFFF) << (8 * ((REGTEST_BITS >> 24) - 3))
    while (int.from_bytes(h.sha, "little") <= target) != valid:
        h.nonce += 1
    return h


class P2PMisbehaveTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def peer(self):
        return p2p.P2PConnection().connect(self.node.p2p_port)

    def expect_disconnect(self, what, act, log_part=None):
        """A fresh peer does act(peer) and must be disconnected; the node stays up."""
        self.log("misbehaving peer: " + what)
        peer = self.peer()
        act(peer)
        peer.wait_for_disconnect(timeout=20)
        assert_true(self.node.rpc("getblockcount") >= 0, "node answers after " + what)
        if log_part:
            with open(self.node.debug_log, errors="replace") as f:
                assert_true(log_part in f.read(), "debug.log says %r" % log_part)
        peer.close()

    def expect_ignored(self, what, act, log_part):
        """As Core: a fresh peer does act(peer); the message is dropped with a log line, and
        the peer stays connected (it still answers a ping) and is not punished."""
        self.log("dropped, peer kept: " + what)
        peer = self.peer()
        act(peer)
        peer.sync_with_ping()
        with open(self.node.debug_log, errors="replace") as f:
            assert_true(log_part in f.read(), "debug.log says %r" % log_part)
        peer.close()

    def block_on_tip(self):
        """A valid coinbase-only block on the node's tip, solved."""
        tip = self.node.rpc("getbestblockhash")
        hdr = self.node.rpc("getblockheader", tip)
        blk = Block(bytes.fromhex(tip)[::-1],
                    [create_coinbase(hdr["height"] + 1, block_subsidy(hdr["height"] + 1))],
                    hdr["time"] + 1)
        blk.solve()
        return blk

    def run_test(self):
        self.node = node = self.nodes[0]
        with open(os.path.join(SMALL, "expected.json")) as f:
            expected = json.load(f)
        raws = read_block_file(os.path.join(SMALL, "blk00000.dat"))
        assert_equal(len(raws), 1301)
        honest = p2p.BlockServer(blocks=raws[1:601])
        port = honest.listen()
        node.start(["-connect=127.0.0.1:%d" % port, "-maxtipage=2000000000", "-debug=net"])
        honest.wait_for_connect(timeout=30)
        wait_until(lambda: node.rpc("getblockcount") >= 1, timeout=30, what="sync started")

        tip_hdr = p2p.to_header(raws[600])

        self.log("a message before version is ignored, as Core does")
        early = p2p.P2PConnection(version_on_connect=False).connect(node.p2p_port,
                                                                     wait_for_verack=False)
        early.send_message(p2p.MsgPing(1234))
        early.send_message(p2p.MsgGetHeaders([tip_hdr.sha]))
        early.send_version()
        early.wait_for_verack(timeout=20)
        nonce = early.sync_with_ping()
        assert_true(nonce != 1234)
        assert_equal([m for m in early.messages if m.command == "pong" and m.nonce == 1234], [])
        early.close()

        self.expect_disconnect("garbage with a wrong magic",
                               lambda p: p.send_raw(b"\xde\xad\xbe\xef" + os.urandom(60)),
                               "Wrong MessageStart")
        self.expect_disconnect(
            "a truncated frame (100 bytes announced, 50 sent, then a ping)",
            lambda p: p.send_raw(p2p.frame("headers", b"\x00" * 100)[:24 + 50] +
                                 p2p.frame("ping", b"\x01" * 8) + p2p.frame("ping", b"\x02" * 8) +
                                 b"\x00" * 40))
        self.expect_disconnect("a 32 MiB length prefix",
                               lambda p: p.send_raw(p2p.frame("block", b"", length=32 << 20)),
                               "Size too large (block, 33554432 bytes)")
        self.expect_disconnect("a length of 4,000,001",
                               lambda p: p.send_raw(p2p.frame("block", b"", length=4_000_001)))
        self.expect_ignored("a bad checksum",
                            lambda p: p.send_raw(p2p.frame("ping", b"\x01" * 8,
                                                           csum=b"\x00\x00\x00\x00")),
                            "Header error: Wrong checksum (ping, 8 bytes), expected ")
        self.expect_ignored("a headers payload cut short",
                            lambda p: p.send("headers", b"\x05" + b"\x00" * 30),
                            "ProcessMessages(headers, 31 bytes): Exception")

        def bad_pow(p):
            h = p2p.Header(0x20000000, tip_hdr.sha, b"\x11" * 32, tip_hdr.time + 1,
                           REGTEST_BITS, 0)
            p.send_headers([solve_header(h, valid=False)])
        self.expect_disconnect("a header with invalid proof of work", bad_pow,
                               "header with invalid proof of work")

        def non_continuous(p):
            a = solve_header(p2p.Header(0x20000000, tip_hdr.sha, b"\x12" * 32, tip_hdr.time + 1,
                                        REGTEST_BITS, 0))
            b = solve_header(p2p.Header(0x20000000, b"\x13" * 32, b"\x14" * 32, tip_hdr.time + 2,
                                        REGTEST_BITS, 0))
            p.send_headers([a, b])
        self.expect_disconnect("non-continuous headers", non_continuous,
                               "non-continuous headers sequence")

        def too_many(p):
            hdrs, prev = [], tip_hdr.sha
            for i in range(2001):
                h = p2p.Header(0x20000000, prev, b"\x15" * 32, tip_hdr.time + 1 + i,
                               REGTEST_BITS, 0)
                hdrs.append(h)
                prev = h.sha
            p.send("headers", p2p.MsgHeaders(hdrs).serialize())
        self.expect_disconnect("2001 headers in one message", too_many,
                               "headers message size = 2001")

        def unconnecting(p):
            for i in range(15):
                h = solve_header(p2p.Header(0x20000000, bytes([i + 1]) * 32, b"\x16" * 32,
                                            tip_hdr.time + 1, REGTEST_BITS, 0))
                p.send_headers([h])
        self.expect_ignored("a flood of headers that do not connect (Core: getheaders each)",
                            unconnecting, "missing prev block")

        def low_work(p):
            # A fork from genesis, 20 headers long, again and again: far less work than the
            # node's chain (at least 300 blocks by now); never stored.
            genesis = p2p.to_hash(p2p.REGTEST_GENESIS)
            for rep in range(15):
                hdrs, prev = [], genesis
                for i in range(20):
                    h = solve_header(p2p.Header(0x20000000, prev, bytes([rep]) * 32,
                                                1296688602 + 1 + i, REGTEST_BITS, 0))
                    hdrs.append(h)
                    prev = h.sha
                p.send_headers(hdrs)
        wait_until(lambda: node.rpc("getblockcount") >= 300, timeout=60, what="300 blocks")
        self.expect_ignored("a flood of low-work headers (Core: ignored)", low_work,
                            "Ignoring low-work chain")
        tips = node.rpc("getchaintips")
        assert_equal([t for t in tips if t["height"] <= 20 and t["status"] != "active"], [])

        def mutated_new(p):
            # An unsolicited block on the node's tip whose merkle root is not its
            # transactions'.
            blk = self.block_on_tip()
            blk.merkle = b"\x18" * 32
            while int.from_bytes(blk.sha, "little") > blk.target():
                blk.nonce += 1
            p.send_block(blk.serialize())
        self.expect_disconnect("an unsolicited block with a bad merkle root", mutated_new,
                               "bad-txnmrklroot")

        self.log("the honest peer is still connected; it announces the rest")
        assert_true(honest.is_connected, "honest peer kept")
        wait_until(lambda: node.rpc("getblockcount") == 600, timeout=60, what="600 blocks")
        honest.add_blocks(raws[601:])
        honest.announce_tip()
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="1300 blocks")
        assert_equal(node.rpc("getbestblockhash"), p2p.hash_hex(p2p.to_header(raws[1300]).sha))
        self.log("a peer speaking as Core's test framework: headers, then the block pushed")
        fw = p2p.P2PConnection(ping_interval=2).connect(node.p2p_port)
        blk = self.block_on_tip()
        fw.announce_block_by_headers(blk)
        fw.send_block(blk.serialize())  # unsolicited, as Core's framework pushes it
        wait_until(lambda: node.rpc("getbestblockhash") == blk.hash, timeout=30,
                   what="the pushed block connected")
        fw.sync_with_ping()
        assert_true(fw.is_connected, "the framework peer stays")
        fw.close()
        invalidate = node.rpc("invalidateblock", blk.hash)  # back to Core's tip for the hash
        assert_equal(invalidate, None)
        got = node.rpc("gettxoutsetinfo", "hash_serialized_3")["hash_serialized_3"]
        assert_equal(got, expected["gettxoutsetinfo_tip"]["hash_serialized_3"]["hash_serialized_3"])
        honest.close()


if __name__ == "__main__":
    P2PMisbehaveTest().main()
