#!/usr/bin/env python3
"""The mempool through RPC: a signed spend of a matured coinbase is accepted, Core's reject
reasons for non-standard, low-fee, double-spending, RBF-rule-breaking, invalid-signature and
missing-input transactions, replacement by fee, mining takes the transactions out, a reorg
brings them back, and the pool survives a restart (mempool.dat)."""
import concurrent.futures
import os

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, SCRIPT_TRUE, P2WSH_TRUE, hash160,
                        segwit_address, sign_p2wpkh, ser_compact_size)
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, assert_in)

COIN = 100000000


def btc(sat):
    return "%d.%08d" % (sat // COIN, sat % COIN)


class MempoolBasicTest(BitnodeTestFramework):
    num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.key = Key(0x1234)
        self.addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = node.rpc("generatetoaddress", 101, self.addr)
        assert_equal(len(hashes), 101)
        assert_equal(node.rpc("getblockcount"), 101)
        info = node.rpc("getmempoolinfo")
        assert_equal(info["size"], 0)
        assert_equal(info["loaded"], True)
        self.coinbases = [self.coinbase_of(node, h) for h in hashes[:5]]

        tx = self.spend(self.coinbases[0], fee=1000)
        self.test_rejects(node, tx)
        txid = node.rpc("sendrawtransaction", tx.hex())
        assert_equal(txid, tx.txid_hex)
        assert_equal(node.rpc("getrawmempool"), [txid])
        e = node.rpc("getmempoolentry", txid)
        assert_equal(e["fees"]["base"], float(btc(1000)))
        assert_equal(e["vsize"], (tx.weight() + 3) // 4)
        assert_equal(e["ancestorcount"], 1)
        assert_equal(e["height"], 101)
        assert_equal(e["wtxid"], tx.wtxid[::-1].hex())
        assert_equal(node.rpc("testmempoolaccept", [tx.hex()])[0]["reject-reason"],
                     "txn-already-in-mempool")
        # gettxout with include_mempool: spent in the pool is gone, a pool output is there.
        spent = self.coinbases[0][0]
        assert_equal(node.rpc("gettxout", spent.txid[::-1].hex(), 0), None)
        assert_true(node.rpc("gettxout", spent.txid[::-1].hex(), 0, False) is not None,
                    "the chain's coin without the pool")
        out = node.rpc("gettxout", txid, 0)
        assert_equal(out["confirmations"], 0)
        assert_equal(node.rpc("gettxout", txid, 0, False), None)
        # sendrawtransaction of a transaction in the pool answers its txid again.
        assert_equal(node.rpc("sendrawtransaction", tx.hex()), txid)

        self.test_rbf(node, tx)
        self.test_chain_and_mining(node)
        self.test_reorg(node)
        self.test_persist(node)
        self.test_full_rbf(node)
        self.test_scantxoutset(node)
        self.test_generateblock_threads(node)

    def test_generateblock_threads(self, node):
        self.log("generateblock from 4 threads at once: every call makes a block (Core's "
                 "rpc_generate.py)")
        before = node.rpc("getblockcount")

        def ten(_):
            return [node.rpc("generateblock", self.addr, [])["hash"] for _ in range(10)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            hashes = [h for hs in pool.map(ten, range(4)) for h in hs]
        # Two calls on the same tip in the same second make the same block: Core answers its
        # hash to both.
        assert_equal(len(hashes), 40)
        for h in set(hashes):
            assert_equal(node.rpc("getblockheader", h)["hash"], h)
        assert_true(node.rpc("getblockcount") > before, "the chain grew")

    def test_scantxoutset(self, node):
        self.log("scantxoutset: the chain's coins of a descriptor; Core's range errors")
        r = node.rpc("scantxoutset", "start", ["addr(%s)" % self.addr])
        assert_equal(r["success"], True)
        assert_true(len(r["unspents"]) > 0 and r["total_amount"] > 0, "coins found")
        for desc, rng, msg in (("desc", -1, "End of range is too high"),
                               ("desc", [-1, 10], "Range should be greater or equal than 0"),
                               ("desc", [2, 1], "Range specified as [begin,end] must not have "
                                "begin after end"),
                               ("desc", [0, 1000001], "Range is too large")):
            assert_raises_rpc_error(-8, msg, node.rpc, "scantxoutset", "start",
                                    [{"desc": desc, "range": rng}])

    def coinbase_of(self, node, h):
        b = node.rpc("getblock", h, 2)
        cb = b["tx"][0]
        return (OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                int(round(cb["vout"][0]["value"] * COIN)))

    def spend(self, coin, fee, outputs=None, sequence=0xFFFFFFFD):
        outpoint, value = coin
        tx = Tx([TxIn(outpoint, b"", sequence)],
                outputs or [TxOut(value - fee, P2WSH_TRUE)])
        sign_p2wpkh(tx, 0, self.key, value)
        return tx

    def test_rejects(self, node, good):
        self.log("Core's reject reasons")
        value = self.coinbases[0][1]
        # Non-standard output script (bare OP_TRUE).
        bad = self.spend(self.coinbases[0], 0, [TxOut(value - 1000, SCRIPT_TRUE)])
        r = node.rpc("testmempoolaccept", [bad.hex()])[0]
        assert_equal(r["allowed"], False)
        assert_equal(r["reject-reason"], "scriptpubkey")
        assert_raises_rpc_error(-26, "scriptpubkey", node.rpc, "sendrawtransaction", bad.hex())
        # Dust.
        bad = self.spend(self.coinbases[0], 0, [TxOut(value - 2000, P2WSH_TRUE),
                                                 TxOut(100, P2WSH_TRUE)])
        r = node.rpc("testmempoolaccept", [bad.hex()])[0]
        assert_equal(r["reject-reason"], "dust")
        # Zero fee: below the minimum relay fee.
        bad = self.spend(self.coinbases[0], 0)
        r = node.rpc("testmempoolaccept", [bad.hex()])[0]
        assert_equal(r["reject-reason"], "min relay fee not met")
        assert_true(r["reject-details"].startswith("min relay fee not met, 0 < "),
                    r["reject-details"])
        # An invalid signature.
        bad = self.spend(self.coinbases[0], 1000)
        sig = bytearray(bad.vin[0].witness[0])
        sig[10] ^= 1
        bad.vin[0].witness[0] = bytes(sig)
        r = node.rpc("testmempoolaccept", [bad.hex()])[0]
        assert_true(r["reject-reason"].startswith("mempool-script-verify-flag-failed ("),
                    r["reject-reason"])
        # Missing inputs.
        bad = self.spend((OutPoint(b"\x11" * 32, 0), value), 1000)
        assert_equal(node.rpc("testmempoolaccept", [bad.hex()])[0]["reject-reason"],
                     "missing-inputs")
        assert_raises_rpc_error(-25, "bad-txns-inputs-missingorspent", node.rpc,
                                "sendrawtransaction", bad.hex())
        # Immature coinbase (block 101's).
        tip = node.rpc("getbestblockhash")
        young = self.coinbase_of(node, tip)
        bad = self.spend(young, 1000)
        assert_equal(node.rpc("testmempoolaccept", [bad.hex()])[0]["reject-reason"],
                     "bad-txns-premature-spend-of-coinbase")
        # Non-final.
        bad = self.spend(self.coinbases[0], 1000, sequence=0xFFFFFFFE)
        bad.locktime = 200
        sign_p2wpkh(bad, 0, self.key, value)
        assert_equal(node.rpc("testmempoolaccept", [bad.hex()])[0]["reject-reason"],
                     "non-final")
        # A fee over maxfeerate.
        bad = self.spend(self.coinbases[0], 20000000)
        assert_raises_rpc_error(-25, "Fee exceeds maximum configured by user", node.rpc,
                                "sendrawtransaction", bad.hex())
        assert_equal(node.rpc("testmempoolaccept", [bad.hex()])[0]["reject-reason"],
                     "max-fee-exceeded")
        # Decoding.
        assert_raises_rpc_error(-22, "TX decode failed", node.rpc, "sendrawtransaction", "00")
        # All valid: the good one is allowed.
        r = node.rpc("testmempoolaccept", [good.hex()])[0]
        assert_equal(r["allowed"], True)
        assert_equal(r["fees"]["base"], float(btc(1000)))

    def test_rbf(self, node, tx):
        self.log("Replacement by fee")
        value = self.coinbases[0][1]
        # Same fee: less than what it replaces plus the increment.
        dup = self.spend(self.coinbases[0], 1000, [TxOut(value - 1000, P2WSH_TRUE),
                                                   TxOut(0, bytes([0x6a]))])
        assert_raises_rpc_error(-26, "insufficient fee", node.rpc, "sendrawtransaction",
                                dup.hex())
        # Lower fee.
        low = self.spend(self.coinbases[0], 500)
        r = node.rpc("testmempoolaccept", [low.hex()])[0]
        assert_equal(r["reject-reason"], "insufficient fee")
        assert_in("less fees than conflicting txs", r["reject-details"])
        # Higher fee: replaces.
        high = self.spend(self.coinbases[0], 5000)
        txid = node.rpc("sendrawtransaction", high.hex())
        assert_equal(node.rpc("getrawmempool"), [txid])
        self.tx1 = high

    def test_full_rbf(self, node):
        self.log("Full replacement by fee: a transaction that does not signal is replaced too")
        quiet = self.spend(self.coinbases[1], 1000, sequence=0xFFFFFFFF)
        qid = node.rpc("sendrawtransaction", quiet.hex())
        assert_equal(node.rpc("getrawmempool").count(qid), 1)
        same = self.spend(self.coinbases[1], 1000, [TxOut(self.coinbases[1][1] - 1000,
                                                          P2WSH_TRUE), TxOut(0, bytes([0x6a]))],
                          sequence=0xFFFFFFFF)
        r = node.rpc("testmempoolaccept", [same.hex()])[0]
        assert_equal(r["reject-reason"], "insufficient fee")
        better = self.spend(self.coinbases[1], 6000, sequence=0xFFFFFFFF)
        bid = node.rpc("sendrawtransaction", better.hex())
        pool = node.rpc("getrawmempool")
        assert_true(bid in pool and qid not in pool, "the non-signalling spend was replaced")

    def test_chain_and_mining(self, node):
        self.log("A child in the pool, then mining")
        parent = self.tx1
        child = Tx([TxIn(parent.outpoint(0), b"", 0xFFFFFFFD, [SCRIPT_TRUE])],
                   [TxOut(parent.vout[0].value - 2000, P2WSH_TRUE)])
        cid = node.rpc("sendrawtransaction", child.hex())
        e = node.rpc("getmempoolentry", cid)
        assert_equal(e["ancestorcount"], 2)
        assert_equal(e["depends"], [parent.txid_hex])
        assert_equal(node.rpc("getmempoolentry", parent.txid_hex)["spentby"], [cid])
        assert_equal(node.rpc("getmempoolancestors", cid), [parent.txid_hex])
        assert_equal(node.rpc("getmempooldescendants", parent.txid_hex), [cid])
        sp = node.rpc("gettxspendingprevout", [{"txid": parent.txid_hex, "vout": 0}])
        assert_equal(sp[0]["spendingtxid"], cid)
        sp = node.rpc("gettxspendingprevout", [{"txid": parent.txid_hex, "vout": 0}],
                      {"return_spending_tx": True})
        assert_equal(sp[0]["spendingtx"], child.hex())
        assert_raises_rpc_error(-1, "Mempool lacks a relevant spend, and txospenderindex is "
                                "unavailable.", node.rpc, "gettxspendingprevout",
                                [{"txid": cid, "vout": 0}], {"mempool_only": False})
        cl = node.rpc("getmempoolcluster", cid)
        assert_equal(cl["txcount"], 2)
        assert_equal(sum(len(c["txs"]) for c in cl["chunks"]), 2)
        assert_equal(cl["clusterweight"], sum(c["chunkweight"] for c in cl["chunks"]))
        diagram = node.rpc("getmempoolfeeratediagram")
        assert_equal(diagram[0], {"weight": 0, "fee": 0})
        assert_equal(diagram[-1]["weight"], cl["clusterweight"])
        assert_equal(diagram[-1]["fee"], float(btc(7000)))
        tmpl = node.rpc("getblocktemplate", {"rules": ["segwit"]})
        assert_equal([t["txid"] for t in tmpl["transactions"]], [parent.txid_hex, cid])
        assert_equal(tmpl["transactions"][1]["depends"], [1])
        subsidy = 50 * COIN
        assert_equal(tmpl["coinbasevalue"], subsidy + 5000 + 2000)
        h = node.rpc("generatetoaddress", 1, self.addr)[0]
        assert_equal(node.rpc("getrawmempool"), [])
        b = node.rpc("getblock", h, 2)
        assert_equal([t["txid"] for t in b["tx"][1:]], [parent.txid_hex, cid])
        cb_value = int(round(b["tx"][0]["vout"][0]["value"] * COIN))
        assert_equal(cb_value, subsidy + 7000)
        self.mined = [parent.txid_hex, cid]
        # generateblock tests its block first: a spent input is refused, nothing is stored.
        spent = self.spend(self.coinbases[0], 7000)
        assert_raises_rpc_error(-25, "TestBlockValidity failed: bad-txns-inputs-missingorspent",
                                node.rpc, "generateblock", self.addr, [spent.hex()])
        assert_equal(node.rpc("getbestblockhash"), h)

    def test_reorg(self, node):
        self.log("A reorg returns the transactions to the pool")
        tip = node.rpc("getbestblockhash")
        node.rpc("invalidateblock", tip)
        assert_equal(sorted(node.rpc("getrawmempool")), sorted(self.mined))
        node.rpc("reconsiderblock", tip)
        assert_equal(node.rpc("getbestblockhash"), tip)
        assert_equal(node.rpc("getrawmempool"), [])
        # Back into the pool for the restart test.
        node.rpc("invalidateblock", tip)
        assert_equal(len(node.rpc("getrawmempool")), 2)

    def test_persist(self, node):
        self.log("The pool survives a restart")
        before = sorted(node.rpc("getrawmempool"))
        node.stop()
        path = os.path.join(node.datadir, "regtest", "mempool.dat")
        assert_true(os.path.exists(path), "mempool.dat written")
        node.start()
        assert_equal(sorted(node.rpc("getrawmempool")), before)
        assert_equal(node.rpc("getmempoolinfo")["loaded"], True)
        r = node.rpc("savemempool")
        assert_equal(r["filename"], path)
        node.stop()
        node.start(["-persistmempool=0"])
        assert_equal(node.rpc("getrawmempool"), [])
        self.log("importmempool brings the saved file's transactions back")
        assert_equal(node.rpc("importmempool", path), {})
        assert_equal(sorted(node.rpc("getrawmempool")), before)
        assert_raises_rpc_error(-1, "Unable to import mempool file", node.rpc, "importmempool",
                                path + ".missing")


if __name__ == "__main__":
    MempoolBasicTest().main()
