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
overspend, immature coinbase spend, bad ECDSA (P2WPKH) and Schnorr (P2TR key path, with and
without annex; tapscript script path) signatures, other script failures (NULLDUMMY, witness
program mismatch, unexpected witness, malleated scriptSigs, tapscript MINIMALIF and
CHECKMULTISIG), policy-only rules that must NOT reject a block (high S, uncompressed segwit
keys, NULLFAIL, MINIMALDATA, NOPs, OP_CODESEPARATOR, unknown tapscript key types, unknown
witness versions, OP_SUCCESS), a child of an invalid block, unknown parents, undecodable
blocks. Finally a restart keeps tip and UTXO hash.

Answers that differ from Core's but do not change which blocks are valid (a second
submission's answer, submitblock's decoding and coinbase fix-up) are collected and reported
at the end, after every other check has run.
"""

import time

from blocktools import (COIN, G, MAX_BLOCK_WEIGHT, N, NULL_OUTPOINT, OP_0,
                        OP_CHECKLOCKTIMEVERIFY, OP_CHECKMULTISIG, OP_CHECKSEQUENCEVERIFY,
                        OP_CHECKSIG, OP_DROP, OP_ENDIF, OP_IF, OP_TRUE, OP_VERIFY, P2SH_TRUE,
                        P2WSH_TRUE, SCRIPT_TRUE, SIGHASH_SINGLE, ChainBuilder, Coin, Key,
                        OutPoint, Tx, TxIn, TxOut, anyone_can_spend_input, block_subsidy,
                        create_coinbase, ecdsa_sign, p2pkh_script, p2sh_script, p2tr_script,
                        p2wpkh_script, p2wsh_script, push_data, push_int, schnorr_sign, script,
                        ser_compact_size, sighash_taproot, sign_p2pkh, sign_p2tr_keypath,
                        sign_p2wpkh, spend_tx, tapleaf_hash, taproot_output, taproot_tweak,
                        taproot_tweak_seckey, xonly)
from framework import (BitnodeTestFramework, JSONRPCError, assert_equal,
                       assert_raises_rpc_error, assert_true, wait_until)

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
        answers `again` (a different answer is collected for the report at the end)."""
        before = self.state()
        assert_equal(self.submit(block), reason)
        assert_equal(self.state(), before)
        self.rejections.append((block.hash, reason))
        if again is not None:
            self.expect_core(self.submit(block), again,
                             "second submission of a block rejected with %s" % reason)
            assert_equal(self.state(), before)
        self.rejected += 1

    def reject_checkblock(self, block, reason):
        """A CheckBlock failure: Core never marks such a block invalid (ProcessNewBlock runs
        CheckBlock before storing the header: "protective against consensus failure if there
        are any unknown forms of block malleability"), so a second submission is checked
        again and answers the same reason."""
        self.reject(block, reason, again=reason)

    def expect_core(self, got, want, what):
        """An answer that differs from Core's outside the block's own verdict: collected and
        raised at the end, so every other check still runs."""
        if got != want:
            msg = "%s: node answered %r, Core answers %r" % (what, got, want)
            if msg not in self.mismatches:
                self.mismatches.append(msg)

    def accept(self, block):
        """block must become the new tip (submitblock null)."""
        assert_equal(self.submit(block), None)
        assert_equal(self.node.rpc("getbestblockhash"), block.hash)
        return self.record(block)

    def record(self, block):
        """Remembers block as the new tip (its coinbase output joins the coins)."""
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
        self.mismatches = []
        self.rejections = []  # (hash, reason): each must have a debug.log line naming both
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
        self.test_more_scripts()
        self.test_policy_rules_are_not_consensus()
        self.test_invalid_parent()
        self.test_decoding()

        self.log("Restart: the same tip and UTXO hash")
        before = self.state()
        height = self.node.rpc("getblockcount")
        self.node.stop()
        self.node.start()
        assert_equal(self.state(), before)
        for opt in ("-reindex-chainstate", "-reindex"):
            self.log("%s replays the stored blocks, invalid ones included: the same tip and "
                     "UTXO hash" % opt)
            self.node.stop()
            self.node.start([opt])
            wait_until(lambda: self.node.rpc("getblockcount") >= height and
                       self.state() == before, timeout=60, what="tip %s again" % before[0])
        self.node.stop()
        self.node.start()
        assert_equal(self.state(), before)
        self.log("%d invalid blocks rejected, %d valid blocks accepted" %
                 (self.rejected, self.accepted))
        self.log("every rejected block has a debug.log line with Core's reject reason")
        with open(self.node.debug_log, errors="replace") as f:
            lines = [line for line in f if "FAILED (" in line or "ConnectBlock " in line]
        missing = [(h, r) for h, r in self.rejections
                   if not any(h in line and r in line for line in lines)]
        assert_equal(missing, [])
        if self.mismatches:
            raise AssertionError("%d answers differ from Core's:\n  - %s" %
                                 (len(self.mismatches), "\n  - ".join(self.mismatches)))

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
        self.node.rpc("logging", ["validation"])
        b3 = self.block(version=3)
        self.reject(b3, "bad-version(0x00000003)", again="bad-version(0x00000003)")
        # Core's AcceptBlockHeader line (-debug=validation), which Core's feature_cltv.py and
        # feature_dersig.py wait for.
        line = "Consensus::ContextualCheckBlockHeader: %s, bad-version(0x00000003)" % b3.hash
        wait_until(lambda: line in open(self.node.debug_log, errors="replace").read(),
                   timeout=10, what="Core's header line")
        self.node.rpc("logging", [], ["validation"])
        self.reject(self.block(version=1), "bad-version(0x00000001)",
                    again="bad-version(0x00000001)")
        self.reject(self.block(version=-1), "bad-version(0xffffffff)",
                    again="bad-version(0xffffffff)")
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
        self.log("bad-cb-missing: a block without a coinbase first is validation's verdict "
                 "(Core v31.99's submitblock no longer refuses it itself)")
        tx = spend_tx([self.take_coin()])
        b = self.block([tx], solve=False)
        b.txs = [tx]
        b.solve()
        self.reject(b, "bad-cb-missing", again="bad-cb-missing")  # CheckBlock: not stored

        self.log("bad-cb-multiple: a second coinbase")
        b = self.block([tx, create_coinbase(self.next_height(), 0, tag=b"second")])
        self.reject_checkblock(b, "bad-cb-multiple")
        self.accept(self.block([tx]))

        self.log("bad-cb-length: a 101-byte coinbase scriptSig; 100 bytes is accepted")
        h = self.next_height()
        cb = create_coinbase(h, block_subsidy(h))
        pad = next(k for k in range(100) if len(push_int(h) + push_data(b"x" * k)) == 99)
        cb.vin[0].script_sig = push_int(h) + push_data(b"x" * pad) + b"\x51"
        assert_equal(len(cb.vin[0].script_sig), 100)
        long_cb = cb.copy()
        long_cb.vin[0].script_sig += b"\x51"
        self.reject_checkblock(self.block(coinbase=long_cb), "bad-cb-length")
        short_cb = cb.copy()
        short_cb.vin[0].script_sig = b"\x51"
        self.reject_checkblock(self.block(coinbase=short_cb), "bad-cb-length")
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
        num = push_int(h)[1:]
        nonmin.vin[0].script_sig = bytes([0x4C, len(num)]) + num + push_data(b"x")
        self.reject(self.block(coinbase=nonmin), "bad-cb-height")
        if h >= 128:  # CScriptNum needs a sign byte: 02 xx 00; 01 xx is another number
            nosign = create_coinbase(h, block_subsidy(h))
            nosign.vin[0].script_sig = bytes([1, h & 0xFF]) + push_data(b"x")
            self.reject(self.block(coinbase=nosign), "bad-cb-height")
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

        self.log("the subsidy halves at height 150 (regtest); paying less is fine")
        while self.next_height() < 149:
            self.accept(self.block(coinbase_value=0 if self.next_height() == 148 else None))
        assert_equal(self.next_height(), 149)
        self.accept(self.block(coinbase_value=50 * COIN))  # height 149
        self.reject(self.block(coinbase_value=25 * COIN + 1), "bad-cb-amount")
        self.reject(self.block(coinbase_value=50 * COIN), "bad-cb-amount")
        self.accept(self.block(coinbase_value=25 * COIN))  # height 150

    def test_tx_context_free(self):
        c = self.take_coin()

        def with_tx(tx, reason):
            self.reject_checkblock(self.block([tx]), reason)

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
        self.reject_checkblock(b, "bad-blk-length")
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
        self.reject_checkblock(self.block([sigop_tx(c, 20_001)]), "bad-blk-sigops")
        self.accept(self.block([sigop_tx(c, 20_000)]))

        self.log("bad-blk-sigops (legacy count): CHECKSIGs in a scriptSig count too")
        c1, c2 = self.take_coin(), self.take_coin()

        def sigsig_blk(n):
            a = spend_tx([c1], [(c1.value, bytes([OP_CHECKSIG]) * 19_999)])
            b = Tx([TxIn(c2.outpoint, script(OP_0, OP_IF, bytes([OP_CHECKSIG]) * n, OP_ENDIF))],
                   [TxOut(c2.value, SCRIPT_TRUE)])
            return self.block([a, b])
        self.reject_checkblock(sigsig_blk(2), "bad-blk-sigops")
        self.accept(sigsig_blk(1))

        self.log("bad-blk-sigops (legacy count): the coinbase scriptSig counts too")
        c = self.take_coin()

        def cb_sig_blk(n):
            h = self.next_height()
            cb = create_coinbase(h, block_subsidy(h))
            cb.vin[0].script_sig += bytes([OP_CHECKSIG]) * n
            return self.block([sigop_tx(c, 19_999)], coinbase=cb)
        self.reject_checkblock(cb_sig_blk(2), "bad-blk-sigops")
        self.accept(cb_sig_blk(1))

        self.log("bad-blk-sigops (legacy count): OP_CHECKMULTISIG counts 20")
        c = self.take_coin()

        def multisig_tx(coin, extra):
            return spend_tx([coin], [(coin.value, bytes([OP_CHECKMULTISIG]) * 1000 +
                                      bytes([OP_CHECKSIG]) * extra)])
        self.reject_checkblock(self.block([multisig_tx(c, 1)]), "bad-blk-sigops")
        self.accept(self.block([multisig_tx(c, 0)]))

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

        self.log("bad-blk-sigops (P2SH-P2WSH multisig counted by its OP_n)")
        ws8 = script(OP_0, OP_IF, 0x58, OP_CHECKMULTISIG, OP_ENDIF, OP_TRUE)
        ws9 = script(OP_0, OP_IF, 0x59, OP_CHECKMULTISIG, OP_ENDIF, OP_TRUE)
        n8, n9 = self.fund([p2sh_script(p2wsh_script(ws8)), p2sh_script(p2wsh_script(ws9))])
        c = self.take_coin()

        def blk2(coin, ws):
            legacy = spend_tx([c], [(c.value, bytes([OP_CHECKSIG]) * 19_998)])
            tx = Tx([TxIn(coin.outpoint, push_data(p2wsh_script(ws)), witness=[ws])],
                    [TxOut(coin.value, SCRIPT_TRUE)])
            return self.block([legacy, tx])
        self.reject(blk2(n9, ws9), "bad-blk-sigops")  # 79,992 + 9
        self.accept(blk2(n8, ws8))  # 79,992 + 8

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

        self.log("bad-txns-nonfinal: BIP68 time lock (2 x 512 s) one second short")
        c = self.take_coin()
        coin_time = self.cb.mtp(self.cb.ancestor(self.tip, c.height - 1))
        base = coin_time + 1024 - 1 - 5
        assert_true(base > self.cb.blocks[self.tip][1], "times still ahead")
        for i in range(11):
            self.accept(self.block(time=base + i))
        assert_equal(self.cb.mtp(self.tip), coin_time + 1023)
        seq = (1 << 22) | 2
        self.reject(self.block([spend_tx([c], sequence=seq)]), "bad-txns-nonfinal")
        # The disable flag turns the lock off.
        self.accept(self.block([spend_tx([c], sequence=seq | (1 << 31))], time=base + 11))
        c = self.take_coin()
        coin_time = self.cb.mtp(self.cb.ancestor(self.tip, c.height - 1))
        v = (self.cb.mtp(self.tip) - coin_time) // 512
        self.reject(self.block([spend_tx([c], sequence=(1 << 22) | (v + 1))]),
                    "bad-txns-nonfinal")
        self.accept(self.block([spend_tx([c], sequence=(1 << 22) | v)]))

        self.log("bad-txns-nonfinal: a coinbase with nLockTime = height (sequence 0)")
        h = self.next_height()
        cb = create_coinbase(h, block_subsidy(h))
        cb.locktime, cb.vin[0].sequence = h, 0
        self.reject(self.block(coinbase=cb), "bad-txns-nonfinal")
        cb = create_coinbase(h, block_subsidy(h))
        cb.locktime, cb.vin[0].sequence = h - 1, 0
        self.accept(self.block(coinbase=cb))

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

        self.log("CLTV / CSV: negative lock, lock kinds that differ, CSV disable flags")
        cltv_time = script(push_int(500_000_001), OP_CHECKLOCKTIMEVERIFY, OP_DROP, OP_TRUE)
        cltv_neg = script(push_int(-1), OP_CHECKLOCKTIMEVERIFY, OP_DROP, OP_TRUE)
        csv_ws = csv_wscript
        csv_off = script(push_int(1 << 31), OP_CHECKSEQUENCEVERIFY, OP_DROP, OP_TRUE)
        ct, cn, cs1, cs2 = self.fund([cltv_time, cltv_neg, p2wsh_script(csv_ws),
                                      p2wsh_script(csv_off)])
        for _ in range(10):
            self.accept(self.block())
        self.reject(self.block([cltv_spend(ct, self.next_height() - 1)]), fail)
        self.reject(self.block([cltv_spend(cn, 0)]), SCRIPT_FAIL % "Negative locktime")
        self.reject(self.block([csv_spend(cs1, 1 << 22)]), fail)  # time kind vs height kind
        self.reject(self.block([csv_spend(cs1, (1 << 31) | 10)]), fail)  # input lock off
        self.accept(self.block([
            cltv_spend(ct, self.cb.mtp(self.tip) - 1),
            csv_spend(cs1, 10),
            # A CSV argument with the disable flag is a NOP, even for version 1 and final
            # sequences.
            Tx([TxIn(cs2.outpoint, b"", 0xFFFFFFFF, [csv_off])], [TxOut(cs2.value, SCRIPT_TRUE)],
               version=1)]))

    def test_witness_commitment(self):
        wscript = script(push_data(b"abc"), OP_DROP, OP_TRUE)
        coins = self.fund([p2wsh_script(wscript)] * 3)

        def wtx(coin):
            return Tx([TxIn(coin.outpoint, b"", witness=[wscript])],
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

        self.log("unexpected-witness: a coinbase witness without a commitment")
        b = self.block(witness=False, solve=False)
        b.txs[0].vin[0].witness = [bytes(32)]
        self.reject(b.solve(), "unexpected-witness", again="unexpected-witness")

        self.log("a witness-stripped segwit block: bad-witness-merkle-match, then the full "
                 "block (same hash) is accepted")
        # Core's submitblock first gives a coinbase without witness the 32 zero bytes
        # (UpdateUncommittedBlockStructures), so the stripped block fails on the commitment.
        full = self.block([wtx(coins[2])])
        before = self.state()
        stripped = full.serialize(False).hex()
        for _ in range(2):
            got = self.node.rpc("submitblock", stripped)
            assert_true(got in ("bad-witness-merkle-match", "bad-witness-nonce-size"), got)
            self.expect_core(got, "bad-witness-merkle-match", "a witness-stripped segwit block")
            assert_equal(self.state(), before)
        self.rejected += 1
        self.accept(full)

        self.log("a commitment and a coinbase without witness: submitblock adds the reserved "
                 "value (as getblocktemplate miners rely on)")
        b = self.block(witness=True, solve=False)
        b.txs[0].vin[0].witness = []
        b.solve()
        before = self.state()
        got = self.node.rpc("submitblock", b.hex())
        self.expect_core(got, None, "a block with a commitment and no coinbase witness")
        if got is None:
            self.record(b)
            # Stored with the reserved value filled in, as Core.
            b.txs[0].vin[0].witness = [bytes(32)]
            assert_equal(self.node.rpc("getblock", b.hash, 0), b.hex())
        else:
            assert_equal(self.state(), before)

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
        self.log("a commitment without any witness transaction must still match")
        b = self.block(witness=True, solve=False)
        commit = b.txs[0].vout[-1].script_pubkey
        b.txs[0].vout[-1].script_pubkey = commit[:-1] + bytes([commit[-1] ^ 1])
        self.reject(b.solve(), "bad-witness-merkle-match", again="bad-witness-merkle-match")
        self.accept(self.block(witness=True))

        self.log("two commitment outputs: the last one counts")
        good = self.block([wtx(coins[1])])
        right = good.txs[0].vout[-1]
        wrong = TxOut(0, right.script_pubkey[:-1] + bytes([right.script_pubkey[-1] ^ 1]))
        b = self.block([wtx(coins[1])], solve=False)
        b.txs[0].vout = b.txs[0].vout[:-1] + [right, wrong]
        self.reject(b.solve(), "bad-witness-merkle-match", again="bad-witness-merkle-match")
        b.txs[0].vout = b.txs[0].vout[:-2] + [wrong, right]
        self.accept(b.solve())

    def test_inputs(self):
        self.log("bad-txns-inputs-missingorspent: an output that never existed")
        c = self.take_coin()
        ghost = Coin(OutPoint(bytes(range(32)), 0), c.value, SCRIPT_TRUE)
        self.reject(self.block([spend_tx([ghost])]), "bad-txns-inputs-missingorspent")
        self.reject(self.block([spend_tx([Coin(OutPoint(c.outpoint.txid, 1), c.value,
                                               SCRIPT_TRUE)])]),
                    "bad-txns-inputs-missingorspent")

        self.log("bad-txns-inputs-missingorspent: the genesis coinbase is not spendable")
        gen = self.node.rpc("getblock", self.node.rpc("getblockhash", 0), 2)["tx"][0]
        gen_coin = Coin(OutPoint(bytes.fromhex(gen["txid"])[::-1], 0), 50 * COIN,
                        bytes.fromhex(gen["vout"][0]["scriptPubKey"]["hex"]))
        tx = Tx([TxIn(gen_coin.outpoint)], [TxOut(COIN, SCRIPT_TRUE)])
        self.reject(self.block([tx]), "bad-txns-inputs-missingorspent")

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
        bad3.vin[0].witness[0] = b"\x31" + sig[1:]  # not DER any more (BIP66)
        self.reject(self.block([bad3]), SCRIPT_FAIL % "Non-canonical DER signature")
        wrong_amount = Tx([TxIn(cw.outpoint)], [TxOut(cw.value, SCRIPT_TRUE)])
        sign_p2wpkh(wrong_amount, 0, key_w, cw.value + 1)  # BIP143 commits to the amount
        self.reject(self.block([wrong_amount]), SCRIPT_FAIL % EVAL_FALSE)
        self.accept(self.block([tx]))

        self.log("legacy P2PKH: SIGHASH_ALL, and SIGHASH_SINGLE without a matching output "
                 "(signs the number 1)")
        key_l = Key(0x8888 * 17)
        l1, l2 = self.fund([p2pkh_script(key_l.pubkey)] * 2)
        tx = Tx([TxIn(l1.outpoint), TxIn(l2.outpoint)], [TxOut(l1.value + l2.value, SCRIPT_TRUE)])
        sign_p2pkh(tx, 0, key_l)
        sign_p2pkh(tx, 1, key_l, SIGHASH_SINGLE)
        for n in (0, 1):
            bad = tx.copy()
            sig_push = bytearray(bad.vin[n].script_sig)
            sig_push[12] ^= 1  # inside r
            bad.vin[n].script_sig = bytes(sig_push)
            self.reject(self.block([bad]), SCRIPT_FAIL % EVAL_FALSE)
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
        annex = b"\x50annex"
        with_annex = tx.copy()
        sk = taproot_tweak_seckey(key_t.d)
        asig = schnorr_sign(sk, sighash_taproot(with_annex, 0, [ct.txout()], annex=annex))
        with_annex.vin[0].witness = [asig, annex]
        bad = with_annex.copy()
        bad.vin[0].witness = [asig, b"\x50other"]  # the annex is signed
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature")
        bad = with_annex.copy()
        bad.vin[0].witness = [sig, annex]  # a signature made without the annex
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature")
        bad = tx.copy()
        bad.vin[0].witness[0] = sig + b"\x00"  # explicit SIGHASH_DEFAULT byte is invalid
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature hash type")
        bad = tx.copy()
        bad.vin[0].witness[0] = sig[:63]
        self.reject(self.block([bad]), SCRIPT_FAIL % "Invalid Schnorr signature size")
        self.accept(self.block([with_annex]))

    def check_spends(self, bad, good):
        """Each (tx, script error) of bad is rejected alone in a block; then good (a list of
        txs) is accepted."""
        for tx, err in bad:
            self.reject(self.block([tx]), SCRIPT_FAIL % err)
        self.accept(self.block(good))

    def test_more_scripts(self):
        key = Key(0x3333 * 1299709)
        inner = Key(0x4444 * 15485863).pt
        leaf_sig = push_data(xonly(key.pt)) + bytes([OP_CHECKSIG])
        leaf_if = script(OP_IF, OP_TRUE, OP_ENDIF)
        leaf_success = bytes([0x50])  # OP_SUCCESS80 in tapscript, OP_RESERVED elsewhere
        spk1, ctl1 = taproot_output(inner, [leaf_sig, leaf_if])
        spk2, ctl2 = taproot_output(inner, [leaf_success])
        nulldummy = script(OP_0, OP_0, OP_CHECKMULTISIG)
        p2sh_p2wsh = p2sh_script(P2WSH_TRUE)
        v2 = bytes([0x52, 32]) + bytes(range(32))
        coins = self.fund([spk1, spk1, spk2, nulldummy, SCRIPT_TRUE, P2WSH_TRUE, p2sh_p2wsh,
                           v2, p2wsh_script(leaf_success), P2SH_TRUE])
        t_sig, t_if, t_succ, nd, bare, wsh, shwsh, v2c, wsh_res, sh = coins

        def one(coin, script_sig=b"", witness=None, sequence=0xFFFFFFFF):
            return Tx([TxIn(coin.outpoint, script_sig, sequence, witness)],
                      [TxOut(coin.value, SCRIPT_TRUE)])

        self.log("tapscript OP_CHECKSIG (script path, two-leaf tree): bad signature, empty "
                 "signature, wrong control block")
        tx = one(t_sig)
        msg = sighash_taproot(tx, 0, [t_sig.txout()], leaf_hash=tapleaf_hash(leaf_sig))
        sig = schnorr_sign(key.d, msg)
        tx.vin[0].witness = [sig, leaf_sig, ctl1[0]]
        flipped = bytearray(sig)
        flipped[5] ^= 1
        bad_ctl = bytearray(ctl1[0])
        bad_ctl[-1] ^= 1
        self.check_spends([
            (one(t_sig, witness=[bytes(flipped), leaf_sig, ctl1[0]]),
             "Invalid Schnorr signature"),
            (one(t_sig, witness=[b"", leaf_sig, ctl1[0]]), EVAL_FALSE),
            (one(t_sig, witness=[sig, leaf_sig, bytes(bad_ctl)]),
             "Witness program hash mismatch"),
            (one(t_sig, witness=[sig, leaf_sig, ctl1[0] + b"\x00"]),
             "Invalid Taproot control block size"),
            (one(t_sig, witness=[sig, leaf_sig, ctl1[1]]), "Witness program hash mismatch"),
        ], [tx])

        self.log("tapscript MINIMALIF is consensus; OP_SUCCESS makes a leaf valid")
        self.check_spends([
            (one(t_if, witness=[b"\x02", leaf_if, ctl1[1]]),
             "OP_IF/NOTIF argument must be minimal in tapscript"),
            (one(wsh_res, witness=[leaf_success]), "Opcode missing or not understood"),
        ], [one(t_if, witness=[b"\x01", leaf_if, ctl1[1]]),
            one(t_succ, witness=[leaf_success, ctl2[0]])])

        self.log("NULLDUMMY, unexpected witness, witness program mismatch / empty, "
                 "witness cleanstack, malleated scriptSigs")
        self.check_spends([
            (one(nd, script_sig=bytes([OP_TRUE])), "Dummy CHECKMULTISIG argument must be zero"),
            (one(bare, witness=[b"\x01"]), "Witness provided for non-witness script"),
            (one(wsh, witness=[bytes([0x52])]), "Witness program hash mismatch"),
            (one(wsh, witness=[]), "Witness program was passed an empty witness"),
            (one(wsh, witness=[b"\x01", SCRIPT_TRUE]),
             "Stack size must be exactly one after execution"),
            (one(wsh, script_sig=bytes([OP_0]), witness=[SCRIPT_TRUE]),
             "Witness requires empty scriptSig"),
            (one(shwsh, script_sig=bytes([OP_0]) + push_data(P2WSH_TRUE),
                 witness=[SCRIPT_TRUE]), "Witness requires only-redeemscript scriptSig"),
            (one(sh, script_sig=push_data(bytes([0x52]))), EVAL_FALSE),
            (one(sh, script_sig=bytes([0x61]) + push_data(SCRIPT_TRUE)),  # OP_NOP first
             "Only push operators allowed in signatures"),
        ], [one(nd, script_sig=bytes([OP_0])), one(bare), one(wsh, witness=[SCRIPT_TRUE]),
            one(shwsh, script_sig=push_data(P2WSH_TRUE), witness=[SCRIPT_TRUE]),
            one(v2c), one(sh, script_sig=push_data(SCRIPT_TRUE))])

        self.log("tapscript validation weight: each signature check costs 50 of the budget "
                 "(50 + witness size)")
        unknown_key = push_data(b"\x02" * 33)  # an unknown key type: any non-empty sig passes
        check = script(0x76, unknown_key, OP_CHECKSIG, OP_VERIFY)  # DUP <key> CHECKSIG VERIFY

        def budget_leaf(k):
            return check * k + unknown_key + bytes([OP_CHECKSIG])
        spk3, ctl3 = taproot_output(inner, [budget_leaf(10), budget_leaf(1)])
        # Non-zero programs: the program push itself must leave a true stack top first.
        wv0_21 = bytes([0x00, 21]) + bytes(range(1, 22))
        wv1_20 = bytes([0x51, 20]) + bytes(range(1, 21))
        p2sh_v1 = p2sh_script(bytes([0x51, 32]) + bytes(range(32)))
        key_w = Key(0x7777 * 13)
        coins = self.fund([spk3, spk3, wv0_21, wv1_20, p2sh_v1, key_w.p2wpkh])
        b10, b1, w21, w20, shv1, pk = coins
        tx_pk = one(pk)
        sign_p2wpkh(tx_pk, 0, key_w, pk.value)
        self.check_spends([
            (one(b10, witness=[b"\x01", budget_leaf(10), ctl3[0]]),
             "Too much signature validation relative to witness weight"),
            (one(w21, witness=[b"\x01"]), "Witness program has incorrect length"),
            (one(pk, witness=tx_pk.vin[0].witness + [b""]), "Witness program hash mismatch"),
        ], [one(b1, witness=[b"\x01", budget_leaf(1), ctl3[1]]),
            # Witness v1 that is not 32 bytes, and v1 inside P2SH, are not taproot: unknown
            # witness programs, valid.
            one(w20), one(shv1, script_sig=push_data(bytes([0x51, 32]) + bytes(range(32)))),
            tx_pk])

    def test_decoding(self):
        self.log("submitblock decoding: Core's DecodeHexBlk answers")
        c = self.take_coin()
        tx = spend_tx([c])
        b = self.block([tx])
        raw = tx.serialize(False)
        head = b.header() + ser_compact_size(2) + b.txs[0].serialize()
        before = self.state()
        # A witness flag with every witness empty ("Superfluous witness record").
        superfluous = raw[:4] + b"\x00\x01" + raw[4:-4] + b"\x00" + raw[-4:]
        unknown_flag = raw[:4] + b"\x00\x02" + raw[4:]
        noncanonical = b.header() + b"\xfd\x02\x00" + b"".join(t.serialize() for t in b.txs)
        for what, hx in (("superfluous witness", (head + superfluous).hex()),
                         ("unknown flag", (head + unknown_flag).hex()),
                         ("non-canonical tx count", noncanonical.hex()),
                         ("truncated", b.hex()[:-2]), ("odd hex", b.hex()[:-1]),
                         ("not hex", "zz" + b.hex()[2:])):
            assert_raises_rpc_error(-22, "Block decode failed", self.node.rpc, "submitblock",
                                    hx)
        assert_equal(self.state(), before)
        self.log("prev-blk-not-found: an unknown parent")
        orphan = self.block(solve=False)
        orphan.prev = bytes(range(32))
        assert_equal(self.submit(orphan.solve()), "prev-blk-not-found")
        assert_equal(self.state(), before)
        self.log("trailing bytes after the last transaction are ignored (Core's DecodeHexBlk "
                 "does not check for them)")
        try:
            got = self.node.rpc("submitblock", b.hex() + "00")
        except JSONRPCError as e:
            got = "RPC error %s %s" % (e.code, e.message)
        if got is not None:
            self.mismatches.append("a valid block with one trailing byte: submitblock "
                                   "answered %r, Core answers null (accepted)" % got)
        if self.node.rpc("getbestblockhash") != b.hash:
            self.accept(b)
        else:
            self.record(b)

    def test_policy_rules_are_not_consensus(self):
        self.log("policy-only rules do not apply in blocks: high S, uncompressed key in "
                 "segwit, NULLFAIL, MINIMALDATA, legacy CLEANSTACK, upgradable NOPs, "
                 "OP_CODESEPARATOR, unknown tapscript key types, hash type 0x00 ECDSA")
        key = Key(0x5555 * 7)
        inner = Key(0x6666 * 11).pt
        nullfail_ws = push_data(key.pubkey) + bytes([OP_CHECKSIG, 0x91])  # CHECKSIG NOT
        leaf_newkey = push_data(b"\x02" * 33) + bytes([OP_CHECKSIG])
        leaf_cms = script(OP_0, OP_0, OP_CHECKMULTISIG)
        spk_t, ctl_t = taproot_output(inner, [leaf_newkey, leaf_cms])
        nops = bytes([0xB0, 0xB3, 0xB9, OP_TRUE])  # OP_NOP1, OP_NOP4, OP_NOP10
        codesep = bytes([0xAB, OP_TRUE])  # OP_CODESEPARATOR
        coins = self.fund([key.p2wpkh, p2wpkh_script(key.pubkey_uncompressed),
                           p2wsh_script(nullfail_ws), SCRIPT_TRUE, nops, codesep, spk_t,
                           spk_t])
        hi_s, unc, nf, bare, nop, cs, t1, t2 = coins

        def one(coin, script_sig=b"", witness=None):
            return Tx([TxIn(coin.outpoint, script_sig, 0xFFFFFFFF, witness)],
                      [TxOut(coin.value, SCRIPT_TRUE)])
        tx_hi = one(hi_s)
        sign_p2wpkh(tx_hi, 0, key, hi_s.value, low_s=False)
        r_len = tx_hi.vin[0].witness[0][3]
        s_val = int.from_bytes(tx_hi.vin[0].witness[0][6 + r_len:-1], "big")
        assert_true(s_val > N // 2, "high S")
        tx_unc = one(unc)
        sign_p2wpkh(tx_unc, 0, key, unc.value, pubkey=key.pubkey_uncompressed)
        bad_sig = bytearray(ecdsa_sign(key.d, bytes(32)) + b"\x01")
        tx_nf = one(nf, witness=[bytes(bad_sig), nullfail_ws])
        self.reject(self.block([one(t2, witness=[b"", leaf_cms, ctl_t[1]])]),
                    SCRIPT_FAIL % "OP_CHECKMULTISIG(VERIFY) is not available in tapscript")
        self.accept(self.block([
            tx_hi, tx_unc, tx_nf,
            one(bare, script_sig=bytes([0x4C, 1, 5, 0x4D, 1, 0, 7])),  # non-minimal pushes
            one(nop), one(cs),
            one(t1, witness=[b"\x01", leaf_newkey, ctl_t[0]]),
        ]))

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
