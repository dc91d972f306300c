#!/usr/bin/env python3
"""Clean shutdown and signals: the stop RPC, SIGTERM and SIGINT all exit 0 and remove the pid
file and the cookie; a stop during a running request still answers it; SIGHUP reopens
debug.log (for logrotate)."""

import os
import signal
import threading

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until)


class ShutdownTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.extra_args = [["-debug=http"]]

    def gone(self, node):
        assert_true(not os.path.exists(os.path.join(node.net_dir, "bitcoind.pid")), "pid file removed")
        assert_true(not os.path.exists(os.path.join(node.net_dir, ".cookie")), "cookie removed")

    def run_test(self):
        node = self.nodes[0]
        self.log("stop RPC")
        node.stop()
        self.gone(node)
        assert_in("Shutdown: done", open(node.debug_log).read())

        for sig in (signal.SIGTERM, signal.SIGINT):
            self.log("signal %s" % sig.name)
            node.start()
            node.process.send_signal(sig)
            assert_equal(node.wait_exit(), 0)
            node.process = None
            self.gone(node)

        self.log("stop while other requests run: every request gets its answer")
        node.start()
        results = []

        def slow():
            # A wrong password holds a worker for 250 ms before the 401.
            results.append(node.http('{"method":"uptime","id":1}', auth=("x", "y"))[0])
        def received():
            return open(node.debug_log).read().count("Received a POST request")
        before = received()
        threads = [threading.Thread(target=slow) for _ in range(3)]
        for t in threads:
            t.start()
        wait_until(lambda: received() >= before + 3, what="the requests to arrive")
        assert_equal(node.rpc("stop", 100), "bitnode stopping")  # hidden wait argument, ms
        for t in threads:
            t.join()
        assert_equal(results, [401, 401, 401])
        assert_equal(node.wait_exit(), 0)
        node.process = None

        self.log("SIGHUP reopens debug.log")
        os.remove(node.debug_log)
        node.start()
        rotated = node.debug_log + ".1"
        os.rename(node.debug_log, rotated)
        node.rpc("uptime")  # still written to the renamed file
        node.process.send_signal(signal.SIGHUP)
        wait_until(lambda: (node.rpc("uptime") is not None) and os.path.exists(node.debug_log),
                   what="a new debug.log")
        node.rpc("echo", "after-rotation")
        node.stop()
        new = open(node.debug_log).read()
        assert_in("Received a POST request for / from 127.0.0.1", new)
        assert_in("Shutdown: done", new)
        assert_true("Shutdown: done" not in open(rotated).read(), "old file no longer written")


if __name__ == "__main__":
    ShutdownTest().main()
