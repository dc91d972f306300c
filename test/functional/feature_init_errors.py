#!/usr/bin/env python3
"""Start-up and fatal failures in Bitcoin Core's words:

- a chainstate whose best block is not in the block index (blocks/index deleted): "Error
  initializing block database." and Core's advice; with
  -test=reindex_after_failure_noninteractive_yes the node rebuilds at once;
- a node that stored blocks while segwit was not active at their height, restarted with a
  lower activation height (-testactivationheight): "Witness data for blocks after height N
  requires validation. Please restart with -reindex."; -reindex then validates them by
  segwit's rules (the pre-segwit blocks carry Core's witness commitment but no witness
  reserved value, so the first of them at segwit's height fails: the chain stops below it);
- a block that cannot be disconnected (its undo file gone): Core's fatal error on stderr,
  exit code 1;
- -reindex of a block file holding a block before its parent: Core's reindex debug lines.
"""

import os
import shutil

from blocktools import REGTEST_MAGIC, read_xor_key, unxor
from framework import (BitnodeTestFramework, JSONRPCError, assert_equal, assert_in, assert_true,
                       wait_until)

ADDR = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
ADVICE = "Please restart with -reindex or -reindex-chainstate to recover."


class InitErrorsTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def at(self, tip):
        """1 once the node's tip is tip (before the first block, while reindexing, there is
        none)."""
        try:
            return self.nodes[0].rpc("getbestblockhash") == tip
        except JSONRPCError:
            return False

    def blocks(self, *parts):
        return os.path.join(self.nodes[0].net_dir, "blocks", *parts)

    def run_test(self):
        node = self.nodes[0]
        node.rpc("generatetoaddress", 20, ADDR)
        tip = node.rpc("getbestblockhash")
        node.stop()

        self.log("the block index deleted: Error initializing block database")
        shutil.rmtree(self.blocks("index"))
        r = node.assert_start_fails([], "Error initializing block database.\n" + ADVICE)
        assert_equal(r.returncode, 1)
        self.log("  -test=reindex_after_failure_noninteractive_yes rebuilds it")
        node.start(["-test=reindex_after_failure_noninteractive_yes"])
        wait_until(lambda: self.at(tip), what="the rebuild")

        self.log("-reindex of a block before its parent: Core's reindex debug lines")
        node.stop()
        path = self.blocks("blk00000.dat")
        key = read_xor_key(self.blocks())
        with open(path, "r+b") as f:
            data = unxor(f.read(), key)
            starts, pos = [], 0
            while data[pos:pos + 4] == REGTEST_MAGIC and len(starts) < 4:
                starts.append(pos)
                pos += 8 + int.from_bytes(data[pos + 4:pos + 8], "little")
            b1, b2, b3 = starts[1], starts[2], starts[3]
            assert_equal(b3 - b2, b2 - b1)  # same size: swapped in place
            f.seek(b1)
            f.write(unxor(data[b2:b3], key, b1) + unxor(data[b1:b2], key, b2))
        node.start(["-reindex", "-debug=reindex"])
        wait_until(lambda: self.at(tip), what="the reindex")
        log = open(node.debug_log).read()
        assert_in("LoadExternalBlockFile: Out of order block ", log)
        assert_in("LoadExternalBlockFile: Processing out of order child ", log)

        self.log("an undo file gone: a failed disconnect is Core's fatal error on stderr")
        os.remove(self.blocks("rev00000.dat"))  # under the running node, as Core's test
        try:
            node.rpc("invalidateblock", tip)
        except Exception:
            pass  # the node may answer or be gone
        assert_equal(node.wait_exit(), 1)
        node.process = None
        assert_in("Error: A fatal internal error occurred, see debug.log for details: Failed to "
                  "disconnect block.", node.stderr_text())

        self.log("blocks stored before segwit, then a lower activation height: Core's refusal")
        for d in ("blocks", "chainstate"):
            shutil.rmtree(os.path.join(node.net_dir, d))
        node.start(["-testactivationheight=segwit@10"])
        node.rpc("generatetoaddress", 8, ADDR)
        coinbase = node.rpc("getblock", node.rpc("getblockhash", 6), 2)["tx"][0]
        assert_true(coinbase["vout"][-1]["scriptPubKey"]["hex"].startswith("6a24aa21a9ed"),
                    "the witness commitment before segwit (Core's miner)")
        assert_true("txinwitness" not in coinbase["vin"][0], "no witness reserved value")
        node.stop()
        r = node.assert_start_fails(["-testactivationheight=segwit@5"],
                                    "Witness data for blocks after height 5 requires validation. "
                                    "Please restart with -reindex..\n" + ADVICE)
        node.start(["-reindex", "-testactivationheight=segwit@5"])
        wait_until(lambda: node.rpc("getblockcount") == 4, what="the reindex to height 4")
        node.stop()
        node.start(["-testactivationheight=segwit@5"])
        assert_equal(node.rpc("getblockcount"), 4)


if __name__ == "__main__":
    InitErrorsTest().main()
