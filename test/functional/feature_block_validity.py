#!/usr/bin/env python3
"""The invalid-block suite: blocks built in Python, one broken rule each, fed to submitblock.

For every invalid block: the exact BIP22 answer (Core's reject reason), the tip and the UTXO
set hash (muhash) unchanged, the answer to a second submission ("duplicate-invalid" when the
node remembers the block as invalid, the reason again when it must not: header failures and
mutated blocks), then a valid block on the same parent is accepted (null) and becomes the tip.
Where a rule has a boundary (weight, sigops, maturity, coinbase amount, lock times, median
time past) the block exactly at the limit is accepted.

Rules: proof of work, bits, time too old / too new, version floor, merkle root, duplicate-
transaction mutation (CVE-2012-2459: the valid block with the same hash is accepted after),
coinbase missing / multiple / length / BIP34 height / amount, empty outputs, negative, too
large and overflowing output values, duplicate inputs, null prevout, stripped size, weight
(taproot annex), legacy and accurate (P2SH + witness) sigops, nLockTime (height and time),
BIP68 sequence locks, CLTV and CSV scripts, witness commitment (nonce size, mismatch,
unexpected witness), BIP30, double spends inside a block and across blocks, missing inputs,
overspend, immature coinbase spend, bad ECDSA (P2WPKH) and Schnorr (P2TR key path)
signatures, a child of an invalid block. Finally a restart keeps tip and UTXO hash.
"""

import time

from blocktools import (COIN, MAX_BLOCK_WEIGHT, NULL_OUTPOINT, OP_0, OP_CHECKLOCKTIMEVERIFY,
                        OP_CHECKSEQUENCEVERIFY, OP_CHECKSIG, OP_DROP, OP_ENDIF, OP_IF, OP_TRUE,
                        P2SH_TRUE, P2WSH_TRUE, SCRIPT_TRUE, ChainBuilder, Coin, Key, OutPoint,
                        Tx, TxIn, TxOut, anyone_can_spend_input, block_subsidy, create_coinbase,
                        p2sh_script, p2tr_script, p2wsh_script, push_data, push_int, script,
                        sign_p2tr_keypath, sign_p2wpkh, spend_tx, tapleaf_hash, taproot_tweak,
                        xonly, G)
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true)

MAX_MONEY = 21_000_000 * COIN
SCRIPT_FAIL = "block-script-verify-flag-failed (%s)"
EVAL_FALSE = "Script evaluated without error but finished with a false/empty top stack element"


class BlockValidityTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    # -- helpers ------------------------------------------------------------------------------

    def state(self):
        n = self.node
        return n.rpc("getbestblockhash"), n.rpc("gettxoutsetinfo", "muhash")["muhash"]

    def submit(self, block):
        return self.node.rpc("submitblock", block.hex())

    def reject(self, block, reason, again="duplicate-invalid"):
        """block must be rejected with reason; tip and UTXO hash stay; a second submission
        answers `again`."""
        before = self.state()
        assert_equal(self.submit(block), reason)
        assert_equal(self.state(), before)
        if again is not None:
            assert_equal(self.submit(block), again)
            assert_equal(self.state(), before)
        self.rejected += 1

    def accept(self, block):
        """block must become the new tip (submitblock null)."""
        assert_equal(self.submit(block), None)
        assert_equal(self.node.rpc("getbestblockhash"), block.hash)
        self.cb.add(block)
        self.tip = block.sha
        cb = block.txs[0]
        self.coinbases.append(Coin(cb.outpoint(0), cb.vout[0].value, cb.vout[0].script_pubkey,
                                   block.height, True))
        self.accepted += 1
        return block

    def block(self, txs=(), **kw):
        return self.cb.create_block(self.tip, txs, **kw)

    def next_height(self):
        return self.cb.height(self.tip) + 1

    def take_coin(self):
        """A coinbase output (OP_TRUE) mature for a spend in the next block."""
        h = self.next_height()
        for i, c in enumerate(self.coinbases):
            if h - c.height >= 100:
                return self.coinbases.pop(i)
        raise AssertionError("no mature coinbase left")

    def fund(self, scripts, value=COIN):
        """Accepts a block with one tx paying value to each script; returns the new coins."""
        c = self.take_coin()
        outs = [(value, s) for s in scripts]
        outs.append((c.value - value * len(scripts), SCRIPT_TRUE))
        tx = spend_tx([c], outs)
        b = self.accept(self.block([tx]))
        return [Coin(tx.outpoint(i), value, s, b.height) for i, s in enumerate(scripts)]

    # -- the test -----------------------------------------------------------------------------

    def run_test(self):
        self.node = self.nodes[0]
        self.rejected = self.accepted = 0
        genesis = self.node.rpc("getblockhash", 0)
        gtime = self.node.rpc("getblockheader", genesis)["time"]
        self.cb = ChainBuilder(genesis, gtime)
        self.tip = self.cb.genesis
        self.coinbases = []

        self.log("Mine 130 blocks paying OP_TRUE from the genesis")
        for _ in range(130):
            self.accept(self.block())
        assert_equal(self.node.rpc("getblockcount"), 130)

        self.test_header_rules()
        self.test_merkle_rules()
        self.test_coinbase_rules()
        self.test_tx_context_free()
        self.test_size_and_weight()
        self.test_sigops()
        self.test_locktimes()
        self.test_witness_commitment()
        self.test_inputs()
        self.test_signatures()
        self.test_invalid_parent()

        self.log("Restart: the same tip and UTXO hash")
        before = self.state()
        self.node.stop()
        self.node.start()
        assert_equal(self.state(), before)
        self.log("%d invalid blocks rejected, %d valid blocks accepted" %
                 (self.rejected, self.accepted))

    def test_header_rules(self):
        self.log("high-hash: a header above the target")
        self.reject(self.block(solve=False).solve(valid=False), "high-hash", again="high-hash")
        self.accept(self.block())

        self.log("bad-diffbits: a valid proof of work for the wrong bits")
        self.reject(self.block(bits=0x207FFFFE), "bad-diffbits", again="bad-diffbits")
        self.accept(self.block())

        self.log("time-too-old: time equal to the median time past; mtp + 1 is accepted")
        mtp = self.cb.mtp(self.tip)
        self.reject(self.block(time=mtp), "time-too-old", again="time-too-old")
        self.reject(self.block(time=mtp - 1000), "time-too-old", again="time-too-old")
        self.accept(self.block(time=mtp + 1))

        self.log("time-too-new: more than two hours ahead of the node's clock")
        self.reject(self.block(time=int(time.time()) + 2 * 3600 + 300), "time-too-new",
                    again="time-too-new")
        self.accept(self.block())

        self.log("bad-version: version 3 after BIP65; version 4 is accepted")
        self.reject(self.block(version=3), "bad-version(0x00000003)",
                    again="bad-version(0x00000003)")
        self.reject(self.block(version=1), "bad-version(0x00000001)",
                    again="bad-version(0x00000001)")
        self.accept(self.block(version=4))

    def test_merkle_rules(self):
        self.log("bad-txnmrklroot: header commits to another merkle root")
        b = self.block([spend_tx([self.take_coin()])], solve=False)
        b.solve()
        b.merkle = bytes(31) + b"\x01"
        while int.from_bytes(b.sha, "little") > b.target():
            b.nonce += 1
        self.reject(b, "bad-txnmrklroot", again="bad-txnmrklroot")
        good = self.block(b.txs[1:])
        self.accept(good)

        self.log("bad-txns-duplicate: [cb, a, b, b] has the merkle root of [cb, a, b]")
        c1, c2 = self.take_coin(), self.take_coin()
        good = self.block([spend_tx([c1]), spend_tx([c2])])
        bad = self.block(solve=False, coinbase=good.txs[0].copy())
        bad.txs = [t.copy() for t in good.txs] + [good.txs[2].copy()]
        bad.time, bad.nonce, bad.merkle = good.time, good.nonce, good.merkle
        assert_equal(bad.hash, good.hash)
        assert_equal(bad.calc_merkle(), good.merkle)
        self.reject(bad, "bad-txns-duplicate", again="bad-txns-duplicate")
        self.log("... and the valid block with the same hash is then accepted")
        self.accept(good)

    def test_coinbase_rules(self):
        self.log("bad-cb-missing: submitblock refuses a block without a coinbase first")
        tx = spend_tx([self.take_coin()])
        b = self.block([tx], solve=False)
        b.txs = [tx]
        b.solve()
        before = self.state()
        assert_raises_rpc_error(-22, "Block does not start with a coinbase", self.submit, b)
        assert_equal(self.state(), before)

        self.log("bad-cb-multiple: a second coinbase")
        b = self.block([tx, create_coinbase(self.next_height(), 0, tag=b"second")])
        self.reject(b, "bad-cb-multiple")
        self.accept(self.block([tx]))

        self.log("bad-cb-length: a 101-byte coinbase scriptSig; 100 bytes is accepted")
        h = self.next_height()
        cb = create_coinbase(h, block_subsidy(h))
        cb.vin[0].script_sig = push_int(h) + push_data(b"x" * (98 - len(push_int(h)))) + b"\x51"
        assert_equal(len(cb.vin[0].script_sig), 100)
        long_cb = cb.copy()
        long_cb.vin[0].script_sig += b"\x51"
        self.reject(self.block(coinbase=long_cb), "bad-cb-length")
        short_cb = cb.copy()
        short_cb.vin[0].script_sig = b"\x51"
        self.reject(self.block(coinbase=short_cb), "bad-cb-length")
        self.accept(self.block(coinbase=cb))

        self.log("bad-cb-height: BIP34 height missing or wrong")
        h = self.next_height()
        self.reject(self.block(coinbase=create_coinbase(h + 1, block_subsidy(h))),
                    "bad-cb-height")
        wrong = create_coinbase(h, block_subsidy(h))
        wrong.vin[0].script_sig = push_data(b"no height here")
        self.reject(self.block(coinbase=wrong), "bad-cb-height")
        # A non-minimal push of the right height is not Core's serialization either.
        nonmin = create_coinbase(h, block_subsidy(h))
        nonmin.vin[0].script_sig = bytes([0x4C, 1, h]) + push_data(b"x")
        assert_true(h < 0x80, "height fits one byte")
        self.reject(self.block(coinbase=nonmin), "bad-cb-height")
        self.accept(self.block())

        self.log("bad-cb-amount: subsidy + fees + 1; subsidy + fees is accepted")
        c = self.take_coin()
        fee = 12345
        tx = spend_tx([c], fee=fee)
        h = self.next_height()
        self.reject(self.block([tx], coinbase_value=block_subsidy(h) + fee + 1), "bad-cb-amount")
        # Two outputs summing one satoshi too many.
        cb2 = create_coinbase(h, block_subsidy(h), extra_outputs=[(fee + 1, SCRIPT_TRUE)])
        self.reject(self.block([tx], coinbase=cb2), "bad-cb-amount")
        self.accept(self.block([tx], fees=fee))

    def test_tx_context_free(self):
        c = self.take_coin()

        def with_tx(tx, reason):
            self.reject(self.block([tx]), reason)

        self.log("bad-txns-vout-empty")
        with_tx(Tx([anyone_can_spend_input(c)], []), "bad-txns-vout-empty")
        self.log("bad-txns-vout-negative")
        with_tx(spend_tx([c], [(-1, SCRIPT_TRUE), (c.value, SCRIPT_TRUE)]),
                "bad-txns-vout-negative")
        self.log("bad-txns-vout-toolarge")
        with_tx(spend_tx([c], [(MAX_MONEY + 1, SCRIPT_TRUE)]), "bad-txns-vout-toolarge")
        self.log("bad-txns-txouttotal-toolarge")
        with_tx(spend_tx([c], [(MAX_MONEY, SCRIPT_TRUE), (1, SCRIPT_TRUE)]),
                "bad-txns-txouttotal-toolarge")
        self.log("bad-txns-inputs-duplicate: one transaction spends the same output twice")
        with_tx(Tx([anyone_can_spend_input(c), anyone_can_spend_input(c)],
                   [TxOut(c.value, SCRIPT_TRUE)]), "bad-txns-inputs-duplicate")
        self.log("bad-txns-prevout-null: a null prevout in a non-coinbase transaction")
        with_tx(Tx([anyone_can_spend_input(c), TxIn(NULL_OUTPOINT, b"\x51\x51")],
                   [TxOut(c.value, SCRIPT_TRUE)]), "bad-txns-prevout-null")
        self.log("bad-txns-BIP30: a transaction repeated while its outputs are unspent")
        tx = spend_tx([c])
        self.accept(self.block([tx]))
        self.reject(self.block([tx]), "bad-txns-BIP30")
        self.accept(self.block([spend_tx([tx.coin(0)])]))

    def test_size_and_weight(self):
        self.log("bad-blk-length: stripped size above 1,000,000 bytes")
        c = self.take_coin()
        big = spend_tx([c], [(c.value, bytes([OP_TRUE]) * 1_000_000)])
        b = self.block([big])
        assert_true(len(b.serialize(False)) > 1_000_000, "stripped size")
        self.reject(b, "bad-blk-length")
        self.accept(self.block([spend_tx([c])]))

        self.log("taproot script path (leaf OP_TRUE) with an annex is valid")
        internal = G  # any x-only key: nobody needs the key path
        leaf = tapleaf_hash(SCRIPT_TRUE)
        out_pt, _ = taproot_tweak(internal, leaf)
        control = bytes([0xC0 | (out_pt[1] & 1)]) + xonly(internal)
        spk = p2tr_script(xonly(out_pt))
        coins = self.fund([spk, spk])

        def annex_spend(coin, annex_len):
            tx = Tx([TxIn(coin.outpoint, witness=[SCRIPT_TRUE, control,
                                                  b"\x50" + b"\x00" * (annex_len - 1)])],
                    [TxOut(coin.value, SCRIPT_TRUE)])
            return tx

        self.accept(self.block([annex_spend(coins[0], 100)]))

        self.log("bad-blk-weight: weight 4,000,001 (annex); exactly 4,000,000 is accepted")
        tx = annex_spend(coins[1], 3_990_000)
        b = self.block([tx])
        tx = annex_spend(coins[1], 3_990_000 + MAX_BLOCK_WEIGHT - b.weight())
        exact = self.block([tx])
        assert_equal(exact.weight(), MAX_BLOCK_WEIGHT)
        tx1 = annex_spend(coins[1], 3_990_001 + MAX_BLOCK_WEIGHT - b.weight())
        over = self.block([tx1])
        assert_equal(over.weight(), MAX_BLOCK_WEIGHT + 1)
        self.reject(over, "bad-blk-weight")
        self.accept(exact)

    def test_sigops(self):
        self.log("bad-blk-sigops (legacy count): 20,001 OP_CHECKSIG; 20,000 is accepted")
        c = self.take_coin()

        def sigop_tx(coin, n):
            return spend_tx([coin], [(coin.value, bytes([OP_CHECKSIG]) * n)])
        self.reject(self.block([sigop_tx(c, 20_001)]), "bad-blk-sigops")
        self.accept(self.block([sigop_tx(c, 20_000)]))

        self.log("bad-blk-sigops (accurate count with spent P2SH and P2WSH scripts)")
        # Never-executed CHECKSIGs still count: P2SH ones times 4, witness ones times 1.
        redeem = script(OP_0, OP_IF, OP_CHECKSIG, OP_ENDIF, OP_TRUE)
        wscript4 = script(OP_0, OP_IF, bytes([OP_CHECKSIG]) * 4, OP_ENDIF, OP_TRUE)
        wscript5 = script(OP_0, OP_IF, bytes([OP_CHECKSIG]) * 5, OP_ENDIF, OP_TRUE)
        sh, w4, w5 = self.fund([p2sh_script(redeem), p2wsh_script(wscript4),
                                p2wsh_script(wscript5)])
        c = self.take_coin()

        def blk(wcoin, wscript):
            legacy = spend_tx([c], [(c.value, bytes([OP_CHECKSIG]) * 19_998)])
            tx = Tx([TxIn(sh.outpoint, push_data(redeem)),
                     TxIn(wcoin.outpoint, witness=[wscript])],
                    [TxOut(sh.value + wcoin.value, SCRIPT_TRUE)])
            return self.block([legacy, tx])
        # 19,998 * 4 + 1 * 4 + 5 = 80,001
        self.reject(blk(w5, wscript5), "bad-blk-sigops")
        # 19,998 * 4 + 1 * 4 + 4 = 80,000
        self.accept(blk(w4, wscript4))

    def test_locktimes(self):
        self.log("bad-txns-nonfinal: nLockTime = block height; height - 1 is accepted")
        c = self.take_coin()
        h = self.next_height()
        self.reject(self.block([spend_tx([c], locktime=h, sequence=0)]), "bad-txns-nonfinal")
        # A final sequence makes any nLockTime final.
        self.accept(self.block([spend_tx([c], locktime=h + 1000)]))
        c = self.take_coin()
        self.accept(self.block([spend_tx([c], locktime=self.next_height() - 1, sequence=0)]))

        self.log("bad-txns-nonfinal: time lock not below the median time past (BIP113)")
        c = self.take_coin()
        mtp = self.cb.mtp(self.tip)
        self.reject(self.block([spend_tx([c], locktime=mtp, sequence=0)]), "bad-txns-nonfinal")
        self.accept(self.block([spend_tx([c], locktime=mtp - 1, sequence=0)]))

        self.log("bad-txns-nonfinal: BIP68 relative height lock one block short")
        c = self.take_coin()
        depth = self.next_height() - c.height
        self.reject(self.block([spend_tx([c], sequence=depth + 1)]), "bad-txns-nonfinal")
        # Version 1 transactions have no sequence locks.
        self.accept(self.block([spend_tx([c], sequence=depth + 1, version=1)]))
        c = self.take_coin()
        depth = self.next_height() - c.height
        self.accept(self.block([spend_tx([c], sequence=depth)]))

        self.log("CLTV: script lock above nLockTime fails; equal passes")
        lock = self.next_height() - 3
        cltv = script(push_int(lock), OP_CHECKLOCKTIMEVERIFY, OP_DROP, OP_TRUE)
        csv_wscript = script(push_int(10), OP_CHECKSEQUENCEVERIFY, OP_DROP, OP_TRUE)
        cl, cl2, cs = self.fund([cltv, cltv, p2wsh_script(csv_wscript)])
        for _ in range(10):
            self.accept(self.block())
        fail = SCRIPT_FAIL % "Locktime requirement not satisfied"

        def cltv_spend(coin, locktime, sequence=0xFFFFFFFE):
            return Tx([TxIn(coin.outpoint, b"", sequence)], [TxOut(coin.value, SCRIPT_TRUE)],
                      locktime=locktime)
        self.reject(self.block([cltv_spend(cl, lock - 1)]), fail)
        # A final input (sequence 0xffffffff) fails CLTV whatever the nLockTime.
        self.reject(self.block([cltv_spend(cl, lock, 0xFFFFFFFF)]), fail)
        self.accept(self.block([cltv_spend(cl, lock)]))

        self.log("CSV: script relative lock 10 with nSequence 9 fails; 10 passes")

        def csv_spend(coin, seq):
            return Tx([TxIn(coin.outpoint, b"", seq, [csv_wscript])],
                      [TxOut(coin.value, SCRIPT_TRUE)])
        self.reject(self.block([csv_spend(cs, 9)]), fail)
        self.reject(self.block([Tx([TxIn(cs.outpoint, b"", 10, [csv_wscript])],
                                   [TxOut(cs.value, SCRIPT_TRUE)], version=1)]), fail)
        self.accept(self.block([csv_spend(cs, 10), cltv_spend(cl2, lock + 1)]))

    def test_witness_commitment(self):
        wscript = script(push_data(b"abc"), OP_DROP, OP_TRUE)
        coins = self.fund([p2wsh_script(wscript)] * 2)

        def wtx(coin, item=b"abc"):
            return Tx([TxIn(coin.outpoint, b"", witness=[item, script(OP_DROP, OP_TRUE)])],
                      [TxOut(coin.value, SCRIPT_TRUE)]) if False else \
                Tx([TxIn(coin.outpoint, b"", witness=[wscript])],
                   [TxOut(coin.value, SCRIPT_TRUE)])

        self.log("unexpected-witness: witness data without a commitment")
        b = self.block([wtx(coins[0])], witness=False)
        self.reject(b, "unexpected-witness", again="unexpected-witness")

        self.log("bad-witness-nonce-size: coinbase witness not one 32-byte item")
        b = self.block([wtx(coins[0])], solve=False)
        b.txs[0].vin[0].witness = [bytes(33)]
        self.reject(b.solve(), "bad-witness-nonce-size", again="bad-witness-nonce-size")
        b.txs[0].vin[0].witness = [bytes(32), bytes(32)]
        self.reject(b.solve(), "bad-witness-nonce-size", again="bad-witness-nonce-size")

        self.log("bad-witness-merkle-match: a changed witness; the true block (same hash) "
                 "is accepted after")
        good = self.block([wtx(coins[0])])
        bad_tx = good.txs[1].copy()
        bad_tx.vin[0].witness = [wscript + b"\x51"]  # other witness, same txid
        bad = self.block(solve=False, coinbase=good.txs[0].copy())
        bad.txs = [good.txs[0].copy(), bad_tx]
        bad.time, bad.nonce, bad.merkle = good.time, good.nonce, good.merkle
        assert_equal(bad.hash, good.hash)
        self.reject(bad, "bad-witness-merkle-match", again="bad-witness-merkle-match")
        # A commitment to the wrong reserved value.
        b2 = self.block([wtx(coins[0])], solve=False)
        b2.txs[0].vin[0].witness = [b"\x01" * 32]
        self.reject(b2.solve(), "bad-witness-merkle-match", again="bad-witness-merkle-match")
        self.accept(good)
        self.log("a commitment without any witness transaction is fine")
        self.accept(self.block([spend_tx([coins[1]], outputs=[(coins[1].value, SCRIPT_TRUE)])],
                               witness=True) if False else self.block(witness=True))

    def test_inputs(self):
        self.log("bad-txns-inputs-missingorspent: an output that never existed")
        c = self.take_coin()
        ghost = Coin(OutPoint(bytes(range(32)), 0), c.value, SCRIPT_TRUE)
        self.reject(self.block([spend_tx([ghost])]), "bad-txns-inputs-missingorspent")
        self.reject(self.block([spend_tx([Coin(OutPoint(c.outpoint.txid, 1), c.value,
                                               SCRIPT_TRUE)])]),
                    "bad-txns-inputs-missingorspent")

        self.log("bad-txns-inputs-missingorspent: double spend by two txs of one block")
        a = spend_tx([c])
        b_ = spend_tx([c], [(c.value - 1, SCRIPT_TRUE)])
        self.reject(self.block([a, b_], fees=1), "bad-txns-inputs-missingorspent")
        self.log("... spending an output created later in the same block")
        child = spend_tx([a.coin(0)])
        self.reject(self.block([child, a]), "bad-txns-inputs-missingorspent")
        self.accept(self.block([a, child]))

        self.log("bad-txns-inputs-missingorspent: double spend across blocks")
        self.reject(self.block([b_], fees=1), "bad-txns-inputs-missingorspent")
        self.accept(self.block([spend_tx([child.coin(0)])]))

        self.log("bad-txns-in-belowout: outputs one satoshi above the inputs")
        c = self.take_coin()
        self.reject(self.block([spend_tx([c], [(c.value + 1, SCRIPT_TRUE)])]),
                    "bad-txns-in-belowout")
        self.accept(self.block([spend_tx([c], [(c.value, SCRIPT_TRUE)])]))

        self.log("bad-txns-premature-spend-of-coinbase: depth 99; depth 100 is accepted")
        h = self.next_height()
        young = [x for x in self.coinbases if x.height == h - 99][0]
        self.reject(self.block([spend_tx([young])]), "bad-txns-premature-spend-of-coinbase")
        # A coinbase from the block before is immature too (depth 1).
        last = self.coinbases[-1]
        self.reject(self.block([spend_tx([last])]), "bad-txns-premature-spend-of-coinbase")
        self.accept(self.block())
        self.coinbases.remove(young)
        self.accept(self.block([spend_tx([young])]))

    def test_signatures(self):
        key_w = Key(0x1111 * 7919)
        key_t = Key(0x2222 * 104729)
        cw, ct = self.fund([key_w.p2wpkh, key_t.p2tr])

        self.log("ECDSA (P2WPKH): a flipped signature byte fails, the real one is accepted")
        tx = Tx([TxIn(cw.outpoint)], [TxOut(cw.value, SCRIPT_TRUE)])
        sign_p2wpkh(tx, 0, key_w, cw.value)
        sig = tx.vin[0].witness[0]
        bad = tx.copy()
        s = bytearray(sig)
        s[10] ^= 0x01  # inside r: still strict DER, wrong signature
        bad.vin[0].witness[0] = bytes(s)
        # Block flags have no NULLFAIL: CHECKSIG pushes false and the script ends false.
        self.reject(self.block([bad]), SCRIPT_FAIL % EVAL_FALSE)
        bad2 = tx.copy()
        bad2.vin[0].witness[0] = sig[:-1] + b"\x00"  # hash type 0 is fine without STRICTENC
        self.reject(self.block([bad2]), SCRIPT_FAIL % EVAL_FALSE)
        bad3 = tx.copy()
        bad3.vin[0].witness[0] = sig[:5] + b"\x00" + sig[6:]  # not DER any more (BIP66)
        self.reject(self.block([bad3]), SCRIPT_FAIL % "Non-canonical DER signature")
        wrong_amount = Tx([TxIn(cw.outpoint)], [TxOut(cw.value, SCRIPT_TRUE)])
        sign_p2wpkh(wrong_amount, 0, key_w, cw.value + 1)  # BIP143 commits to the amount
        self.reject(self.block([wrong_amount]), SCRIPT_FAIL % EVAL_FALSE)
        self.accept(self.block([tx]))

        self.log("Schnorr (P2TR key path): a flipped signature byte fails, the real one passes")
        tx = Tx([TxIn(ct.outpoint)], [TxOut(ct.value, SCRIPT_TRUE)])
        sign_p2tr_keypath(tx, 0, key_t, [ct.txout()])
        sig = tx.vin[0].witness[0]
        for pos in (0, 40, 63):
            bad = tx.copy()
            s = bytearray(sig)
            s[pos] ^= 0x80
            bad.vin[0].witness[0] = bytes(s)
            self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature")
        bad = tx.copy()
        bad.vin[0].witness[0] = sig + b"\x00"  # explicit SIGHASH_DEFAULT byte is invalid
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature hashtype")
        bad = tx.copy()
        bad.vin[0].witness[0] = sig[:63]
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature size")
        self.accept(self.block([tx]))

    def test_invalid_parent(self):
        self.log("bad-prevblk: a child of an invalid block; the invalid block stays out")
        c = self.take_coin()
        bad = self.block([spend_tx([c], [(c.value + 1, SCRIPT_TRUE)])])
        self.reject(bad, "bad-txns-in-belowout")
        self.cb.add(bad)
        child = self.cb.create_block(bad.sha, [])
        self.reject(child, "bad-prevblk", again=None)
        tips = self.node.rpc("getchaintips")
        st = {t["hash"]: t["status"] for t in tips}
        assert_equal(st.get(bad.hash), "invalid")
        assert_equal(self.node.rpc("getblockheader", bad.hash)["confirmations"], -1)
        self.accept(self.block([spend_tx([c])]))


if __name__ == "__main__":
    BlockValidityTest().main()
