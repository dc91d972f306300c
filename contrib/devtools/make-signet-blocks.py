#!/usr/bin/env python3
"""Makes the custom-signet blocks of test/data/signet-custom/blocks.json (BIP325).

    contrib/devtools/make-signet-blocks.py                 # mine, check, write blocks.json
    contrib/devtools/make-signet-blocks.py --verify-only   # check the blocks.json on disk

Not run by CI (mining takes a minute or two of CPU): its output is committed, and
test/functional/feature_signet.py feeds it to the node.

The signet is the test's own: the challenge is a 1-of-1 bare multisig,
`OP_1 <KEY pubkey> OP_1 OP_CHECKMULTISIG`, the shape of the default signet's 1-of-2, with a
fixed private key derived below (a test key, public; never use it for anything else). The
chain is Core's signet with -signetchallenge=<challenge>: the default signet's genesis
block, bits 0x1e0377ae, a message start of sha256d(compact_size(len) || challenge)[:4].

Every block is coinbase only (a BIP34 height, one output to OP_TRUE and the BIP141 witness
commitment `6a24aa21a9ed<32>`, the coinbase witness holding the 32-byte reserved value) and
has valid proof of work at bits 0x1e0377ae (the nonce is ground here, ~4.8M double-SHA256 per
block on average). The signet solution is made as Core's contrib/signet/miner makes it:

  1. modified coinbase: the commitment output's script + push(ecc7daa2) (SIGNET_HEADER);
  2. modified merkle root: the block's merkle root with that coinbase;
  3. to_spend: version 0, locktime 0, one input (null prevout, scriptSig
     OP_0 push(version_le32 || prev_hash || modified_merkle || time_le32), sequence 0), one
     output (0, challenge); to_sign: version 0, locktime 0, one input (to_spend:0, sequence
     0), one output (0, OP_RETURN);
  4. the solution is ser_string(scriptSig) || witness stack (compact size count, items) of
     to_sign's input (here scriptSig OP_0 push(DER signature || SIGHASH_ALL), no witness),
     signed with the legacy signature hash of to_sign with the challenge as script code;
  5. the commitment output's script gets push(ecc7daa2 || solution) appended, then the real
     merkle root is set and the nonce ground (the signature does not commit to the nonce).

Core checks it in CheckBlock (validation.cpp): CheckSignetBlockSolution (signet.cpp) with
flags P2SH | WITNESS | DERSIG | NULLDUMMY, else "bad-signet-blksig" ("signet block signature
validation failure"). This script re-checks every block it writes with its own
implementation of that check (parse the block bytes, find and clear the solution as
FetchAndClearCommitmentSection does, rebuild the virtual transactions, run the challenge with
a small script interpreter) and asserts that each bad block fails for the reason it was made
for. It also runs that check on Core's real default-signet blocks 1..10 (from Core's
test/functional/feature_signet.py), which must pass under the default challenge.
"""

import argparse
import hashlib
import json
import os
import struct
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "functional"))

import blocktools as bt  # noqa: E402

OUT_DIR = os.path.join(ROOT, "test", "data", "signet-custom")
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(ROOT, "..", "shared")
SIGNET_HEADERS = os.path.join(SHARED, "data", "signet-headers-0-2015", "headers-signet-0-2015.bin")

SIGNET_HEADER = bytes.fromhex("ecc7daa2")
GENESIS_HASH = "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"
GENESIS_TIME = 1598918400
SIGNET_BITS = 0x1E0377AE
DEFAULT_CHALLENGE = bytes.fromhex(
    "512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021"
    "964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae")
OP_TRUE_CHALLENGE = bytes([bt.OP_TRUE])

# The test keys (public: the secret is sha256 of a fixed string).
KEY = bt.Key(int.from_bytes(bt.sha256(b"bitnode signet-custom challenge key"), "big") % bt.N)
OTHER_KEY = bt.Key(int.from_bytes(bt.sha256(b"bitnode signet-custom other key"), "big") % bt.N)
CHALLENGE = bt.script(bt.OP_1, bt.push_data(KEY.pubkey), bt.OP_1, bt.OP_CHECKMULTISIG)

