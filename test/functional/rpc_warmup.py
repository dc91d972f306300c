#!/usr/bin/env python3
"""Warm-up: until start-up has finished every method but stop and help answers -28 with
what is loading; bitnode-cli -rpcwait waits it out; stop works during warm-up. The hidden
-testwarmupms option stretches the (otherwise instant) loading step."""

import subprocess
import time

from framework import (BitnodeTestFramework, JSONRPCError, assert_equal, assert_in, assert_true,
                       assert_raises_rpc_error, wait_until)


class WarmupTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def answers(self, node):
        try:
            node.rpc("help")
            return True
        except (OSError, JSONRPCError):
            return False

    def run_test(self):
        node = self.nodes[0]
        self.log("-28 with the loading status; help still works")
        node.start(["-testwarmupms=4000"], wait=False)
        wait_until(lambda: self.answers(node), what="RPC")
        e = assert_raises_rpc_error(-28, None, node.rpc, "uptime")
        assert_equal(e.message, "Loading block index...")
        assert_equal(e.http_status, 500)
        assert_raises_rpc_error(-28, "Loading block index...", node.rpc, "nosuch")
        assert_in("== Control ==", node.rpc("help"))
        r = node.cli("uptime")
        assert_equal(r.returncode, 28)
        assert_equal(r.stderr, "error code: -28\nerror message:\nLoading block index...\n")

        self.log("bitnode-cli -rpcwait waits for the end of warm-up")
        r = node.cli("-rpcwait", "uptime", check=True)
        assert_true(r.stdout.strip().isdigit(), r.stdout)
        assert_equal(type(node.rpc("uptime")), int)
        node.stop()

        self.log("stop during warm-up")
        node.start(["-testwarmupms=60000"], wait=False)
        wait_until(lambda: self.answers(node), what="RPC")
        start = time.time()
        node.stop()
        assert_true(time.time() - start < 20, "stopped without finishing warm-up")


if __name__ == "__main__":
    WarmupTest().main()
