#!/usr/bin/env python3
"""Building, signing and combining raw transactions and PSBTs without a wallet, with Core's
arguments, results and error messages, on coins of a chain built in Python (submitblock).

The chain pays coinbases to P2PKH, P2WPKH, P2WSH 2-of-2 multisig, P2TR (rawtr: the output key
is the key itself, which is what signrawtransactionwithkey can sign, as in Core) and more
P2WPKH; 100 blocks on top make them spendable. Every transaction the node signs or
finalizes is then mined in a block that the node must accept.

- createrawtransaction: inputs, outputs as an array of pairs or an object, "data", locktime,
  replaceable and its default sequence, version; Core's errors for bad txids, missing or
  negative vout, bad sequence, invalid and duplicated addresses, duplicate data, bad hex data,
  bad amounts, locktime and version out of range, sequences that contradict replaceable.
- signrawtransactionwithkey: P2PKH, P2WPKH (coins from the UTXO set), P2TR key path, P2WSH
  multisig through prevtxs (witnessScript and amount), one key at a time (the errors entry
  with Core's message, then complete), Core's errors: invalid key, bad sighash name, input
  not found, wrong key, missing redeemScript/witnessScript, scriptPubKey mismatch, missing
  amount.
- combinerawtransaction: two half-signed multisig spends make a complete one; Core's errors.
- createpsbt / converttopsbt (versions 0 and 2, the same bytes), decodepsbt (tx, inputs,
  outputs, fee once the UTXO is known), utxoupdatepsbt (witness_utxo from the UTXO set; the
  result equals the PSBT built here byte for byte), analyzepsbt (next role, missing
  signatures, fee, estimated vsize and feerate), a partial signature made in Python, then
  combinepsbt and finalizepsbt (extract or not) give a transaction the node mines; Core's
  errors for bad base64, bad PSBTs, empty and incompatible combinations, signed inputs and
  PSBT version 1.
"""

import base64
import hashlib
import struct

from blocktools import (REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder, Key, OutPoint,
                        Tx, TxIn, TxOut, ecdsa_sign, hash160, p2pkh_script, p2wsh_script,
                        push_data, read_compact_size, ser_string, sighash_bip143, xonly)
from framework import BitnodeTestFramework, assert_equal, assert_raises_rpc_error, assert_true

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
COIN = 100000000


def b58check(payload):
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(data, "big")
    s = ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    return "1" * (len(data) - len(data.lstrip(b"\x00"))) + s


def wif(key):
    return b58check(b"\xef" + key.d.to_bytes(32, "big") + b"\x01")