# Core's real default-signet blocks 1..10, copied from Bitcoin Core's
# test/functional/feature_signet.py (commit b88bffe550a3, MIT licence).
# Core's real default-signet blocks 1..10 (test/data/signet-blocks-1-10, from Core's
# feature_signet.py).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data",
                       "signet-blocks-1-10", "blocks.hex")) as _f:
    CORE_DEFAULT_SIGNET_BLOCKS = _f.read().split()


def message_start(challenge):
    return bt.sha256d(bt.ser_string(challenge))[:4]


# ---------------------------------------------------------------------------------------------
# Making blocks (as Core's contrib/signet/miner does)

def new_block(parent_sha, height, tag):
    """A coinbase-only block on parent with the witness commitment, not yet signed or mined."""
    # The signet subsidy: 50 BTC (it halves every 210000 blocks, not at regtest's 150).
    cb = bt.create_coinbase(height, 50 * bt.COIN, bt.SCRIPT_TRUE, tag)
    b = bt.Block(parent_sha, [cb], GENESIS_TIME + 600 * height, SIGNET_BITS)
    b.height = height
    b.add_witness_commitment()
    return b


def commitment_index(block):
    """Core's GetWitnessCommitmentIndex: the last output that is a witness commitment."""
    idx = None
    for i, o in enumerate(block.txs[0].vout):
        s = o.script_pubkey
        if len(s) >= 38 and s[:6] == bt.WITNESS_COMMITMENT_HEADER:
            idx = i
    return idx


def signet_sighash(block, challenge):
    """The legacy SIGHASH_ALL hash of to_sign's input for block (solution not yet added)."""
    mod_cb = block.txs[0].copy()
    mod_cb.vout[commitment_index(block)].script_pubkey += bt.push_data(SIGNET_HEADER)
    mroot = bt.merkle_root([mod_cb.txid] + [t.txid for t in block.txs[1:]])
    data = struct.pack("<i", block.version) + block.prev + mroot + struct.pack("<I", block.time)
    to_spend = bt.Tx([bt.TxIn(bt.NULL_OUTPOINT, bytes([bt.OP_0]) + bt.push_data(data), 0)],
                     [bt.TxOut(0, challenge)], version=0, locktime=0)
    to_sign = bt.Tx([bt.TxIn(bt.OutPoint(to_spend.txid, 0), b"", 0)],
                    [bt.TxOut(0, bytes([bt.OP_RETURN]))], version=0, locktime=0)
    return bt.sighash_legacy(to_sign, 0, challenge, bt.SIGHASH_ALL)


def sign(block, key, low_s=True):
    return bt.ecdsa_sign(key.d, signet_sighash(block, CHALLENGE), low_s) + bytes([bt.SIGHASH_ALL])


def solution(script_sig, witness=()):
    return bt.ser_string(script_sig) + bt.ser_compact_size(len(witness)) + \
        b"".join(bt.ser_string(w) for w in witness)


def attach(block, payload):
    """Appends push(SIGNET_HEADER || payload) to the commitment output (payload None: no push
    at all)."""
    if payload is not None:
        block.txs[0].vout[commitment_index(block)].script_pubkey += \
            bt.push_data(SIGNET_HEADER + payload)
    return block


def mine(block):
    """Sets the merkle root and grinds the nonce until the hash meets the target."""
    block.merkle = block.calc_merkle()
    target = block.target()
    head = block.header()[:76]
    base = hashlib.sha256(head)
    pack = struct.Struct("<I").pack
    sha = hashlib.sha256
    t0 = time.time()
    for nonce in range(1 << 32):
        h = base.copy()
        h.update(pack(nonce))
        d = sha(h.digest()).digest()
        if d[31] == 0 and d[30] == 0 and d[29] == 0 and int.from_bytes(d, "little") <= target:
            block.nonce = nonce
            break
    else:
        raise RuntimeError("no nonce found; change the block time")
    print("  mined %s in %.1fs (nonce %d)" % (block.hash, time.time() - t0, block.nonce),
          flush=True)
    return block


def pad_r(der_sig_with_hashtype):
    """The same signature with a needless 0x00 in front of R (not strict DER: BIP66)."""
    sig, ht = der_sig_with_hashtype[:-1], der_sig_with_hashtype[-1:]
    len_r = sig[3]
    r = sig[4:4 + len_r]
    rest = sig[4 + len_r:]
    body = bytes([0x02, len_r + 1, 0x00]) + r + rest
    return bytes([0x30, len(body)]) + body + ht


