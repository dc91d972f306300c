#!/usr/bin/env python3
"""bitnode-util genchain: a generated chain imports with the UTXO set the generator predicts.

The generator writes 250 regtest blocks spending every output type it knows (P2PKH, P2SH and
P2WSH 2-of-3 multisig, P2WPKH, P2TR key path and script path) in payments, fan-outs and
consolidations, checks each block with the library's block rules and script interpreter
(--verify; and verify-block on one of them), and predicts the tip, hash_serialized_3 and
muhash. Three nodes import it with -loadblock, with -par=1, -par=2 and the default, and must
reach that tip and those hashes.
The same arguments must give the same bytes, and another seed another chain.
"""

import filecmp
import json
import os
import subprocess

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, builddir,
                       wait_until)

BLOCKS = 250
TXS = 25
DUMP_HEIGHT = 200


class GenChainTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 3
        self.start_nodes_at_setup = False

    def genchain(self, out, expect, seed, *extra):
        util = os.path.join(builddir(), "bitnode-util")
        r = subprocess.run([util, "genchain", "--blocks", str(BLOCKS), "--txs", str(TXS),
                            "--seed", str(seed), "--out", out, "--expect", expect] + list(extra),
                           capture_output=True, text=True, timeout=120)
        assert_true(r.returncode == 0, r.stderr)
        with open(expect) as f:
            return json.load(f), r.stdout

    def run_test(self):
        self.log("generate %d blocks of about %d transactions, verified by the library"
                 % (BLOCKS, TXS))
        path = os.path.join(self.tmpdir, "chain.dat")
        exp_path = os.path.join(self.tmpdir, "expect.json")
        dump = os.path.join(self.tmpdir, "b%d" % DUMP_HEIGHT)
        exp, out = self.genchain(path, exp_path, 42, "--verify", "--dump", str(DUMP_HEIGHT),
                                 dump)
        assert_true("verified: every block passes" in out, out)

        self.log("verify-block passes on block %d, and fails once a spent value is changed"
                 % DUMP_HEIGHT)
        util = os.path.join(builddir(), "bitnode-util")
        cmd = [util, "-regtest", "verify-block", dump + ".bin", dump + ".json",
               "--height", str(DUMP_HEIGHT)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert_true(r.returncode == 0, r.stdout + r.stderr)
        n_in = r.stdout.split("inputs checked: ")[1].split(",")[0]
        assert_true(int(n_in) > TXS, r.stdout)
        assert_in("failed: 0", r.stdout)
        with open(dump + ".json") as f:
            spent = json.load(f)
        # a segwit v0 or taproot input signs the amount: find one and change it
        signed = [i for i, e in enumerate(spent)
                  if e["txout"]["script_pubkey"][:2] in ("00", "51")]
        spent[signed[0]]["txout"]["value"] += 1
        with open(dump + ".json", "w") as f:
            json.dump(spent, f)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert_equal(r.returncode, 1)
        assert_in("failed: 1", r.stdout)
        assert_equal(exp["height"], BLOCKS)
        for kind, n in exp["spends"].items():
            assert_true(n >= 200, "only %d spends of %s" % (n, kind))
        assert_equal(len(exp["spends"]), 6)
        assert_equal(exp["sigchecks"], exp["ecdsa"] + exp["schnorr"])
        sp = exp["spends"]
        assert_equal(exp["ecdsa"], sp["p2pkh"] + sp["p2wpkh"]
                     + 2 * (sp["p2sh-multisig"] + sp["p2wsh-multisig"]))
        assert_equal(exp["schnorr"], sp["p2tr-key"] + sp["p2tr-script"])

        self.log("deterministic: the same seed gives the same file, another seed another")
        again = os.path.join(self.tmpdir, "again.dat")
        exp2, _ = self.genchain(again, os.path.join(self.tmpdir, "again.json"), 42)
        assert_true(filecmp.cmp(path, again, shallow=False), "same seed, different bytes")
        assert_equal(exp2, exp)
        other = os.path.join(self.tmpdir, "other.dat")
        exp3, _ = self.genchain(other, os.path.join(self.tmpdir, "other.json"), 43)
        assert_true(exp3["tip"] != exp["tip"], "another seed, same tip")
        os.unlink(again)
        os.unlink(other)

        for node, par in zip(self.nodes, (["-par=1"], ["-par=2"], [])):
            self.log("import with %s" % (par[0] if par else "the default -par"))
            node.start(["-loadblock=" + path] + par)
            wait_until(lambda: node.rpc("getblockcount") == BLOCKS, timeout=120,
                       what="the import of %d blocks" % BLOCKS)
            assert_equal(node.rpc("getbestblockhash"), exp["tip"])
            info = node.rpc("gettxoutsetinfo")
            assert_equal(info["hash_serialized_3"], exp["hash_serialized_3"])
            assert_equal(info["txouts"], exp["txouts"])
            assert_equal(info["height"], BLOCKS)
            assert_equal(round(info["total_amount"] * 1e8), exp["total_amount_sat"])
            info = node.rpc("gettxoutsetinfo", "muhash")
            assert_equal(info["muhash"], exp["muhash"])
            node.stop()
            # The node counts the verifies it made: exactly the generator's count (a
            # CHECKMULTISIG whose signatures do not line up with its last keys costs more).
            with open(node.debug_log) as f:
                logged = f.read()
            assert_in("signature verifies: %d ECDSA, %d Schnorr, %d taproot tweak checks"
                      % (exp["ecdsa"], exp["schnorr"], sp["p2tr-script"]), logged)
            assert_in("import: read %d headers first (%d taken)" % (BLOCKS, BLOCKS), logged)


if __name__ == "__main__":
    GenChainTest().main()
