#!/usr/bin/env python3
"""Packages and TRUC (version 3) policy: submitpackage accepts a zero-fee parent with a child
paying for both (1p1c, the package's fee rate), reports a package that pays too little, and
refuses bad topologies with Core's messages; TRUC transactions get Core's TRUC-violation
reasons, and a second child of a TRUC parent replaces the first (sibling eviction)."""
from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, SCRIPT_TRUE, hash160,
                        segwit_address, sign_p2wpkh)
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true)

COIN = 100000000


class PackageTest(BitnodeTestFramework):
    num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.key = Key(0xBEEF)
        addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = node.rpc("generatetoaddress", 110, addr)
        self.coins = []
        for h in hashes[:8]:
            cb = node.rpc("getblock", h, 2)["tx"][0]
            self.coins.append((OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                               int(round(cb["vout"][0]["value"] * COIN))))
        self.test_1p1c(node)
        self.test_bad_packages(node)
        self.test_truc(node)

    def parent(self, coin, fee, version=2, outputs=1):
        value = coin[1] - fee
        tx = Tx([TxIn(coin[0], b"", 0xFFFFFFFD)],
                [TxOut(value // outputs, P2WSH_TRUE) for _ in range(outputs)], version)
        sign_p2wpkh(tx, 0, self.key, coin[1])
        return tx

    def child(self, parent, fee, version=2, n=0, pad=0):
        value = parent.vout[n].value - fee
        outs = [TxOut(value, P2WSH_TRUE)]
        if pad:
            outs.append(TxOut(0, bytes([0x6a, 0x4c, pad]) + b"\x00" * pad))
        return Tx([TxIn(parent.outpoint(n), b"", 0xFFFFFFFD, [SCRIPT_TRUE])], outs, version)

    def test_1p1c(self, node):
        self.log("a zero-fee parent with a child paying for both")
        p = self.parent(self.coins[0], 0, version=3)
        c = self.child(p, 5000, version=3)
        r = node.rpc("testmempoolaccept", [p.hex()])[0]
        assert_equal(r["reject-reason"], "min relay fee not met")
        res = node.rpc("submitpackage", [p.hex(), c.hex()])
        assert_equal(res["package_msg"], "success")
        pr = res["tx-results"][p.wtxid[::-1].hex()]
        cr = res["tx-results"][c.wtxid[::-1].hex()]
        assert_equal(pr["fees"]["base"], 0)
        assert_equal(sorted(pr["fees"]["effective-includes"]),
                     sorted([p.wtxid[::-1].hex(), c.wtxid[::-1].hex()]))
        assert_equal(pr["fees"]["effective-feerate"], cr["fees"]["effective-feerate"])
        assert_equal(sorted(node.rpc("getrawmempool")), sorted([p.txid_hex, c.txid_hex]))
        # Submitting again: both are already there.
        res = node.rpc("submitpackage", [p.hex(), c.hex()])
        assert_equal(res["package_msg"], "success")
        assert_true("effective-feerate" not in res["tx-results"][c.wtxid[::-1].hex()]["fees"],
                    "no effective fee rate for a transaction already in the pool")
        node.rpc("generatetoaddress", 1, segwit_address("bcrt", 0, hash160(self.key.pubkey)))
        assert_equal(node.rpc("getrawmempool"), [])

        self.log("a package that pays too little together")
        p = self.parent(self.coins[1], 0)
        c = self.child(p, 1)
        res = node.rpc("submitpackage", [p.hex(), c.hex()])
        assert_equal(res["package_msg"], "transaction failed")
        assert_in("min relay fee not met", res["tx-results"][p.wtxid[::-1].hex()]["error"])
        assert_equal(node.rpc("getrawmempool"), [])

    def test_bad_packages(self, node):
        self.log("testmempoolaccept of a package: parents' outputs count, in order")
        p = self.parent(self.coins[6], 1000)
        c = self.child(p, 1000)
        res = node.rpc("testmempoolaccept", [p.hex(), c.hex()])
        assert_equal([r["allowed"] for r in res], [True, True])
        res = node.rpc("testmempoolaccept", [c.hex(), p.hex()])
        assert_equal([r["package-error"] for r in res], ["package-not-sorted"] * 2)
        assert_true(all("allowed" not in r for r in res), "not validated")
        p0 = self.parent(self.coins[7], 0)
        c0 = self.child(p0, 1000)
        res = node.rpc("testmempoolaccept", [p0.hex(), c0.hex()])
        assert_equal(res[0]["reject-reason"], "min relay fee not met")
        assert_true("allowed" not in res[1], "the rest is not validated")
        assert_equal(node.rpc("getrawmempool"), [])
        self.log("package shapes Core refuses")
        a = self.parent(self.coins[2], 1000)
        b = self.parent(self.coins[3], 1000)
        assert_raises_rpc_error(-25, "package topology disallowed. not child-with-parents or "
                                "parents depend on each other.", node.rpc, "submitpackage",
                                [a.hex(), b.hex()])
        c = self.child(a, 1000)
        # The child first: the last one is no child of the others (Core checks that first).
        assert_raises_rpc_error(-25, "package topology disallowed", node.rpc, "submitpackage",
                                [c.hex(), a.hex()])
        assert_raises_rpc_error(-8, "Array must contain between 1 and 25 transactions.",
                                node.rpc, "submitpackage", [])
        assert_raises_rpc_error(-22, "TX decode failed", node.rpc, "submitpackage", ["00"])

    def test_truc(self, node):
        self.log("TRUC: version 3 and others do not mix")
        p2 = self.parent(self.coins[4], 1000)  # version 2
        node.rpc("sendrawtransaction", p2.hex())
        c3 = self.child(p2, 1000, version=3)
        r = node.rpc("testmempoolaccept", [c3.hex()])[0]
        assert_equal(r["reject-reason"], "TRUC-violation")
        assert_in("version=3 tx %s (wtxid=%s) cannot spend from non-version=3 tx %s" %
                  (c3.txid_hex, c3.wtxid[::-1].hex(), p2.txid_hex), r["reject-details"])
        p3 = self.parent(self.coins[5], 1000, version=3, outputs=2)
        node.rpc("sendrawtransaction", p3.hex())
        c2 = self.child(p3, 1000, version=2)
        r = node.rpc("testmempoolaccept", [c2.hex()])[0]
        assert_equal(r["reject-reason"], "TRUC-violation")
        assert_in("non-version=3 tx %s" % c2.txid_hex, r["reject-details"])
        self.log("TRUC: a child is at most 1000 vB")
        big = self.child(p3, 5000, version=3, pad=75)
        big.vout[1].script_pubkey = bytes([0x6a, 0x4d]) + (900).to_bytes(2, "little") + \
            b"\x00" * 900
        r = node.rpc("testmempoolaccept", [big.hex()])[0]
        assert_equal(r["reject-reason"], "TRUC-violation")
        assert_in("version=3 child tx %s (wtxid=%s) is too big" %
                  (big.txid_hex, big.wtxid[::-1].hex()), r["reject-details"])
        self.log("TRUC: one child per parent; a better second child evicts the first")
        first = self.child(p3, 1000, version=3, n=0)
        node.rpc("sendrawtransaction", first.hex())
        second = self.child(p3, 3000, version=3, n=1)
        low = self.child(p3, 1000, version=3, n=1)
        r = node.rpc("testmempoolaccept", [low.hex()])[0]
        assert_equal(r["reject-reason"], "insufficient fee (including sibling eviction)")
        node.rpc("sendrawtransaction", second.hex())
        pool = node.rpc("getrawmempool")
        assert_true(second.txid_hex in pool and first.txid_hex not in pool, "sibling evicted")


if __name__ == "__main__":
    PackageTest().main()
