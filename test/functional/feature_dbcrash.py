#!/usr/bin/env python3
"""A coins flush written in parts survives a crash between any two of them (Core's
feature_dbcrash), and so does every other write -dbcrashratio watches (a block or undo
record, the block index batch, a txindex or index batch): the node imports the bundled
regtest chain with a small coins cache (-dbcache=4, a flush every 20 blocks) and a small
write batch (-dbbatchsize=5000, so every flush goes in many parts under the head-blocks
marker), and -dbcrashratio=100 ends the process after about one write in a hundred. It is started again and again until it reaches the tip; each
start after a crash in the middle of a flush replays the blocks between the marker's two
ends ("Replaying blocks"). At the tip, the UTXO set hashes (hash_serialized_3 and muhash)
and counts equal Core's, and a last start without the crash option keeps them. A third pass
keeps -txindex, -blockfilterindex and -coinstatsindex: crashes land in block, undo, block
index and index writes (each crash logs where), and at the end the indexes are synced, the
coin statistics index answers Core's muhash at every hundredth height and the transaction
index finds the tip's coinbase.
"""

import json
import os
import random
import shutil
import time

from framework import BitnodeTestFramework, TestNode, assert_equal, assert_true, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
MAX_STARTS = 200


class DbCrashTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def run_test(self):
        exp = json.load(open(os.path.join(SMALL, "expected.json")))
        tip = exp["tip"]
        base = ["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), "-dbcache=4",
                "-stopatheight=%d" % tip["height"]]
        self.log("forced flushes every 20 blocks, written on the validation thread")
        # One crash in about 150 writes: blocks and undo records (two per block) and the
        # coins parts (about as many); a start makes progress when it passes a flush.
        self.crash_until_tip(self.nodes[0], base + ["-testflushblocks=20", "-dbbatchsize=1000",
                                                    "-dbcrashratio=150",
                                                    "-dbbackgroundflush=0"], exp)
        self.log("flushes of a full cache (no mempool budget), frozen generations written by "
                 "the cache's writer thread")
        node = TestNode(1, self.tmpdir)
        self.nodes.append(node)
        # A flush at every block (the cache is over its 1.75 MiB at once), in parts of 300
        # bytes: crashes one part in 400.
        self.crash_until_tip(node, base + ["-maxmempool=0", "-dbbackgroundflush=1",
                                          "-dbbatchsize=300", "-dbcrashratio=400"], exp)
        self.log("the indexes (-txindex -blockfilterindex -coinstatsindex): crashes in their "
                 "writes too")
        node = TestNode(2, self.tmpdir)
        self.nodes.append(node)
        idx = ["-txindex", "-blockfilterindex", "-coinstatsindex"]
        # A flush every 5 blocks: the block index and txindex batches are 2 writes in 12.
        where = self.crash_until_tip(node, base + idx + ["-testflushblocks=5",
                                                        "-dbbatchsize=5000",
                                                        "-dbcrashratio=100"], exp, idx,
                                     need_replay=False)
        for kind in ("a block write", "an undo write"):
            assert_true(where.get(kind, 0) >= 1, "no crash in %s: %s" % (kind, where))
        index_crashes = sum(n for k, n in where.items()
                            if k in ("a txindex batch", "the block index batch"))
        assert_true(index_crashes >= 1, "no crash in a txindex or block index write: %s" % where)
        # The chain at its tip, the block filter and coin statistics indexes (a batch every
        # 500 blocks, from scratch here) write with a crash after one batch in two; an index
        # that synced without a crash of its own starts from scratch again.
        dirs = {"basic block filter index": "indexes/blockfilter/basic",
                "coinstatsindex": "indexes/coinstatsindex"}
        log_start = os.path.getsize(node.debug_log)
        kinds, missing, synced = [], list(dirs), True
        for _ in range(60):
            with open(node.debug_log, errors="replace") as f:
                f.seek(log_start)
                kinds = [l.split("crash point in ", 1)[1].strip() for l in f
                         if "crash point in " in l]
            missing = [k for k in dirs if k not in kinds]
            if synced:
                if not missing:
                    break
                node.kill()
                for k in missing:
                    shutil.rmtree(os.path.join(node.net_dir, dirs[k]), ignore_errors=True)
            synced = False
            node.start(["-dbcache=4", "-dbcrashratio=2"] + idx, wait=False)
            while node.process.poll() is None and not synced:
                try:
                    synced = all(v["synced"] and v["best_block_height"] == tip["height"]
                                 for v in node.rpc("getindexinfo").values())
                except Exception:
                    pass
                time.sleep(0.05)
            if not synced:
                node.process = None
        self.log("index crashes: %s" % kinds)
        assert_true(synced and not missing, "no crash in %s: %s" % (missing, kinds))
        node.kill()
        node.start(["-dbcache=4"] + idx)
        wait_until(lambda: all(v["synced"] and v["best_block_height"] == tip["height"]
                               for v in node.rpc("getindexinfo").values()),
                   timeout=120, what="indexes synced")
        assert_equal(sorted(node.rpc("getindexinfo")),
                     ["basic block filter index", "coinstatsindex", "txindex"])
        for h, want in exp["gettxoutsetinfo_muhash_every_100"].items():
            got = node.rpc("gettxoutsetinfo", "muhash", int(h), True)
            assert_equal((h, got["muhash"]), (h, want["muhash"]))
        block = node.rpc("getblock", tip["hash"])
        assert_equal(node.rpc("getrawtransaction", block["tx"][0], True)["blockhash"], tip["hash"])
        node.stop()

    def crash_until_tip(self, node, args, exp, final_args=(), need_replay=True):
        """Starts node until it reaches the tip; checks the end state. Returns how many
        crashes each kind of write had ("dbcrashratio: crash point in <kind>")."""
        tip = exp["tip"]
        self.log("import with crashes in the middle of flushes")
        crashes = starts = 0
        while starts < MAX_STARTS:
            starts += 1
            node.start(args, wait=False)
            rc = node.wait_exit(timeout=300)
            log = open(node.debug_log, errors="replace").read()
            if log.count("Simulating a crash. Goodbye.") > crashes:
                crashes = log.count("Simulating a crash. Goodbye.")
                assert_equal(rc, 0)  # Core's simulated crash: _Exit(0)
                continue
            assert_equal(rc, 0)
            if "-stopatheight reached: shutting down" in log:
                break
        # How many crashes is chance (-dbcrashratio draws from the node's own random source):
        # 5 to 18 per pass here, and now and then a pass reaches the tip after 2. One is what
        # the test needs, and a replay after it.
        assert_true(crashes >= 1, "crashed %d times in %d starts" % (crashes, starts))
        replays = log.count("Replaying blocks")
        assert_true(replays >= 1 or not need_replay, "replayed after %d crashes" % crashes)
        self.log("%d starts, %d crashes, %d replays" % (starts, crashes, replays))
        where = {}
        for line in log.splitlines():
            if "dbcrashratio: crash point in " in line:
                kind = line.split("dbcrashratio: crash point in ", 1)[1].strip()
                where[kind] = where.get(kind, 0) + 1
        self.log("crashes by write: %s" % where)

        self.log("the tip and the UTXO set are Core's")
        node.start(["-dbcache=4"] + list(final_args))
        wait_until(lambda: node.rpc("getblockcount") == tip["height"], timeout=120,
                   what="height %d" % tip["height"])
        if final_args:
            wait_until(lambda: all(v["synced"] for v in node.rpc("getindexinfo").values()),
                       timeout=120, what="indexes synced")
        assert_equal(node.rpc("getbestblockhash"), tip["hash"])
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            want = exp["gettxoutsetinfo_tip"][kind]
            assert_equal(got[kind], want[kind])
            assert_equal(got["txouts"], want["txouts"])
        node.stop()
        return where


if __name__ == "__main__":
    random.seed(0)
    DbCrashTest().main()
