#!/usr/bin/env python3
"""bitnode-cli: output formats (strings raw, JSON indented by 2), JSON-typed arguments per
method, -named, -stdin, -rpcwait, -getinfo, -rpcconnect/-rpcport, the config file, and
bitcoin-cli's stderr messages and exit codes for RPC and connection errors."""

import json
import os
import subprocess
import time

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, free_port)


class CLITest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.log("results: strings raw, JSON indented like bitcoin-cli")
        r = node.cli("help", "uptime", check=True)
        assert_true(r.stdout.startswith("uptime\n\nReturns the total uptime"), r.stdout)
        r = node.cli("echojson", '{"a":[1,2.5,"x",null,true]}', "[]", "{}", check=True)
        assert_equal(r.stdout, '[\n  {\n    "a": [\n      1,\n      2.5,\n      "x",\n'
                               '      null,\n      true\n    ]\n  },\n  [\n  ],\n  {\n  }\n]\n')
        r = node.cli("echo", "1", "true", check=True)
        assert_equal(json.loads(r.stdout), ["1", "true"])
        r = node.cli("logging", '["http"]', check=True)
        assert_equal(json.loads(r.stdout)["http"], True)
        r = node.cli("logging", "[]", '["http"]', check=True)
        assert_equal(json.loads(r.stdout)["http"], False)

        self.log("errors: Core's stderr format and exit status |code| (mod 256)")
        r = node.cli("nosuch")
        assert_equal(r.returncode, 32601 % 256)
        assert_equal(r.stderr, "error code: -32601\nerror message:\nMethod not found\n")
        assert_equal(r.stdout, "")
        r = node.cli("logging", '["nosuch"]')
        assert_equal(r.returncode, 8)
        assert_equal(r.stderr, "error code: -8\nerror message:\nunknown logging category nosuch\n")
        r = node.cli("echojson", "{bad")
        assert_equal(r.returncode, 1)
        assert_equal(r.stderr, "error: Error parsing JSON: {bad\n")
        r = node.cli()
        assert_equal(r.returncode, 1)
        assert_in("too few parameters", r.stderr)

        self.log("-named, with leading positional arguments")
        r = node.cli("-named", "echo", "arg1=x", "arg3=y", check=True)
        assert_equal(json.loads(r.stdout), [None, "x", None, "y"])
        r = node.cli("-named", "echojson", "arg2=[7]", check=True)
        assert_equal(json.loads(r.stdout), [None, None, [7]])
        r = node.cli("-named", "echo", "arg0=1", "arg0=2")
        assert_equal(r.returncode, 1)
        assert_in("Parameter arg0 specified multiple times", r.stderr)

        self.log("-stdin: extra arguments, one per line")
        r = node.cli("-stdin", "echo", input="a b\nc\n", check=True)
        assert_equal(json.loads(r.stdout), ["a b", "c"])

        self.log("-getinfo")
        r = node.cli("-getinfo", check=True)
        assert_in("Chain: regtest", r.stdout)
        assert_in("Uptime:", r.stdout)

        self.log("-rpcconnect with a port, and -rpcport winning")
        r = node.cli("-rpcconnect=127.0.0.1:%d" % node.rpc_port, "uptime", check=True)
        r = node.cli("-rpcconnect=127.0.0.1:1", "-rpcport=%d" % node.rpc_port, "uptime", check=True)

        self.log("stop, then connection errors")
        assert_equal(node.cli("stop", check=True).stdout, "bitnode stopping\n")
        node.wait_exit()
        node.process = None
        r = node.cli("-rpcport=%d" % node.rpc_port, "-rpcpassword=x", "uptime")
        assert_equal(r.returncode, 1)
        assert_in("error: Could not connect to the server 127.0.0.1:%d" % node.rpc_port, r.stderr)
        start = time.time()
        r = node.cli("-rpcwait", "-rpcwaittimeout=1", "-rpcpassword=x", "uptime")
        assert_equal(r.returncode, 1)
        assert_in("error: timeout on transient error: Could not connect to the server", r.stderr)
        assert_true(time.time() - start < 10, "-rpcwaittimeout honoured")

        self.log("-rpcwait waits for the node to come up")
        cmd = [node.bitnode_cli, "-datadir=" + node.datadir, "-rpcwait", "uptime"]
        waiter = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert_equal(waiter.poll(), None)
        node.start()
        out, err = waiter.communicate(timeout=60)
        assert_equal(waiter.returncode, 0)
        assert_true(out.strip().isdigit(), out + err)


if __name__ == "__main__":
    CLITest().main()
