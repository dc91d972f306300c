#!/usr/bin/env python3
"""-assumevalid (Core's feature_assumevalid.py, fed by -loadblock instead of P2P).

A regtest chain: 101 blocks, then block 102 holding a transaction whose input script fails
(it spends block 1's coinbase output, scriptPubKey OP_0, with an empty scriptSig), then 2100
valid blocks on top: more than two weeks' worth of work, Core's bar for skipping.

- no -assumevalid (regtest's default is none): block 102 is rejected with the script error,
  the tip stays at 101;
- -assumevalid=<block 102>: its script checks are skipped, every other rule is kept: the
  whole chain connects (tip 2202);
- -assumevalid=<block 102> with only 200 blocks on top: not buried deep enough, rejected;
- -assumevalid=0 and an unknown hash: every script is checked, rejected;
- a malformed value stops start-up (feature_config.py has that case too).
"""

import os

from blocktools import (OP_0, REGTEST_GENESIS, REGTEST_GENESIS_TIME, SCRIPT_TRUE, ChainBuilder,
                        OutPoint, Tx, TxIn, TxOut, block_subsidy, write_block_file)
from framework import BitnodeTestFramework, assert_equal, assert_in, wait_until

EVAL_FALSE = "Script evaluated without error but finished with a false/empty top stack element"


def write_blocks(path, blocks):
    write_block_file(path, [b.serialize() for b in blocks])


class AssumeValidTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 4
        self.start_nodes_at_setup = False

    def import_chain(self, node, path, extra_args):
        """Starts node importing path; returns once the import is over."""
        node.start(["-loadblock=" + path] + extra_args)

        def finished():
            with open(node.debug_log, errors="replace") as f:
                return "records, " in f.read().split("Importing blocks file")[-1]
        wait_until(finished, timeout=180, what="the import")

    def run_test(self):
        self.log("build 101 blocks, block 102 with a failing input script, 2100 blocks on top")
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        blocks = []
        tip = cb.genesis
        b1 = cb.add(cb.create_block(tip, script_pubkey=bytes([OP_0])))
        blocks.append(b1)
        tip = b1.sha
        for _ in range(100):
            b = cb.add(cb.create_block(tip))
            blocks.append(b)
            tip = b.sha
        value = block_subsidy(1)
        bad_tx = Tx(vin=[TxIn(OutPoint(b1.txs[0].txid, 0), b"")],
                    vout=[TxOut(value - 1000, SCRIPT_TRUE)])
        b102 = cb.add(cb.create_block(tip, txs=[bad_tx], fees=1000))
        blocks.append(b102)
        tip = b102.sha
        for _ in range(2100):
            b = cb.add(cb.create_block(tip))
            blocks.append(b)
            tip = b.sha
        assert_equal(len(blocks), 2202)
        full = os.path.join(self.tmpdir, "full.dat")
        short = os.path.join(self.tmpdir, "short.dat")
        write_blocks(full, blocks)
        write_blocks(short, blocks[:102 + 200])
        h101 = blocks[100].hash
        h102 = b102.hash

        self.log("no -assumevalid: block 102 is rejected for its script")
        n0 = self.nodes[0]
        self.import_chain(n0, full, [])
        assert_equal(n0.rpc("getblockcount"), 101)
        assert_equal(n0.rpc("getbestblockhash"), h101)
        log = open(n0.debug_log, errors="replace").read()
        assert_in("Validating signatures for all blocks.", log)
        assert_in("block-script-verify-flag-failed (%s)" % EVAL_FALSE, log)
        n0.stop()

        self.log("-assumevalid=<block 102>, 2100 blocks on top: the whole chain connects")
        n1 = self.nodes[1]
        self.import_chain(n1, full, ["-assumevalid=" + h102])
        assert_equal(n1.rpc("getblockcount"), 2202)
        assert_equal(n1.rpc("getbestblockhash"), blocks[-1].hash)
        assert_equal(n1.rpc("getblockchaininfo")["assumevalid"], h102)
        assert_in("Assuming ancestors of block %s have valid signatures." % h102,
                  open(n1.debug_log, errors="replace").read())
        # The spend was applied (only scripts were skipped): its output is in the UTXO set.
        assert_equal(n1.rpc("gettxout", bad_tx.txid_hex, 0)["value"], (value - 1000) / 1e8)
        n1.stop()

        self.log("-assumevalid=<block 102>, only 200 blocks on top: not buried enough")
        n2 = self.nodes[2]
        self.import_chain(n2, short, ["-assumevalid=" + h102])
        assert_equal(n2.rpc("getblockcount"), 101)
        n2.stop()

        self.log("-assumevalid=0x0 and an unknown block: every script is checked")
        n3 = self.nodes[3]
        self.import_chain(n3, full, ["-assumevalid=0x0"])
        assert_equal(n3.rpc("getblockcount"), 101)
        assert_in("Validating signatures for all blocks.",
                  open(n3.debug_log, errors="replace").read())
        n3.stop()
        n3.start(["-assumevalid=" + "ab" * 32, "-reindex"])
        wait_until(lambda: "Reindexing finished" in open(n3.debug_log, errors="replace").read(),
                   timeout=180, what="the reindex")
        assert_equal(n3.rpc("getblockcount"), 101)
        n3.stop()

        self.log("malformed values stop start-up")
        n3.assert_start_fails(["-assumevalid=12345678901234567890123456789012345678901234567890"
                               "12345678901234567"],
                              "Invalid assumevalid block hash specified")
        n3.assert_start_fails(["-assumevalid=0xzz"], "Invalid assumevalid block hash specified")


if __name__ == "__main__":
    AssumeValidTest().main()
