#!/usr/bin/env python3
"""A disk that fills during an import stops the node cleanly; with space it goes on.

The datadir lives on a small tmpfs (mounted by the test: CI runs as root) that holds what a
started node needs (the first 16 MiB chunk of blk00000.dat, and the stores: their size
depends on the backend, RocksDB preallocating its logs, so it is measured by a first start)
plus SLACK_BYTES, but not the next block chunk, and the node imports a generated
chain of about 19 MB of blocks (bitnode-util genchain). It must log the storage error and
exit by itself with status 1, as Core's AbortNode does, not keep running. After the tmpfs
is given room (remount), a restart with the same -loadblock reaches the chain's tip with the
UTXO set hash genchain computed. Where mounting is not allowed, a file size limit
(RLIMIT_FSIZE, SIGXFSZ ignored: writes past it fail with EFBIG) stands in for the full disk.
"""

import os
import re
import resource
import shutil
import signal
import subprocess

from framework import (CHAIN, BitnodeTestFramework, TestNode, assert_equal, assert_in, builddir,
                       wait_until)

SMALL_BYTES = 19000 * 1024  # what LevelDB's node fits in: the mounted size if not measured
SLACK_BYTES = 2600 * 1024
LIMIT_BYTES = 18 * 1024 * 1024


class LimitedNode(TestNode):
    """A node whose files cannot grow past LIMIT_BYTES while limited is set."""

    limited = False

    def start(self, extra_args=None, wait=True):
        if not self.limited:
            return super().start(extra_args, wait)

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))
        self.stderr_file = open(self.stderr_path, "w")
        self.stdout_file = open(self.stdout_path, "w")
        self.process = subprocess.Popen(self.args(extra_args), stdout=self.stdout_file,
                                        stderr=self.stderr_file, preexec_fn=limit)
        if wait:
            self.wait_for_rpc()


class DiskFullTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 0
        self.start_nodes_at_setup = False

    def run_test(self):
        chain = os.path.join(self.tmpdir, "chain.dat")
        out = subprocess.run([os.path.join(builddir(), "bitnode-util"), "genchain", "--blocks",
                              "185", "--txs", "400", "--seed", "3", "--out", chain],
                             capture_output=True, text=True, check=True).stdout
        want_hash = re.search(r"hash_serialized_3: (\w+)", out).group(1)
        assert_equal(os.path.getsize(chain) > 17 * 1024 * 1024, True)

        mnt = os.path.join(self.tmpdir, "small")
        os.makedirs(mnt)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % SMALL_BYTES,
                                  "tmpfs", mnt], capture_output=True).returncode == 0
        small = SMALL_BYTES
        try:
            node = LimitedNode(0, mnt if mounted else self.tmpdir)
            self.nodes.append(node)
            node.limited = not mounted
            if mounted:
                subprocess.run(["mount", "-o", "remount,size=200m", mnt], check=True)
                node.start([])
                wait_until(lambda: node.rpc("getblockcount") == 0, timeout=60, what="genesis")
                st = os.statvfs(mnt)
                small = (st.f_blocks - st.f_bfree) * st.f_frsize + SLACK_BYTES
                node.stop()
                shutil.rmtree(node.net_dir)
                subprocess.run(["mount", "-o", "remount,size=%d" % small, mnt], check=True)
            self.log("import onto a disk that fills (%s)" %
                     ("a %d KiB tmpfs" % (small // 1024) if mounted else
                      "RLIMIT_FSIZE %d MiB: mount is not allowed here" % (LIMIT_BYTES >> 20)))
            node.start(["-loadblock=" + chain, "-assumevalid=0"])
            rc = node.wait_exit(timeout=300)
            log = open(node.debug_log, errors="replace").read()
            assert_equal(rc, 1)
            assert_in("import failed: I/O error; shutting down", log)
            assert_in("No space left on device" if mounted else "File too large", log)
            assert_in("Shutdown: done", log)

            self.log("with room again, a restart goes on to the tip")
            if mounted:
                subprocess.run(["mount", "-o", "remount,size=80m", mnt], check=True)
            node.limited = False
            node.start(["-loadblock=" + chain, "-assumevalid=0"])
            wait_until(lambda: node.rpc("getblockcount") == 185, timeout=300, what="height 185")
            assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], want_hash)
            node.stop()
        finally:
            for n in self.nodes:
                if n.process is not None and n.process.poll() is None:
                    n.kill()
            if mounted:
                # Keep the logs for the framework's report: copy the datadir off the tmpfs.
                for n in self.nodes:
                    for f in (getattr(n, "stderr_file", None), getattr(n, "stdout_file", None)):
                        if f is not None:
                            f.close()
                    copy = os.path.join(self.tmpdir, "node%d" % n.index)
                    shutil.copytree(n.datadir, copy, ignore=shutil.ignore_patterns("blk*",
                                                                                   "rev*"))
                    n.datadir, n.net_dir = copy, os.path.join(copy, CHAIN)
                    n.stderr_path = os.path.join(copy, "stderr.txt")
                subprocess.run(["umount", mnt])


if __name__ == "__main__":
    DiskFullTest().main()
