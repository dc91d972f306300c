#!/usr/bin/env python3
"""gettxoutproof and verifytxoutproof, as Core's rpc_txoutproof: the block found through an
unspent output, the block given, or -txindex; Core's errors; a proof round-trips and a
tampered one proves nothing."""

from blocktools import (COIN, P2WSH_TRUE, Coin, OutPoint, coinbase_coin, hash_from_hex,
                        spend_tx)
from framework import BitnodeTestFramework, assert_equal, assert_raises_rpc_error


class TxoutProofTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.extra_args = [["-txindex"]]

    def coin(self, node, h):
        (outpoint, value) = coinbase_coin(node, h)
        return Coin(outpoint, value, P2WSH_TRUE)

    def run_test(self):
        node = self.nodes[0]
        raw = "raw(%s)" % P2WSH_TRUE.hex()
        hashes = node.rpc("generatetodescriptor", 101, raw)
        c1, c2 = self.coin(node, hashes[0]), self.coin(node, hashes[1])
        t1 = spend_tx([c1], [(c1.value - 10000, P2WSH_TRUE)])
        t2 = spend_tx([c2], [(c2.value - 10000, P2WSH_TRUE)])
        txid1 = node.rpc("sendrawtransaction", t1.hex())
        txid2 = node.rpc("sendrawtransaction", t2.hex())

        self.log("a pool transaction is not yet in a block")
        assert_raises_rpc_error(-5, "Transaction not yet in block", node.rpc, "gettxoutproof",
                                [txid1])
        bh = node.rpc("generatetodescriptor", 1, raw)[0]
        in_block = node.rpc("getblock", bh)["tx"][1:]
        assert_equal(sorted(in_block), sorted([txid1, txid2]))

        self.log("proofs through the UTXO set and through the block given")
        assert_equal(node.rpc("verifytxoutproof", node.rpc("gettxoutproof", [txid1])), [txid1])
        assert_equal(node.rpc("verifytxoutproof", node.rpc("gettxoutproof", [txid2, txid1])),
                     in_block)
        assert_equal(node.rpc("verifytxoutproof", node.rpc("gettxoutproof", [txid1], bh)),
                     [txid1])

        self.log("a spent transaction through -txindex")
        c3 = Coin(OutPoint(hash_from_hex(txid1), 0), c1.value - 10000, P2WSH_TRUE)
        t3 = spend_tx([c3], [(c3.value - 10000, P2WSH_TRUE)])
        txid3 = node.rpc("sendrawtransaction", t3.hex())
        node.rpc("generatetodescriptor", 1, raw)
        assert_equal(node.rpc("verifytxoutproof", node.rpc("gettxoutproof", [txid1])), [txid1])
        assert_raises_rpc_error(-5, "Not all transactions found in specified or retrieved block",
                                node.rpc, "gettxoutproof", [txid1, txid3])

        self.log("Core's argument errors")
        assert_raises_rpc_error(-8, "Parameter 'txids' cannot be empty", node.rpc,
                                "gettxoutproof", [])
        assert_raises_rpc_error(-8, "Invalid parameter, duplicated txid: " + txid1, node.rpc,
                                "gettxoutproof", [txid1, txid1])
        assert_raises_rpc_error(-8, "txid must be of length 64 (not 4, for 'abcd')", node.rpc,
                                "gettxoutproof", ["abcd"])
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "gettxoutproof", [txid1],
                                "00" * 32)
        assert_raises_rpc_error(-8, "proof must be hexadecimal string", node.rpc,
                                "verifytxoutproof", "zz")

        self.log("a proof of a block off the active chain, and a tampered one")
        proof = node.rpc("gettxoutproof", [txid1])
        node.rpc("invalidateblock", bh)
        assert_raises_rpc_error(-5, "Block not found in chain", node.rpc, "verifytxoutproof",
                                proof)
        node.rpc("reconsiderblock", bh)
        b = bytearray.fromhex(proof)
        tampered = bytes(b[:80]) + (1).to_bytes(4, "little") + bytes([1]) + b[36:68] + \
            bytes([1, 1])
        assert_equal(node.rpc("verifytxoutproof", tampered.hex()), [])
        assert_equal(COIN > 0, True)


if __name__ == "__main__":
    TxoutProofTest().main()