def make_blocks():
    """Returns the list of block entries (dicts) in submission order."""
    genesis = bytes.fromhex(GENESIS_HASH)[::-1]
    entries = []

    def add(name, block, expect, why, parent_name, reason=None):
        entries.append({"name": name, "height": block.height, "parent": parent_name,
                        "hash": block.hash, "hex": block.hex(), "expect": expect, "why": why,
                        "reason": reason, "_block": block})
        return block

    def good(parent, height, tag, low_s=True):
        b = new_block(parent, height, tag)
        return mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(sign(b, KEY, low_s)))))

    print("block 1 and 2 (valid)")
    b1 = add("1", good(genesis, 1, b"signet-custom 1"), "valid",
             "correct solution, on the genesis block", "genesis")
    b2 = add("2", good(b1.sha, 2, b"signet-custom 2"), "valid", "correct solution, on block 1",
             "1")

    print("bad blocks on block 2")
    bad = "bad-signet-blksig"

    b = mine(new_block(b2.sha, 3, b"signet-custom 3-no-solution"))
    add("3-no-solution", b, bad, "no SIGNET_HEADER push at all: the solution is empty, and "
        "the challenge run on an empty scriptSig fails (CHECKMULTISIG lacks stack items)",
        "2", "script:INVALID_STACK_OPERATION")

    b = mine(attach(new_block(b2.sha, 3, b"signet-custom 3-header-only"), b""))
    add("3-header-only", b, bad, "a push of exactly ecc7daa2 with nothing after it: Core "
        "counts a header push only if data follows, so the solution is empty as above", "2",
        "script:INVALID_STACK_OPERATION")

    b = new_block(b2.sha, 3, b"signet-custom 3-malformed")
    full = solution(bytes([bt.OP_0]) + bt.push_data(sign(b, KEY)))
    b = mine(attach(b, full[:len(full) // 2]))
    add("3-malformed", b, bad, "the correctly signed solution cut in half: the scriptSig's "
        "length runs past the end of the push, so it does not deserialize", "2", "parse")

    b = new_block(b2.sha, 3, b"signet-custom 3-trailing-data")
    b = mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(sign(b, KEY))) + b"\x00"))
    add("3-trailing-data", b, bad, "a correctly signed solution followed by one extra byte: "
        "Core rejects extraneous data after the witness stack", "2", "extraneous")

    b = new_block(b2.sha, 3, b"signet-custom 3-wrong-key")
    b = mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(sign(b, OTHER_KEY)))))
    add("3-wrong-key", b, bad, "well-formed solution signed (for this block) by a key that is "
        "not in the challenge", "2", "script:EVAL_FALSE")

    b = new_block(b2.sha, 3, b"signet-custom 3-wrong-block")
    other = new_block(b2.sha, 3, b"signet-custom 3-wrong-block (the block signed)")
    b = mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(sign(other, KEY)))))
    add("3-wrong-block", b, bad, "signed by the challenge key, but for another block (a "
        "different coinbase, so a different modified merkle root)", "2", "script:EVAL_FALSE")

    b = new_block(b2.sha, 3, b"signet-custom 3-dummy-not-null")
    b = mine(attach(b, solution(bytes([bt.OP_1]) + bt.push_data(sign(b, KEY)))))
    add("3-dummy-not-null", b, bad, "correct signature, but CHECKMULTISIG's dummy is OP_1: "
        "the signet flags include NULLDUMMY", "2", "script:SIG_NULLDUMMY")

    # A signature whose R has its top bit clear, so that padding it keeps the size at or below
    # 73 bytes and the only defect is the needless zero.
    for i in range(100):
        b = new_block(b2.sha, 3, b"signet-custom 3-not-strict-der %d" % i)
        sig = sign(b, KEY)
        if not sig[4] & 0x80:
            break
    b = mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(pad_r(sig)))))
    add("3-not-strict-der", b, bad, "correct signature with a needless 0x00 before R: the "
        "signet flags include DERSIG (BIP66 strict DER)", "2", "script:SIG_DER")

    b = new_block(b2.sha, 3, b"signet-custom 3-witness-not-empty")
    b = mine(attach(b, solution(bytes([bt.OP_0]) + bt.push_data(sign(b, KEY)), [b"\x01"])))
    add("3-witness-not-empty", b, bad, "correct scriptSig, but a one-item witness stack for a "
        "challenge that is not a witness program: the signet flags include WITNESS", "2",
        "script:WITNESS_UNEXPECTED")

    print("block 3 (valid) and 4 (valid, high-S signature)")
    b3 = add("3", good(b2.sha, 3, b"signet-custom 3"), "valid",
             "correct solution, on block 2, after the bad ones", "2")
    add("4-high-s", good(b3.sha, 4, b"signet-custom 4-high-s", low_s=False), "valid",
        "correct solution with a high-S signature: LOW_S is not among the signet flags", "3")
    return entries


