#!/usr/bin/env python3
"""Bad block data in a -loadblock file must never leave a datadir that will not start.

A file holding, in this order: blocks 1-10; block 11, whose header is valid but whose body
is bad; blocks 12-15 built on block 11's header. Two cases, one node each:

- merkle: block 11's body does not match its header's merkle root (bad-txnmrklroot, a
  mutation: Core's AcceptBlock keeps the header and does not mark it invalid, since the same
  header may come later with the right body, see InvalidBlockFound and BLOCK_MUTATED);
- serialization: block 11 is its valid header followed by garbage, inside a correctly
  framed record (bad-blk-serialization).

For both, as Core's -loadblock ends: tip block 10; block 11 is a header without data and
12-15 are stored but cannot connect, so getchaintips shows the branch ending at 15 as
"headers-only" (branchlen 5) next to the active tip, and the best header is 15. (For the
serialization case Core would not know these headers at all, since it reads no headers
first; our import reads a file's headers first, as headers-first sync would, so the
branch is known.)

Then: a restart without -loadblock starts (it used to fail with "block index: entry at
height 12 has no parent": the children were written to the block index, their parent's
header was not) and shows the same state; a -reindex from the node's own block files,
which never stored block 11, reaches block 10 again and, like Core's reindex, no longer
knows the branch (12-15 wait for a parent that never comes); a last restart keeps that.
"""

import os

from blocktools import (REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder, create_coinbase,
                        write_block_file)
from framework import BitnodeTestFramework, assert_equal, assert_in, wait_until





class ImportBadDataTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 2
        self.start_nodes_at_setup = False

    def make_file(self, name, corrupt):
        """Blocks 1-15 with block 11's record replaced by corrupt(block 11); returns the
        path, block 10 and block 15."""
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        blocks = []
        tip = cb.genesis
        for _ in range(15):
            b = cb.add(cb.create_block(tip))
            blocks.append(b)
            tip = b.sha
        records = [b.serialize() for b in blocks]
        records[10] = corrupt(blocks[10])
        assert_equal(records[10][:80], blocks[10].header())
        path = os.path.join(self.tmpdir, name)
        write_block_file(path, records)
        return path, blocks[9], blocks[14]

    def run_test(self):
        def bad_merkle(b):
            # Another coinbase under the same header: the header's merkle root no longer
            # commits to the body.
            b.txs[0] = create_coinbase(b.height, b.txs[0].vout[0].value, tag=b"mutated")
            assert b.calc_merkle() != b.merkle
            return b.serialize()

        def bad_body(b):
            # One transaction announced, then bytes that do not make one.
            return b.header() + b"\x01" + b"\xde\xad\xbe\xef" * 4

        cases = [("merkle", bad_merkle, "bad-txnmrklroot"),
                 ("serialization", bad_body, "bad-blk-serialization")]
        for node, (name, corrupt, reason) in zip(self.nodes, cases):
            path, b10, b15 = self.make_file(name + ".dat", corrupt)
            self.log("%s: -loadblock" % name)
            node.start(["-loadblock=" + path])
            self.wait_log(node, "records, ", 1)
            assert_in(reason, self.read_log(node))
            self.check_branch_known(node, b10, b15)

            self.log("%s: restart without -loadblock" % name)
            node.stop()
            node.start([])
            self.check_branch_known(node, b10, b15)

            self.log("%s: -reindex" % name)
            node.stop()
            node.start(["-reindex"])
            self.wait_log(node, "Reindexing finished", 1)
            self.check_branch_unknown(node, b10)
            node.stop()
            node.start([])
            self.check_branch_unknown(node, b10)
            node.stop()

    def read_log(self, node):
        with open(node.debug_log, errors="replace") as f:
            return f.read()

    def wait_log(self, node, text, count):
        wait_until(lambda: self.read_log(node).count(text) >= count, timeout=60,
                   what="'%s' in the log" % text)

    def check_branch_known(self, node, b10, b15):
        assert_equal(node.rpc("getblockcount"), 10)
        assert_equal(node.rpc("getbestblockhash"), b10.hash)
        assert_equal(node.rpc("getblockchaininfo")["headers"], 15)
        assert_equal(node.rpc("getchaintips"), [
            {"height": 15, "hash": b15.hash, "branchlen": 5, "status": "headers-only"},
            {"height": 10, "hash": b10.hash, "branchlen": 0, "status": "active"},
        ])

    def check_branch_unknown(self, node, b10):
        assert_equal(node.rpc("getblockcount"), 10)
        assert_equal(node.rpc("getbestblockhash"), b10.hash)
        assert_equal(node.rpc("getblockchaininfo")["headers"], 10)
        assert_equal(node.rpc("getchaintips"),
                     [{"height": 10, "hash": b10.hash, "branchlen": 0, "status": "active"}])


if __name__ == "__main__":
    ImportBadDataTest().main()
