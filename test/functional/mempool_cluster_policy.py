#!/usr/bin/env python3
"""Package and cluster policy as Core v31 has it: testmempoolaccept checks a package as a whole
(the cluster limit counts the package and the pool together: "package-error"
too-large-cluster, nothing before a failing transaction reported), submitpackage reports
package-wide TRUC violations in package_msg, replaces a 1-parent-1-child pair as a package
(package RBF, "replaced-transactions"), refuses a child that leaves its parent's ephemeral dust
unspent, compares maxfeerate as a rate, and a reorganisation trims a returning chain to the
cluster count limit."""
from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, SCRIPT_TRUE, hash160,
                        segwit_address, sign_p2wpkh)
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true)

COIN = 100000000


class ClusterPolicyTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-limitclustercount=4"]]

    def run_test(self):
        node = self.nodes[0]
        self.key = Key(0xC1A5)
        self.addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = node.rpc("generatetoaddress", 115, self.addr)
        self.coins = []
        for h in hashes[:12]:
            cb = node.rpc("getblock", h, 2)["tx"][0]
            self.coins.append((OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                               int(round(cb["vout"][0]["value"] * COIN))))
        self.test_package_cluster_limit(node)
        self.test_package_truc(node)
        self.test_package_rbf(node)
        self.test_ephemeral_dust(node)
        self.test_maxfeerate(node)
        self.test_reorg_trim(node)

    def parent(self, coin, fee, version=2, outputs=None):
        outs = outputs or [TxOut(coin[1] - fee, P2WSH_TRUE)]
        tx = Tx([TxIn(coin[0], b"", 0xFFFFFFFD)], outs, version)
        sign_p2wpkh(tx, 0, self.key, coin[1])
        return tx

    def spend(self, parents, fee, version=2, ns=None):
        ns = ns or [0] * len(parents)
        value = sum(p.vout[n].value for p, n in zip(parents, ns)) - fee
        ins = [TxIn(p.outpoint(n), b"", 0xFFFFFFFD, [SCRIPT_TRUE]) for p, n in zip(parents, ns)]
        return Tx(ins, [TxOut(value, P2WSH_TRUE)], version)

    def mine(self, node):
        node.rpc("generatetoaddress", 1, self.addr)
        assert_equal(node.rpc("getrawmempool"), [])

    def test_package_cluster_limit(self, node):
        self.log("testmempoolaccept: a package and the pool together over the cluster limit")
        a = self.parent(self.coins[0], 1000)
        b = self.spend([a], 1000)
        node.rpc("sendrawtransaction", a.hex())
        node.rpc("sendrawtransaction", b.hex())
        c = self.spend([b], 1000)
        d = self.spend([c], 1000)
        e = self.spend([d], 1000)
        res = node.rpc("testmempoolaccept", [c.hex(), d.hex(), e.hex()])
        assert_equal([r.get("package-error") for r in res], ["too-large-cluster"] * 3)
        assert_true(all("allowed" not in r for r in res), "no per-transaction verdicts")
        res = node.rpc("testmempoolaccept", [c.hex(), d.hex()])
        assert_equal([r["allowed"] for r in res], [True, True])
        self.log("testmempoolaccept: a script failure keeps the verdicts before it, an earlier "
                 "check's failure reports that transaction alone")
        bad = self.spend([c], 1000)
        bad.vin[0].witness = []
        res = node.rpc("testmempoolaccept", [c.hex(), bad.hex()])
        assert_equal([r.get("allowed") for r in res], [True, False])
        nonstd = self.spend([c], 1000)
        nonstd.version = 4
        res = node.rpc("testmempoolaccept", [nonstd.hex(), c.hex()])
        assert_equal(res[0]["package-error"], "package-not-sorted")
        res = node.rpc("testmempoolaccept", [c.hex(), nonstd.hex()])
        assert_equal([r.get("allowed") for r in res], [None, False])
        self.mine(node)

    def test_package_truc(self, node):
        self.log("submitpackage: a TRUC child of two package parents")
        p1 = self.parent(self.coins[1], 0, version=3)
        p2 = self.parent(self.coins[2], 0, version=3)
        c = self.spend([p1, p2], 20000, version=3)
        res = node.rpc("submitpackage", [p1.hex(), p2.hex(), c.hex()])
        assert_equal(res["package_msg"],
                     "TRUC-violation, tx %s (wtxid=%s) would have too many ancestors" %
                     (c.txid_hex, c.wtxid[::-1].hex()))
        assert_in("min relay fee not met", res["tx-results"][p1.wtxid[::-1].hex()]["error"])
        assert_equal(node.rpc("getrawmempool"), [])

    def test_package_rbf(self, node):
        self.log("submitpackage: package RBF replaces a parent and child")
        p = self.parent(self.coins[3], 1000)
        c = self.spend([p], 1000)
        node.rpc("sendrawtransaction", p.hex())
        node.rpc("sendrawtransaction", c.hex())
        p_new = self.parent(self.coins[3], 0, outputs=[TxOut(self.coins[3][1] - 500, P2WSH_TRUE)])
        c_low = self.spend([p_new], 1000)
        res = node.rpc("submitpackage", [p_new.hex(), c_low.hex()])
        assert_equal(res["package_msg"].split(",")[0],
                     "package RBF failed: insufficient anti-DoS fees")
        assert_equal(res["replaced-transactions"], [])
        c_new = self.spend([p_new], 50000)
        res = node.rpc("submitpackage", [p_new.hex(), c_new.hex()])
        assert_equal(res["package_msg"], "success")
        assert_equal(sorted(res["replaced-transactions"]), sorted([p.txid_hex, c.txid_hex]))
        assert_equal(sorted(node.rpc("getrawmempool")), sorted([p_new.txid_hex, c_new.txid_hex]))
        self.mine(node)

    def test_ephemeral_dust(self, node):
        self.log("submitpackage: a child must spend its parent's ephemeral dust")
        coin = self.coins[4]
        p = self.parent(coin, 0, version=3,
                        outputs=[TxOut(coin[1], P2WSH_TRUE), TxOut(0, P2WSH_TRUE)])
        c = self.spend([p], 20000, version=3)
        res = node.rpc("submitpackage", [p.hex(), c.hex()])
        assert_equal(res["package_msg"], "unspent-dust")
        assert_equal(res["tx-results"][c.wtxid[::-1].hex()]["error"],
                     "missing-ephemeral-spends, tx %s (wtxid=%s) did not spend parent's "
                     "ephemeral dust" % (c.txid_hex, c.wtxid[::-1].hex()))
        good = self.spend([p, p], 20000, version=3, ns=[0, 1])
        res = node.rpc("submitpackage", [p.hex(), good.hex()])
        assert_equal(res["package_msg"], "success")
        self.mine(node)

    def test_maxfeerate(self, node):
        self.log("submitpackage: maxfeerate is compared with the fee rate")
        p = self.parent(self.coins[5], 1040)
        c = self.spend([p], 1000)
        rate = 1040 * 1000 // ((p.weight() + 3) // 4)
        res = node.rpc("submitpackage", [p.hex(), c.hex()], (rate - 1) / COIN)
        assert_equal(res["package_msg"], "transaction failed")
        assert_equal(res["tx-results"][p.wtxid[::-1].hex()]["error"], "max feerate exceeded")
        assert_equal(node.rpc("getrawmempool"), [])

    def test_reorg_trim(self, node):
        self.log("a reorganisation trims a returning chain to the cluster count limit")
        txs = [self.parent(self.coins[6], 1000)]
        for _ in range(5):
            txs.append(self.spend([txs[-1]], 1000))
        tip = node.rpc("getbestblockhash")
        # Mined in one block (a block knows no cluster limit), then disconnected.
        block = node.rpc("generateblock", self.addr, [t.hex() for t in txs])["hash"]
        assert_equal(node.rpc("getrawmempool"), [])
        node.rpc("invalidateblock", block)
        assert_equal(node.rpc("getbestblockhash"), tip)
        pool = node.rpc("getrawmempool")
        assert_equal(sorted(pool), sorted(t.txid_hex for t in txs[:4]))
        node.rpc("reconsiderblock", block)


if __name__ == "__main__":
    ClusterPolicyTest().main()
