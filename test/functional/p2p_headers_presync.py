#!/usr/bin/env python3
"""Low-work header chains are pre-synced, never stored until their work is shown.

The node runs with -minimumchainwork set to the work of a 2200-block regtest chain. A
Python peer first offers a 2100-block chain (less than that work): the node pre-syncs its
2000-header message without storing it, asks for the rest, finds the chain too weak and
drops it: getchaintips still shows genesis alone. Then an honest peer offers a 2500-block
chain: the pre-sync shows the work, the headers are downloaded again and stored, the
blocks follow, and the node reaches the tip and leaves initial block download.
"""

import p2p
from blocktools import REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until


def build_chain(n, tag):
    cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
    parent = cb.genesis
    blocks = []
    for i in range(n):
        b = cb.create_block(parent, tag=b"%s%d" % (tag, i))
        cb.add(b)
        blocks.append(b)
        parent = b.sha
    return blocks


class HeadersPresyncTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        # Regtest work is 2 per block; genesis counts too.
        min_work = "%x" % (2 * 2201)
        weak = build_chain(2100, b"weak")
        honest_blocks = build_chain(2500, b"honest")

        weak_peer = p2p.BlockServer(blocks=weak)
        port = weak_peer.listen()
        node.start(["-minimumchainwork=" + min_work, "-connect=127.0.0.1:%d" % port,
                    "-debug=net", "-maxtipage=2000000000"])
        weak_peer.wait_for_connect(timeout=30)
        self.log("a weak chain: pre-synced, then dropped without being stored")
        wait_until(lambda: self.logged(node, "after pre-sync"), timeout=30,
                   what="the weak chain dropped")
        assert_true(self.logged(node, "Pre-synchronizing blockheaders, height: 2000"),
                    "pre-sync logged")
        assert_equal([t["height"] for t in node.rpc("getchaintips")], [0])
        assert_equal(node.rpc("getblockchaininfo")["headers"], 0)
        assert_equal(weak_peer.served, [])
        weak_peer.close()
        node.stop()

        self.log("an honest chain with the work: pre-synced, redownloaded, stored, synced")
        honest = p2p.BlockServer(blocks=honest_blocks)
        port = honest.listen()
        node.start(["-minimumchainwork=" + min_work, "-connect=127.0.0.1:%d" % port,
                    "-debug=net", "-maxtipage=2000000000"])
        honest.wait_for_connect(timeout=30)
        wait_until(lambda: node.rpc("getblockcount") == 2500, timeout=180, what="2500 blocks")
        assert_equal(node.rpc("getbestblockhash"), honest_blocks[-1].hash)
        assert_equal(node.rpc("getblockchaininfo")["initialblockdownload"], False)
        assert_true(self.logged(node, "headers pre-sync with peer=0 done"), "pre-sync done")
        honest.close()

    def logged(self, node, text):
        with open(node.debug_log, errors="replace") as f:
            return text in f.read()


if __name__ == "__main__":
    HeadersPresyncTest().main()