# ---------------------------------------------------------------------------------------------
# Checking blocks: an implementation of Core's CheckSignetBlockSolution from the block bytes

class Reader:
    def __init__(self, b):
        self.b, self.i = b, 0

    def read(self, n):
        if self.i + n > len(self.b):
            raise ValueError("end of data")
        r = self.b[self.i:self.i + n]
        self.i += n
        return r

    def compact(self):
        n = self.read(1)[0]
        if n < 0xFD:
            return n
        if n == 0xFD:
            v = struct.unpack("<H", self.read(2))[0]
            lo = 0xFD
        elif n == 0xFE:
            v = struct.unpack("<I", self.read(4))[0]
            lo = 0x10000
        else:
            v = struct.unpack("<Q", self.read(8))[0]
            lo = 0x100000000
        if v < lo:
            raise ValueError("non-canonical compact size")
        if v > 0x02000000:
            raise ValueError("compact size too large")
        return v

    def string(self):
        return self.read(self.compact())

    def empty(self):
        return self.i == len(self.b)


def parse_tx(r):
    version = struct.unpack("<i", r.read(4))[0]
    n_in = r.compact()
    flags = 0
    if n_in == 0:
        flags = r.read(1)[0]
        n_in = r.compact()
    vin = []
    for _ in range(n_in):
        txid, n = r.read(32), struct.unpack("<I", r.read(4))[0]
        vin.append(bt.TxIn(bt.OutPoint(txid, n), r.string(), struct.unpack("<I", r.read(4))[0]))
    vout = []
    for _ in range(r.compact()):
        value = struct.unpack("<q", r.read(8))[0]
        vout.append(bt.TxOut(value, r.string()))
    if flags & 1:
        for i in vin:
            i.witness = [r.string() for _ in range(r.compact())]
    return bt.Tx(vin, vout, version, struct.unpack("<I", r.read(4))[0])


def parse_block(raw):
    r = Reader(raw)
    version, = struct.unpack("<i", r.read(4))
    prev, merkle = r.read(32), r.read(32)
    t, bits, nonce = struct.unpack("<III", r.read(12))
    b = bt.Block(prev, [], t, bits, version, nonce)
    b.merkle = merkle
    b.txs = [parse_tx(r) for _ in range(r.compact())]
    if not r.empty():
        raise ValueError("data after the block")
    return b


def get_op(s, pc):
    """Core's GetScriptOp: (opcode, data, next pc), or None when a push runs past the end."""
    if pc >= len(s):
        return None
    op = s[pc]
    pc += 1
    if op > bt.OP_PUSHDATA4:
        return op, b"", pc
    if op < bt.OP_PUSHDATA1:
        n = op
    else:
        w = {bt.OP_PUSHDATA1: 1, bt.OP_PUSHDATA2: 2, bt.OP_PUSHDATA4: 4}[op]
        if pc + w > len(s):
            return None
        n = int.from_bytes(s[pc:pc + w], "little")
        pc += w
    if pc + n > len(s):
        return None
    return op, s[pc:pc + n], pc + n


def fetch_and_clear(script_pubkey):
    """FetchAndClearCommitmentSection: (found, solution, replacement script)."""
    out = b""
    found = False
    sol = b""
    pc = 0
    while True:
        r = get_op(script_pubkey, pc)
        if r is None:
            break
        op, data, pc = r
        if data:
            if not found and len(data) > len(SIGNET_HEADER) and data.startswith(SIGNET_HEADER):
                sol = data[len(SIGNET_HEADER):]
                data = data[:len(SIGNET_HEADER)]
                found = True
            out += bt.push_data(data)
        else:
            out += bytes([op])
    return found, sol, out if found else script_pubkey


