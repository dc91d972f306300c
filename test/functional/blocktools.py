"""Build transactions and blocks in Python for functional tests (standard library only).

- serialization: compact sizes, script pushes (CScript << n), transactions with and without
  witnesses, block headers, merkle and witness merkle roots, the BIP141 commitment;
- regtest mining: BIP34 coinbases, solve() loops nonces until the header meets the target
  (or, with valid=False, until it does not);
- a minimal secp256k1: ECDSA (RFC 6979 nonces, low or high S, DER), BIP340 Schnorr, BIP341
  taproot tweaks and one- or two-leaf script trees, the legacy (with the SIGHASH_SINGLE
  quirk), BIP143 (segwit v0) and BIP341/342 (key path, script path, annex) signature
  hashes;
- ChainBuilder: remembers the blocks it made (height, time) so the next block gets the
  right height, a timestamp after the median time past and the regtest subsidy.

Byte order: txids and block hashes are kept as the 32 internal bytes (what serialization
writes); .hash / .txid_hex give the reversed hex that RPC shows.
"""

import hashlib
import hmac
import os
import struct

COIN = 100_000_000
REGTEST_BITS = 0x207FFFFF
REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"
REGTEST_GENESIS_TIME = 1296688602
REGTEST_MAGIC = bytes.fromhex("fabfb5da")


def block_file_record(raw, magic=REGTEST_MAGIC):
    """One record of a block file (doc/files.md, "Block files"): magic, size, the bytes."""
    return magic + struct.pack("<I", len(raw)) + raw


def read_block_file(path, magic=REGTEST_MAGIC):
    """The serialized blocks of a block file, in order (up to the first record that does not
    start with magic: a file's preallocated zeros end it)."""
    with open(path, "rb") as f:
        data = f.read()
    raws, pos = [], 0
    while pos + 8 <= len(data) and data[pos:pos + 4] == magic:
        size = struct.unpack_from("<I", data, pos + 4)[0]
        raws.append(data[pos + 8:pos + 8 + size])
        pos += 8 + size
    return raws


def read_xor_key(blocks_dir):
    """The 8-byte XOR key of a blocks directory (blocks/xor.dat; zeros when there is none)."""
    try:
        with open(os.path.join(blocks_dir, "xor.dat"), "rb") as f:
            return f.read(8)
    except FileNotFoundError:
        return bytes(8)


def unxor(data, key, offset=0):
    """data, read at offset of a blk or rev file, XORed with key (either way)."""
    if key == bytes(len(key)):
        return data
    return bytes(b ^ key[(offset + i) % len(key)] for i, b in enumerate(data))


def write_block_file(path, raws, magic=REGTEST_MAGIC):
    """A block file holding the serialized blocks raws, in order."""
    with open(path, "wb") as f:
        for raw in raws:
            f.write(block_file_record(raw, magic))
HALVING_INTERVAL = 150
MAX_BLOCK_WEIGHT = 4_000_000
MAX_BLOCK_SIGOPS_COST = 80_000
WITNESS_COMMITMENT_HEADER = bytes.fromhex("6a24aa21a9ed")

# Opcodes used by the tests.
OP_0 = 0x00
OP_PUSHDATA1 = 0x4C
OP_PUSHDATA2 = 0x4D
OP_PUSHDATA4 = 0x4E
OP_1NEGATE = 0x4F
OP_TRUE = OP_1 = 0x51
OP_IF = 0x63
OP_NOTIF = 0x64
OP_ELSE = 0x67
OP_ENDIF = 0x68
OP_VERIFY = 0x69
OP_RETURN = 0x6A
OP_2DROP = 0x6D
OP_DROP = 0x75
OP_DUP = 0x76
OP_EQUAL = 0x87
OP_EQUALVERIFY = 0x88
OP_HASH160 = 0xA9
OP_CHECKSIG = 0xAC
OP_CHECKSIGVERIFY = 0xAD
OP_CHECKMULTISIG = 0xAE
OP_CHECKLOCKTIMEVERIFY = 0xB1
OP_CHECKSEQUENCEVERIFY = 0xB2


# ---------------------------------------------------------------------------------------------
# Hashes and serialization

def sha256(b):
    return hashlib.sha256(b).digest()


def sha256d(b):
    return sha256(sha256(b))


def hash160(b):
    return hashlib.new("ripemd160", sha256(b)).digest()


