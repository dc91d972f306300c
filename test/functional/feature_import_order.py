#!/usr/bin/env python3
"""The import reads a file's headers first, then connects blocks as it reads them, along the
best header chain only, while the check pool verifies the block before. Its end
state must be the one Core's -loadblock reaches (store everything, then connect the best):

A file holding, in this order: blocks 1-20; block 21 whose header is valid but whose body
breaks a context-free rule (a second coinbase: bad-cb-multiple, not a mutation of the
header's commitment); blocks 22-30 on top of it (the most work in the file); then a branch
21'-25' from block 20, valid, with less work than 30.

- the header pass takes all 35 headers; block 30 is the best header at first;
- block 21 is rejected for its body and marked invalid with 22-30 built on it, as Core's
  AcceptBlock marks it; the best header falls back to 25';
- 21'-25' connect: tip 25', getblockchaininfo headers 25;
- getchaintips: the active tip and the invalid branch ending at 30;
- the same with -par=1 and -par=2, and a restart keeps it.
"""

import os

from blocktools import (REGTEST_GENESIS, REGTEST_GENESIS_TIME, write_block_file,
                        ChainBuilder, create_coinbase)
from framework import BitnodeTestFramework, assert_equal, assert_in, wait_until



def write_blocks(path, blocks):
    write_block_file(path, [b.serialize() for b in blocks])


class ImportOrderTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 2
        self.start_nodes_at_setup = False

    def run_test(self):
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        blocks = []
        tip = cb.genesis
        for _ in range(20):
            b = cb.add(cb.create_block(tip))
            blocks.append(b)
            tip = b.sha
        b20 = tip
        second_cb = create_coinbase(21, 5000, tag=b"second")
        bad = cb.add(cb.create_block(b20, txs=[second_cb]))
        blocks.append(bad)
        tip = bad.sha
        for _ in range(9):
            b = cb.add(cb.create_block(tip))
            blocks.append(b)
            tip = b.sha
        top_bad = blocks[-1]
        tip = b20
        alt = []
        for _ in range(5):
            b = cb.add(cb.create_block(tip, tag=b"alt"))
            alt.append(b)
            tip = b.sha
        blocks += alt
        path = os.path.join(self.tmpdir, "order.dat")
        write_blocks(path, blocks)

        for node, par in zip(self.nodes, ("-par=1", "-par=2")):
            self.log("import with %s" % par)
            node.start(["-loadblock=" + path, par])

            def finished():
                with open(node.debug_log, errors="replace") as f:
                    return "records, " in f.read()
            wait_until(finished, timeout=60, what="the import")
            log = open(node.debug_log, errors="replace").read()
            assert_in("import: read 35 headers first (35 taken)", log)
            assert_in("bad-cb-multiple", log)
            assert_in("import: 35 records, 25 new blocks, 0 known, 10 invalid", log)
            self.check_state(node, alt[-1], top_bad)
            self.log("restart: the same state")
            node.stop()
            node.start([])
            self.check_state(node, alt[-1], top_bad)
            node.stop()

    def check_state(self, node, alt_tip, top_bad):
        assert_equal(node.rpc("getblockcount"), 25)
        assert_equal(node.rpc("getbestblockhash"), alt_tip.hash)
        assert_equal(node.rpc("getblockchaininfo")["headers"], 25)
        tips = node.rpc("getchaintips")
        assert_equal(tips[0], {"height": 30, "hash": top_bad.hash, "branchlen": 10,
                               "status": "invalid"})
        assert_equal(tips[1], {"height": 25, "hash": alt_tip.hash, "branchlen": 0,
                               "status": "active"})
        assert_equal(len(tips), 2)


if __name__ == "__main__":
    ImportOrderTest().main()