class ScriptError(Exception):
    pass


def cast_to_bool(v):
    for i, c in enumerate(v):
        if c:
            return not (i == len(v) - 1 and c == 0x80)
    return False


def script_num(v):
    if len(v) > 4:
        raise ScriptError("UNKNOWN_ERROR")  # scriptnum_error
    if not v:
        return 0
    n = int.from_bytes(v, "little")
    if v[-1] & 0x80:
        return -(n & ~(0x80 << (8 * (len(v) - 1))))
    return n


def is_valid_signature_encoding(sig):
    """BIP66 strict DER (Core's IsValidSignatureEncoding), sig including the hash type."""
    if len(sig) < 9 or len(sig) > 73 or sig[0] != 0x30 or sig[1] != len(sig) - 3:
        return False
    len_r = sig[3]
    if 5 + len_r >= len(sig):
        return False
    len_s = sig[5 + len_r]
    if len_r + len_s + 7 != len(sig) or sig[2] != 0x02 or len_r == 0 or sig[4] & 0x80:
        return False
    if len_r > 1 and sig[4] == 0 and not sig[5] & 0x80:
        return False
    if sig[len_r + 4] != 0x02 or len_s == 0 or sig[len_r + 6] & 0x80:
        return False
    if len_s > 1 and sig[len_r + 6] == 0 and not sig[len_r + 7] & 0x80:
        return False
    return True


def parse_der_lax(sig):
    """(r, s) from a DER-ish signature (enough of libsecp256k1's lax parser for these tests)."""
    try:
        if sig[0] != 0x30:
            return None
        i = 2
        out = []
        for _ in range(2):
            if sig[i] != 0x02:
                return None
            n = sig[i + 1]
            out.append(int.from_bytes(sig[i + 2:i + 2 + n], "big"))
            i += 2 + n
        return tuple(out)
    except IndexError:
        return None


def decode_pubkey(pk):
    if len(pk) == 33 and pk[0] in (2, 3):
        pt = bt.lift_x(int.from_bytes(pk[1:], "big"))
        if pt is None:
            return None
        return pt if pt[1] % 2 == pk[0] - 2 else (pt[0], bt.P - pt[1])
    if len(pk) == 65 and pk[0] == 4:
        x, y = int.from_bytes(pk[1:33], "big"), int.from_bytes(pk[33:], "big")
        return (x, y) if (y * y - x * x * x - 7) % bt.P == 0 else None
    return None


def ecdsa_verify(pk, sig_der, msg32):
    q = decode_pubkey(pk)
    rs = parse_der_lax(sig_der)
    if q is None or rs is None:
        return False
    r, s = rs
    if not (1 <= r < bt.N and 1 <= s < bt.N):
        return False
    if s > bt.N // 2:
        s = bt.N - s  # CPubKey::Verify normalizes: high S verifies in consensus
    z = int.from_bytes(msg32, "big")
    w = pow(s, -1, bt.N)
    pt = bt.point_add(bt.point_mul(bt.G, z * w % bt.N), bt.point_mul(q, r * w % bt.N))
    return pt is not None and pt[0] % bt.N == r


class Checker:
    """CheckECDSASignature for input 0 of to_sign (legacy signature hash)."""

    def __init__(self, tx):
        self.tx = tx

    def check(self, sig, pk, script_code):
        if not sig:
            return False
        hashtype = sig[-1]
        if hashtype & 0x80 or (hashtype & 0x1F) not in (1, 2, 3):
            raise NotImplementedError("hash type %d" % hashtype)
        return ecdsa_verify(pk, sig[:-1], bt.sighash_legacy(self.tx, 0, script_code, hashtype))