def tagged_hash(tag, msg):
    t = sha256(tag.encode())
    return sha256(t + t + msg)


def ser_compact_size(n):
    if n < 0xFD:
        return bytes([n])
    if n <= 0xFFFF:
        return b"\xfd" + struct.pack("<H", n)
    if n <= 0xFFFFFFFF:
        return b"\xfe" + struct.pack("<I", n)
    return b"\xff" + struct.pack("<Q", n)


def read_compact_size(b, pos):
    """Reads a CompactSize at b[pos]: (value, position after it)."""
    c = b[pos]
    if c < 253:
        return c, pos + 1
    size = {253: 2, 254: 4, 255: 8}[c]
    return int.from_bytes(b[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def hash_from_hex(hex_hash):
    """A hash in display order (RPC's hex) as its 32 internal bytes."""
    return bytes.fromhex(hex_hash)[::-1]


def ser_string(b):
    return ser_compact_size(len(b)) + b


def script_num(n):
    """CScriptNum serialization: little-endian magnitude, sign bit in the top byte."""
    if n == 0:
        return b""
    neg = n < 0
    a = -n if neg else n
    out = bytearray()
    while a:
        out.append(a & 0xFF)
        a >>= 8
    if out[-1] & 0x80:
        out.append(0x80 if neg else 0x00)
    elif neg:
        out[-1] |= 0x80
    return bytes(out)


def push_data(b):
    """A minimal data push of b (as CScript << std::vector)."""
    n = len(b)
    if n < OP_PUSHDATA1:
        return bytes([n]) + b
    if n <= 0xFF:
        return bytes([OP_PUSHDATA1, n]) + b
    if n <= 0xFFFF:
        return bytes([OP_PUSHDATA2]) + struct.pack("<H", n) + b
    return bytes([OP_PUSHDATA4]) + struct.pack("<I", n) + b


def push_int(n):
    """CScript() << n for an integer: OP_0, OP_1NEGATE, OP_1..OP_16 or a number push."""
    if n == 0:
        return bytes([OP_0])
    if n == -1 or 1 <= n <= 16:
        return bytes([0x50 + n])
    return push_data(script_num(n))


def script(*parts):
    """Concatenates opcodes (ints 0..255) and raw byte strings (already encoded)."""
    out = bytearray()
    for p in parts:
        if isinstance(p, int):
            out.append(p)
        else:
            out += p
    return bytes(out)


# Output scripts
def p2sh_script(redeem):
    return bytes([OP_HASH160, 20]) + hash160(redeem) + bytes([OP_EQUAL])


def p2wsh_script(witness_script):
    return bytes([0x00, 32]) + sha256(witness_script)


def p2wpkh_script(pubkey):
    return bytes([0x00, 20]) + hash160(pubkey)


def p2tr_script(output_xonly):
    return bytes([0x51, 32]) + output_xonly


SCRIPT_TRUE = bytes([OP_TRUE])
P2SH_TRUE = p2sh_script(SCRIPT_TRUE)
P2WSH_TRUE = p2wsh_script(SCRIPT_TRUE)


# ---------------------------------------------------------------------------------------------
# Transactions

class OutPoint:
    def __init__(self, txid, n):
        self.txid = txid  # 32 internal bytes
        self.n = n

    def serialize(self):
        return self.txid + struct.pack("<I", self.n)


NULL_OUTPOINT = OutPoint(b"\x00" * 32, 0xFFFFFFFF)


class TxIn:
    def __init__(self, prevout, script_sig=b"", sequence=0xFFFFFFFF, witness=None):
        self.prevout = prevout
        self.script_sig = script_sig
        self.sequence = sequence
        self.witness = list(witness or [])

    def serialize(self):
        return self.prevout.serialize() + ser_string(self.script_sig) + \
            struct.pack("<I", self.sequence)


class TxOut:
    def __init__(self, value, script_pubkey):
        self.value = value
        self.script_pubkey = script_pubkey

    def serialize(self):
        return struct.pack("<q", self.value) + ser_string(self.script_pubkey)


class Tx:
    def __init__(self, vin=None, vout=None, version=2, locktime=0):
        self.version = version
        self.vin = list(vin or [])
        self.vout = list(vout or [])
        self.locktime = locktime

    def has_witness(self):
        return any(i.witness for i in self.vin)

    def serialize(self, with_witness=True):
        w = with_witness and self.has_witness()
        out = struct.pack("<i", self.version)
        if w:
            out += b"\x00\x01"
        out += ser_compact_size(len(self.vin)) + b"".join(i.serialize() for i in self.vin)
        out += ser_compact_size(len(self.vout)) + b"".join(o.serialize() for o in self.vout)
        if w:
            for i in self.vin:
                out += ser_compact_size(len(i.witness)) + b"".join(ser_string(x)
                                                                    for x in i.witness)
        return out + struct.pack("<I", self.locktime)

    @property
    def txid(self):
        return sha256d(self.serialize(False))

    @property
    def wtxid(self):
        return sha256d(self.serialize(True))

    @property
    def txid_hex(self):
        return self.txid[::-1].hex()

    def weight(self):
        return 3 * len(self.serialize(False)) + len(self.serialize(True))

    def outpoint(self, n):
        return OutPoint(self.txid, n)

    def coin(self, n):
        """The output n as a Coin this tx creates."""
        return Coin(self.outpoint(n), self.vout[n].value, self.vout[n].script_pubkey)

    def copy(self):
        return Tx([TxIn(OutPoint(i.prevout.txid, i.prevout.n), i.script_sig, i.sequence,
                        list(i.witness)) for i in self.vin],
                  [TxOut(o.value, o.script_pubkey) for o in self.vout], self.version,
                  self.locktime)

    def hex(self):
        return self.serialize().hex()


class Coin:
    """An unspent output the tests know about: where it is, its value and its script."""

    def __init__(self, outpoint, value, script_pubkey, height=None, coinbase=False):
        self.outpoint = outpoint
        self.value = value
        self.script_pubkey = script_pubkey
        self.height = height
        self.coinbase = coinbase

    def txout(self):
        return TxOut(self.value, self.script_pubkey)


def anyone_can_spend_input(coin, sequence=0xFFFFFFFF):
    """A TxIn spending coin when its script is OP_TRUE, P2SH(OP_TRUE) or P2WSH(OP_TRUE)."""
    spk = coin.script_pubkey
    if spk == SCRIPT_TRUE:
        return TxIn(coin.outpoint, b"", sequence)
    if spk == P2SH_TRUE:
        return TxIn(coin.outpoint, push_data(SCRIPT_TRUE), sequence)
    if spk == P2WSH_TRUE:
        return TxIn(coin.outpoint, b"", sequence, [SCRIPT_TRUE])
    raise ValueError("not an anyone-can-spend script: %s" % spk.hex())


def spend_tx(coins, outputs=None, fee=0, version=2, locktime=0, sequence=0xFFFFFFFF):
    """A transaction spending anyone-can-spend coins. outputs: list of (value, script) or
    None for one OP_TRUE output of the total value minus fee."""
    total = sum(c.value for c in coins)
    if outputs is None:
        outputs = [(total - fee, SCRIPT_TRUE)]
    return Tx([anyone_can_spend_input(c, sequence) for c in coins],
              [TxOut(v, s) for v, s in outputs], version, locktime)


# ---------------------------------------------------------------------------------------------
# Blocks

def merkle_root(hashes):
    """Bitcoin's merkle root of a list of 32-byte internal hashes (last one duplicated when
    a level is odd)."""
    if not hashes:
        return b"\x00" * 32
    level = list(hashes)
    while len(level) > 1:
        if len(level) % 2:
            level.append(level[-1])
        level = [sha256d(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def block_subsidy(height):
    halvings = height // HALVING_INTERVAL
    if halvings >= 64:
        return 0
    return (50 * COIN) >> halvings


def coinbase_script_sig(height, tag=b""):
    """BIP34: the height pushed as CScript() << height, then a tag push (so the scriptSig is
    at least 2 bytes and coinbases of different branches differ)."""
    return push_int(height) + push_data(tag or b"\x00")


def create_coinbase(height, value, script_pubkey=SCRIPT_TRUE, tag=b"", extra_outputs=None):
    cb = Tx([TxIn(NULL_OUTPOINT, coinbase_script_sig(height, tag), 0xFFFFFFFF)],
            [TxOut(value, script_pubkey)], version=1)
    for v, s in extra_outputs or []:
        cb.vout.append(TxOut(v, s))
    return cb


class Block:
    def __init__(self, prev, txs, time, bits=REGTEST_BITS, version=0x20000000, nonce=0):
        self.version = version
        self.prev = prev  # 32 internal bytes
        self.merkle = b"\x00" * 32
        self.time = time
        self.bits = bits
        self.nonce = nonce
        self.txs = list(txs)
        self.height = None  # set by ChainBuilder

    def header(self):
        return struct.pack("<i", self.version) + self.prev + self.merkle + \
            struct.pack("<III", self.time, self.bits, self.nonce)

    def serialize(self, with_witness=True):
        return self.header() + ser_compact_size(len(self.txs)) + \
            b"".join(t.serialize(with_witness) for t in self.txs)

    def hex(self):
        return self.serialize().hex()

    @property
    def sha(self):
        return sha256d(self.header())

    @property
    def hash(self):
        return self.sha[::-1].hex()

    def weight(self):
        return 3 * len(self.serialize(False)) + len(self.serialize(True))

    def calc_merkle(self):
        return merkle_root([t.txid for t in self.txs])

    def witness_root(self):
        return merkle_root([b"\x00" * 32] + [t.wtxid for t in self.txs[1:]])

    def add_witness_commitment(self, reserved=b"\x00" * 32):
        """Adds (or replaces) the BIP141 commitment output of the coinbase and sets the
        coinbase witness to the reserved value."""
        cb = self.txs[0]
        cb.vout = [o for o in cb.vout if not o.script_pubkey.startswith(
            WITNESS_COMMITMENT_HEADER)]
        cb.vin[0].witness = [reserved]
        commit = sha256d(self.witness_root() + reserved)
        cb.vout.append(TxOut(0, WITNESS_COMMITMENT_HEADER + commit))

    def target(self):
        exp = self.bits >> 24
        mant = self.bits & 0x007FFFFF
        return mant << (8 * (exp - 3)) if exp >= 3 else mant >> (8 * (3 - exp))

    def solve(self, valid=True):
        """Sets the merkle root, then loops nonces until the header hash meets the target
        (valid) or exceeds it (valid=False, for a high-hash block)."""
        self.merkle = self.calc_merkle()
        target = self.target()
        self.nonce = 0
        while (int.from_bytes(self.sha, "little") <= target) != valid:
            self.nonce += 1
        return self


def block_from_template(t, spk):
    """Builds and solves a block from a BIP22 template, as a miner would."""
    height = t["height"]
    push = script_num(height)
    sig = (bytes([len(push)]) + push) if height > 16 else bytes([0x50 + height, 0])
    cb = Tx([TxIn(OutPoint(b"\x00" * 32, 0xFFFFFFFF), sig, 0xFFFFFFFF, [b"\x00" * 32])],
            [TxOut(t["coinbasevalue"], spk),
             TxOut(0, bytes.fromhex(t["default_witness_commitment"]))])
    txs = [bytes.fromhex(x["data"]) for x in t["transactions"]]
    txids = [cb.txid] + [bytes.fromhex(x["txid"])[::-1] for x in t["transactions"]]
    root = merkle_root(txids)
    bits = int(t["bits"], 16)
    target = int(t["target"], 16)
    nonce = 0
    while True:
        header = struct.pack("<i32s32sIII", t["version"],
                             bytes.fromhex(t["previousblockhash"])[::-1], root,
                             t["curtime"], bits, nonce)
        if int.from_bytes(sha256d(header), "little") <= target:
            break
        nonce += 1
    return header + ser_compact_size(1 + len(txs)) + cb.serialize() + b"".join(txs)


# ---------------------------------------------------------------------------------------------
# secp256k1, ECDSA, BIP340 Schnorr

P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
G = (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
     0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)


def point_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % P == 0:
        return None
    if a == b:
        lam = 3 * a[0] * a[0] * pow(2 * a[1], -1, P) % P
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], -1, P) % P
    x = (lam * lam - a[0] - b[0]) % P
    return (x, (lam * (a[0] - x) - a[1]) % P)


def point_mul(pt, k):
    r = None
    for i in range(k.bit_length() - 1, -1, -1):
        r = point_add(r, r)
        if (k >> i) & 1:
            r = point_add(r, pt)
    return r


def lift_x(x):
    y2 = (pow(x, 3, P) + 7) % P
    y = pow(y2, (P + 1) // 4, P)
    if y * y % P != y2:
        return None
    return (x, y if y % 2 == 0 else P - y)


def xonly(pt):
    return pt[0].to_bytes(32, "big")


def pubkey_compressed(pt):
    return bytes([2 + (pt[1] & 1)]) + pt[0].to_bytes(32, "big")


def rfc6979_nonce(d, h):
    """Deterministic ECDSA nonce (RFC 6979, HMAC-SHA256, no extra data)."""
    x = d.to_bytes(32, "big")
    hv = (int.from_bytes(h, "big") % N).to_bytes(32, "big")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + x + hv, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + x + hv, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(k, v, hashlib.sha256).digest()
        t = int.from_bytes(v, "big")
        if 1 <= t < N:
            return t
        k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()


def der_encode(r, s):
    def enc(i):
        b = i.to_bytes((i.bit_length() + 8) // 8, "big")  # keeps a leading 0 if top bit set
        return bytes([0x02, len(b)]) + b
    body = enc(r) + enc(s)
    return bytes([0x30, len(body)]) + body


def ecdsa_sign(d, msg32, low_s=True):
    """DER signature of a 32-byte hash with private key d (low S unless low_s=False: then
    the high S of the same signature)."""
    z = int.from_bytes(msg32, "big")
    k = rfc6979_nonce(d, msg32)
    r = point_mul(G, k)[0] % N
    s = pow(k, -1, N) * (z + r * d) % N
    if (s > N // 2) == low_s:
        s = N - s
    return der_encode(r, s)


def schnorr_sign(d, msg32, aux=b"\x00" * 32):
    """BIP340 signature (64 bytes) of msg32 with private key d."""
    pk = point_mul(G, d)
    if pk[1] % 2:
        d = N - d
    t = (d ^ int.from_bytes(tagged_hash("BIP0340/aux", aux), "big")).to_bytes(32, "big")
    k0 = int.from_bytes(tagged_hash("BIP0340/nonce", t + xonly(pk) + msg32), "big") % N
    r = point_mul(G, k0)
    k = k0 if r[1] % 2 == 0 else N - k0
    e = int.from_bytes(tagged_hash("BIP0340/challenge", xonly(r) + xonly(pk) + msg32),
                       "big") % N
    return xonly(r) + ((k + e * d) % N).to_bytes(32, "big")


def taproot_tweak(internal_pt, merkle_root_bytes=b""):
    """Returns (output point, tweak integer) of BIP341 for an internal key (even y used)."""
    if internal_pt[1] % 2:
        internal_pt = (internal_pt[0], P - internal_pt[1])
    t = int.from_bytes(tagged_hash("TapTweak", xonly(internal_pt) + merkle_root_bytes), "big")
    return point_add(internal_pt, point_mul(G, t)), t


def taproot_tweak_seckey(d, merkle_root_bytes=b""):
    pk = point_mul(G, d)
    if pk[1] % 2:
        d = N - d
    _, t = taproot_tweak(pk, merkle_root_bytes)
    return (d + t) % N


def tapleaf_hash(leaf_script, leaf_version=0xC0):
    return tagged_hash("TapLeaf", bytes([leaf_version]) + ser_string(leaf_script))


class Key:
    """A private key with its compressed public key and the scripts paying to it."""

    def __init__(self, secret):
        self.d = secret
        self.pt = point_mul(G, secret)
        self.pubkey = pubkey_compressed(self.pt)
        self.p2wpkh = p2wpkh_script(self.pubkey)
        self.pubkey_uncompressed = b"\x04" + self.pt[0].to_bytes(32, "big") + \
            self.pt[1].to_bytes(32, "big")
        out, _ = taproot_tweak(self.pt)
        self.p2tr = p2tr_script(xonly(out))  # key path only (no script tree)


# ---------------------------------------------------------------------------------------------
# Signature hashes

SIGHASH_ALL = 1
SIGHASH_DEFAULT = 0


def sighash_bip143(tx, n, script_code, amount, hashtype=SIGHASH_ALL):
    """BIP143 (segwit v0) signature hash of input n, SIGHASH_ALL."""
    assert hashtype == SIGHASH_ALL
    prevouts = sha256d(b"".join(i.prevout.serialize() for i in tx.vin))
    seqs = sha256d(b"".join(struct.pack("<I", i.sequence) for i in tx.vin))
    outs = sha256d(b"".join(o.serialize() for o in tx.vout))
    i = tx.vin[n]
    pre = struct.pack("<i", tx.version) + prevouts + seqs + i.prevout.serialize() + \
        ser_string(script_code) + struct.pack("<q", amount) + struct.pack("<I", i.sequence) + \
        outs + struct.pack("<I", tx.locktime) + struct.pack("<I", hashtype)
    return sha256d(pre)


SIGHASH_NONE = 2
SIGHASH_SINGLE = 3


def sighash_legacy(tx, n, script_code, hashtype=SIGHASH_ALL):
    """The original (pre-segwit) signature hash of input n for SIGHASH_ALL, NONE or SINGLE
    (no ANYONECANPAY, no OP_CODESEPARATOR in script_code), with its quirk: SIGHASH_SINGLE
    for an input without a matching output signs the number 1."""
    base = hashtype & 0x1F
    if base == SIGHASH_SINGLE and n >= len(tx.vout):
        return b"\x01" + bytes(31)
    t = tx.copy()
    for i, txin in enumerate(t.vin):
        txin.script_sig = script_code if i == n else b""
        txin.witness = []
        if base in (SIGHASH_NONE, SIGHASH_SINGLE) and i != n:
            txin.sequence = 0
    if base == SIGHASH_NONE:
        t.vout = []
    elif base == SIGHASH_SINGLE:
        t.vout = [TxOut(-1, b"") for _ in range(n)] + [t.vout[n]]
    return sha256d(t.serialize(False) + struct.pack("<I", hashtype))


def p2pkh_script(pubkey):
    return bytes([OP_DUP, OP_HASH160, 20]) + hash160(pubkey) + bytes([OP_EQUALVERIFY,
                                                                      OP_CHECKSIG])


def sign_p2pkh(tx, n, key, hashtype=SIGHASH_ALL):
    """Sets the scriptSig of input n (a P2PKH output of key)."""
    spk = p2pkh_script(key.pubkey)
    sig = ecdsa_sign(key.d, sighash_legacy(tx, n, spk, hashtype)) + bytes([hashtype])
    tx.vin[n].script_sig = push_data(sig) + push_data(key.pubkey)


def sign_p2wpkh(tx, n, key, amount, pubkey=None, low_s=True):
    """Sets the witness of input n (a P2WPKH output of key, worth amount). pubkey: another
    encoding of key's public key (uncompressed) the output pays to."""
    pubkey = pubkey or key.pubkey
    code = bytes([OP_DUP, OP_HASH160, 20]) + hash160(pubkey) + \
        bytes([OP_EQUALVERIFY, OP_CHECKSIG])
    sig = ecdsa_sign(key.d, sighash_bip143(tx, n, code, amount), low_s) + bytes([SIGHASH_ALL])
    tx.vin[n].witness = [sig, pubkey]


def sighash_taproot(tx, n, spent_txouts, hashtype=SIGHASH_DEFAULT, leaf_hash=None,
                     annex=None):
    """BIP341 signature hash of input n, SIGHASH_DEFAULT; a script-path spend when
    leaf_hash is given (BIP342 extension, no OP_CODESEPARATOR). spent_txouts: the TxOut
    spent by each input, in order."""
    assert hashtype == SIGHASH_DEFAULT
    msg = bytes([hashtype]) + struct.pack("<iI", tx.version, tx.locktime)
    msg += sha256(b"".join(i.prevout.serialize() for i in tx.vin))
    msg += sha256(b"".join(struct.pack("<q", o.value) for o in spent_txouts))
    msg += sha256(b"".join(ser_string(o.script_pubkey) for o in spent_txouts))
    msg += sha256(b"".join(struct.pack("<I", i.sequence) for i in tx.vin))
    msg += sha256(b"".join(o.serialize() for o in tx.vout))
    spend_type = (2 if leaf_hash is not None else 0) + (1 if annex is not None else 0)
    msg += bytes([spend_type]) + struct.pack("<I", n)
    if annex is not None:
        msg += sha256(ser_string(annex))
    if leaf_hash is not None:
        msg += leaf_hash + b"\x00" + struct.pack("<I", 0xFFFFFFFF)
    return tagged_hash("TapSighash", bytes([0x00]) + msg)  # epoch 0, then SigMsg


def sighash_taproot_keypath(tx, n, spent_txouts, hashtype=SIGHASH_DEFAULT):
    """BIP341 signature hash of input n for a key-path spend without annex."""
    return sighash_taproot(tx, n, spent_txouts, hashtype)


def sign_p2tr_keypath(tx, n, key, spent_txouts):
    sk = taproot_tweak_seckey(key.d)
    tx.vin[n].witness = [schnorr_sign(sk, sighash_taproot_keypath(tx, n, spent_txouts))]


def taproot_output(internal_pt, leaves):
    """A taproot output with one or two tapscript leaves (version 0xc0). Returns
    (scriptPubKey, [control block of each leaf])."""
    hashes = [tapleaf_hash(x) for x in leaves]
    if len(leaves) == 1:
        root, paths = hashes[0], [b""]
    else:
        assert len(leaves) == 2
        a, b = sorted(hashes)
        root = tagged_hash("TapBranch", a + b)
        paths = [hashes[1], hashes[0]]
    out_pt, _ = taproot_tweak(internal_pt, root)
    if internal_pt[1] % 2:
        internal_pt = (internal_pt[0], P - internal_pt[1])
    controls = [bytes([0xC0 | (out_pt[1] & 1)]) + xonly(internal_pt) + p for p in paths]
    return p2tr_script(xonly(out_pt)), controls


# ---------------------------------------------------------------------------------------------
# Chain building

class ChainBuilder:
    """Remembers the blocks made (by hash) so new blocks on any parent get the right height,
    a time after the parent's median time past, and a BIP34 coinbase."""

    def __init__(self, genesis_hash_hex, genesis_time):
        self.blocks = {}  # internal hash -> (height, time, parent internal hash or None)
        self.genesis = bytes.fromhex(genesis_hash_hex)[::-1]
        self.blocks[self.genesis] = (0, genesis_time, None)

    def height(self, h):
        return self.blocks[h][0]

    def ancestor(self, h, height):
        """The internal hash of h's ancestor at height."""
        while self.blocks[h][0] > height:
            h = self.blocks[h][2]
        return h

    def mtp(self, h):
        """Median time past of the block h (its own and its 10 ancestors' times)."""
        times = []
        while h is not None and len(times) < 11:
            _, t, parent = self.blocks[h]
            times.append(t)
            h = parent
        return sorted(times)[len(times) // 2]

    def create_block(self, parent, txs=(), time=None, coinbase_value=None, fees=0,
                     script_pubkey=SCRIPT_TRUE, tag=b"", witness=None, version=0x20000000,
                     bits=REGTEST_BITS, solve=True, coinbase=None):
        """A block on parent (internal hash) holding a new coinbase and txs. The coinbase
        pays subsidy + fees (or coinbase_value). witness: add the BIP141 commitment (None:
        when any tx has a witness). The block is solved unless solve=False."""
        height = self.height(parent) + 1
        if time is None:
            time = max(self.mtp(parent) + 1, self.blocks[parent][1] + 1)
        if coinbase is None:
            value = coinbase_value if coinbase_value is not None else \
                block_subsidy(height) + fees
            coinbase = create_coinbase(height, value, script_pubkey, tag)
        b = Block(parent, [coinbase] + list(txs), time, bits, version)
        b.height = height
        if witness or (witness is None and any(t.has_witness() for t in txs)):
            b.add_witness_commitment()
        if solve:
            b.solve()
        return b

    def add(self, block):
        """Records block (after the node took it) so children can be built on it."""
        self.blocks[block.sha] = (self.height(block.prev) + 1, block.time, block.prev)
        block.height = self.height(block.sha)
        return block


# ---------------------------------------------------------------------------------------------
# Addresses (BIP173 / BIP350), for tests that mine to an address

_BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_polymod(values):
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def segwit_address(hrp, version, program):
    """The bech32 (v0) or bech32m (v1+) address of a witness program."""
    data, acc, bits = [version], 0, 0
    for b in program:
        acc = (acc << 8) | b
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    const = 1 if version == 0 else 0x2BC830A3
    values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + data
    mod = _bech32_polymod(values + [0] * 6) ^ const
    checksum = [(mod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_BECH32_CHARSET[d] for d in data + checksum)


def coinbase_coin(node, block_hash):
    """The first output of block_hash's coinbase on node: (OutPoint, value in satoshis)."""
    cb = node.rpc("getblock", block_hash, 2)["tx"][0]
    return (OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
            int(round(cb["vout"][0]["value"] * COIN)))


def spend_p2wpkh_coin(coin, fee, key, sequence=0xFFFFFFFD):
    """A transaction spending coin (a P2WPKH output of key) to P2WSH_TRUE, less fee, signed."""
    outpoint, value = coin
    tx = Tx([TxIn(outpoint, b"", sequence)], [TxOut(value - fee, P2WSH_TRUE)])
    sign_p2wpkh(tx, 0, key, value)
    return tx
