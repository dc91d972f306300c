#!/usr/bin/env python3
"""-daemon: bitnoded forks to the background after taking the datadir lock and the RPC
port, the foreground process exits 0 once the daemon is ready, bitnode-cli talks to it, and
start-up errors (port in use, datadir locked) still reach the terminal with exit code 1."""

import os
import socket
import subprocess

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until)


class DaemonTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def run_daemon(self, node, extra=None):
        return subprocess.run(node.args(["-daemon"] + (extra or [])), capture_output=True,
                              text=True, timeout=60)

    def run_test(self):
        node = self.nodes[0]
        self.log("bitnoded -regtest -daemon returns at once; the daemon answers")
        r = self.run_daemon(node)
        assert_equal(r.returncode, 0)
        assert_in("bitnode starting", r.stdout)
        pid = node.pid_from_file()
        assert_true(pid is not None, "pid file written by the daemon")
        self.daemon_pids.append(pid)
        os.kill(pid, 0)
        assert_equal(node.cli("-regtest", "-rpcwait", "uptime", check=True).stdout.strip().isdigit(), True)

        self.log("a second -daemon on the same datadir fails in the foreground")
        r = self.run_daemon(node, ["-rpcport=1"])
        assert_equal(r.returncode, 1)
        assert_in("Cannot obtain a lock on directory", r.stderr)

        self.log("stop through bitnode-cli; the daemon exits and cleans up")
        assert_equal(node.cli("stop", check=True).stdout, "bitnode stopping\n")

        def dead():
            try:
                os.kill(pid, 0)
                return False
            except OSError:
                return True
        wait_until(dead, what="the daemon to exit")
        self.daemon_pids.remove(pid)
        assert_equal(node.pid_from_file(), None)

        self.log("RPC port in use: the error reaches the terminal")
        blocker = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        blocker.bind(("127.0.0.1", node.rpc_port))
        blocker.listen(1)
        blocker6 = None
        try:
            blocker6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            blocker6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            blocker6.bind(("::1", node.rpc_port))
            blocker6.listen(1)
        except OSError:
            blocker6 = None
        r = self.run_daemon(node)
        blocker.close()
        if blocker6:
            blocker6.close()
        assert_equal(r.returncode, 1)
        assert_in("Unable to bind any endpoint for RPC server", r.stderr)
        assert_equal(node.pid_from_file(), None)


if __name__ == "__main__":
    DaemonTest().main()