def btc(sat):
    return "%d.%08d" % (sat // COIN, sat % COIN)


def psbt_rec(key, value):
    return ser_string(key) + ser_string(value)


class RawTxSignTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def mine(self, txs=()):
        b = self.cb.create_block(self.tip, list(txs), script_pubkey=self.burn)
        assert_equal(self.node.rpc("submitblock", b.hex()), None)
        self.cb.add(b)
        self.tip = b.sha
        assert_equal(self.node.rpc("getbestblockhash"), b.sha[::-1].hex())
        return b

    def mine_hex(self, *hexes):
        txs = []
        for h in hexes:
            txs.append(RawTx(bytes.fromhex(h)))
        self.mine(txs)

    def address(self, spk):
        return self.node.rpc("decodescript", spk.hex())["address"]

    def run_test(self):
        node = self.node = self.nodes[0]
        self.cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        self.tip = bytes.fromhex(REGTEST_GENESIS)[::-1]
        self.burn = bytes([0x6a])  # coinbases after the funded ones pay to OP_RETURN
        k1, k2, k3, k4 = Key(0x1111), Key(0x2222), Key(0x3333), Key(0x4444)
        ms = bytes([0x52]) + push_data(k1.pubkey) + push_data(k2.pubkey) + bytes([0x52, 0xAE])
        rawtr = bytes([0x51, 32]) + xonly(k3.pt)
        funded = [p2pkh_script(k1.pubkey), k1.p2wpkh, p2wsh_script(ms), rawtr, k4.p2wpkh,
                  k4.p2wpkh]
        coins = []
        for spk in funded:
            b = self.cb.create_block(self.tip, [], script_pubkey=spk)
            assert_equal(node.rpc("submitblock", b.hex()), None)
            self.cb.add(b)
            self.tip = b.sha
            cb = b.txs[0]
            coins.append((cb.txid_hex, cb.vout[0].value, spk))
        for _ in range(100):
            self.mine()
        dest = self.address(k2.p2wpkh)

        self.log("createrawtransaction")
        txid0, value0, _ = coins[0]
        raw = node.rpc("createrawtransaction", [{"txid": txid0, "vout": 0}],
                       [{dest: btc(value0 - 10000)}, {"data": "00010203"}])
        d = node.rpc("decoderawtransaction", raw)
        assert_equal(d["version"], 2)
        assert_equal(d["locktime"], 0)
        assert_equal(d["vin"][0]["sequence"], 0xFFFFFFFD)
        assert_equal(d["vout"][0]["scriptPubKey"]["address"], dest)
        assert_equal(d["vout"][1]["scriptPubKey"]["hex"], "6a0400010203")
        # The object form, locktime, not replaceable, version 1.
        raw2 = node.rpc("createrawtransaction", [{"txid": txid0, "vout": 0}],
                        {dest: btc(value0 - 10000)}, 7, False, 1)
        d2 = node.rpc("decoderawtransaction", raw2)
        assert_equal((d2["version"], d2["locktime"], d2["vin"][0]["sequence"]),
                     (1, 7, 0xFFFFFFFE))
        d3 = node.rpc("decoderawtransaction", node.rpc(
            "createrawtransaction", [{"txid": txid0, "vout": 0, "sequence": 5}], {dest: 1},
            0, False))
        assert_equal(d3["vin"][0]["sequence"], 5)
        out1 = [{dest: 1}]
        cr = node.rpc
        assert_raises_rpc_error(-8, "txid must be of length 64 (not 3, for 'abc')", cr,
                                "createrawtransaction", [{"txid": "abc", "vout": 0}], out1)
        assert_raises_rpc_error(-8, "Invalid parameter, missing vout key", cr,
                                "createrawtransaction", [{"txid": txid0}], out1)
        assert_raises_rpc_error(-8, "Invalid parameter, vout cannot be negative", cr,
                                "createrawtransaction", [{"txid": txid0, "vout": -1}], out1)
        assert_raises_rpc_error(-8, "Invalid parameter, sequence number is out of range", cr,
                                "createrawtransaction",
                                [{"txid": txid0, "vout": 0, "sequence": -1}], out1)
        assert_raises_rpc_error(-5, "Invalid Bitcoin address: foo", cr, "createrawtransaction",
                                [], {"foo": 1})
        assert_raises_rpc_error(-8, "Invalid parameter, duplicated address: " + dest, cr,
                                "createrawtransaction", [], [{dest: 1}, {dest: 2}])
        assert_raises_rpc_error(-8, "Invalid parameter, duplicate key: data", cr,
                                "createrawtransaction", [], [{"data": "00"}, {"data": "01"}])
        assert_raises_rpc_error(-8, "Data must be hexadecimal string (not 'xyz')", cr,
                                "createrawtransaction", [], [{"data": "xyz"}])
        assert_raises_rpc_error(-8, "Invalid parameter, key-value pair must contain exactly "
                                "one key", cr, "createrawtransaction", [], [{dest: 1, "x": 2}])
        assert_raises_rpc_error(-8, "Invalid parameter, key-value pair not an object as "
                                "expected", cr, "createrawtransaction", [], ["x"])
        assert_raises_rpc_error(-3, "Invalid amount", cr, "createrawtransaction", [],
                                {dest: "1.123456789"})
        assert_raises_rpc_error(-3, "Amount out of range", cr, "createrawtransaction", [],
                                {dest: -1})
        assert_raises_rpc_error(-8, "Invalid parameter, locktime out of range", cr,
                                "createrawtransaction", [], out1, 4294967296)
        assert_raises_rpc_error(-8, "Invalid parameter, version out of range(1~3)", cr,
                                "createrawtransaction", [], out1, 0, False, 4)
        assert_raises_rpc_error(-8, "Invalid parameter combination: Sequence number(s) "
                                "contradict replaceable option", cr, "createrawtransaction",
                                [{"txid": txid0, "vout": 0, "sequence": 0xFFFFFFFF}], out1, 0,
                                True)

        self.log("signrawtransactionwithkey: P2PKH from the UTXO set")
        bad = node.rpc("signrawtransactionwithkey", raw, [wif(k2)])
        assert_equal(bad["complete"], False)
        assert_equal(len(bad["errors"]), 1)
        e = bad["errors"][0]
        assert_equal((e["txid"], e["vout"], e["witness"], e["scriptSig"], e["sequence"]),
                     (txid0, 0, [], "", 0xFFFFFFFD))
        assert_equal(e["error"], "Unable to sign input, invalid stack size (possibly missing "
                                 "key)")
        signed = node.rpc("signrawtransactionwithkey", raw, [wif(k1)])
        assert_equal(signed["complete"], True)
        assert_true("errors" not in signed)
        # Signing what is signed changes nothing.
        assert_equal(node.rpc("signrawtransactionwithkey", signed["hex"], [wif(k1)])["hex"],
                     signed["hex"])
        assert_raises_rpc_error(-5, "Invalid private key", cr, "signrawtransactionwithkey", raw,
                                ["notakey"])
        assert_raises_rpc_error(-8, "'all' is not a valid sighash parameter.", cr,
                                "signrawtransactionwithkey", raw, [wif(k1)], None, "all")
        assert_raises_rpc_error(-22, "TX decode failed. Make sure the tx has at least one "
                                "input.", cr, "signrawtransactionwithkey", "00", [wif(k1)])
        missing = node.rpc("createrawtransaction", [{"txid": "11" * 32, "vout": 0}], out1)
        r = node.rpc("signrawtransactionwithkey", missing, [wif(k1)])
        assert_equal(r["errors"][0]["error"], "Input not found or already spent")
        self.mine_hex(signed["hex"])
        # Spent now.
        r = node.rpc("signrawtransactionwithkey", raw, [wif(k1)])
        assert_equal(r["errors"][0]["error"], "Input not found or already spent")

        self.log("signrawtransactionwithkey: P2WPKH, P2TR key path, sighash types")
        txid1, value1, _ = coins[1]
        txid3, value3, _ = coins[3]
        raw = node.rpc("createrawtransaction", [{"txid": txid1, "vout": 0},
                                                {"txid": txid3, "vout": 0}],
                       [{dest: btc(value1 + value3 - 20000)}])
        half = node.rpc("signrawtransactionwithkey", raw, [wif(k1)], None, "ALL")
        assert_equal(half["complete"], False)
        assert_equal(len(half["errors"]), 1)
        assert_equal(half["errors"][0]["vout"], 0)
        assert_equal(half["errors"][0]["txid"], txid3)
        full = node.rpc("signrawtransactionwithkey", half["hex"], [wif(k1), wif(k3)])
        assert_equal(full["complete"], True)
        d = node.rpc("decoderawtransaction", full["hex"])
        assert_equal(len(d["vin"][0]["txinwitness"]), 2)
        assert_equal(len(d["vin"][1]["txinwitness"]), 1)
        assert_equal(len(d["vin"][1]["txinwitness"][0]), 128)  # SIGHASH_DEFAULT: 64 bytes
        self.mine_hex(full["hex"])

        self.log("signrawtransactionwithkey with prevtxs, combinerawtransaction")
        txid2, value2, spk2 = coins[2]
        raw = node.rpc("createrawtransaction", [{"txid": txid2, "vout": 0}],
                       [{dest: btc(value2 - 10000)}])
        prev = [{"txid": txid2, "vout": 0, "scriptPubKey": spk2.hex(), "witnessScript": ms.hex(),
                 "amount": btc(value2)}]
        s1 = node.rpc("signrawtransactionwithkey", raw, [wif(k1)], prev)
        assert_equal(s1["complete"], False)
        assert_equal(s1["errors"][0]["error"], "CHECK(MULTI)SIG failing with non-zero signature "
                                               "(possibly need more signatures)")
        assert_equal(len(s1["errors"][0]["witness"]), 4)  # "", sig1, "", witness script
        s2 = node.rpc("signrawtransactionwithkey", raw, [wif(k2)], prev)
        assert_equal(s2["complete"], False)
        both = node.rpc("combinerawtransaction", [s1["hex"], s2["hex"]])
        # One key at a time on the same transaction gives the same result.
        seq = node.rpc("signrawtransactionwithkey", s1["hex"], [wif(k2)], prev)
        assert_equal(seq["complete"], True)
        assert_equal(seq["hex"], both)
        assert_raises_rpc_error(-22, "Missing transactions. At least two transactions "
                                "required.", cr, "combinerawtransaction", [s1["hex"]])
        assert_raises_rpc_error(-22, "TX decode failed for tx 1. Make sure the tx has at least "
                                "one input.", cr, "combinerawtransaction", [s1["hex"], "zz"])
        other = node.rpc("createrawtransaction", [{"txid": txid2, "vout": 0}], [{dest: 1}])
        assert_raises_rpc_error(-8, "Transaction number 2 not compatible with first "
                                "transaction", cr, "combinerawtransaction", [s1["hex"], other])
        gone = node.rpc("createrawtransaction", [{"txid": "22" * 32, "vout": 0}], [{dest: 1}])
        assert_raises_rpc_error(-25, "Input not found or already spent", cr,
                                "combinerawtransaction", [gone, gone])
        # prevtxs errors.
        p0 = dict(prev[0])
        del p0["witnessScript"]
        assert_raises_rpc_error(-8, "Missing redeemScript/witnessScript", cr,
                                "signrawtransactionwithkey", raw, [wif(k1)], [p0])
        p0["witnessScript"] = "51"
        assert_raises_rpc_error(-8, "redeemScript/witnessScript does not match scriptPubKey", cr,
                                "signrawtransactionwithkey", raw, [wif(k1)], [p0])
        assert_raises_rpc_error(-3, "Missing vout", cr, "signrawtransactionwithkey", raw,
                                [wif(k1)], [{"txid": txid2, "scriptPubKey": "51"}])
        assert_raises_rpc_error(-22, "expected object with {\"txid'\",\"vout\",\"scriptPubKey\"}",
                                cr, "signrawtransactionwithkey", raw, [wif(k1)], ["x"])
        assert_raises_rpc_error(-22, "vout cannot be negative", cr, "signrawtransactionwithkey",
                                raw, [wif(k1)], [{"txid": txid2, "vout": -1,
                                                  "scriptPubKey": "51"}])
        assert_raises_rpc_error(-22, "Previous output scriptPubKey mismatch:\n0 ", cr,
                                "signrawtransactionwithkey", raw, [wif(k1)],
                                [{"txid": txid2, "vout": 0, "scriptPubKey": "51"}])
        fake = node.rpc("createrawtransaction", [{"txid": "33" * 32, "vout": 1}], [{dest: 1}])
        assert_raises_rpc_error(-3, "Missing amount for CTxOut(nValue=21000000.00000000, "
                                "scriptPubKey=0014" + hash160(k1.pubkey).hex()[:26] + ")", cr,
                                "signrawtransactionwithkey", fake, [wif(k1)],
                                [{"txid": "33" * 32, "vout": 1, "scriptPubKey": k1.p2wpkh.hex()}])
        self.mine_hex(both)

        self.log("createpsbt, converttopsbt, decodepsbt")
        txid4, value4, spk4 = coins[4]
        outs = [{dest: btc(value4 - 5000)}]
        ins = [{"txid": txid4, "vout": 0}]
        p0 = node.rpc("createpsbt", ins, outs, 0, False, 2, 0)
        p2 = node.rpc("createpsbt", ins, outs, 0, False)
        rawtx = node.rpc("createrawtransaction", ins, outs, 0, False)
        assert_equal(node.rpc("converttopsbt", rawtx, False, False, 0), p0)
        assert_equal(node.rpc("converttopsbt", rawtx), p2)
        d0 = node.rpc("decodepsbt", p0)
        assert_equal(d0["psbt_version"], 0)
        assert_equal(d0["tx"]["txid"], node.rpc("decoderawtransaction", rawtx)["txid"])
        assert_equal((d0["global_xpubs"], d0["proprietary"], d0["unknown"]), ([], [], {}))
        assert_equal(d0["inputs"], [{}])
        assert_true("fee" not in d0)
        d2 = node.rpc("decodepsbt", p2)
        assert_equal(d2["psbt_version"], 2)
        assert_true("tx" not in d2)
        assert_equal((d2["tx_version"], d2["fallback_locktime"], d2["input_count"],
                      d2["output_count"]), (2, 0, 1, 1))
        assert_equal(d2["inputs"][0]["previous_txid"], txid4)
        assert_equal(d2["outputs"][0]["amount"], float(btc(value4 - 5000)))
        # The PSBT Core would have made, built here.
        tx = Tx([TxIn(OutPoint(bytes.fromhex(txid4)[::-1], 0), sequence=0xFFFFFFFF)],
                [TxOut(value4 - 5000, bytes.fromhex(d0["tx"]["vout"][0]["scriptPubKey"]["hex"]))])
        head = b"psbt\xff" + psbt_rec(b"\x00", tx.serialize(False)) + b"\x00"
        assert_equal(base64.b64encode(head + b"\x00" + b"\x00").decode(), p0)

        self.log("utxoupdatepsbt, analyzepsbt")
        an = node.rpc("analyzepsbt", p0)
        assert_equal(an, {"inputs": [{"has_utxo": False, "is_final": False,
                                      "next": "updater"}], "next": "updater"})
        up = node.rpc("utxoupdatepsbt", p0)
        wutxo = psbt_rec(b"\x01", struct.pack("<q", value4) + ser_string(spk4))
        assert_equal(up, base64.b64encode(head + wutxo + b"\x00" + b"\x00").decode())
        du = node.rpc("decodepsbt", up)
        assert_equal(du["fee"], 0.00005)
        assert_equal(du["inputs"][0]["witness_utxo"]["scriptPubKey"]["hex"], spk4.hex())
        an = node.rpc("analyzepsbt", up)
        keyid = hash160(k4.pubkey).hex()
        assert_equal(an["next"], "updater")  # the public key is not known yet
        assert_equal(an["inputs"][0]["missing"], {"pubkeys": [keyid]})
        assert_equal(an["fee"], 0.00005)
        assert_true("estimated_vsize" not in an)  # no size estimate without the key either
        # With the key's BIP32 derivation the signer is next.
        deriv = psbt_rec(b"\x06" + k4.pubkey, bytes.fromhex("d90c6a4f") +
                         struct.pack("<II", 0x80000000, 1))
        with_deriv = base64.b64encode(head + wutxo + deriv + b"\x00" + b"\x00").decode()
        an = node.rpc("analyzepsbt", with_deriv)
        assert_equal(an["next"], "signer")
        assert_equal(an["inputs"][0]["missing"], {"signatures": [keyid]})
        assert_equal(an["estimated_vsize"], 110)
        assert_equal(an["estimated_feerate"], 0.00045454)
        assert_equal(node.rpc("decodepsbt", with_deriv)["inputs"][0]["bip32_derivs"],
                     [{"pubkey": k4.pubkey.hex(), "master_fingerprint": "d90c6a4f",
                       "path": "m/0h/1"}])
        up2 = node.rpc("utxoupdatepsbt", p2)
        assert_equal(node.rpc("decodepsbt", up2)["inputs"][0]["witness_utxo"]["amount"],
                     float(btc(value4)))

        self.log("a partial signature from Python, combinepsbt, finalizepsbt")
        code = p2pkh_script(k4.pubkey)
        sig = ecdsa_sign(k4.d, sighash_bip143(tx, 0, code, value4)) + b"\x01"
        partial = psbt_rec(b"\x02" + k4.pubkey, sig)
        with_sig = base64.b64encode(head + partial + b"\x00" + b"\x00").decode()
        comb = node.rpc("combinepsbt", [up, with_sig])
        assert_equal(comb, base64.b64encode(head + wutxo + partial + b"\x00" + b"\x00").decode())
        assert_equal(node.rpc("analyzepsbt", comb)["next"], "finalizer")
        fin = node.rpc("finalizepsbt", comb, False)
        assert_equal(fin["complete"], True)
        assert_equal(node.rpc("decodepsbt", fin["psbt"])["inputs"][0]["final_scriptwitness"],
                     [sig.hex(), k4.pubkey.hex()])
        assert_equal(node.rpc("analyzepsbt", fin["psbt"])["next"], "extractor")
        ext = node.rpc("finalizepsbt", comb)
        assert_equal(ext["complete"], True)
        assert_true("psbt" not in ext)
        assert_equal(node.rpc("finalizepsbt", with_sig), {"psbt": with_sig, "complete": False})
        # converttopsbt of a signed transaction.
        assert_raises_rpc_error(-22, "Inputs must not have scriptSigs and scriptWitnesses", cr,
                                "converttopsbt", ext["hex"])
        assert_equal(node.rpc("converttopsbt", ext["hex"], True, None, 0), p0)
        self.mine_hex(ext["hex"])

        self.log("PSBT errors")
        assert_raises_rpc_error(-22, "TX decode failed invalid base64", cr, "decodepsbt",
                                ";definitely not base64;")
        assert_raises_rpc_error(-22, "TX decode failed Invalid PSBT magic bytes", cr,
                                "decodepsbt", base64.b64encode(b"psbu\xff\x00").decode())
        assert_raises_rpc_error(-22, "TX decode failed", cr, "analyzepsbt", "cHNidP8=")
        assert_raises_rpc_error(-8, "Parameter 'txs' cannot be empty", cr, "combinepsbt", [])
        assert_raises_rpc_error(-8, "PSBTs not compatible (different transactions)", cr,
                                "combinepsbt", [p0, node.rpc("createpsbt", ins, [{dest: 1}], 0,
                                                             False, 2, 0)])
        assert_raises_rpc_error(-8, "PSBTs not compatible (different transactions)", cr,
                                "combinepsbt", [p0, p2])
        assert_raises_rpc_error(-8, "The PSBT version can only be 2 or 0", cr, "createpsbt",
                                ins, outs, 0, False, 2, 1)
        assert_raises_rpc_error(-8, "The PSBT version can only be 2 or 0", cr, "converttopsbt",
                                rawtx, False, None, 1)
        assert_raises_rpc_error(-22, "TX decode failed", cr, "converttopsbt", "zz")


class RawTx:
    """A serialized transaction to put in a block as it is."""

    def __init__(self, raw):
        self.raw = raw

    def has_witness(self):
        return len(self.raw) > 5 and self.raw[4] == 0 and self.raw[5] == 1

    def serialize(self, with_witness=True):
        if with_witness or not self.has_witness():
            return self.raw
        return strip_witness(self.raw)

    @property
    def txid(self):
        return hashlib.sha256(hashlib.sha256(self.serialize(False)).digest()).digest()

    @property
    def wtxid(self):
        return hashlib.sha256(hashlib.sha256(self.raw).digest()).digest()

def strip_witness(raw):
    """The legacy serialization of a BIP144 transaction."""
    i = 6
    start = i
    nin, i = read_compact_size(raw, i)
    for _ in range(nin):
        i += 36
        ln, i = read_compact_size(raw, i)
        i += ln + 4
    nout, i = read_compact_size(raw, i)
    for _ in range(nout):
        i += 8
        ln, i = read_compact_size(raw, i)
        i += ln
    return raw[:4] + raw[start:i] + raw[-4:]


if __name__ == "__main__":
    RawTxSignTest().main()
