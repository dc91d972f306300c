#!/usr/bin/env python3
"""A coins flush written in parts survives a crash between any two of them (Core's
feature_dbcrash): the node imports the bundled regtest chain with a small coins cache
(-dbcache=4, a flush every 20 blocks) and a small write batch (-dbbatchsize=5000, so every
flush goes in many parts under the head-blocks marker), and -dbcrashratio=20 ends the process
after about one part in twenty. It is started again and again until it reaches the tip; each
start after a crash in the middle of a flush replays the blocks between the marker's two
ends ("Replaying blocks"). At the tip, the UTXO set hashes (hash_serialized_3 and muhash)
and counts equal Core's, and a last start without the crash option keeps them.
"""

import json
import os
import random

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
        self.crash_until_tip(self.nodes[0], base + ["-testflushblocks=20", "-dbbatchsize=5000",
                                                    "-dbcrashratio=20",
                                                    "-dbbackgroundflush=0"], exp)
        self.log("flushes of a full cache (no mempool budget), frozen generations written by "
                 "the cache's writer thread")
        node = TestNode(1, self.tmpdir)
        self.nodes.append(node)
        # A flush at every block (the cache is over its 1.75 MiB at once), in parts of 300
        # bytes: crashes one part in 400.
        self.crash_until_tip(node, base + ["-maxmempool=0", "-dbbackgroundflush=1",
                                          "-dbbatchsize=300", "-dbcrashratio=400"], exp)

    def crash_until_tip(self, node, args, exp):
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
        assert_true(replays >= 1, "replayed after %d crashes" % crashes)
        self.log("%d starts, %d crashes, %d replays" % (starts, crashes, replays))

        self.log("the tip and the UTXO set are Core's")
        node.start(["-dbcache=4"])
        wait_until(lambda: node.rpc("getblockcount") == tip["height"], timeout=120,
                   what="height %d" % tip["height"])
        assert_equal(node.rpc("getbestblockhash"), tip["hash"])
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            want = exp["gettxoutsetinfo_tip"][kind]
            assert_equal(got[kind], want[kind])
            assert_equal(got["txouts"], want["txouts"])
        node.stop()


if __name__ == "__main__":
    random.seed(0)
    DbCrashTest().main()
