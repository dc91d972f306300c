#!/usr/bin/env python3
"""A block file that shrinks under a running node gives a clear error, never a crash.

Block files used to be read through mmap for -reindex and -loadblock: a file cut shorter
while it was read killed the process with SIGBUS. They are read with pread now.

1. A running node whose blk00000.dat is truncated to half: getblock of a block past the cut
   answers an RPC error (Core's "Block not found on disk"), a block before it still reads,
   and the node keeps running.
2. A -reindex (plain block files, -blocksxor=0) during which blk00000.dat is truncated (the node reads it in chunks as it
   goes): the node stops by itself, exit status 1, the file and the offset named in the log
   and the failure on stderr; it is not killed by a signal.
"""

import os
import re
import subprocess
import time

from framework import (BitnodeTestFramework, JSONRPCError, assert_equal, assert_in, builddir,
                       wait_until)


class BlockFileTruncateTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        # Plain block files (-blocksxor=0): the ones that were mapped (under an XOR key they
        # were read into memory of the reader's own already).
        node.extra_args = ["-blocksxor=0"]
        chain = os.path.join(self.tmpdir, "chain.dat")
        out = subprocess.run([os.path.join(builddir(), "bitnode-util"), "genchain", "--blocks",
                              "185", "--txs", "400", "--seed", "3", "--out", chain],
                             capture_output=True, text=True, check=True).stdout
        assert_in("hash_serialized_3", out)
        node.start(["-loadblock=" + chain, "-assumevalid=0"])
        wait_until(lambda: node.rpc("getblockcount") == 185, timeout=300, what="height 185")
        first = node.rpc("getblockhash", 1)
        last = node.rpc("getblockhash", 180)
        node.stop()
        blk = os.path.join(node.net_dir, "blocks", "blk00000.dat")
        saved = open(blk, "rb").read()
        used = len(saved.rstrip(b"\0"))

        self.log("1. truncated under a running node: getblock answers an error, no crash")
        node.start(["-checkblocks=1"])
        os.truncate(blk, used // 2)
        try:
            node.rpc("getblock", last, 0)
            raise AssertionError("a block past the cut was served")
        except JSONRPCError as e:
            self.log("  getblock past the cut: %s" % e.error)
            assert_equal(e.error["code"], -1)
            assert_in("Block not found on disk", e.error["message"])
        assert_equal(len(node.rpc("getblock", first, 0)) > 160, True)
        assert_equal(node.process.poll(), None)
        node.stop()

        self.log("2. truncated during -reindex: a clean stop with the file named")
        with open(blk, "wb") as f:
            f.write(saved)
        node.start(["-reindex"], wait=False)
        log = node.debug_log
        deadline = time.time() + 60
        while time.time() < deadline:
            if os.path.exists(log) and "Reindexing block file blk00000.dat" in open(
                    log, errors="replace").read():
                break
            time.sleep(0.02)
        os.truncate(blk, used // 3)
        rc = node.wait_exit(timeout=300)
        node.process = None
        text = open(log, errors="replace").read()
        err = node.stderr_text()
        self.log("  exit %d; stderr: %s" % (rc, err.strip().replace("\n", " | ")))
        assert_equal(rc, 1)  # not -SIGBUS
        assert_in("blk00000.dat", text)
        assert_equal(re.search(r"import: reading \S*blk00000\.dat at offset \d+", text) is not None,
                     True)
        assert_in("Error: A fatal internal error occurred", err)
        assert_in("blk00000.dat at offset", err)
        assert_in("Shutdown: done", text)


if __name__ == "__main__":
    BlockFileTruncateTest().main()
