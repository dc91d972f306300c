#!/usr/bin/env python3
"""getdescriptoractivity, as Core's rpc_getdescriptoractivity: receives and spends of the
watched scripts in the blocks given (each once, by height) and in the pool; Core's errors."""

from blocktools import P2WSH_TRUE, Coin, OutPoint, coinbase_coin, hash_from_hex, spend_tx
from framework import BitnodeTestFramework, assert_equal, assert_raises_rpc_error

RAW = "raw(%s)" % P2WSH_TRUE.hex()


class DescActivityTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        hashes = node.rpc("generatetodescriptor", 101, RAW)
        (op, value) = coinbase_coin(node, hashes[0])
        t1 = spend_tx([Coin(op, value, P2WSH_TRUE)], [(value - 10000, P2WSH_TRUE)])
        txid1 = node.rpc("sendrawtransaction", t1.hex())

        self.log("a pool transaction: a spend and a receive without block fields")
        r = node.rpc("getdescriptoractivity", [], [RAW])
        assert_equal([(a["type"], "blockhash" in a) for a in r["activity"]],
                     [("spend", False), ("receive", False)])
        assert_equal(r["activity"][0]["spend_txid"], txid1)
        assert_equal(r["activity"][0]["prevout_txid"], op.txid[::-1].hex())
        assert_equal(r["activity"][1]["output_spk"]["hex"], P2WSH_TRUE.hex())
        assert_equal(node.rpc("getdescriptoractivity", [], [RAW], False), {"activity": []})

        self.log("blocks: each once, in height order, coinbases received")
        b1 = node.rpc("generatetodescriptor", 1, RAW)[0]
        r = node.rpc("getdescriptoractivity", [b1, hashes[0], b1], [RAW, RAW], False)
        kinds = [(a["type"], a["height"]) for a in r["activity"]]
        assert_equal(kinds, [("receive", 1), ("receive", 102), ("spend", 102), ("receive", 102)])
        spend = r["activity"][2]
        assert_equal(spend["spend_txid"], txid1)
        assert_equal(spend["blockhash"], b1)
        assert_equal(spend["amount"], value / 1e8)
        assert_equal(node.rpc("getdescriptoractivity", [b1], ["addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)"],
                              False), {"activity": []})

        self.log("Core's errors")
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "getdescriptoractivity",
                                ["00" * 32], [RAW])
        node.rpc("invalidateblock", b1)
        assert_raises_rpc_error(-8, "Block is not in main chain", node.rpc,
                                "getdescriptoractivity", [b1], [RAW])
        node.rpc("reconsiderblock", b1)
        assert_raises_rpc_error(-5, "is not a valid descriptor", node.rpc,
                                "getdescriptoractivity", [b1], ["addrx(x)"])
        assert_raises_rpc_error(-1, "getdescriptoractivity", node.rpc, "getdescriptoractivity")
        assert_equal(OutPoint(hash_from_hex(txid1), 0).n, 0)


if __name__ == "__main__":
    DescActivityTest().main()
