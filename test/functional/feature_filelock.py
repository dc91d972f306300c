#!/usr/bin/env python3
"""The datadir lock: a second bitnoded on the same datadir exits with a clear message and
leaves the first one untouched; the pid file holds the running daemon's pid."""

import os

from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true


class FileLockTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        assert_equal(node.pid_from_file(), node.process.pid)
        self.log("a second daemon on the same datadir fails")
        r = node.assert_start_fails(["-rpcport=1"], "Cannot obtain a lock on directory")
        assert_in("bitnode is probably already running", r.stderr)
        assert_equal(r.returncode, 1)
        self.log("the first one is unaffected: cookie, pid file and RPC still there")
        assert_true(os.path.exists(os.path.join(node.net_dir, ".cookie")), "cookie kept")
        assert_equal(node.pid_from_file(), node.process.pid)
        assert_equal(type(node.rpc("uptime")), int)
        node.stop()
        assert_equal(node.pid_from_file(), None)
        self.log("after a clean stop the datadir can be used again")
        node.start()
        node.stop()


if __name__ == "__main__":
    FileLockTest().main()