# Flags of Core's signet check: P2SH | WITNESS | DERSIG | NULLDUMMY.
def eval_script(stack, s, checker):
    """EvalScript for the opcodes these challenges use (pushes, OP_1..16, CHECKSIG,
    CHECKMULTISIG); anything else is a NotImplementedError (a bug in this script)."""
    if len(s) > 10000:
        raise ScriptError("SCRIPT_SIZE")
    pc = 0
    ops = 0
    while pc < len(s):
        r = get_op(s, pc)
        if r is None:
            raise ScriptError("BAD_OPCODE")
        op, data, pc = r
        if len(data) > 520:
            raise ScriptError("PUSH_SIZE")
        if op > 0x60:
            ops += 1
            if ops > 201:
                raise ScriptError("OP_COUNT")
        if op <= bt.OP_PUSHDATA4:
            stack.append(data)
        elif op == bt.OP_1NEGATE:
            stack.append(b"\x81")
        elif 0x51 <= op <= 0x60:
            stack.append(bytes([op - 0x50]))
        elif op == bt.OP_CHECKSIG:
            if len(stack) < 2:
                raise ScriptError("INVALID_STACK_OPERATION")
            sig, pk = stack[-2], stack[-1]
            if sig and not is_valid_signature_encoding(sig):
                raise ScriptError("SIG_DER")
            ok = checker.check(sig, pk, s)
            del stack[-2:]
            stack.append(b"\x01" if ok else b"")
        elif op == bt.OP_CHECKMULTISIG:
            i = 1
            if len(stack) < i:
                raise ScriptError("INVALID_STACK_OPERATION")
            n_keys = script_num(stack[-i])
            if n_keys < 0 or n_keys > 20:
                raise ScriptError("PUBKEY_COUNT")
            ops += n_keys
            if ops > 201:
                raise ScriptError("OP_COUNT")
            i += 1
            ikey = i
            i += n_keys
            if len(stack) < i:
                raise ScriptError("INVALID_STACK_OPERATION")
            n_sigs = script_num(stack[-i])
            if n_sigs < 0 or n_sigs > n_keys:
                raise ScriptError("SIG_COUNT")
            i += 1
            isig = i
            i += n_sigs
            if len(stack) < i:
                raise ScriptError("INVALID_STACK_OPERATION")
            ok = True
            while ok and n_sigs > 0:
                sig, pk = stack[-isig], stack[-ikey]
                if sig and not is_valid_signature_encoding(sig):
                    raise ScriptError("SIG_DER")
                if checker.check(sig, pk, s):
                    isig += 1
                    n_sigs -= 1
                ikey += 1
                n_keys -= 1
                if n_sigs > n_keys:
                    ok = False
            del stack[len(stack) - (i - 1):]
            if not stack:
                raise ScriptError("INVALID_STACK_OPERATION")
            if stack[-1]:
                raise ScriptError("SIG_NULLDUMMY")
            stack.pop()
            stack.append(b"\x01" if ok else b"")
        else:
            raise NotImplementedError("opcode 0x%02x" % op)
        if len(stack) > 1000:
            raise ScriptError("STACK_SIZE")


def verify_script(script_sig, script_pubkey, witness, checker):
    n = len(script_pubkey)
    if n >= 4 and n <= 42 and (script_pubkey[0] == 0 or 0x51 <= script_pubkey[0] <= 0x60) \
            and script_pubkey[1] + 2 == n:
        raise NotImplementedError("witness program challenge")
    if n == 23 and script_pubkey[0] == bt.OP_HASH160 and script_pubkey[1] == 20 and \
            script_pubkey[22] == bt.OP_EQUAL:
        raise NotImplementedError("P2SH challenge")
    stack = []
    eval_script(stack, script_sig, checker)
    eval_script(stack, script_pubkey, checker)
    if not stack or not cast_to_bool(stack[-1]):
        raise ScriptError("EVAL_FALSE")
    if witness:
        raise ScriptError("WITNESS_UNEXPECTED")


