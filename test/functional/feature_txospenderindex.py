#!/usr/bin/env python3
"""-txospenderindex: which confirmed transaction spent an output, for gettxspendingprevout.

A node with the index imports the repository's regtest-small chain (made by Core):
- getindexinfo reports the index synced at the tip;
- every input of every block from 100 on names its output's spender and block (compared
  with getblock), with return_spending_tx the spender's serialization; an unspent output
  and an unknown one have no spender; several outputs in one call keep their order;
- Core's option checks, and without the index the error Core gives for mempool_only=false;
- a reorg: blocks only disconnected leave the index as it was (Core rewinds when the next
  block is connected), the next block rewinds it and the outputs those blocks spent are
  unspent again; a restart goes on from where it was; -prune refuses it with Core's words.
"""
import os

from blocktools import Key, hash160, segwit_address
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"


class TxoSpenderIndexTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def synced(self, node, height):
        info = node.rpc("getindexinfo").get("txospenderindex")
        return info == {"synced": True, "best_block_height": height}

    def spenders(self, node, outs, **opts):
        return node.rpc("gettxspendingprevout", outs, {"mempool_only": False, **opts})

    def run_test(self):
        node, plain = self.nodes
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE,
                    "-txospenderindex"])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        wait_until(lambda: self.synced(node, 1300), timeout=120, what="index synced")

        self.log("every input names its spender and block")
        spent = {}
        for height in range(100, 1301):
            h = node.rpc("getblockhash", height)
            for tx in node.rpc("getblock", h, 2)["tx"][1:]:
                for vin in tx["vin"]:
                    spent[(vin["txid"], vin["vout"])] = (tx["txid"], h, tx["hex"])
        assert_true(len(spent) > 5000, "a real chain: %d inputs" % len(spent))
        keys = sorted(spent)
        for i in range(0, len(keys), 200):
            outs = [{"txid": t, "vout": n} for t, n in keys[i:i + 200]]
            got = self.spenders(node, outs)
            assert_equal(got, [{"txid": t, "vout": n, "spendingtxid": spent[(t, n)][0],
                                "blockhash": spent[(t, n)][1]} for t, n in keys[i:i + 200]])
        t, n = keys[17]
        assert_equal(self.spenders(node, [{"txid": t, "vout": n}], return_spending_tx=True),
                     [{"txid": t, "vout": n, "spendingtxid": spent[(t, n)][0],
                       "spendingtx": spent[(t, n)][2], "blockhash": spent[(t, n)][1]}])
        tip_cb = node.rpc("getblock", node.rpc("getbestblockhash"))["tx"][0]
        assert_equal(self.spenders(node, [{"txid": tip_cb, "vout": 0}, {"txid": "00" * 32,
                                                                          "vout": 5}]),
                     [{"txid": tip_cb, "vout": 0}, {"txid": "00" * 32, "vout": 5}])
        # With the index, mempool_only defaults to false.
        assert_equal(node.rpc("gettxspendingprevout", [{"txid": t, "vout": n}])[0]["spendingtxid"],
                     spent[(t, n)][0])
        assert_equal(node.rpc("gettxspendingprevout", [{"txid": t, "vout": n}],
                              {"mempool_only": True}), [{"txid": t, "vout": n}])

        self.log("Core's checks")
        assert_raises_rpc_error(-3, "Unexpected key unknown", node.rpc, "gettxspendingprevout",
                                [{"txid": t, "vout": n, "unknown": 1}])
        assert_raises_rpc_error(-3, "Unexpected key foo", node.rpc, "gettxspendingprevout",
                                [{"txid": t, "vout": n}], {"foo": True})
        assert_raises_rpc_error(-3, "Missing vout", node.rpc, "gettxspendingprevout",
                                [{"txid": t}])
        assert_raises_rpc_error(-8, "Invalid parameter, vout cannot be negative", node.rpc,
                                "gettxspendingprevout", [{"txid": t, "vout": -1}])
        assert_raises_rpc_error(-8, "Invalid parameter, outputs are missing", node.rpc,
                                "gettxspendingprevout", [])
        plain.start([TIPAGE])
        assert_raises_rpc_error(-1, "Mempool lacks a relevant spend, and txospenderindex is "
                                "unavailable.", self.spenders, plain, [{"txid": t, "vout": n}])
        assert_equal(plain.rpc("gettxspendingprevout", [{"txid": t, "vout": n}]),
                     [{"txid": t, "vout": n}])
        plain.stop()
        plain.assert_start_fails(["-txospenderindex", "-prune=550"],
                                 "Prune mode is incompatible with -txospenderindex.")

        self.log("a reorg: rewound when the next block is connected")
        top = node.rpc("getblockhash", 1295)
        gone = {k: v for k, v in spent.items()
                if node.rpc("getblockheader", v[1])["height"] >= 1295}
        assert_true(gone, "the top blocks spend outputs")
        k = next(iter(gone))
        node.rpc("invalidateblock", top)
        # Their transactions are back in the mempool, which is asked first.
        assert_equal(self.spenders(node, [{"txid": k[0], "vout": k[1]}])[0]["spendingtxid"],
                     gone[k][0])
        assert_equal(node.rpc("getindexinfo", "txospenderindex")["txospenderindex"],
                     {"synced": True, "best_block_height": 1300})
        addr = segwit_address("bcrt", 0, hash160(Key(0x1234).pubkey))
        node.rpc("generatetoaddress", 1, addr)
        wait_until(lambda: self.synced(node, 1295), timeout=60, what="index rewound")
        outs = [{"txid": t, "vout": n} for t, n in gone]
        got = self.spenders(node, outs)
        # The new block took some of those transactions back; the others wait in the mempool.
        for o in got:
            if "blockhash" in o:
                assert_equal(o["blockhash"], node.rpc("getbestblockhash"))
        t2, n2 = next(k for k in keys if k not in gone)
        assert_equal(self.spenders(node, [{"txid": t2, "vout": n2}])[0]["spendingtxid"],
                     spent[(t2, n2)][0])

        self.log("a restart goes on from where it was")
        node.stop()
        node.start([TIPAGE, "-txospenderindex"])
        wait_until(lambda: self.synced(node, 1295), timeout=60, what="index synced again")
        assert_equal(self.spenders(node, [{"txid": t2, "vout": n2}])[0]["blockhash"],
                     spent[(t2, n2)][1])


if __name__ == "__main__":
    TxoSpenderIndexTest().main()
