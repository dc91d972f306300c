#!/usr/bin/env python3
"""Signet block signatures (BIP325) and -signetchallenge, on a signet of the test's own.

The blocks are test/data/signet-custom/blocks.json (made by
contrib/devtools/make-signet-blocks.py, see the README there): a custom signet whose challenge
is a 1-of-1 multisig of a key the test holds, on the default signet's genesis block.

- Start-up: -signetchallenge that is not hex, or given twice, stops with Core's message.
- Custom signet (-signet -signetchallenge=<hex>): getblockchaininfo says "signet" with the
  challenge; blocks 1 and 2 (correct solutions) are accepted (null) and become the tip; each
  bad block on block 2 answers Core's "bad-signet-blksig" and the tip stays at block 2:
  solution missing, a header push without data, malformed (does not deserialize), trailing
  data, signed by another key, signed for another block, and three that break the signet
  script flags (NULLDUMMY, DERSIG, WITNESS: a non-null dummy, a non-strict-DER signature, a
  witness for a non-witness challenge); then block 3 connects, and block 4 with a high-S
  signature (LOW_S is not a signet flag) too. Core's real default-signet block 1 is
  refused. The block file starts with the custom message start (sha256d of the challenge as
  a script, first 4 bytes); a restart keeps the tip.
- Default signet (-signet): our block 1 answers "bad-signet-blksig" and the tip stays at
  genesis; Core's real default-signet blocks 1..10 (from Core's feature_signet.py) connect.
- -signetchallenge=51 (OP_TRUE): a block without any solution is valid (Core: "allow this to
  support OP_TRUE as trivial block challenge"), one whose solution does not deserialize or
  carries an unexpected witness is not.

A second submission of a rejected block, and getblockheader of it, answer as Core does
(Core checks the signature in CheckBlock, before the header is stored, so the block is not
remembered: the reason again, and "Block not found"), and getblockchaininfo has Core's
signet_challenge; answers that differ there are collected and reported at the end, after
every other check has run.
"""

import json
import os

from blocktools import read_xor_key, unxor
from framework import (BitnodeTestFramework, JSONRPCError, assert_equal, assert_true,
                       wait_until)

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SRC, "test", "data", "signet-custom", "blocks.json")
# Core's real default-signet blocks 1..10.
CORE_BLOCKS = os.path.join(SRC, "test", "data", "signet-blocks-1-10", "blocks.hex")

GENESIS = "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"
DEFAULT_CHALLENGE = ("512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be4"
                     "30210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6"
                     "c452ae")
DEFAULT_MESSAGE_START = "0a03cf40"
BAD = "bad-signet-blksig"


def make_signet_node(node):
    """Turns a framework TestNode (written for regtest) into a signet node: its own
    bitnode.conf with signet=1 and a [signet] section, and the signet/ folder of the
    datadir for the cookie and debug.log."""
    node.net_dir = os.path.join(node.datadir, "signet")
    with open(os.path.join(node.datadir, "bitnode.conf"), "w") as f:
        f.write("signet=1\nrpcdoccheck=1\nlisten=0\ndnsseed=0\nfixedseeds=0\n[signet]\nrpcport=%d\nprinttoconsole=0\n" %
                node.rpc_port)


class SignetTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 3
        self.start_nodes_at_setup = False

    def expect_core(self, got, want, what):
        if got != want:
            msg = "%s: node answered %r, Core answers %r" % (what, got, want)
            if msg not in self.mismatches:
                self.mismatches.append(msg)

    def check_challenge(self, info, want):
        """getblockchaininfo on a signet: chain "signet" and Core's signet_challenge field."""
        assert_equal(info["chain"], "signet")
        self.expect_core(info.get("signet_challenge"), want, "getblockchaininfo signet_challenge")

    def tip(self, node):
        return node.rpc("getbestblockhash"), node.rpc("getblockcount")

    def submit_valid(self, node, hexblock, block_hash, height, what):
        assert_equal(node.rpc("submitblock", hexblock), None)
        assert_equal(self.tip(node), (block_hash, height))
        self.log("  %s accepted, tip %s at height %d" % (what, block_hash[:16], height))

    def submit_bad(self, node, e, parent):
        """e must answer bad-signet-blksig and leave the tip at parent (hash, height)."""
        assert_equal(self.tip(node), parent)
        assert_equal(node.rpc("submitblock", e["hex"]), BAD)
        assert_equal(self.tip(node), parent)
        self.expect_core(node.rpc("submitblock", e["hex"]), BAD,
                         "second submission of %s" % e["name"])
        try:
            node.rpc("getblockheader", e["hash"])
            got = "a header"
        except JSONRPCError as err:
            got = (err.code, err.message)
        self.expect_core(got, (-5, "Block not found"), "getblockheader of %s" % e["name"])
        assert_equal(self.tip(node), parent)
        self.log("  %s: %s, tip stays at %s" % (e["name"], BAD, parent[0][:16]))

    def block_file_magic(self, node):
        blocks = os.path.join(node.net_dir, "blocks")
        with open(os.path.join(blocks, "blk00000.dat"), "rb") as f:
            return unxor(f.read(4), read_xor_key(blocks)).hex()

    def run_test(self):
        self.mismatches = []
        with open(DATA) as f:
            doc = json.load(f)
        with open(CORE_BLOCKS) as f:
            core_blocks = f.read().split()
        challenge = doc["challenge"]
        blocks = doc["blocks"]
        by_name = {e["name"]: e for e in blocks}
        custom, default, optrue = self.nodes
        for n in self.nodes:
            make_signet_node(n)

        self.log("-signetchallenge: not hex, or given twice, stops start-up (Core's messages)")
        custom.assert_start_fails(["-signetchallenge=abc"],
                                  "-signetchallenge must be hex, not 'abc'.")
        custom.assert_start_fails(["-signetchallenge=" + challenge] * 2,
                                  "-signetchallenge cannot be multiple values.")

        self.log("custom signet: -signetchallenge=%s" % challenge)
        custom.start(["-signetchallenge=" + challenge])
        info = custom.rpc("getblockchaininfo")
        self.check_challenge(info, challenge)
        assert_equal(self.tip(custom), (GENESIS, 0))

        known = {"genesis": (GENESIS, 0)}
        for e in blocks:
            parent = known[e["parent"]]
            assert_equal(e["height"], parent[1] + 1)
            if e["expect"] == "valid":
                self.submit_valid(custom, e["hex"], e["hash"], e["height"],
                                  "%s (%s)" % (e["name"], e["why"]))
                known[e["name"]] = (e["hash"], e["height"])
            else:
                assert_equal(e["expect"], BAD)
                self.log("  %s: %s" % (e["name"], e["why"]))
                self.submit_bad(custom, e, parent)
        top = blocks[-1]
        assert_equal(self.tip(custom), (top["hash"], top["height"]))
        assert_true(any(e["expect"] == BAD for e in blocks), "bad blocks in the data")

        self.log("custom signet: Core's real default-signet block 1 is refused")
        assert_equal(custom.rpc("submitblock", core_blocks[0]), BAD)
        assert_equal(self.tip(custom), (top["hash"], top["height"]))

        self.log("custom signet: block file magic is the challenge's message start %s; "
                 "a restart keeps the tip" % doc["message_start"])
        custom.stop()
        assert_equal(self.block_file_magic(custom), doc["message_start"])
        custom.start(["-signetchallenge=" + challenge])
        assert_equal(self.tip(custom), (top["hash"], top["height"]))
        self.check_challenge(custom.rpc("getblockchaininfo"), challenge)
        custom.stop()

        self.log("default signet: our block 1 is refused, Core's real blocks 1..10 connect")
        default.start()
        # A fresh datadir: the genesis block is connected by the import thread once RPC is
        # up, so the first call may find no chain yet.
        wait_until(lambda: default.rpc("getblockcount") == 0, what="the genesis block connected")
        info = default.rpc("getblockchaininfo")
        self.check_challenge(info, DEFAULT_CHALLENGE)
        assert_equal(default.rpc("submitblock", by_name["1"]["hex"]), BAD)
        assert_equal(self.tip(default), (GENESIS, 0))
        for height, hexblock in enumerate(core_blocks, 1):
            assert_equal(default.rpc("submitblock", hexblock), None)
            assert_equal(default.rpc("getblockcount"), height)
        self.log("  tip %s at height %d" % self.tip(default))
        default.stop()
        assert_equal(self.block_file_magic(default), DEFAULT_MESSAGE_START)

        self.log("-signetchallenge=51 (OP_TRUE): no solution needed, a broken one still fails")
        optrue.start(["-signetchallenge=51"])
        self.check_challenge(optrue.rpc("getblockchaininfo"), "51")
        for name in ("1", "2"):
            e = by_name[name]
            assert_equal(e["expect_op_true"], "valid")
            self.submit_valid(optrue, e["hex"], e["hash"], e["height"], name)
        parent = (by_name["2"]["hash"], 2)
        for name in ("3-malformed", "3-trailing-data", "3-witness-not-empty"):
            e = by_name[name]
            assert_equal(e["expect_op_true"], BAD)
            self.submit_bad(optrue, e, parent)
        e = by_name["3-no-solution"]
        assert_equal(e["expect_op_true"], "valid")
        self.submit_valid(optrue, e["hex"], e["hash"], 3, "3-no-solution (no SIGNET_HEADER push)")
        optrue.stop()

        if self.mismatches:
            raise AssertionError("%d answers differ from Core's:\n  - %s" %
                                 (len(self.mismatches), "\n  - ".join(self.mismatches)))


if __name__ == "__main__":
    SignetTest().main()
