#!/usr/bin/env python3
"""Signatures checked when a transaction enters the pool are not checked again when the block
that confirms it is connected: node A accepts three signed spends (three ECDSA checks) and
mines them; node B (-blocksonly: no transaction relay, so an empty pool) connects the same
block and checks the three signatures then. Each node's shutdown log counts the signature
verifications that reached libsecp256k1. The blocks are also checked here, in Python, as an
independent implementation would: merkle root, witness commitment, BIP34 height, the
coinbase paying the subsidy plus exactly the fees, and the proof of work; for blocks from
generatetoaddress and from getblocktemplate + submitblock alike."""
import re
import struct

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, block_from_template, hash160,
                        merkle_root, script_num, segwit_address, sha256d, sign_p2wpkh)
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import ByteReader, deserialize_tx

COIN = 100000000


def parse_block(raw):
    r = ByteReader(raw)
    header = r.read(80)
    n = r.compact_size(100000)
    txs = [deserialize_tx(r) for _ in range(n)]
    return header, txs


class SigcacheTest(BitnodeTestFramework):
    num_nodes = 2

    def set_test_params(self):
        self.start_nodes_at_setup = False

    def verifies(self, node):
        with open(node.debug_log) as f:
            counts = re.findall(r"signature verifies: (\d+) ECDSA", f.read())
        assert_true(counts, "the shutdown log counts signature verifications")
        return int(counts[-1])

    def check_block(self, node, block_hash, fees):
        """An independent check of a block the node made."""
        raw = bytes.fromhex(node.rpc("getblock", block_hash, 0))
        header, txs = parse_block(raw)
        assert_equal(sha256d(header)[::-1].hex(), block_hash)
        version, prev, root, t, bits, nonce = struct.unpack("<i32s32sIII", header)
        # Proof of work against the header's own target.
        exp, mant = bits >> 24, bits & 0xFFFFFF
        target = mant << (8 * (exp - 3))
        assert_true(int.from_bytes(sha256d(header), "little") <= target, "proof of work")
        assert_equal(merkle_root([tx.txid for tx in txs]), root)
        cb = txs[0]
        height = node.rpc("getblockheader", block_hash)["height"]
        push = script_num(height)
        want = bytes([len(push)]) + push if height > 16 else bytes([0x50 + height])
        assert_true(cb.vin[0].script_sig.startswith(want), "BIP34 height in the coinbase")
        # Witness commitment: the last matching output commits to the witness root.
        wtxids = [b"\x00" * 32] + [tx.wtxid for tx in txs[1:]]
        nonce_item = cb.vin[0].witness[0]
        assert_equal(len(nonce_item), 32)
        commit = sha256d(merkle_root(wtxids) + nonce_item)
        outs = [o for o in cb.vout if o.script_pubkey[:6] == bytes.fromhex("6a24aa21a9ed")]
        assert_equal(outs[-1].script_pubkey[6:38], commit)
        subsidy = 50 * COIN >> (height // 150)
        assert_equal(sum(o.value for o in cb.vout), subsidy + fees)

    def run_test(self):
        a, b = self.nodes
        a.start()
        b.start(["-blocksonly", "-connect=127.0.0.1:%d" % a.p2p_port])
        key = Key(0x777)
        addr = segwit_address("bcrt", 0, hash160(key.pubkey))
        hashes = a.rpc("generatetoaddress", 103, addr)
        wait_until(lambda: b.rpc("getblockcount") == 103, timeout=60, what="b synced")
        relay = [n.rpc("getnetworkinfo")["localrelay"] for n in (a, b)]
        assert_equal(relay, [True, False])  # b is -blocksonly
        self.log("three signed spends enter A's pool")
        fees = 0
        for i, h in enumerate(hashes[:3]):
            cb = a.rpc("getblock", h, 2)["tx"][0]
            value = int(round(cb["vout"][0]["value"] * COIN))
            tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                    [TxOut(value - 1000 - i, P2WSH_TRUE)])
            sign_p2wpkh(tx, 0, key, value)
            a.rpc("sendrawtransaction", tx.hex())
            fees += 1000 + i
        assert_equal(len(a.rpc("getrawmempool")), 3)
        assert_equal(b.rpc("getrawmempool"), [])
        self.log("a getblocktemplate + submitblock block with them")
        tmpl = a.rpc("getblocktemplate", {"rules": ["segwit"]})
        assert_equal(len(tmpl["transactions"]), 3)
        assert_equal(sum(t["fee"] for t in tmpl["transactions"]), fees)
        block = block_from_template(tmpl, P2WSH_TRUE)
        assert_equal(a.rpc("submitblock", block.hex()), None)
        bh = a.rpc("getbestblockhash")
        self.check_block(a, bh, fees)
        assert_equal(a.rpc("getrawmempool"), [])
        wait_until(lambda: b.rpc("getbestblockhash") == bh, timeout=30, what="b has the block")
        self.log("a generatetoaddress block is valid by the same checks")
        h = a.rpc("generatetoaddress", 1, addr)[0]
        self.check_block(a, h, 0)
        wait_until(lambda: b.rpc("getbestblockhash") == h, timeout=30, what="b synced")
        a.stop()
        b.stop()
        self.log("A checked each signature once (on acceptance); B once (in the block)")
        assert_equal(self.verifies(a), 3)
        assert_equal(self.verifies(b), 3)


if __name__ == "__main__":
    SigcacheTest().main()
