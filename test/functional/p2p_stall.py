#!/usr/bin/env python3
"""A peer that stalls the block download window is disconnected; the blocks come from
another peer.

Two Python peers hold test/data/regtest-small (1300 blocks). The staller announces
first, so the node asks it for the first blocks; it never answers a getdata. The honest
peer serves everything it is asked. Once the node has fetched the rest of the 1024-block
window from the honest peer and waits only for the staller's blocks, it drops the staller
(after 2 s, Core's BLOCK_STALLING_TIMEOUT) and fetches those blocks from the honest peer:
it reaches the tip.
"""

import os

import p2p
from blocktools import read_block_file
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until

# The regtest-small chain the repository carries (test/data/), so the test runs in a clone alone.
SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")


class Staller(p2p.BlockServer):
    def on_getdata(self, msg):
        self.asked = getattr(self, "asked", 0) + len(msg.inv)  # and never answers


class P2PStallTest(BitnodeTestFramework):
    num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        raws = read_block_file(os.path.join(SMALL, "blk00000.dat"))[1:]
        staller = Staller(blocks=raws)
        staller.connect(node.p2p_port)
        staller.announce_tip()
        wait_until(lambda: getattr(staller, "asked", 0) > 0, timeout=30,
                   what="the node asks the staller for blocks")
        honest = p2p.BlockServer(blocks=raws)
        honest.connect(node.p2p_port)
        honest.announce_tip()
        self.log("the staller is dropped, the honest peer serves the window")
        staller.wait_for_disconnect(timeout=60)
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="tip")
        assert_equal(node.rpc("getbestblockhash"), p2p.hash_hex(p2p.to_header(raws[-1]).sha))
        with open(node.debug_log, errors="replace") as f:
            assert_true("is stalling block download, disconnecting" in f.read(),
                        "the stall is logged")
        assert_true(honest.is_connected, "the honest peer stays")
        honest.close()


if __name__ == "__main__":
    P2PStallTest().main()
