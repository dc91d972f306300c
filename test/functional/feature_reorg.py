#!/usr/bin/env python3
"""Reorganisations driven by submitblock with blocks built in Python.

Two branches from a fork point, each spending the same coinbase output X differently (a
double spend resolved by whichever branch is active):
- branch A (3 blocks) becomes the tip; branch B's blocks answer "inconclusive" while they
  have less or equal work, then B4 (more work) takes over: tips, getchaintips statuses
  (active / valid-fork / valid-headers), gettxout of both spends, UTXO hash;
- a yet longer branch A switches back; preciousblock picks between equal-work tips;
  invalidateblock / reconsiderblock move between the branches and the UTXO hash (muhash and
  hash_serialized_3) of each tip equals what it was when that branch was active;
- a longer branch with an invalid block in the middle: the reorg fails, the invalid block and
  its descendants are marked invalid and the node stays on (or returns to) the best valid
  tip with its UTXO hash unchanged; a branch whose last block is invalid answers that block's
  reject reason;
- a restart keeps the tip, the chain tips and the UTXO hash.

A submitblock answer that differs from Core's without changing the chain is collected and
reported at the end, after every other check has run.
"""

from blocktools import SCRIPT_TRUE, ChainBuilder, spend_tx
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true)


class ReorgTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def utxo(self):
        n = self.node
        return (n.rpc("getbestblockhash"), n.rpc("gettxoutsetinfo", "muhash")["muhash"],
                n.rpc("gettxoutsetinfo", "hash_serialized_3")["hash_serialized_3"])

    def submit(self, block, expected):
        assert_equal(self.node.rpc("submitblock", block.hex()), expected)
        self.cb.add(block)
        return block

    def submit_core_answer(self, block, expected, what):
        """Like submit(), but a different answer is collected and reported at the end (after
        every other check has run) instead of stopping the test here."""
        got = self.node.rpc("submitblock", block.hex())
        if got != expected:
            self.mismatches.append("%s: submitblock answered %r, Core answers %r" %
                                   (what, got, expected))
        self.cb.add(block)

    def branch(self, parent, n, tag, first_txs=(), fees=0):
        """n blocks on parent (the first holding first_txs, its coinbase collecting fees);
        returns them (not submitted)."""
        out = []
        for i in range(n):
            b = self.cb.create_block(parent, first_txs if i == 0 else (),
                                     fees=fees if i == 0 else 0, tag=b"%s%d" % (tag, i))
            self.cb.add(b)
            out.append(b)
            parent = b.sha
        return out

    def tips(self):
        return {t["hash"]: (t["status"], t["height"], t["branchlen"])
                for t in self.node.rpc("getchaintips")}

    def run_test(self):
        self.node = node = self.nodes[0]
        self.mismatches = []
        genesis = node.rpc("getblockhash", 0)
        self.cb = ChainBuilder(genesis, node.rpc("getblockheader", genesis)["time"])

        self.log("Mine 110 blocks from the genesis")
        parent = self.cb.genesis
        base = []
        for i in range(110):
            b = self.cb.create_block(parent, tag=b"base")
            self.submit(b, None)
            base.append(b)
            parent = b.sha
        fork = base[-1]
        assert_equal(node.rpc("getbestblockhash"), fork.hash)
        utxo_fork = self.utxo()
        cb_x = base[0].txs[0]  # coinbase of height 1, mature at 111
        x = cb_x.coin(0)

        self.log("Branch A spends X one way and becomes the tip")
        tx_a = spend_tx([x], [(x.value, SCRIPT_TRUE)])
        tx_b = spend_tx([x], [(x.value - 1000, SCRIPT_TRUE)])
        assert_true(tx_a.txid != tx_b.txid, "two different spends of X")
        a = self.branch(fork.sha, 3, b"A", [tx_a])
        for blk in a:
            self.submit(blk, None)
        assert_equal(node.rpc("getbestblockhash"), a[2].hash)
        utxo_a3 = self.utxo()
        assert_equal(node.rpc("gettxout", tx_a.txid_hex, 0)["value"], x.value / 1e8)
        assert_equal(node.rpc("gettxout", cb_x.txid_hex, 0), None)

        self.log("Branch B spends X the other way: inconclusive until it has more work")
        bb = self.branch(fork.sha, 4, b"B", [tx_b], fees=1000)
        for blk in bb[:3]:
            self.submit(blk, "inconclusive")
            assert_equal(self.utxo(), utxo_a3)
        t = self.tips()
        assert_equal(t[a[2].hash], ("active", 113, 0))
        assert_equal(t[bb[2].hash], ("valid-headers", 113, 3))
        assert_equal(len(t), 2)
        assert_equal(node.rpc("getblockheader", bb[2].hash)["confirmations"], -1)
        assert_equal(node.rpc("submitblock", bb[0].hex()), "duplicate")  # stored, not active

        self.log("B4 gives branch B more work: the tip switches and X's spend changes")
        self.submit(bb[3], None)
        assert_equal(node.rpc("getbestblockhash"), bb[3].hash)
        assert_equal(node.rpc("getblockcount"), 114)
        utxo_b4 = self.utxo()
        assert_true(utxo_b4[1] != utxo_a3[1], "the UTXO hash changed")
        assert_equal(node.rpc("gettxout", tx_a.txid_hex, 0), None)
        assert_equal(node.rpc("gettxout", tx_b.txid_hex, 0)["value"], (x.value - 1000) / 1e8)
        assert_equal(node.rpc("getblockhash", 111), bb[0].hash)
        assert_equal(node.rpc("getblockheader", a[0].hash)["confirmations"], -1)
        t = self.tips()
        assert_equal(t[bb[3].hash], ("active", 114, 0))
        assert_equal(t[a[2].hash], ("valid-fork", 113, 3))
        # The fork block's transactions were kept: getblock of a side block still works.
        assert_equal(node.rpc("getblock", a[0].hash, 2)["tx"][1]["txid"], tx_a.txid_hex)

        self.log("Branch A grows to 5: A4 inconclusive (equal work), A5 switches back")
        a += self.branch(a[2].sha, 2, b"A+")
        self.submit(a[3], "inconclusive")
        assert_equal(self.utxo(), utxo_b4)
        assert_equal(self.tips()[a[3].hash], ("valid-headers", 114, 4))
        self.log("preciousblock switches between the equal-work tips A4 and B4")
        assert_equal(node.rpc("preciousblock", a[3].hash), None)
        assert_equal(node.rpc("getbestblockhash"), a[3].hash)
        utxo_a4 = self.utxo()
        assert_equal(node.rpc("gettxout", tx_a.txid_hex, 0)["confirmations"], 4)
        assert_equal(node.rpc("preciousblock", bb[3].hash), None)
        assert_equal(self.utxo(), utxo_b4)
        assert_equal(node.rpc("preciousblock", a[3].hash), None)
        assert_equal(self.utxo(), utxo_a4)
        # Less work than the tip: nothing happens.
        assert_equal(node.rpc("preciousblock", a[2].hash), None)
        assert_equal(self.utxo(), utxo_a4)
        assert_equal(node.rpc("preciousblock", bb[3].hash), None)
        assert_equal(self.utxo(), utxo_b4)
        self.submit(a[4], None)
        assert_equal(node.rpc("getbestblockhash"), a[4].hash)
        utxo_a5 = self.utxo()
        assert_equal(node.rpc("gettxout", tx_b.txid_hex, 0), None)
        assert_equal(node.rpc("gettxout", tx_a.txid_hex, 0)["confirmations"], 5)
        t = self.tips()
        assert_equal(t[a[4].hash], ("active", 115, 0))
        assert_equal(t[bb[3].hash], ("valid-fork", 114, 4))

        self.log("Resubmitting known blocks: duplicate")
        assert_equal(node.rpc("submitblock", a[1].hex()), "duplicate")
        assert_equal(node.rpc("submitblock", bb[1].hex()), "duplicate")

        self.log("invalidateblock A4: back to B4 with B4's UTXO hash; reconsiderblock: A5")
        assert_equal(node.rpc("invalidateblock", a[3].hash), None)
        assert_equal(self.utxo(), utxo_b4)
        t = self.tips()
        assert_equal(t[a[4].hash][0], "invalid")
        assert_equal(t[bb[3].hash], ("active", 114, 0))
        assert_equal(node.rpc("submitblock", a[4].hex()), "duplicate-invalid")
        info = node.rpc("getblockchaininfo")
        assert_equal((info["headers"], info["blocks"]), (114, 114))
        assert_equal(node.rpc("reconsiderblock", a[3].hash), None)
        assert_equal(self.utxo(), utxo_a5)
        # The headers made valid again count as the best header (Core's
        # ResetBlockFailureFlags).
        info = node.rpc("getblockchaininfo")
        assert_equal((info["headers"], info["blocks"]), (115, 115))

        self.log("invalidateblock A1 and B1: back to the fork point; reconsider both")
        node.rpc("invalidateblock", a[0].hash)
        assert_equal(self.utxo(), utxo_b4)
        node.rpc("invalidateblock", bb[0].hash)
        assert_equal(self.utxo(), utxo_fork)
        assert_equal(node.rpc("gettxout", cb_x.txid_hex, 0)["value"], x.value / 1e8)
        node.rpc("reconsiderblock", bb[0].hash)
        assert_equal(self.utxo(), utxo_b4)
        node.rpc("reconsiderblock", a[0].hash)
        assert_equal(self.utxo(), utxo_a5)
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "invalidateblock", "00" * 32)
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "reconsiderblock", "00" * 32)

        self.log("Only A3 and back: invalidate A4 and B1 gives A3's UTXO hash")
        node.rpc("invalidateblock", a[3].hash)
        node.rpc("invalidateblock", bb[0].hash)
        assert_equal(self.utxo(), utxo_a3)
        node.rpc("reconsiderblock", bb[0].hash)
        node.rpc("reconsiderblock", a[3].hash)
        assert_equal(self.utxo(), utxo_a5)

        self.log("A longer branch C with an invalid block inside: the reorg fails")
        c = self.branch(fork.sha, 6, b"C")
        c2_bad = self.cb.create_block(c[0].sha, [spend_tx([x], [(x.value + 1, SCRIPT_TRUE)])],
                                      tag=b"Cbad")
        self.cb.add(c2_bad)
        c = [c[0], c2_bad] + self.branch(c2_bad.sha, 5, b"Cx")
        for blk in c[:5]:  # heights 111..115: never more work than A5
            self.submit(blk, "inconclusive")
        assert_equal(self.utxo(), utxo_a5)
        # C6 has more work: connecting C2 fails. Core's state catcher only hears about the
        # submitted block, which is never checked: "inconclusive".
        self.submit_core_answer(c[5], "inconclusive",
                                "C6, whose ancestor C2 fails to connect")
        assert_equal(self.utxo(), utxo_a5)
        t = self.tips()
        assert_equal(t[c[5].hash][0], "invalid")
        assert_equal(t[a[4].hash], ("active", 115, 0))
        assert_equal(self.tips().get(c[0].hash), None)  # C1 is no tip
        assert_equal(node.rpc("submitblock", c[1].hex()), "duplicate-invalid")
        assert_equal(node.rpc("submitblock", c[6].hex()), "bad-prevblk")

        self.log("A branch whose most-work block is the invalid one answers its reason")
        d = self.branch(a[3].sha, 1, b"D")  # D1 on A4: equal work with A5
        self.submit(d[0], "inconclusive")
        d_bad = self.cb.create_block(d[0].sha, [spend_tx([x], fee=5)], fees=5, tag=b"Dbad")
        self.submit(d_bad, "bad-txns-inputs-missingorspent")
        assert_equal(self.utxo(), utxo_a5)
        t = self.tips()
        assert_equal(t[d_bad.hash][0], "invalid")
        assert_equal(t[a[4].hash], ("active", 115, 0))

        self.log("Restart: the same tip, chain tips and UTXO hash")
        tips = node.rpc("getchaintips")
        node.stop()
        node.start()
        assert_equal(self.utxo(), utxo_a5)
        assert_equal(node.rpc("getchaintips"), tips)
        if self.mismatches:
            raise AssertionError("%d answers differ from Core's:\n  - %s" %
                                 (len(self.mismatches), "\n  - ".join(self.mismatches)))


if __name__ == "__main__":
    ReorgTest().main()
