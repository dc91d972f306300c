#!/usr/bin/env python3
"""The operator's commands and the chain's warnings, as bitcoind runs them:

- -blocknotify runs once per new tip out of initial block download, with %s the block hash;
- -alertnotify runs when a warning is raised, with %s the warning's text, single-quoted:
  an invalid chain more than 6 blocks ahead of the tip (Core's exact sentence), and an
  unknown versionbits deployment (BIP 323's bits 0-4) that activated; both show in the
  "warnings" of getblockchaininfo, getnetworkinfo and getmininginfo;
- bits 5-28 never warn (BIP 323: extra nonce space);
- -startupnotify runs once when start-up is done; -shutdownnotify (each one given) runs
  before the shutdown goes on.
"""

import os

from blocktools import Block, create_coinbase
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

LARGE_WORK = ("Warning: Found invalid chain more than 6 blocks longer than our best chain. "
              "This could be due to database corruption or consensus incompatibility with peers.")
ADDR = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


class NotifyTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        d = os.path.join(self.tmpdir, "notify")
        os.makedirs(os.path.join(d, "blocks"))
        alert = os.path.join(d, "alert.txt")
        startup = os.path.join(d, "startup.txt")
        shutdown = [os.path.join(d, "shutdown%d.txt" % i) for i in range(2)]
        node.start(["-blocknotify=echo > '%s/blocks/%%s'" % d,
                    "-alertnotify=echo %%s >> '%s'" % alert,
                    "-startupnotify=echo up >> '%s'" % startup,
                    "-shutdownnotify=echo down > '%s'" % shutdown[0],
                    "-shutdownnotify=echo down > '%s'" % shutdown[1]])

        self.log("-startupnotify ran once")
        wait_until(lambda: read(startup) == "up\n", what="startupnotify")

        self.log("-blocknotify: one run per block, named by its hash")
        hashes = node.rpc("generatetoaddress", 10, ADDR)
        wait_until(lambda: len(os.listdir(os.path.join(d, "blocks"))) == 10, what="10 files")
        assert_equal(sorted(os.listdir(os.path.join(d, "blocks"))), sorted(hashes))
        assert_equal(node.rpc("getblockchaininfo")["warnings"], [])

        self.log("an invalid chain 7 blocks ahead raises Core's warning and runs -alertnotify")
        tip = node.rpc("getbestblockhash")
        height = node.rpc("getblockcount") + 1
        t = node.rpc("getblock", tip)["time"] + 1
        blocks = []
        prev = bytes.fromhex(tip)[::-1]
        for i in range(7):
            cb = create_coinbase(height + i, 50 * 100000000 + 1)  # pays too much: invalid
            b = Block(prev, [cb], t + i).solve()
            blocks.append(b)
            prev = b.sha
        for b in blocks:
            node.rpc("submitheader", b.header().hex())
        for b in reversed(blocks):
            node.rpc("submitblock", b.hex())
        wait_until(lambda: LARGE_WORK in read(alert), what="alertnotify")
        assert_equal(read(alert).count("Warning: Found invalid chain"), 1)
        assert_in(LARGE_WORK, node.rpc("getblockchaininfo")["warnings"])
        assert_in(LARGE_WORK, node.rpc("getnetworkinfo")["warnings"])
        assert_in(LARGE_WORK, node.rpc("getmininginfo")["warnings"])
        assert_equal(node.rpc("getbestblockhash"), tip)

        self.log("the warning clears once the valid chain has caught up")
        node.rpc("generatetoaddress", 2, ADDR)
        assert_equal(node.rpc("getblockchaininfo")["warnings"], [])

        self.log("-shutdownnotify: every command ran before the node exited")
        node.stop()
        for p in shutdown:
            assert_equal(read(p), "down\n")
        assert_equal(read(startup), "up\n")

        self.log("bit 5 signalled for a period: no warning (BIP 323)")
        node.start(["-blockversion=%d" % (0x20000000 | 1 << 5), "-alertnotify=echo %%s >> '%s'" % alert])
        node.rpc("generatetoaddress", 432, ADDR)
        assert_equal(node.rpc("getblockchaininfo")["warnings"], [])
        node.stop()

        self.log("bit 3 signalled until active: 'Unknown new rules activated (versionbit 3)'")
        node.start(["-blockversion=%d" % (0x20000000 | 1 << 3), "-alertnotify=echo %%s >> '%s'" % alert,
                    "-deprecatedrpc=warnings", "-rpcdoccheck=0"])  # the doc declares the array
        node.rpc("generatetoaddress", 432, ADDR)
        msg = "Unknown new rules activated (versionbit 3)"
        assert_equal(node.rpc("getblockchaininfo")["warnings"], msg)  # the deprecated string
        wait_until(lambda: msg in read(alert), what="alertnotify for versionbit 3")
        assert_true("'" not in read(alert), "the shell took the quotes")
        node.stop()


if __name__ == "__main__":
    NotifyTest().main()
