#!/usr/bin/env python3
"""The control methods: help (overview and per method), uptime, getrpcinfo, getmemoryinfo, logging (as
Core: include/exclude lists, "all"), echo, and -debug at start-up."""

import os
import time

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true,
                       assert_raises_rpc_error)

# Core's categories; bitnode's "kv" (the key-value backend) is another name for "leveldb".
CATEGORIES = ["addrman", "bench", "blockstorage", "cmpctblock", "coindb", "estimatefee", "http",
              "i2p", "ipc", "kernel", "leveldb", "mempool", "mempoolrej", "net",
              "privatebroadcast", "proxy", "prune", "qt", "rand", "reindex", "rpc", "scan",
              "selectcoins", "tor", "txpackages", "txreconciliation", "validation", "walletdb",
              "zmq"]


class ControlTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.extra_args = [["-debug=rpc", "-debug=kv"]]

    def run_test(self):
        node = self.nodes[0]
        self.log("help")
        overview = node.rpc("help")
        assert_true(overview.startswith("== ") and "\n== Control ==\n" in "\n" + overview,
                    overview)
        for m in ["getrpcinfo", "help", "logging", "stop", "uptime"]:
            assert_in("\n" + m, "\n" + overview)
            text = node.rpc("help", m)
            assert_true(text.startswith(m), text)
            # Core's help and stop have no Examples section; the others have one.
            if m not in ("help", "stop"):
                assert_in("Examples:", text)
        assert_true("echo" not in overview, "hidden methods are not listed")
        assert_equal(node.rpc("help", "nosuch"), "help: unknown command: nosuch")

        self.log("uptime counts seconds")
        u0 = node.rpc("uptime")
        time.sleep(1.1)
        assert_true(node.rpc("uptime") >= u0 + 1, "uptime grows")

        self.log("getrpcinfo")
        info = node.rpc("getrpcinfo")
        assert_equal(info["logpath"], os.path.abspath(node.debug_log))
        assert_equal(len(info["active_commands"]), 1)
        assert_equal(info["active_commands"][0]["method"], "getrpcinfo")
        assert_true(isinstance(info["active_commands"][0]["duration"], int), "duration in us")

        self.log("logging: start-up -debug, include/exclude, all")
        state = node.rpc("logging")
        assert_equal(sorted(state.keys()), CATEGORIES)
        assert_equal([c for c in CATEGORIES if state[c]], ["leveldb", "rpc"])
        state = node.rpc("logging", ["net", "http"], ["kv"])
        assert_equal([c for c in CATEGORIES if state[c]], ["http", "net", "rpc"])
        state = node.rpc("logging", ["all"])
        assert_equal(all(state.values()), True)
        state = node.rpc("logging", [], ["all"])
        assert_equal(any(state.values()), False)
        # Core: libevent is deprecated, accepted with a warning, and changes nothing.
        assert_equal(node.rpc("logging", ["libevent"]), state)
        assert_in("The logging category `libevent` is deprecated, does nothing",
                  open(node.debug_log).read())
        assert_raises_rpc_error(-8, "unknown logging category nosuch", node.rpc, "logging",
                                ["nosuch"])
        node.rpc("logging", ["http"])
        node.rpc("uptime")
        assert_in("[http] Received a POST request for / from 127.0.0.1", open(node.debug_log).read())

        self.log("getmemoryinfo: the locked pool holding the RPC secrets; mallocinfo")
        locked = node.rpc("getmemoryinfo")["locked"]
        assert_equal(sorted(locked), ["chunks_free", "chunks_used", "free", "locked", "total",
                                      "used"])
        assert_true(locked["used"] > 0 and locked["chunks_used"] > 0, locked)
        assert_true(locked["free"] > 0 and locked["chunks_free"] > 0, locked)
        assert_equal(locked["used"] + locked["free"], locked["total"])
        assert_equal(locked["total"], 256 * 1024)
        assert_equal(node.rpc("getmemoryinfo", "stats"), {"locked": locked})
        assert_true(node.rpc("getmemoryinfo", "mallocinfo").startswith("<malloc version="), "xml")
        assert_raises_rpc_error(-8, "unknown mode foobar", node.rpc, "getmemoryinfo", "foobar")

        self.log("getmininginfo: Core's fields (checked against the declaration by -rpcdoccheck)")
        info = node.rpc("getmininginfo")
        assert_equal(info["chain"], "regtest")
        assert_equal(sorted(info["next"]), ["bits", "difficulty", "height", "target"])

        self.log("echo")
        assert_equal(node.rpc("echo"), [])
        assert_equal(node.rpc("echo", 1, "two", [3], {"4": 5}, None, True),
                     [1, "two", [3], {"4": 5}, None, True])
        assert_equal(node.rpc("echojson", 1.5), [1.5])


if __name__ == "__main__":
    ControlTest().main()