def check_signet_solution(block, challenge):
    """Core's CheckSignetBlockSolution for a parsed block: (True, "ok") or (False, reason)
    with reason "no-commitment", "parse", "extraneous" or "script:<SCRIPT_ERR name>"."""
    if block.hash == GENESIS_HASH:
        return True, "genesis"
    if not block.txs:
        return False, "no-coinbase"
    cb = block.txs[0].copy()
    cidx = commitment_index(block)
    if cidx is None:
        return False, "no-commitment"
    found, sol, replacement = fetch_and_clear(cb.vout[cidx].script_pubkey)
    script_sig, witness = b"", []
    if found:
        r = Reader(sol)
        try:
            script_sig = r.string()
            witness = [r.string() for _ in range(r.compact())]
        except ValueError:
            return False, "parse"
        if not r.empty():
            return False, "extraneous"
    cb.vout[cidx].script_pubkey = replacement
    mroot = bt.merkle_root([cb.txid] + [t.txid for t in block.txs[1:]])
    data = struct.pack("<i", block.version) + block.prev + mroot + struct.pack("<I", block.time)
    to_spend = bt.Tx([bt.TxIn(bt.NULL_OUTPOINT, bytes([bt.OP_0]) + bt.push_data(data), 0)],
                     [bt.TxOut(0, challenge)], version=0, locktime=0)
    to_sign = bt.Tx([bt.TxIn(bt.OutPoint(to_spend.txid, 0), script_sig, 0, witness)],
                    [bt.TxOut(0, bytes([bt.OP_RETURN]))], version=0, locktime=0)
    try:
        verify_script(script_sig, challenge, witness, Checker(to_sign))
    except ScriptError as e:
        return False, "script:" + str(e)
    return True, "ok"


def check_consensus_basics(block, parent_sha, height):
    """Everything but the signet solution that a coinbase-only signet block needs."""
    assert block.prev == parent_sha, "parent"
    assert block.bits == SIGNET_BITS, "bits"
    assert int.from_bytes(block.sha, "little") <= block.target(), "proof of work"
    assert block.merkle == block.calc_merkle(), "merkle root"
    cb = block.txs[0]
    assert len(block.txs) == 1 and cb.vin[0].prevout.serialize() == bt.NULL_OUTPOINT.serialize()
    assert cb.vin[0].script_sig.startswith(bt.push_int(height)), "BIP34 height"
    assert 2 <= len(cb.vin[0].script_sig) <= 100, "coinbase scriptSig size"
    assert sum(o.value for o in cb.vout) <= 50 * bt.COIN, "subsidy"
    cidx = commitment_index(block)
    assert cidx is not None, "witness commitment"
    reserved = cb.vin[0].witness
    assert len(reserved) == 1 and len(reserved[0]) == 32, "witness reserved value"
    commit = bt.sha256d(block.witness_root() + reserved[0])
    assert cb.vout[cidx].script_pubkey[6:38] == commit, "witness commitment value"


