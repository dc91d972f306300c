#!/usr/bin/env python3
"""The util methods on descriptors, addresses and signed messages: validateaddress,
createmultisig, getdescriptorinfo, deriveaddresses, verifymessage, signmessagewithprivkey.

Expected values come from outside bitnode: Bitcoin Core's functional tests' constants
(rpc_deriveaddresses.py, rpc_signmessagewithprivkey.py, rpc_getdescriptorinfo.py), BIP67's
multisig vectors, and what this file computes itself with the standard library (descriptor
checksums, Base58Check, bech32/bech32m, HASH160 with its own RIPEMD-160). Every error case
checks Core's code and message.
"""

import base64
import hashlib

from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true)

# ---- independent encoders ------------------------------------------------------------------

DESC_INPUT = ("0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
              "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ")
BECH32_CHARS = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def desc_polymod(c, val):
    c0 = c >> 35
    c = ((c & 0x7ffffffff) << 5) ^ val
    for bit, g in enumerate([0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a,
                             0x644d626ffd]):
        if c0 >> bit & 1:
            c ^= g
    return c


def descsum(s):
    """BIP380: s with '#' and its checksum."""
    c, cls, n = 1, 0, 0
    for ch in s:
        pos = DESC_INPUT.index(ch)
        c = desc_polymod(c, pos & 31)
        cls = cls * 3 + (pos >> 5)
        n += 1
        if n == 3:
            c, cls, n = desc_polymod(c, cls), 0, 0
    if n:
        c = desc_polymod(c, cls)
    for _ in range(8):
        c = desc_polymod(c, 0)
    c ^= 1
    return s + "#" + "".join(BECH32_CHARS[(c >> (5 * (7 - i))) & 31] for i in range(8))


def bech32_polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            if top >> i & 1:
                chk ^= gen[i]
    return chk


def segwit_addr(hrp, version, prog):
    """BIP173/BIP350 encoding of a witness program."""
    acc, bits, data = 0, 0, [version]
    for b in prog:
        acc = acc << 8 | b
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append(acc >> bits & 31)
    if bits:
        data.append(acc << (5 - bits) & 31)
    const = 1 if version == 0 else 0x2bc830a3
    exp = [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp]
    pm = bech32_polymod(exp + data + [0] * 6) ^ const
    return hrp + "1" + "".join(BECH32_CHARS[d] for d in data + [pm >> 5 * (5 - i) & 31
                                                                for i in range(6)])


def b58decode_check(s):
    n = 0
    for ch in s:
        n = n * 58 + B58.index(ch)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(s) - len(s.lstrip("1"))) + raw
    payload, check = raw[:-4], raw[-4:]
    assert_equal(hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4], check)
    return payload


def b58encode_check(payload):
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def _rol(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xffffffff


# RIPEMD-160 (not every OpenSSL build gives it to hashlib): message word order, rotations
# and constants of the left and right lines.
_RL = [list(range(16)), [7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8],
       [3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12],
       [1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2],
       [4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13]]
_RR = [[5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12],
       [6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2],
       [15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13],
       [8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14],
       [12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11]]
_SL = [[11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8],
       [7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12],
       [11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5],
       [11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12],
       [9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6]]
_SR = [[8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6],
       [9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11],
       [9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5],
       [15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8],
       [8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11]]
_KL = [0, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xa953fd4e]
_KR = [0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9, 0]


def _f(j, x, y, z):
    return [x ^ y ^ z, (x & y) | (~x & z), (x | ~y) ^ z, (x & z) | (y & ~z), x ^ (y | ~z)][j]


def ripemd160(data):
    h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]
    msg = data + b"\x80" + b"\0" * ((55 - len(data)) % 64) + (8 * len(data)).to_bytes(8, "little")
    for off in range(0, len(msg), 64):
        x = [int.from_bytes(msg[off + 4 * i:off + 4 * i + 4], "little") for i in range(16)]
        al, bl, cl, dl, el = h
        ar, br, cr, dr, er = h
        for r in range(5):
            for i in range(16):
                t = (_rol((al + (_f(r, bl, cl, dl) & 0xffffffff) + x[_RL[r][i]] + _KL[r])
                          & 0xffffffff, _SL[r][i]) + el) & 0xffffffff
                al, el, dl, cl, bl = el, dl, _rol(cl, 10), bl, t
                t = (_rol((ar + (_f(4 - r, br, cr, dr) & 0xffffffff) + x[_RR[r][i]] + _KR[r])
                          & 0xffffffff, _SR[r][i]) + er) & 0xffffffff
                ar, er, dr, cr, br = er, dr, _rol(cr, 10), br, t
        h = [(h[1] + cl + dr) & 0xffffffff, (h[2] + dl + er) & 0xffffffff,
             (h[3] + el + ar) & 0xffffffff, (h[4] + al + br) & 0xffffffff,
             (h[0] + bl + cr) & 0xffffffff]
    return b"".join(v.to_bytes(4, "little") for v in h)


