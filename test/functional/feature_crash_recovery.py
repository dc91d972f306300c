#!/usr/bin/env python3
"""Killed at any instant, the node restarts on a consistent state: -loadblock of the bundled
regtest chain, flushing every 7 blocks (a hidden test option), SIGKILL
at 10 random moments, each followed by a restart that resumes the import; the end state has
Core's tip and UTXO set hashes. The same for a -reindex killed half way, which resumes on
the next start without -reindex. A finished import is on disk: killed right after its
summary line ("import: N records, ..."), the node restarts at the tip and connects no block
again (the flush at the end of every import), and so for a finished -reindex ("Reindexing
finished") and a finished -reindex-chainstate ("stored blocks connected: tip height N").
A kill while -reindex or -reindex-chainstate wipes its stores has the next start (without
the option) wipe them again and go on (the <store>.wiping markers)."""

import json
import os
import random
import time

import crashdrill
from framework import BitnodeTestFramework, TestNode, assert_equal, assert_true, wait_until

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
BLK = os.path.join(SMALL, "blk00000.dat")


class CrashRecoveryTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def height(self, node):
        try:
            return node.rpc("getblockcount")
        except Exception:
            return -1

    def flushed_height(self, node):
        """The last height the debug log shows flushed (-1 if none)."""
        h = -1
        if os.path.exists(node.debug_log):
            for line in open(node.debug_log, errors="replace"):
                if "flushed" in line and "at height" in line:
                    h = int(line.rsplit("at height", 1)[1].split()[0])
        return h

    def check_final(self, node, exp):
        wait_until(lambda: self.height(node) >= 1300, timeout=180, what="height 1300")
        assert_equal(node.rpc("getbestblockhash"), exp["tip"]["hash"])
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            assert_equal(got[kind], exp["gettxoutsetinfo_tip"][kind][kind])
            assert_equal(got["txouts"], exp["gettxoutsetinfo_tip"][kind]["txouts"])

    def run_test(self):
        node = self.nodes[0]
        exp = json.load(open(os.path.join(SMALL, "expected.json")))
        rng = random.Random(int(os.environ.get("BITNODE_TEST_SEED", "20261130")))
        # Flush every 7 blocks, so that kills land before, during and after flushes.
        args = ["-loadblock=" + BLK, "-dbcache=4", "-testflushblocks=7", "-debug=coindb"]

        self.log("10 kills during -loadblock")
        seen = []
        for i in range(10):
            # Without waiting for RPC: after the first round every block is stored, and the
            # next start connects them during warm-up, so the kill lands there.
            node.start(args, wait=False)
            time.sleep(rng.uniform(0.05, 0.6))
            node.kill()
            seen.append(self.flushed_height(node))
        self.log("last flushed height before each kill: %s" % seen)
        node.start(args)
        self.check_final(node, exp)
        log = open(node.debug_log, errors="replace").read()
        assert_true("flushed" in log or "UpdateTip" in log or "import:" in log, "log written")
        node.stop()

        self.log("-reindex killed half way resumes on the next start")
        node.start(["-reindex", "-dbcache=4", "-testflushblocks=7"], wait=False)
        time.sleep(rng.uniform(0.3, 1.0))
        node.kill()
        node.start(["-dbcache=4", "-testflushblocks=7"])
        self.check_final(node, exp)
        node.stop()

        self.log("killed right after a finished import, the restart redoes nothing")
        fresh = TestNode(1, self.tmpdir)
        self.nodes.append(fresh)
        self.kill_after_finish(fresh, ["-loadblock=" + BLK], "import: 1301 records", exp)
        self.log("killed right after a finished -reindex, the restart redoes nothing")
        self.kill_after_finish(fresh, ["-reindex"], "Reindexing finished", exp)
        self.log("killed right after a finished -reindex-chainstate (the stored blocks "
                 "connected at start-up), the restart redoes nothing")
        self.kill_after_finish(fresh, ["-reindex-chainstate"],
                               "stored blocks connected: tip height 1300", exp)

        self.log("-reindex killed as it wipes the block index: the next start (without "
                 "-reindex) wipes it again and reindexes")
        resumed = self.kill_in_wipe(fresh, "-reindex", "-reindex: wiping")
        assert_true(resumed["resumed"] >= 1, "no kill landed after the wipe began: %s" % resumed)
        self.log("-reindex-chainstate killed as it wipes the chainstate: the next start wipes "
                 "it again")
        # (The chainstate of this chain is wiped in a few ms: not every backend's wipe is
        # caught, so what is asserted is that every restart reaches the tip.)
        self.kill_in_wipe(fresh, "-reindex-chainstate", "Loading block index", tries=10,
                          step=0.002)
        self.log("-reindex with the block filter and coin statistics indexes, killed as it "
                 "wipes them: the next start wipes them again, and they sync")
        idx = ["-blockfilterindex", "-coinstatsindex"]
        fresh.start(idx)
        wait_until(lambda: all(v["synced"] for v in fresh.rpc("getindexinfo").values()),
                   timeout=60, what="indexes synced")
        fresh.stop()
        self.kill_in_wipe(fresh, "-reindex", "-reindex: wiping", idx, 12, step=0.01)
        self.check_final_restart(fresh, exp)

    def kill_in_wipe(self, node, flag, line, extra=(), tries=8, step=0.005):
        """Kills node 0, step, 2 step, ... seconds after line on starts with flag (and extra); each next
        start, without flag, must reach the tip (and sync its indexes). Counts the restarts
        that found a wipe cut short and those that resumed a reindex."""
        resumed = {"wipe": 0, "resumed": 0}
        for i in range(tries):
            k = crashdrill.run_and_kill(node, [flag] + list(extra), ("line", line, 1),
                                        delay=step * i, timeout=30)
            assert_true(k["fired"], "%r never logged" % line)
            tail = crashdrill.LogTail(node.debug_log)
            node.start(list(extra))
            wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=60,
                       what="height 1300 after a kill %d ms into %s" % (1000 * step * i, flag))
            if extra:
                wait_until(lambda: all(v["synced"] for v in node.rpc("getindexinfo").values()),
                           timeout=60, what="indexes synced")
            node.stop()
            tail.poll()
            resumed["wipe"] += sum("when the node stopped; wiping it again" in l for l in tail.lines)
            resumed["resumed"] += sum("resuming an interrupted reindex" in l for l in tail.lines)
        self.log("restarts that wiped again: %(wipe)d, that resumed a reindex: %(resumed)d" %
                 resumed)
        return resumed

    def check_final_restart(self, node, exp):
        node.start()
        self.check_final(node, exp)
        node.stop()

    def kill_after_finish(self, node, args, line, exp):
        """Kills node as soon as the log shows line; the next start (no import, no reindex)
        must find the tip on disk and connect no block."""
        k = crashdrill.run_and_kill(node, args + crashdrill.DRILL_DEBUG, ("line", line, 1),
                                    timeout=120)
        assert_true(k["fired"], "%r never logged" % line)
        tail = crashdrill.LogTail(node.debug_log)
        node.start(crashdrill.DRILL_DEBUG)
        wait_until(lambda: node.rpc("getblockcount") >= 1300, timeout=60, what="height 1300")
        node.stop()
        tail.poll()
        assert_equal(crashdrill.loaded_height(tail.lines), 1300)
        assert_equal(crashdrill.reached_height(tail.lines), -1)  # no block connected again
        node.start()
        self.check_final(node, exp)
        node.stop()


if __name__ == "__main__":
    CrashRecoveryTest().main()
