#!/usr/bin/env python3
"""The short crash drill: SIGKILL at chosen moments while the node imports (-loadblock), syncs
from a second node over P2P, reorganises (a 10-block reorg), writes a flush in parts
(-dbbatchsize), keeps its indexes (-txindex, -blockfilterindex, -coinstatsindex) and prunes
(-prune, pruneblockchain). After every kill the node is started again with the same options
(no operator action); each scenario ends with a run left alone, which must reach Core's tip
and UTXO set (hash_serialized_3, muhash, txouts).

Kills are aimed: at a random instant, or when the log shows a flush beginning ("Writing
chainstate to disk") or a coins part being written ("Writing partial batch"); the test
counts from the log where each kill landed (crashdrill.inside_flush) and asserts that at
least a third landed inside a flush. BITNODE_TEST_SEED picks the moments.
"""

import json
import os
import random
import threading

import crashdrill
from framework import BitnodeTestFramework, TestNode, assert_equal, assert_true, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(SRC, "..", "shared")
REORG = os.path.join(SHARED, "data", "regtest-reorg")
TIPAGE = "-maxtipage=2000000000"
# Flushes every 25 blocks, each in parts of 2000 bytes (a flush in parts under the
# head-blocks marker), logged.
FLUSHY = ["-dbcache=4", "-testflushblocks=25", "-dbbatchsize=2000"] + crashdrill.DRILL_DEBUG


def split_records(path, first):
    """The [magic][len][block] records of a -loadblock file: the first `first`, the rest."""
    data = open(path, "rb").read()
    recs, i = [], 0
    while i + 8 <= len(data):
        n = int.from_bytes(data[i + 4:i + 8], "little")
        recs.append(data[i:i + 8 + n])
        i += 8 + n
    return b"".join(recs[:first]), b"".join(recs[first:])


class CrashDrillTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 0
        self.start_nodes_at_setup = False

    def run_test(self):
        self.rng = random.Random(int(os.environ.get("BITNODE_TEST_SEED", "35035")))
        self.kills = []
        small = json.load(open(os.path.join(SMALL, "expected.json")))
        blk = os.path.join(SMALL, "blk00000.dat")

        self.log("import (-loadblock), flushes in parts")
        node = self.new_node()
        self.drill(node, ["-loadblock=" + blk] + FLUSHY, 8, small)

        self.log("import to height 500 with the coins written by the writer thread "
                 "(-dbbackgroundflush, a flush at every block)")
        node = self.new_node()
        part = os.path.join(self.tmpdir, "blk-0-500.dat")
        open(part, "wb").write(split_records(blk, 501)[0])
        at = small["gettxoutsetinfo_at_height"]["500"]
        exp500 = {"tip": {"height": 500, "hash": at["bestblock"]},
                  "gettxoutsetinfo_tip": {"hash_serialized_3": at["hash_serialized_3"],
                                          "muhash": at["muhash"]}}
        self.drill(node, ["-loadblock=" + part, "-dbcache=4", "-maxmempool=0",
                          "-dbbackgroundflush=1", "-dbbatchsize=300"] + crashdrill.DRILL_DEBUG,
                   4, exp500)

        self.log("P2P sync from a second node")
        server = self.new_node()
        server.start(["-loadblock=" + blk, TIPAGE])
        wait_until(lambda: server.rpc("getblockcount") == 1300, timeout=120, what="server synced")
        node = self.new_node()
        self.drill(node, ["-connect=127.0.0.1:%d" % server.p2p_port, TIPAGE] + FLUSHY, 5, small)
        server.stop()

        self.log("indexes (-txindex -blockfilterindex -coinstatsindex)")
        node = self.new_node()
        idx = ["-txindex", "-blockfilterindex", "-coinstatsindex"]
        self.drill(node, ["-loadblock=" + blk] + idx + FLUSHY, 6, small, check=self.check_indexes)

        self.log("pruning (-prune=1 -fastprune, pruneblockchain during the import)")
        node = self.new_node()
        # Each start asks for a prune of more files once it has the blocks; the kills land
        # when the prune's flush begins, when it deletes the files, or in its coins parts.
        triggers = [("line", "prune=1", 1), ("line", "UnlinkPrunedFiles", 1), ("part", 3),
                    ("line", "prune=1", 1), ("line", "UnlinkPrunedFiles", 2)]
        self.drill(node, ["-loadblock=" + blk, "-prune=1", "-fastprune", TIPAGE,
                          "-debug=blockstorage"] + FLUSHY, 5, small, after=self.prune_soon,
                   check=self.check_pruned, triggers=triggers)

        if os.path.exists(os.path.join(REORG, "blk-reorg.dat")):
            self.log("a 10-block reorganisation (A's branch, then B's longer one)")
            reorg = json.load(open(os.path.join(REORG, "expected.json")))
            a, b = split_records(os.path.join(REORG, "blk-reorg.dat"), 161)
            pa, pb = os.path.join(self.tmpdir, "reorg-a.dat"), os.path.join(self.tmpdir, "reorg-b.dat")
            open(pa, "wb").write(a)
            open(pb, "wb").write(b)
            node = self.new_node()
            # A first start connects A's branch to 160 and stops there.
            node.start(["-loadblock=" + pa])
            wait_until(lambda: node.rpc("getblockcount") == 160, timeout=60, what="A's tip")
            node.stop()
            args = ["-loadblock=" + pb, "-testflushblocks=1", "-dbbatchsize=500"] + \
                crashdrill.DRILL_DEBUG
            self.drill(node, args, 4, reorg, triggers=[("flush", k) for k in (1, 3, 6, 10)])
            node.start(args)
            tips = {t["hash"]: t["status"] for t in node.rpc("getchaintips")}
            assert_equal(tips[reorg["tip"]["hash"]], "active")
            assert_equal(tips["7c28ae4359ccb840ea8f2e4af9a4201ca0ae0b327b66497803855734f845cfcf"],
                         "valid-fork")
            node.stop()
        else:
            self.log("skipping the reorganisation: %s not found" % REORG)

        inside = sum(1 for k in self.kills if k["inside"])
        self.log("%d kills, %d inside a flush, %d after a replay of a flush cut short" %
                 (len(self.kills), inside, self.replays))
        assert_true(3 * inside >= len(self.kills),
                    "only %d of %d kills inside a flush" % (inside, len(self.kills)))

    def new_node(self):
        node = TestNode(len(self.nodes), self.tmpdir)
        self.nodes.append(node)
        return node

    replays = 0

    def drill(self, node, args, kills, exp, after=None, check=None, triggers=None):
        """kills SIGKILLs at aimed moments, each on a restart with the same args, then a run
        left alone to the tip: Core's tip and UTXO set."""
        for i in range(kills):
            trigger = triggers[i] if triggers else crashdrill.pick_trigger(self.rng)
            k = crashdrill.run_and_kill(node, args, trigger, after=after)
            self.kills.append(k)
            self.log("  kill %d at %s: %s a flush, %d blocks connected this run" %
                     (i + 1, trigger, "inside" if k["inside"] else "outside", k["reached"]))
        node.start(args)
        height = exp["tip"]["height"]
        wait_until(lambda: node.rpc("getblockcount") == height, timeout=120,
                   what="height %d" % height)
        if "-coinstatsindex" in args:
            # gettxoutsetinfo answers from the index once it has synced (Core's
            # "Unable to read UTXO set" before).
            wait_until(lambda: all(v["synced"] for v in node.rpc("getindexinfo").values()),
                       timeout=120, what="indexes synced")
        assert_equal(crashdrill.utxo_state(node), crashdrill.expected_state(exp))
        if check:
            check(node, exp)
        node.stop()
        self.replays += sum(1 for line in open(node.debug_log, errors="replace")
                            if "Replaying blocks" in line)

    def prune_soon(self, node):
        """Asks for a prune (below the tip less 288) from a thread, so that the kill may land
        in it."""
        self.prunes = getattr(self, "prunes", 0) + 1
        target = min(1000, 100 + 150 * self.prunes)  # more files at each start

        def ask():
            try:
                node.wait_for_rpc(timeout=30)
                wait_until(lambda: node.rpc("getblockcount") >= target + 288, timeout=30)
                node.rpc("pruneblockchain", target)
            except Exception:
                pass  # killed meanwhile
        threading.Thread(target=ask, daemon=True).start()

    def check_pruned(self, node, exp):
        node.rpc("pruneblockchain", 900)
        info = node.rpc("getblockchaininfo")
        assert_true(info["pruned"] and info["pruneheight"] > 0, "pruned: %s" % info)
        assert_equal(crashdrill.utxo_state(node), crashdrill.expected_state(exp))

    def check_indexes(self, node, exp):
        wait_until(lambda: all(v["synced"] for v in node.rpc("getindexinfo").values()),
                   timeout=120, what="indexes synced")
        for name, v in node.rpc("getindexinfo").items():
            assert_equal((name, v["best_block_height"]), (name, 1300))
        # The coin statistics index answers Core's muhash at every hundredth height.
        for h, want in exp["gettxoutsetinfo_muhash_every_100"].items():
            got = node.rpc("gettxoutsetinfo", "muhash", int(h), True)
            assert_equal((h, got["muhash"]), (h, want["muhash"]))
        # The transaction index finds the tip's coinbase.
        block = node.rpc("getblock", exp["tip"]["hash"])
        tx = node.rpc("getrawtransaction", block["tx"][0], True)
        assert_equal(tx["blockhash"], exp["tip"]["hash"])


if __name__ == "__main__":
    CrashDrillTest().main()