def hash160(b):
    return ripemd160(hashlib.sha256(b).digest())


def p2sh_addr(script):
    return b58encode_check(bytes([196]) + hash160(script))  # regtest script prefix


# secp256k1, for BIP341's tweak: affine points, None at infinity.
P_FIELD = 2**256 - 2**32 - 977
N_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141
G_POINT = (int("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", 16),
           int("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8", 16))


def point_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % P_FIELD == 0:
        return None
    if a == b:
        lam = 3 * a[0] * a[0] * pow(2 * a[1], P_FIELD - 2, P_FIELD)
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], P_FIELD - 2, P_FIELD)
    x = (lam * lam - a[0] - b[0]) % P_FIELD
    return (x, (lam * (a[0] - x) - a[1]) % P_FIELD)


def point_mul(p, k):
    r = None
    while k:
        if k & 1:
            r = point_add(r, p)
        p = point_add(p, p)
        k >>= 1
    return r


def tagged_hash(tag, msg):
    t = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(t + t + msg).digest()


def tapleaf(script):
    return tagged_hash("TapLeaf", bytes([0xc0, len(script)]) + script)


def tapbranch(a, b):
    return tagged_hash("TapBranch", min(a, b) + max(a, b))


def taproot_output(xonly_hex, merkle_root):
    """BIP341: the x coordinate of P + hash_TapTweak(P || root) * G, P the even lift of x."""
    x = int(xonly_hex, 16)
    y = pow(x ** 3 + 7, (P_FIELD + 1) // 4, P_FIELD)
    p = (x, y if y % 2 == 0 else P_FIELD - y)
    t = tagged_hash("TapTweak", bytes.fromhex(xonly_hex) + (merkle_root or b""))
    q = point_add(p, point_mul(G_POINT, int.from_bytes(t, "big") % N_ORDER))
    return q[0].to_bytes(32, "big")


def multisig_script(m, keys):
    def num(n):
        return bytes([0x50 + n]) if n <= 16 else bytes([1, n])
    return num(m) + b"".join(bytes([len(k) // 2]) + bytes.fromhex(k) for k in keys) + \
        num(len(keys)) + b"\xae"


# ---- constants from outside ------------------------------------------------------------------

# Core's rpc_deriveaddresses.py.
TPRV = ("tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtH"
        "cQJCCRUcMRvmDUjyEmNUWwx8UbK")
TPUB = ("tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnh"
        "yswJ76uZPStJRJCTKvosUCJZL5B")
ADDR_110 = "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5"
ADDR_111 = "bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy"
ADDR_112 = "bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq"

# Core's rpc_signmessagewithprivkey.py.
MSG = "This is just a test message"
MSG_KEY = "cUeKHd5orzT3mz8P9pxyREHfsWtVfgsfDjiZZBcjUBAaGk1BTj7N"
MSG_SIG = "INbVnW4e6PeRmsv2Qgu8NuopvrVjkcxob+sX8OcZG0SALhWybUjzMLPdAsXI46YZGb0KQTRii+wWIQzRpG/U+S0="
MSG_ADDR = "mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB"

# BIP67's first vector: unsorted keys, sorted keys, the P2SH address of the sorted multisig.
BIP67_KEYS = ["02ff12471208c14bd580709cb2358d98975247d8765f92bc25eab3b2763ed605f8",
              "02fe6f0a5a297eb38c391581c4413e084773ea23954d93f7753db7dc0adc188b2f"]
BIP67_ADDR = "2N19tNw3Ss4L9QDERtCw7FhXb6jBsYmeXNu"

G_X = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
G = "02" + G_X
G_UNCOMPRESSED = ("04" + G_X +
                  "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
K3 = "03a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7"


class UtilTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        self.node = self.nodes[0]
        self.test_validateaddress()
        self.test_createmultisig()
        self.test_getdescriptorinfo()
        self.test_deriveaddresses()
        self.test_messages()
        for m in ["validateaddress", "createmultisig", "getdescriptorinfo", "deriveaddresses",
                  "verifymessage", "signmessagewithprivkey"]:
            text = self.node.rpc("help", m)
            assert_true(text.startswith(m + " ") and "Examples:" in text, text)

    def test_validateaddress(self):
        self.log("validateaddress: every destination type")
        rpc = self.node.rpc
        h = b58decode_check(MSG_ADDR)[1:]
        assert_equal(rpc("validateaddress", MSG_ADDR),
                     {"isvalid": True, "address": MSG_ADDR,
                      "scriptPubKey": "76a914" + h.hex() + "88ac",
                      "isscript": False, "iswitness": False})
        h = b58decode_check(BIP67_ADDR)[1:]
        assert_equal(rpc("validateaddress", BIP67_ADDR)["scriptPubKey"], "a914" + h.hex() + "87")
        assert_equal(rpc("validateaddress", BIP67_ADDR)["isscript"], True)
        prog = bytes(range(20))
        a = segwit_addr("bcrt", 0, prog)
        assert_equal(rpc("validateaddress", a),
                     {"isvalid": True, "address": a, "scriptPubKey": "0014" + prog.hex(),
                      "isscript": False, "iswitness": True, "witness_version": 0,
                      "witness_program": prog.hex()})
        prog = bytes(range(32))
        a = segwit_addr("bcrt", 0, prog)
        assert_equal(rpc("validateaddress", a)["isscript"], True)
        # Upper case is valid too, and is answered in lower case.
        assert_equal(rpc("validateaddress", a.upper())["address"], a)
        a = segwit_addr("bcrt", 1, bytes.fromhex(G_X))
        assert_equal(rpc("validateaddress", a),
                     {"isvalid": True, "address": a, "scriptPubKey": "5120" + G_X,
                      "isscript": True, "iswitness": True, "witness_version": 1,
                      "witness_program": G_X})
        a = segwit_addr("bcrt", 1, bytes.fromhex("4e73"))  # pay-to-anchor
        assert_equal(rpc("validateaddress", a),
                     {"isvalid": True, "address": a, "scriptPubKey": "51024e73",
                      "isscript": True, "iswitness": True})
        a = segwit_addr("bcrt", 2, bytes(range(16)))
        assert_equal(rpc("validateaddress", a),
                     {"isvalid": True, "address": a,
                      "scriptPubKey": "5210" + bytes(range(16)).hex(), "iswitness": True,
                      "witness_version": 2, "witness_program": bytes(range(16)).hex()})

        self.log("validateaddress: errors and bech32 error locations")
        assert_equal(rpc("validateaddress", "invalid_addr"),
                     {"isvalid": False, "error_locations": [],
                      "error": "Invalid or unsupported Segwit (Bech32) or Base58 encoding."})
        good = segwit_addr("bcrt", 0, bytes(range(20)))
        for i in [7, 20, len(good) - 1]:
            # A single substituted character is always located (BCH code).
            c = "q" if good[i] != "q" else "p"
            bad = good[:i] + c + good[i + 1:]
            assert_equal(rpc("validateaddress", bad),
                         {"isvalid": False, "error_locations": [i],
                          "error": "Invalid Bech32 checksum"})
        mixed = good[:10] + good[10:].upper()
        res = rpc("validateaddress", mixed)
        assert_equal(res["error"], "Invalid character or mixed case")
        assert_equal(res["error_locations"],
                     [i for i in range(10, len(good)) if good[i].isalpha()])
        res = rpc("validateaddress", good[:5] + "b" + good[6:])
        assert_equal((res["error"], res["error_locations"]), ("Invalid Base 32 character", [5]))
        res = rpc("validateaddress", "bcrt" + "q" * 20)
        assert_equal((res["error"], res["error_locations"]), ("Missing separator", []))
        assert_equal(rpc("validateaddress", MSG_ADDR[:-1] + "1")["error"],
                     "Invalid checksum or length of Base58 address (P2PKH or P2SH)")
        mainnet = b58encode_check(b"\0" + bytes(20))
        assert_equal(rpc("validateaddress", mainnet)["error"],
                     "Invalid or unsupported Base58-encoded address.")
        assert_raises_rpc_error(-3, "JSON value of type number is not of expected type string",
                                rpc, "validateaddress", 1)
        assert_raises_rpc_error(-1, "validateaddress", rpc, "validateaddress")

    def test_createmultisig(self):
        rpc = self.node.rpc
        self.log("createmultisig: the three address types")
        keys = sorted(BIP67_KEYS)
        script = multisig_script(2, keys)
        res = rpc("createmultisig", 2, keys)
        assert_equal(res, {"address": BIP67_ADDR, "redeemScript": script.hex(),
                           "descriptor": descsum("sh(multi(2,%s))" % ",".join(keys))})
        assert_equal(p2sh_addr(script), BIP67_ADDR)
        wsh = bytes([0, 32]) + hashlib.sha256(script).digest()
        res = rpc("createmultisig", 2, keys, "p2sh-segwit")
        assert_equal(res, {"address": p2sh_addr(wsh), "redeemScript": script.hex(),
                           "descriptor": descsum("sh(wsh(multi(2,%s)))" % ",".join(keys))})
        res = rpc("createmultisig", nrequired=1, keys=BIP67_KEYS, address_type="bech32")
        script = multisig_script(1, BIP67_KEYS)
        assert_equal(res, {"address": segwit_addr("bcrt", 0, hashlib.sha256(script).digest()),
                           "redeemScript": script.hex(),
                           "descriptor": descsum("wsh(multi(1,%s))" % ",".join(BIP67_KEYS))})
        self.log("createmultisig: n of 1..20 keys encodes the counts as Core does")
        for n in [1, 16, 17, 20]:
            res = rpc("createmultisig", n, [G] * n, "bech32")
            assert_equal(res["redeemScript"], multisig_script(n, [G] * n).hex())

        self.log("createmultisig: uncompressed keys force legacy, with Core's warning")
        keys = [G, G_UNCOMPRESSED]
        legacy = rpc("createmultisig", 1, keys)
        assert_equal(legacy["address"], p2sh_addr(multisig_script(1, keys)))
        assert_true("warnings" not in legacy, legacy)
        for t in ["p2sh-segwit", "bech32"]:
            res = rpc("createmultisig", 1, keys, t)
            assert_equal(res["address"], legacy["address"])
            assert_equal(res["descriptor"], legacy["descriptor"])
            assert_equal(res["warnings"], ["Unable to make chosen address type, please ensure "
                                           "no uncompressed public keys are present."])

        self.log("createmultisig: errors")
        e = assert_raises_rpc_error(-5, None, rpc, "createmultisig", 1, ["zz"])
        assert_equal(e.message, 'Pubkey "zz" must be a hex string')
        assert_raises_rpc_error(-5, 'Pubkey "0201" must have a length of either 33 or 65 bytes',
                                rpc, "createmultisig", 1, ["0201"])
        bad = "02" + "00" * 32
        assert_raises_rpc_error(-5, 'Pubkey "%s" must be cryptographically valid.' % bad,
                                rpc, "createmultisig", 1, [bad])
        assert_raises_rpc_error(-3, "JSON value of type number is not of expected type string",
                                rpc, "createmultisig", 1, [1])
        assert_raises_rpc_error(-5, "Unknown address type 'p2pkh'", rpc, "createmultisig", 1,
                                [G], "p2pkh")
        assert_raises_rpc_error(-5, "createmultisig cannot create bech32m multisig addresses",
                                rpc, "createmultisig", 1, [G], "bech32m")
        assert_raises_rpc_error(-8, "a multisignature address must require at least one key "
                                "to redeem", rpc, "createmultisig", 0, [G])
        assert_raises_rpc_error(-8, "not enough keys supplied (got 1 keys, but need at least 2 "
                                "to redeem)", rpc, "createmultisig", 2, [G])
        assert_raises_rpc_error(-8, "Number of keys involved in the multisignature address "
                                "creation > 20\nReduce the number", rpc, "createmultisig", 1,
                                [G] * 21, "bech32")
        assert_raises_rpc_error(-8, "redeemScript exceeds size limit: 684 > 520", rpc,
                                "createmultisig", 16, [G] * 20)
        assert_raises_rpc_error(-3, None, rpc, "createmultisig", "2", [G])

    def test_getdescriptorinfo(self):
        rpc = self.node.rpc
        self.log("getdescriptorinfo: Core's rpc_getdescriptorinfo.py descriptors")

        def check(desc, isrange, issolvable, hasprivatekeys, expect=None, expanded=None):
            info = rpc("getdescriptorinfo", desc)
            assert_equal(info, rpc("getdescriptorinfo", descsum(desc)))
            want = {"descriptor": descsum(expect or (expanded[0] if expanded else desc)),
                    "checksum": descsum(desc)[-8:], "isrange": isrange,
                    "issolvable": issolvable, "hasprivatekeys": hasprivatekeys}
            if expanded:
                want["multipath_expansion"] = [descsum(x) for x in expanded]
            assert_equal(info, want)

        check("pk(%s)" % G, False, True, False)
        check("combo(%s)" % G, False, True, False)
        check("sh(wsh(pkh(02e493dbf1c10d80f3581e4904930b1404cc6c13900ee0758474fa94abe8c4cd13)))",
              False, True, False)
        check("multi(1,022f8bde4d1a07209355b4a7250a5c5128e88b84bddc619ab7cba8d569b240efe4,"
              "025cbdf0646e5db4eaa398f365f2ea7a0e3d419b7e0330e39ce92bddedcac4f9bc)",
              False, True, False)
        check("pkh(%s/1h/2)" % TPUB, False, True, False)
        check("pkh([d34db33f/44h/0h/0h]%s/1/*)" % TPUB, True, True, False)
        check("wsh(multi(1,%s/1/0/*,%s/0/0/*))" % (TPUB, TPUB), True, True, False)
        check("wpkh(%s/<0;1>/*)" % TPUB, True, True, False,
              expanded=["wpkh(%s/0/*)" % TPUB, "wpkh(%s/1/*)" % TPUB])
        check("raw(00)", False, False, False)
        check("addr(%s)" % ADDR_110, False, False, False)
        check("tr(%s,{pk(%s),multi_a(1,%s,%s)})" % (G_X, K3, G, K3), False, True, False)
        # Private keys: shown as their public keys; the marker of hardened steps is kept.
        check("wpkh(%s/1'/1/0)" % TPRV, False, True, True, expect="wpkh(%s/1'/1/0)" % TPUB)
        info = rpc("getdescriptorinfo", "pkh(%s)" % MSG_KEY)
        key = info["descriptor"][4:70]
        assert_equal(b58encode_check(bytes([111]) + hash160(bytes.fromhex(key))), MSG_ADDR)
        assert_equal(info["hasprivatekeys"], True)

        self.log("getdescriptorinfo: Core's errors")
        for desc, err in [
                ("", "'' is not a valid descriptor function"),
                ("pk( %s)" % G, "pk(): Key ' %s' is invalid due to whitespace" % G),
                ("wsh(multi(2, %s,%s))" % (G, K3), "Multi: Key ' %s' is invalid due to "
                 "whitespace" % G),
                ("pkh(%s/1/*/2)" % TPUB, "pkh(): Key path value '*' is not a valid uint32"),
                ("pkh(%s/2147483648)" % TPUB, "pkh(): Key path value 2147483648 is out of "
                 "range"),
                ("wpkh(%s)" % G_UNCOMPRESSED, "wpkh(): Uncompressed keys are not allowed"),
                ("sh(sh(pk(%s)))" % G, "Can only have sh() at top level"),
                ("wsh(and_v(v:pk(%s),older(1)))" % G, "A function is needed within P2WSH"),
                ("multi(4,%s,%s,%s,%s)" % (G, G, G, G), "Cannot have 4 pubkeys in bare "
                 "multisig; only at most 3 pubkeys"),
                ("tr(%s,{pk(%s)})" % (G_X, G), "tr(): expected ',' after script expression"),
                ("tr(%s,{pk(%s),pk(%s))" % (G_X, G, K3), "tr(): expected '}' after script "
                 "expression"),
                ("addr(%s)" % MSG_ADDR[:-1], "Address is not valid"),
                ("pk(%s)#" % G, "Expected 8 character checksum, not 0 characters"),
                ("pk(%s)#aaaaaaaa" % G, "Provided checksum 'aaaaaaaa' does not match "
                 "computed checksum '%s'" % descsum("pk(%s)" % G)[-8:])]:
            e = assert_raises_rpc_error(-5, None, rpc, "getdescriptorinfo", desc)
            assert_equal(e.message, err)
        assert_raises_rpc_error(-3, "JSON value of type number is not of expected type string",
                                rpc, "getdescriptorinfo", 1)
        assert_raises_rpc_error(-1, "getdescriptorinfo", rpc, "getdescriptorinfo")

    def test_deriveaddresses(self):
        rpc = self.node.rpc
        self.log("deriveaddresses: Core's rpc_deriveaddresses.py")
        assert_raises_rpc_error(-5, "Missing checksum", rpc, "deriveaddresses", "a")
        desc = "wpkh(%s/1/1/0)#t6wfjs64" % TPRV
        assert_equal(descsum(desc[:-9]), desc)
        assert_equal(rpc("deriveaddresses", desc), [ADDR_110])
        assert_raises_rpc_error(-5, "Missing checksum", rpc, "deriveaddresses", desc[:-9])
        assert_equal(rpc("deriveaddresses", "wpkh(%s/1/1/0)#s9ga3alw" % TPUB), [ADDR_110])
        ranged = "wpkh(%s/1/1/*)#kft60nuy" % TPRV
        assert_equal(rpc("deriveaddresses", ranged, [1, 2]), [ADDR_111, ADDR_112])
        assert_equal(rpc("deriveaddresses", ranged, 2), [ADDR_110, ADDR_111, ADDR_112])
        assert_equal(rpc("deriveaddresses", descsum("wpkh(%s/1/<0;1>/*)" % TPRV), [1, 2]),
                     [["bcrt1q7c8mdmdktrzs8xgpjmqw90tjn65j5a3yj04m3n",
                       "bcrt1qs6n37uzu0v0qfzf0r0csm0dwa7prc0v5uavgy0"], [ADDR_111, ADDR_112]])
        assert_equal(rpc("deriveaddresses", descsum("wpkh(%s/1/1/*)" % TPRV),
                         [2147483647, 2147483647]),
                     ["bcrt1qtzs23vgzpreks5gtygwxf8tv5rldxvvsyfpdkg"])
        assert_equal(rpc("deriveaddresses", descsum("combo(%s/1/1/0)" % TPRV)),
                     ["mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ", ADDR_110,
                      "2NDvEwGfpEqJWfybzpKPHF2XH3jwoQV3D7x"])
        unranged = descsum("wpkh(%s/1/1/0)" % TPRV)
        ranged = descsum("wpkh(%s/1/1/*)" % TPRV)
        for args, code, err in [
                ((unranged, [0, 2]), -8, "Range should not be specified for an un-ranged "
                 "descriptor"),
                ((ranged,), -8, "Range must be specified for a ranged descriptor"),
                ((ranged, None), -8, "Range must be specified for a ranged descriptor"),
                ((ranged, 10000000000), -8, "End of range is too high"),
                ((ranged, [1000000000, 2000000000]), -8, "Range is too large"),
                ((ranged, [2, 0]), -8, "Range specified as [begin,end] must not have begin "
                 "after end"),
                ((ranged, [-1, 0]), -8, "Range should be greater or equal than 0"),
                ((ranged, "1"), -8, "Range must be specified as end or as [begin,end]"),
                ((ranged, [1]), -8, "Range must be specified as end or as [begin,end]"),
                ((descsum("pk(%s)" % TPRV),), -5, "Descriptor does not have a corresponding "
                 "address"),
                ((descsum("wpkh(%s/1'/1/0)" % TPUB),), -5, "Cannot derive script without "
                 "private keys"),
                ((descsum("multi(1,%s/1/1/0,%s/1/1/1)" % (TPUB, TPUB)),), -5,
                 "Descriptor does not have a corresponding address"),
                ((descsum("unused(%s)" % G),), -1, "Unexpected empty result"),
                (("wpkh(%s/1/1/0)#aaaaaaaa" % TPUB,), -5, "Provided checksum 'aaaaaaaa' does "
                 "not match computed checksum 's9ga3alw'")]:
            e = assert_raises_rpc_error(code, None, rpc, "deriveaddresses", *args)
            assert_equal(e.message, err)

        self.log("deriveaddresses: taproot and other forms, checked against this file's "
                 "encoders")
        assert_equal(rpc("deriveaddresses", descsum("rawtr(%s)" % G_X)),
                     [segwit_addr("bcrt", 1, bytes.fromhex(G_X))])
        assert_equal(rpc("deriveaddresses", descsum("raw(0014%s)" % ("11" * 20))),
                     [segwit_addr("bcrt", 0, bytes.fromhex("11" * 20))])
        assert_equal(rpc("deriveaddresses", descsum("addr(%s)" % ADDR_110.upper())), [ADDR_110])
        pkh = b58encode_check(bytes([111]) + hash160(bytes.fromhex(G)))
        assert_equal(rpc("deriveaddresses", descsum("pkh(%s)" % G)), [pkh])
        keys = sorted(BIP67_KEYS)
        assert_equal(rpc("deriveaddresses", descsum("sh(sortedmulti(2,%s))" %
                                                    ",".join(BIP67_KEYS))), [BIP67_ADDR])
        assert_equal(rpc("deriveaddresses", descsum("sh(multi(2,%s))" % ",".join(keys))),
                     [BIP67_ADDR])
        # tr(): the output key is the BIP341 tweak of the internal key by the script tree.
        assert_equal(rpc("deriveaddresses", descsum("tr(%s)" % G)),
                     [segwit_addr("bcrt", 1, taproot_output(G_X, None))])
        leaf = tapleaf(bytes([32]) + bytes.fromhex(K3[2:]) + b"\xac")
        assert_equal(rpc("deriveaddresses", descsum("tr(%s,pk(%s))" % (G_X, K3))),
                     [segwit_addr("bcrt", 1, taproot_output(G_X, leaf))])
        leaf2 = tapleaf(bytes([32]) + bytes.fromhex(G_X) + b"\xac" + bytes([32]) +
                        bytes.fromhex(K3[2:]) + b"\xba\x52\x9c")
        assert_equal(rpc("deriveaddresses", descsum("tr(%s,{pk(%s),multi_a(2,%s,%s)})" %
                                                    (G_X, K3, G, K3))),
                     [segwit_addr("bcrt", 1, taproot_output(G_X, tapbranch(leaf, leaf2)))])

    def test_messages(self):
        rpc = self.node.rpc
        self.log("signmessagewithprivkey / verifymessage: Core's vector")
        assert_equal(rpc("signmessagewithprivkey", MSG_KEY, MSG), MSG_SIG)
        assert_equal(rpc("verifymessage", MSG_ADDR, MSG_SIG, MSG), True)
        assert_equal(rpc("verifymessage", MSG_ADDR, MSG_SIG, MSG + "."), False)
        # The same key's segwit addresses have no key to check against.
        for desc in ["sh(wpkh(%s))" % MSG_KEY, "wpkh(%s)" % MSG_KEY]:
            addr = rpc("deriveaddresses", descsum(desc))[0]
            assert_raises_rpc_error(-3, "Address does not refer to key", rpc, "verifymessage",
                                    addr, MSG_SIG, MSG)
        # The key 1 (public key G): its signature verifies for its own address only.
        one = b58encode_check(b"\xef" + (1).to_bytes(32, "big") + b"\x01")
        one_addr = b58encode_check(bytes([111]) + hash160(bytes.fromhex(G)))
        other = rpc("signmessagewithprivkey", one, MSG)
        assert_equal(rpc("verifymessage", one_addr, other, MSG), True)
        assert_equal(rpc("verifymessage", MSG_ADDR, other, MSG), False)
        # Not 65 bytes: false.
        assert_equal(rpc("verifymessage", MSG_ADDR, base64.b64encode(b"\x1f" * 64).decode(), MSG),
                     False)
        # The header byte's compression flag is part of what is checked.
        raw = bytearray(base64.b64decode(MSG_SIG))
        raw[0] ^= 4
        assert_equal(rpc("verifymessage", MSG_ADDR, base64.b64encode(bytes(raw)).decode(), MSG),
                     False)
        # Messages with any bytes, NUL included.
        sig = rpc("signmessagewithprivkey", MSG_KEY, "a\u0000b\u00e9")
        assert_equal(rpc("verifymessage", MSG_ADDR, sig, "a\u0000b\u00e9"), True)
        assert_equal(rpc("verifymessage", MSG_ADDR, sig, "a"), False)

        self.log("signmessagewithprivkey / verifymessage: errors")
        for n in [0, 1, 3]:
            assert_raises_rpc_error(-1, "signmessagewithprivkey", rpc, "signmessagewithprivkey",
                                    *(["dummy"] * n))
        for n in [0, 1, 2, 4]:
            assert_raises_rpc_error(-1, "verifymessage", rpc, "verifymessage", *(["dummy"] * n))
        assert_raises_rpc_error(-5, "Invalid private key", rpc, "signmessagewithprivkey",
                                "invalid_key", MSG)
        # A mainnet key is not a key of this chain.
        main_key = b58encode_check(b"\x80" + b58decode_check(MSG_KEY)[1:])
        assert_raises_rpc_error(-5, "Invalid private key", rpc, "signmessagewithprivkey",
                                main_key, MSG)
        assert_raises_rpc_error(-5, "Invalid address", rpc, "verifymessage", "invalid_addr",
                                MSG_SIG, MSG)
        assert_raises_rpc_error(-3, "Malformed base64 encoding", rpc, "verifymessage", MSG_ADDR,
                                "invalid_sig", MSG)
        assert_raises_rpc_error(-3, "Malformed base64 encoding", rpc, "verifymessage", MSG_ADDR,
                                MSG_SIG[:-2] + "=", MSG)


if __name__ == "__main__":
    UtilTest().main()
