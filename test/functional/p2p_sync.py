#!/usr/bin/env python3
"""Headers-first sync between bitnoded nodes on loopback, and a reorg that propagates.

- node A imports test/data/regtest-small with -loadblock;
- node B, started empty with -connect=A, reaches A's tip and Core's UTXO set hash
  (expected.json), asking for every block once;
- node C, started empty with -connect=B, syncs from B: bitnode serves what it synced;
- a longer branch submitted to A (submitblock) is announced to B and from B to C: all three
  end on the new tip with the same UTXO hash, and getpeerinfo shows the links;
- a restart of B reconnects to A and keeps the tip.

The chain's blocks are old, so every node runs with -maxtipage large enough that a node
with the chain's tip is out of initial block download (in it, a node asks and relays differently).
"""

import json
import os

from blocktools import REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until

# The regtest-small chain the repository carries (test/data/), so the test runs in a clone alone.
SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"


class P2PSyncTest(BitnodeTestFramework):
    num_nodes = 3
    start_nodes_at_setup = False

    def utxo_hash(self, node):
        return node.rpc("gettxoutsetinfo", "hash_serialized_3")["hash_serialized_3"]

    def requests_logged(self, node):
        with open(node.debug_log, errors="replace") as f:
            return sum(1 for line in f if "Requesting block at height" in line)

    def wait_tip(self, node, tip, timeout=120):
        wait_until(lambda: node.rpc("getbestblockhash") == tip, timeout=timeout,
                   what="node%d at %s" % (node.index, tip))

    def run_test(self):
        a, b, c = self.nodes
        with open(os.path.join(SMALL, "expected.json")) as f:
            expected = json.load(f)
        tip = expected["tip"]["hash"] if "tip" in expected and isinstance(
            expected["tip"], dict) else None

        self.log("A imports regtest-small")
        a.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE, "-debug=net",
                 "-uacomment=node-a"])
        wait_until(lambda: a.rpc("getblockcount") == 1300, timeout=120, what="A imported")
        tip = a.rpc("getbestblockhash")
        utxo = self.utxo_hash(a)

        self.log("B syncs from A (-connect)")
        b.start(["-connect=127.0.0.1:%d" % a.p2p_port, TIPAGE, "-debug=net"])
        self.wait_tip(b, tip)
        assert_equal(self.utxo_hash(b), utxo)
        # Every block was asked for once: nothing fetched twice while it was being checked.
        assert_equal(self.requests_logged(b), 1300)
        peers = b.rpc("getpeerinfo") if self.has_method(b, "getpeerinfo") else None
        if peers is not None:
            assert_equal(len(peers), 1)
            assert_equal(peers[0]["connection_type"], "manual")
            subver = peers[0]["subver"]  # -uacomment
            assert_true(subver.startswith("/bitnode:") and subver.endswith("(node-a)/"), subver)
            # synced_blocks follows the download walk (every 100 ms), as in Core.
            wait_until(lambda: b.rpc("getpeerinfo")[0]["synced_blocks"] == 1300, timeout=10,
                       what="synced_blocks 1300")

        self.log("C syncs from B: bitnode serves what it synced")
        c.start(["-connect=127.0.0.1:%d" % b.p2p_port, TIPAGE, "-debug=net"])
        self.wait_tip(c, tip)
        assert_equal(self.utxo_hash(c), utxo)

        self.log("a longer branch on A propagates to B and C")
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        fork_height = 1296
        h = a.rpc("getblockhash", fork_height - 11)
        for height in range(fork_height - 11, fork_height + 1):
            hdr = a.rpc("getblockheader", a.rpc("getblockhash", height))
            sha = bytes.fromhex(hdr["hash"])[::-1]
            prev = bytes.fromhex(hdr["previousblockhash"])[::-1]
            cb.blocks[sha] = (height, hdr["time"], prev)
            h = sha
        parent = h
        branch = []
        for i in range(6):  # 1297..1302: two more than the old tip
            blk = cb.create_block(parent, tag=b"p2p-branch-%d" % i)
            cb.add(blk)
            branch.append(blk)
            parent = blk.sha
        for i, blk in enumerate(branch):
            # Core's answers: "inconclusive" while the branch has no more work than the tip.
            want = "inconclusive" if fork_height + 1 + i <= 1300 else None
            assert_equal(a.rpc("submitblock", blk.serialize().hex()), want)
        new_tip = branch[-1].hash
        assert_equal(a.rpc("getbestblockhash"), new_tip)
        self.wait_tip(b, new_tip, timeout=60)
        self.wait_tip(c, new_tip, timeout=60)
        new_utxo = self.utxo_hash(a)
        assert_equal(self.utxo_hash(b), new_utxo)
        assert_equal(self.utxo_hash(c), new_utxo)
        tips = {t["hash"]: t["status"] for t in c.rpc("getchaintips")}
        assert_equal(tips[new_tip], "active")
        assert_equal(tips[tip], "valid-fork")

        self.log("a restarted B reconnects and keeps the tip; one more block reaches it")
        b.stop()
        b.start(["-connect=127.0.0.1:%d" % a.p2p_port, TIPAGE, "-debug=net"])
        assert_equal(b.rpc("getbestblockhash"), new_tip)
        blk = cb.create_block(parent, tag=b"p2p-after-restart")
        cb.add(blk)
        wait_until(lambda: self.connected(b), timeout=30, what="B reconnected to A")
        assert_equal(a.rpc("submitblock", blk.serialize().hex()), None)
        self.wait_tip(b, blk.hash, timeout=60)
        # C lost its link to B with the restart: it reconnects (-connect retries).
        self.wait_tip(c, blk.hash, timeout=60)

    def connected(self, node):
        if self.has_method(node, "getconnectioncount"):
            return node.rpc("getconnectioncount") > 0
        with open(node.debug_log, errors="replace") as f:
            return any("peer connected" in line for line in f)

    def has_method(self, node, name):
        return ("\n" + name + " ") in node.rpc("help") or ("\n" + name + "\n") in node.rpc("help")


if __name__ == "__main__":
    P2PSyncTest().main()
