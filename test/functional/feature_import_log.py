#!/usr/bin/env python3
"""What -loadblock tells the operator about a damaged block file.

A file holding blocks 1-8 of a chain with, between them: non-zero garbage bytes, a network
magic followed by a record length outside [80, 4000000], zero padding (which block files
have after pre-allocation, and which is not worth a warning), and block 6 whose body is
well-formed but spends an output that does not exist, so that it is only found invalid when
connected (as a block with a bad signature is). The log names the garbage and the bad
length with their counts and the offset of the first, and the import summary counts block 6
as invalid (with 7-8, refused as its descendants: "3 invalid", where it used to say 2). A file of another network (mainnet magic)
gets a line saying it holds no block of this network.
"""

import os
import re
import struct

from blocktools import (REGTEST_GENESIS, REGTEST_GENESIS_TIME, REGTEST_MAGIC, ChainBuilder,
                        OutPoint, SCRIPT_TRUE, Tx, TxIn, TxOut, block_file_record)
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

MAIN_MAGIC = bytes.fromhex("f9beb4d9")


def record(block, magic=REGTEST_MAGIC):
    return block_file_record(block.serialize(), magic)


class ImportLogTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def wait_summary(self, node, count):
        def done():
            with open(node.debug_log, errors="replace") as f:
                return f.read().count("records, ") >= count
        wait_until(done, timeout=60, what="the import summary")
        return open(node.debug_log, errors="replace").read()

    def run_test(self):
        node = self.nodes[0]
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        blocks, tip = [], cb.genesis
        for height in range(1, 9):
            txs = []
            if height == 6:
                missing = Tx(vin=[TxIn(OutPoint(b"\x42" * 32, 0))],
                             vout=[TxOut(1000, SCRIPT_TRUE)])
                txs = [missing]
            b = cb.add(cb.create_block(tip, txs=txs))
            blocks.append(b)
            tip = b.sha
        data = b"".join(record(b) for b in blocks[:2])
        garbage_at = len(data)
        data += b"\x01garbage\x07"
        data += record(blocks[2])
        bad_len_at = len(data)
        data += REGTEST_MAGIC + struct.pack("<I", 10) + b"\x00" * 10
        data += b"".join(record(b) for b in blocks[3:])
        data += b"\x00" * 4096
        path = os.path.join(self.tmpdir, "damaged.dat")
        with open(path, "wb") as f:
            f.write(data)

        self.log("garbage and a bad record length are logged; block 6 counts as invalid")
        node.start(["-loadblock=" + path, "-debug=bench"])
        log = self.wait_summary(node, 1)
        # The 9 garbage bytes, and the 5 non-zero bytes of the bad record's header (its
        # magic and length, passed over a byte at a time as Core does).
        assert_in("import: %s: skipped 14 bytes that are no record of this network (first at "
                  "offset %d)" % (path, garbage_at), log)
        assert_in("import: %s: 1 record headers with a length outside [80, 4000000] skipped "
                  "(first at offset %d)" % (path, bad_len_at), log)
        assert_in("bad-txns-inputs-missingorspent", log)
        # Block 6 fails when connected, and 7-8, read after that, are refused as its
        # descendants: 3 invalid (the summary used to leave block 6 out).
        assert_in("import: 8 records, 6 new blocks, 0 known, 3 invalid", log)
        assert_equal(node.rpc("getblockcount"), 5)
        # -debug=bench: one line per connected block (the storage benchmark's timeline).
        for height in range(1, 6):
            assert_true(re.search(r"bench: block height=%d txs=1 connect=[0-9.]+ms "
                                  r"gap=[0-9.]+ms flush=[0-9.]+ms" % height, log),
                        "bench line of block %d" % height)
        node.stop()
        log = open(node.debug_log, errors="replace").read()
        # At the close, the per-block percentiles (the genesis block is connected too).
        assert_true(re.search(r"block times: connect p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 "
                              r"[0-9.]+ ms, max [0-9.]+ ms, mean [0-9.]+ ms over 6 blocks; "
                              r"gap between blocks p50 [0-9.]+ ms, p99 [0-9.]+ ms, max "
                              r"[0-9.]+ ms; flushes \d+, [0-9.]+ s in all", log),
                    "the block times line")

        self.log("a file of another network: said so")
        other = os.path.join(self.tmpdir, "mainnet.dat")
        with open(other, "wb") as f:
            f.write(b"".join(record(b, MAIN_MAGIC) for b in blocks[:2]))
        node.start(["-loadblock=" + other])
        log = self.wait_summary(node, 2)
        assert_in("import: %s holds no block of this network (another network's magic, or "
                  "not a block file)" % other, log)
        node.stop()


if __name__ == "__main__":
    ImportLogTest().main()