def verify(doc):
    """Re-checks blocks.json from its hex alone; raises AssertionError on any mismatch."""
    challenge = bytes.fromhex(doc["challenge"])
    key = bt.Key(int(doc["privkey"], 16))
    assert challenge == bt.script(bt.OP_1, bt.push_data(key.pubkey), bt.OP_1,
                                  bt.OP_CHECKMULTISIG), "challenge is 1-of-1 multisig of privkey"
    assert doc["message_start"] == message_start(challenge).hex()
    by_name = {"genesis": (bytes.fromhex(GENESIS_HASH)[::-1], 0)}
    for e in doc["blocks"]:
        raw = bytes.fromhex(e["hex"])
        b = parse_block(raw)
        assert b.serialize() == raw, "round trip " + e["name"]
        assert b.hash == e["hash"], e["name"]
        parent_sha, parent_height = by_name[e["parent"]]
        assert e["height"] == parent_height + 1
        check_consensus_basics(b, parent_sha, e["height"])
        ok, reason = check_signet_solution(b, challenge)
        want_ok = e["expect"] == "valid"
        assert ok == want_ok, "%s: %s, expected %s" % (e["name"], reason, e["expect"])
        if not ok:
            assert reason == e["reason"], "%s fails for %s, not %s" % (e["name"], reason,
                                                                       e["reason"])
        ok51, reason51 = check_signet_solution(b, OP_TRUE_CHALLENGE)
        assert ok51 == (e["expect_op_true"] == "valid"), e["name"]
        okdef, reasondef = check_signet_solution(b, DEFAULT_CHALLENGE)
        assert not okdef, "%s passes the default signet challenge" % e["name"]
        if want_ok:
            by_name[e["name"]] = (b.sha, e["height"])
        print("  %-20s %s %-9s (%s; under OP_TRUE: %s; default signet: %s)" % (
            e["name"], b.hash[:16], e["expect"], reason, reason51, reasondef))

    print("the intended reasons (signatures checked against the other message or key)")
    blocks = {e["name"]: parse_block(bytes.fromhex(e["hex"])) for e in doc["blocks"]}
    other = bt.Key(int(doc["other_privkey"], 16))

    def sig_of(b):
        cb = b.txs[0]
        _, sol, _ = fetch_and_clear(cb.vout[commitment_index(b)].script_pubkey)
        r = Reader(sol)
        ss = r.string()
        return get_op(ss, get_op(ss, 0)[2])[1]

    def msg_of(b):
        unsigned = parse_block(b.serialize())
        cb = unsigned.txs[0]
        cidx = commitment_index(unsigned)
        cb.vout[cidx].script_pubkey = cb.vout[cidx].script_pubkey[:38]
        return signet_sighash(unsigned, challenge)

    wk = blocks["3-wrong-key"]
    assert ecdsa_verify(other.pubkey, sig_of(wk)[:-1], msg_of(wk)), "signed by the other key"
    wb = blocks["3-wrong-block"]
    assert not ecdsa_verify(key.pubkey, sig_of(wb)[:-1], msg_of(wb))
    signed = new_block(wb.prev, 3, b"signet-custom 3-wrong-block (the block signed)")
    assert ecdsa_verify(key.pubkey, sig_of(wb)[:-1], signet_sighash(signed, challenge)), \
        "signed by the key for another block"
    for name in ("3-dummy-not-null", "3-witness-not-empty", "4-high-s"):
        b = blocks[name]
        assert ecdsa_verify(key.pubkey, sig_of(b)[:-1], msg_of(b)), name + " signature"
    nd = sig_of(blocks["3-not-strict-der"])
    assert not is_valid_signature_encoding(nd) and len(nd) <= 73
    assert ecdsa_verify(key.pubkey, nd[:-1], msg_of(blocks["3-not-strict-der"])), \
        "the padded signature verifies when DER is not enforced"
    hs = sig_of(blocks["4-high-s"])
    assert parse_der_lax(hs[:-1])[1] > bt.N // 2, "4-high-s has a high S"
    print("  ok")

    print("Core's default-signet blocks 1..10 pass the default challenge, fail ours")
    headers = None
    if os.path.exists(SIGNET_HEADERS):
        with open(SIGNET_HEADERS, "rb") as f:
            headers = f.read(80 * 11)
    prev = bytes.fromhex(GENESIS_HASH)[::-1]
    for h, hx in enumerate(CORE_DEFAULT_SIGNET_BLOCKS, 1):
        b = parse_block(bytes.fromhex(hx))
        assert b.prev == prev and int.from_bytes(b.sha, "little") <= b.target()
        assert b.merkle == b.calc_merkle()
        if headers:
            assert headers[80 * h:80 * h + 80] == b.header(), "height %d vs shared headers" % h
        ok, reason = check_signet_solution(b, DEFAULT_CHALLENGE)
        assert ok, "Core block %d: %s" % (h, reason)
        ok, reason = check_signet_solution(b, challenge)
        assert not ok
        prev = b.sha
    print("  ok%s" % ("" if headers else " (shared signet headers not found: not compared)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verify-only", action="store_true",
                    help="check the existing blocks.json instead of making it")
    ap.add_argument("--out", default=OUT_DIR, help="output folder (default: %(default)s)")
    args = ap.parse_args()
    path = os.path.join(args.out, "blocks.json")
    if args.verify_only:
        with open(path) as f:
            doc = json.load(f)
    else:
        entries = make_blocks()
        for e in entries:
            ok51, _ = check_signet_solution(e.pop("_block"), OP_TRUE_CHALLENGE)
            e["expect_op_true"] = "valid" if ok51 else "bad-signet-blksig"
            if e["reason"] is None:
                del e["reason"]
        doc = {
            "challenge": CHALLENGE.hex(),
            "privkey": "%064x" % KEY.d,
            "pubkey": KEY.pubkey.hex(),
            "other_privkey": "%064x" % OTHER_KEY.d,
            "message_start": message_start(CHALLENGE).hex(),
            "genesis": GENESIS_HASH,
            "made_by": "contrib/devtools/make-signet-blocks.py",
            "blocks": entries,
        }
    print("checking")
    verify(doc)
    if not args.verify_only:
        os.makedirs(args.out, exist_ok=True)
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("wrote %s" % path)


if __name__ == "__main__":
    main()
