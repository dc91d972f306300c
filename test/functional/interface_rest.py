#!/usr/bin/env python3
"""The REST interface (-rest), as Bitcoin Core's interface_rest.py checks it.

node0 runs with -rest -txindex -blockfilterindex, node1 without -rest. Every request is a fresh
unauthenticated HTTP/1.1 connection. For each path the answer must be the matching RPC's (same
bytes or the same JSON), with Core's Content-Type and Cache-Control:
- /tx/ from the mempool and from -txindex (blockhash only once confirmed); /block/ and
  /block/notxdetails/ (getblock 3 and 1; raw bytes in .bin/.hex); /blockpart/ byte ranges;
  /headers/ (new and deprecated form, getblockheader); /blockhashbyheight/; /chaininfo
  (getblockchaininfo); /deploymentinfo (getdeploymentinfo, tip and by hash); /mempool/info and
  /mempool/contents with their query parameters (getmempoolinfo, getrawmempool);
  /blockfilter/ and /blockfilterheaders/ (getblockfilter); /spenttxouts/ (getblock 3's
  prevouts) for every block; /getutxos/ with and without checkmempool, Core's binary layout,
  the POST body forms and Core's quirk in reading them;
- Core's statuses and texts (body = message + CRLF, text/plain, no-store): bad hash 400,
  unknown block 404, missing format 404 with the list, count out of range 400, and so on;
- GET, POST, HEAD and PUT are alike, credentials are not needed nor looked at;
- with -rest off every /rest/ path is the server's 404; an unknown /rest/ path too; a node with
  -rest but no indexes answers Core's "Index is not enabled" and finds no confirmed
  transaction.
Not checked: the 503 during warm-up (start-up is too quick to catch it), and Core's 500 after the
blk files are renamed away (the block store keeps its files open).
"""
import json
import struct

from blocktools import (P2WSH_TRUE, SCRIPT_TRUE, Coin, OutPoint, read_compact_size,
                        segwit_address, ser_compact_size, sha256, spend_tx)
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

COIN = 100_000_000
# P2WSH(OP_TRUE): coinbases paid there can be spent without keys (witness: the script).
ADDR = segwit_address("bcrt", 0, sha256(SCRIPT_TRUE))
OTHER = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"
ZEROS = "0" * 64
IMMUTABLE = "public, immutable, max-age=86400"
NO_STORE = "no-store"
FORMATS = "output format not found (available: .bin, .hex, .json)"
JSON_ONLY = "output format not found (available: json)"
COUNT_ERR = "Header count is invalid or out of acceptable range (1-2000): "


def header(headers, name):
    for k, v in headers.items():
        if k.lower() == name.lower():
            return v
    return None


def sat(btc):
    return int(round(btc * COIN))


def parse_getutxos(b):
    """Core's getutxos binary answer: (height, tip hex, bitmap bytes, [(height, value, spk)])."""
    height = struct.unpack("<i", b[:4])[0]
    tip = b[4:36][::-1].hex()
    nbytes, pos = read_compact_size(b, 36)
    bitmap = b[pos:pos + nbytes]
    pos += nbytes
    n, pos = read_compact_size(b, pos)
    utxos = []
    for _ in range(n):
        dummy, h, value = struct.unpack("<IIq", b[pos:pos + 16])
        assert_equal(dummy, 0)
        pos += 16
        slen, pos = read_compact_size(b, pos)
        utxos.append((h, value, b[pos:pos + slen]))
        pos += slen
    assert_equal(pos, len(b))
    return height, tip, bitmap, utxos


def outpoint_bytes(txid_hex, n):
    return bytes.fromhex(txid_hex)[::-1] + struct.pack("<I", n)


class RESTTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 2
        self.extra_args = [["-rest", "-txindex", "-blockfilterindex"], []]

    # ---- requests -----------------------------------------------------------------------

    def request(self, uri, method="GET", body=None, node=None, auth=False):
        """One request on a fresh connection: (status, headers, body bytes)."""
        node = node or self.nodes[0]
        return node.http(body, auth=auth, method=method, path=uri)

    def rest(self, path, fmt=None, query=None, status=200, method="GET", body=None,
             cache=None, ctype=None):
        """/rest/<path>[.<fmt>][?<query>]; checks the status (and Cache-Control and
        Content-Type when given); returns the body bytes."""
        uri = "/rest/" + path + ("." + fmt if fmt is not None else "") + \
            ("?" + query if query is not None else "")
        st, h, data = self.request(uri, method=method, body=body)
        assert_true(st == status, "%s %s: status %d, wanted %d (%r)" % (method, uri, st, status,
                                                                         data[:300]))
        if cache is not None:
            assert_equal(header(h, "Cache-Control"), cache)
        if ctype is not None:
            assert_equal(header(h, "Content-Type"), ctype)
        return data

    def rest_json(self, path, query=None, cache=None, method="GET", body=None):
        data = self.rest(path, "json", query, cache=cache, ctype="application/json",
                         method=method, body=body)
        assert_true(data.endswith(b"\n"), "JSON answers end with a newline")
        return json.loads(data)

    def rest_bin(self, path, query=None, cache=None, method="GET", body=None):
        return self.rest(path, "bin", query, cache=cache, ctype="application/octet-stream",
                         method=method, body=body)

    def rest_hex(self, path, query=None, cache=None, method="GET", body=None):
        data = self.rest(path, "hex", query, cache=cache, ctype="text/plain", method=method,
                         body=body)
        assert_true(data.endswith(b"\n"), ".hex answers end with a newline")
        return data

    def rest_error(self, path, status, text, fmt=None, query=None, method="GET", body=None):
        """Core's RESTERR: the status, text/plain, no-store, the message and CRLF."""
        uri = "/rest/" + path + ("." + fmt if fmt is not None else "") + \
            ("?" + query if query is not None else "")
        st, h, data = self.request(uri, method=method, body=body)
        assert_true(st == status, "%s: status %d, wanted %d (%r)" % (uri, st, status, data))
        assert_equal(data, text.encode() + b"\r\n")
        assert_equal(header(h, "Content-Type"), "text/plain")
        assert_equal(header(h, "Cache-Control"), NO_STORE)

    def server_404(self, uri, node=None):
        st, h, data = self.request(uri, node=node)
        assert_equal(st, 404)
        assert_equal(header(h, "Cache-Control"), NO_STORE)

    # ---- the test -----------------------------------------------------------------------

    def coinbase(self, blockhash):
        cb = self.nodes[0].rpc("getblock", blockhash, 2)["tx"][0]
        return Coin(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), sat(cb["vout"][0]["value"]),
                    P2WSH_TRUE)

    def run_test(self):
        node = self.nodes[0]
        genesis = node.rpc("getblockhash", 0)
        self.log("-rest off: every /rest/ path is the server's 404")
        for uri in ("/rest/chaininfo.json", "/rest/block/%s.json" % genesis,
                    "/rest/tx/%s.hex" % ZEROS, "/rest/mempool/info.json"):
            self.server_404(uri, node=self.nodes[1])

        self.hashes = node.rpc("generatetoaddress", 110, ADDR)
        node.rpc("generatetoaddress", 1, OTHER)
        self.coins = [self.coinbase(h) for h in self.hashes[:10]]

        self.test_tx()
        self.test_getutxos()
        self.test_mempool()
        self.test_block()
        self.test_blockpart()
        self.test_headers()
        self.test_blockhashbyheight()
        self.test_chaininfo_deploymentinfo()
        self.test_filters()
        self.test_spenttxouts()
        self.test_methods_and_paths()
        self.test_no_index()

    def test_tx(self):
        node = self.nodes[0]
        self.log("/tx/: from the mempool, then from -txindex")
        c = self.coins[0]
        tx = spend_tx([c], outputs=[(10_000_000, P2WSH_TRUE),
                                    (c.value - 10_000_000 - 10_000, P2WSH_TRUE)])
        txid = node.rpc("sendrawtransaction", tx.hex())
        self.tx1 = tx
        raw = node.rpc("getrawtransaction", txid, 1)
        keys = ["txid", "hash", "version", "size", "vsize", "weight", "locktime", "vin", "vout",
                "hex"]
        j = self.rest_json("tx/" + txid, cache=NO_STORE)
        assert_equal(list(j.keys()), keys)
        for k in keys:
            assert_equal(j[k], raw[k])
        assert_equal(self.rest_bin("tx/" + txid, cache=NO_STORE), bytes.fromhex(raw["hex"]))
        hx = self.rest_hex("tx/" + txid, cache=NO_STORE)
        assert_equal(hx, raw["hex"].encode() + b"\n")
        assert_true(len(hx) >= 2 * j["size"], "hex of the whole transaction")

        self.rest_error("tx/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("tx/" + ZEROS, 404, ZEROS + " not found", "json")
        self.rest_error("tx/" + txid, 404, FORMATS)
        self.rest_error("tx/" + txid + ".xml", 400, "Invalid hash: %s.xml" % txid)
        self.rest_error("tx/" + txid, 400, "Invalid hash: %s.xml" % txid, "xml", "a=.json")

        block = node.rpc("generatetoaddress", 1, ADDR)[0]
        j = self.rest_json("tx/" + txid, cache=NO_STORE)
        assert_equal(list(j.keys()), keys[:-1] + ["blockhash", "hex"])
        assert_equal(j["blockhash"], block)
        assert_equal(j["blockhash"], node.rpc("getrawtransaction", txid, 1)["blockhash"])
        assert_true("confirmations" not in j, "TxToUniv has no confirmations")

    def test_getutxos(self):
        node = self.nodes[0]
        self.log("/getutxos/: the chain's coins, the bitmap, Core's binary layout")
        txid = self.tx1.txid_hex
        spent = self.coins[0].outpoint.txid[::-1].hex()
        tip, height = node.rpc("getbestblockhash"), node.rpc("getblockcount")
        j = self.rest_json("getutxos/%s-0" % txid, cache=NO_STORE)
        assert_equal(j["chaintipHash"], tip)
        assert_equal(j["chainHeight"], height)
        assert_equal(j["bitmap"], "1")
        assert_equal(len(j["utxos"]), 1)
        out = node.rpc("gettxout", txid, 0)
        assert_equal(j["utxos"][0], {"height": height, "value": 0.1,
                                     "scriptPubKey": out["scriptPubKey"]})
        j = self.rest_json("getutxos/%s-0" % spent)
        assert_equal((j["bitmap"], j["utxos"]), ("0", []))
        j = self.rest_json("getutxos/%s-0/%s-0" % (txid, spent))
        assert_equal(j["bitmap"], "10")
        assert_equal(len(j["utxos"]), 1)

        b = self.rest_bin("getutxos/%s-0/%s-0/%s-1" % (txid, spent, txid), cache=NO_STORE)
        h, t, bitmap, utxos = parse_getutxos(b)
        assert_equal((h, t, bitmap), (height, tip, bytes([0b101])))
        assert_equal([(u[0], u[1], u[2].hex()) for u in utxos],
                     [(height, 10_000_000, P2WSH_TRUE.hex()),
                      (height, self.tx1.vout[1].value, P2WSH_TRUE.hex())])
        assert_equal(self.rest_hex("getutxos/%s-0/%s-0/%s-1" % (txid, spent, txid)),
                     b.hex().encode() + b"\n")

        self.log("/getutxos/ POST bodies, with Core's quirk: the flag is the body length")
        # Core reads compactsize(len(body)) || body: the flag byte is the length (nonzero:
        # checkmempool), the outpoint count is the body's first byte.
        body = b"\x01" + outpoint_bytes(txid, 0)
        b = self.rest_bin("getutxos", method="POST", body=body)
        h, t, bitmap, utxos = parse_getutxos(b)
        assert_equal((h, t, bitmap, len(utxos)), (height, tip, b"\x01", 1))
        assert_equal(self.rest_hex("getutxos", method="POST", body=body.hex()),
                     b.hex().encode() + b"\n")
        # Core's own test body (a BIP64-style 01 02 <op> <op>) reads one garbage outpoint.
        body = b"\x01\x02" + outpoint_bytes(txid, 0) + outpoint_bytes(spent, 0)
        h, t, bitmap, utxos = parse_getutxos(self.rest_bin("getutxos", method="POST", body=body))
        assert_equal((h, t, bitmap, utxos), (height, tip, b"\x00", []))
        # Bad hex is no body at all: nothing asked, nothing found.
        h, t, bitmap, utxos = parse_getutxos(bytes.fromhex(self.rest_hex(
            "getutxos", method="POST", body="zz").decode().strip()))
        assert_equal((bitmap, utxos), (b"", []))

        self.log("/getutxos/ errors")
        self.rest_error("getutxos", 400, "Error: empty request", "json", method="POST",
                        body='{"checkmempool')
        self.rest_error("getutxos", 400, "Parse error", "bin", method="POST",
                        body='{"checkmempool')
        self.rest_error("getutxos/checkmempool", 400, "Error: empty request", "json",
                        method="POST")
        self.rest_error("getutxos", 400, "Error: empty request", "bin")
        self.rest_error("getutxos/%s-0" % txid, 400,
                        "Combination of URI scheme inputs and raw post data is not allowed",
                        "bin", method="POST", body=b"\x01" + outpoint_bytes(txid, 0))
        for bad in ("%s_+1" % txid, "%s-+1" % txid, "%s--1" % txid, "%saa-1234" % txid,
                    "aa-1234", "%s-4294967296" % txid, "%s-" % txid):
            self.rest_error("getutxos/checkmempool/" + bad, 400, "Parse error", "json")
        self.rest_error("getutxos/%s-0" % txid, 404, FORMATS)
        many = "/".join("%s-%d" % (txid, n) for n in range(20))
        self.rest_error("getutxos/checkmempool/" + many, 400,
                        "Error: max outpoints exceeded (max: 15, tried: 20)", "json",
                        method="POST")
        many = "/".join("%s-%d" % (txid, n) for n in range(15))
        assert_equal(len(self.rest_json("getutxos/checkmempool/" + many, method="POST")
                         ["bitmap"]), 15)

        self.log("/getutxos/checkmempool: pool outputs found, pool spends gone")
        child = spend_tx([self.tx1.coin(0)], outputs=[(10_000_000 - 10_000, P2WSH_TRUE)])
        cid = node.rpc("sendrawtransaction", child.hex())
        self.child = child
        assert_equal(self.rest_json("getutxos/%s-0" % cid)["bitmap"], "0")
        j = self.rest_json("getutxos/checkmempool/%s-0" % cid)
        assert_equal(j["bitmap"], "1")
        assert_equal(j["utxos"][0]["height"], 0x7FFFFFFF)
        assert_equal(self.rest_json("getutxos/%s-0" % txid)["bitmap"], "1")
        assert_equal(self.rest_json("getutxos/checkmempool/%s-0" % txid)["bitmap"], "0")
        assert_equal(self.rest_json("getutxos/checkmempool/%s-5" % cid)["bitmap"], "0")

    def test_mempool(self):
        node = self.nodes[0]
        self.log("/mempool/: getmempoolinfo and getrawmempool, with the query parameters")
        c = self.coins[1]
        t1 = spend_tx([c], outputs=[(c.value - 10_000, P2WSH_TRUE)])
        t2 = spend_tx([t1.coin(0)], outputs=[(t1.vout[0].value - 10_000, P2WSH_TRUE)])
        t3 = spend_tx([t2.coin(0)], outputs=[(t2.vout[0].value - 10_000, P2WSH_TRUE)])
        self.pool_txids = [node.rpc("sendrawtransaction", t.hex()) for t in (t1, t2, t3)]
        info = self.rest_json("mempool/info", cache=NO_STORE)
        assert_equal(info["size"], 4)
        rpc_info = node.rpc("getmempoolinfo")
        info.pop("unbroadcastcount")
        rpc_info.pop("unbroadcastcount")
        assert_equal(info, rpc_info)
        verbose = node.rpc("getrawmempool", True)
        assert_equal(self.rest_json("mempool/contents", cache=NO_STORE), verbose)
        assert_equal(self.rest_json("mempool/contents", "verbose=true&mempool_sequence=false"),
                     verbose)
        assert_equal(self.rest_json("mempool/contents", "verbose=false"),
                     node.rpc("getrawmempool"))
        assert_equal(self.rest_json("mempool/contents", "verbose=false&mempool_sequence=true"),
                     node.rpc("getrawmempool", False, True))
        assert_equal(self.rest_json("mempool/contents", "verbose=%66alse"),
                     node.rpc("getrawmempool"))
        # ParseDataFormat cuts at the last '?', query parameters start at the first.
        st, _, data = self.request("/rest/mempool/contents.json?%.json")
        assert_equal(st, 200)
        assert_equal(json.loads(data), verbose)
        self.rest_error("mempool/contents", 400, "Verbose results cannot contain mempool "
                        "sequence values. (hint: set \"verbose=false\")", "json",
                        "verbose=true&mempool_sequence=true")
        self.rest_error("mempool/contents", 400, "The \"verbose\" query parameter must be "
                        "either \"true\" or \"false\".", "json", "verbose=TRUE")
        self.rest_error("mempool/contents", 400, "The \"mempool_sequence\" query parameter "
                        "must be either \"true\" or \"false\".", "json",
                        "verbose=false&mempool_sequence=TRUE")
        self.rest_error("mempool/not-a-valid-path", 400, "Invalid URI format. Expected "
                        "/rest/mempool/<info|contents>.json", "json")
        self.rest_error("mempool/info", 404, JSON_ONLY, "bin")
        self.rest_error("mempool/contents", 404, JSON_ONLY)

    def test_block(self):
        node = self.nodes[0]
        self.log("/block/ and /block/notxdetails/: getblock's bytes and JSON")
        self.tx_block = node.rpc("generatetoaddress", 1, ADDR)[0]
        b = self.tx_block
        v3 = node.rpc("getblock", b, 3)
        assert_equal(sorted(t["txid"] for t in v3["tx"][1:]),
                     sorted(self.pool_txids + [self.child.txid_hex]))
        raw = node.rpc("getblock", b, 0)
        assert_equal(self.rest_bin("block/" + b, cache=IMMUTABLE), bytes.fromhex(raw))
        assert_equal(self.rest_hex("block/" + b, cache=IMMUTABLE), raw.encode() + b"\n")
        assert_equal(self.rest_json("block/" + b, cache=NO_STORE), v3)
        assert_true("prevout" not in v3["tx"][0]["vin"][0], "the coinbase spends nothing")
        for t in v3["tx"][1:]:
            for vin in t["vin"]:
                assert_in("prevout", vin)
        assert_equal(self.rest_json("block/notxdetails/" + b, cache=NO_STORE),
                     node.rpc("getblock", b, 1))
        assert_equal(self.rest_bin("block/notxdetails/" + b), bytes.fromhex(raw))
        assert_equal(self.rest_json("block/" + genesis_of(node)), node.rpc("getblock",
                                                                          genesis_of(node), 3))

        self.rest_error("block/" + ZEROS, 404, ZEROS + " not found", "json")
        self.rest_error("block/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("block/" + b, 404, FORMATS)
        self.rest_error("block/" + b, 404, FORMATS, "")
        self.rest_error("block/%s.invalid" % b, 400, "Invalid hash: %s.invalid" % b)
        self.rest_error("block/" + b.upper(), 404, FORMATS)
        assert_equal(self.rest_json("block/notxdetails/" + b.upper()), node.rpc("getblock", b, 1))

        self.log("a block off the active chain is still served; headers walk the active chain")
        node.rpc("invalidateblock", b)
        j = self.rest_json("block/" + b)
        assert_equal(j["confirmations"], -1)
        assert_equal(self.rest_json("headers/" + b, "count=1"), [])
        node.rpc("reconsiderblock", b)
        assert_equal(node.rpc("getbestblockhash"), b)

    def test_blockpart(self):
        self.log("/blockpart/: byte ranges of the stored block")
        b = self.tx_block
        blk = self.rest_bin("block/" + b)
        assert_true(len(blk) >= 500, "a block with transactions")
        for fmt in ("bin", "hex"):
            def part(query):
                data = self.rest("blockpart/" + b, fmt, query, cache=IMMUTABLE)
                return data if fmt == "bin" else bytes.fromhex(data.decode().strip())
            assert_equal(part("offset=0&size=%d" % len(blk)), blk)
            assert_equal(part("offset=20&size=300"), blk[20:320])
            assert_equal(part("offset=%d&size=5" % (len(blk) - 5)), blk[-5:])
            assert_equal(part("offset=%30&size=%31"), blk[:1])
            assert_equal(part("size=2&offset=1&offset=7"), blk[1:3])
            bad_range = "Bad block part offset/size %d/%d for " + b
            for q, text in (("offset=10", "Block part size missing or invalid"),
                            ("size=100", "Block part offset missing or invalid"),
                            ("offset=x", "Block part offset missing or invalid"),
                            ("offset=0&size=y", "Block part size missing or invalid"),
                            ("offset=x&size=y", "Block part offset missing or invalid"),
                            ("offset=-1&size=1", "Block part offset missing or invalid"),
                            ("offset=+1&size=1", "Block part offset missing or invalid"),
                            ("%XY", "Block part offset missing or invalid"),
                            ("offset=0&size=0", bad_range % (0, 0)),
                            ("offset=%d&size=0" % len(blk), bad_range % (len(blk), 0)),
                            ("offset=%d&size=1" % len(blk), bad_range % (len(blk), 1)),
                            ("offset=%d&size=1" % (len(blk) + 1), bad_range % (len(blk) + 1, 1)),
                            ("offset=0&size=%d" % (len(blk) + 1), bad_range % (0, len(blk) + 1)),
                            ("offset=18446744073709551615&size=2",
                             bad_range % (2**64 - 1, 2))):
                self.rest_error("blockpart/" + b, 400, text, fmt, q)
        self.rest_error("blockpart/" + b, 400, "Block part offset missing or invalid", "bin")
        self.rest_error("blockpart/" + b, 400, "JSON output is not supported for this request "
                        "type", "json", "offset=0&size=1")
        self.rest_error("blockpart/" + b, 404, FORMATS, None, "offset=0&size=1")
        self.rest_error("blockpart/" + ZEROS, 404, ZEROS + " not found", "bin", "offset=0&size=1")

    def test_headers(self):
        node = self.nodes[0]
        self.log("/headers/: getblockheader's bytes and JSON, new and deprecated forms")
        tip = node.rpc("getbestblockhash")
        blk = self.rest_bin("block/" + tip)
        st, h, data = self.request("/rest/headers/%s.bin?count=1" % tip)
        assert_equal(st, 200)
        assert_equal(int(header(h, "Content-Length")), 80)
        assert_equal(data, blk[:80])
        start = node.rpc("getblockhash", 100)
        hashes = [node.rpc("getblockhash", 100 + i) for i in range(5)]
        want = [node.rpc("getblockheader", x) for x in hashes]
        assert_equal(self.rest_json("headers/" + start, cache=NO_STORE), want)
        assert_equal(self.rest_json("headers/" + start, "count=3"), want[:3])
        assert_equal(self.rest_json("headers/3/" + start), want[:3])
        assert_equal(self.rest_json("headers/" + start, "count=%33"), want[:3])
        raw = b"".join(bytes.fromhex(node.rpc("getblockheader", x, False)) for x in hashes)
        assert_equal(self.rest_bin("headers/" + start, cache=NO_STORE), raw)
        assert_equal(self.rest_hex("headers/" + start, cache=NO_STORE), raw.hex().encode() + b"\n")
        assert_equal(self.rest_json("headers/" + tip, "count=2000"), [node.rpc("getblockheader",
                                                                               tip)])
        assert_equal(self.rest_json("headers/" + tip, "count=1"),
                     self.rest_json("headers/1/" + tip))
        assert_equal(self.rest_json("headers/" + ZEROS, "count=1"), [])
        assert_equal(self.rest_bin("headers/" + ZEROS), b"")
        assert_equal(self.rest_hex("headers/" + ZEROS), b"\n")
        for count in ("5a", "-5", "0", "2001", "99999999999999999999999999999999999", ""):
            self.rest_error("headers/" + tip, 400, COUNT_ERR + count, "json", "count=" + count)
            self.rest_error("headers/%s/%s" % (count, tip), 400, COUNT_ERR + count, "json")
        self.rest_error("headers/" + tip + "%", 400, "Invalid hash: %s%%" % tip, "json")
        self.rest_error("headers/abc", 400, "Invalid hash: abc", "bin")
        self.rest_error("headers/1/2/" + tip, 400, "Invalid URI format. Expected "
                        "/rest/headers/<hash>.<ext>?count=<count>", "json")
        self.rest_error("headers/" + tip, 404, FORMATS)

    def test_blockhashbyheight(self):
        node = self.nodes[0]
        self.log("/blockhashbyheight/")
        height = node.rpc("getblockcount")
        tip = node.rpc("getbestblockhash")
        assert_equal(self.rest_json("blockhashbyheight/%d" % height, cache=NO_STORE),
                     {"blockhash": tip})
        assert_equal(self.rest_hex("blockhashbyheight/%d" % height, cache=NO_STORE),
                     tip.encode() + b"\n")
        assert_equal(self.rest_bin("blockhashbyheight/%d" % height, cache=NO_STORE),
                     bytes.fromhex(tip)[::-1])
        assert_equal(self.rest_json("blockhashbyheight/0"), {"blockhash": genesis_of(node)})
        assert_equal(self.rest_json("blockhashbyheight/007"),
                     {"blockhash": node.rpc("getblockhash", 7)})
        for bad in ("abc", "+1", "-1", "", "1.5x", "2147483648"):
            self.rest_error("blockhashbyheight/" + bad, 400, "Invalid height: " + bad, "json")
        self.rest_error("blockhashbyheight/1000000", 404, "Block height out of range", "json")
        self.rest_error("blockhashbyheight/999999999", 404, "Block height out of range", "json")
        self.rest_error("blockhashbyheight/1", 404, FORMATS)

    def test_chaininfo_deploymentinfo(self):
        node = self.nodes[0]
        self.log("/chaininfo, /deploymentinfo")
        assert_equal(self.rest_json("chaininfo", cache=NO_STORE), node.rpc("getblockchaininfo"))
        self.rest_error("chaininfo", 404, JSON_ONLY, "bin")
        self.rest_error("chaininfo", 404, JSON_ONLY)
        st, _, data = self.request("/rest/chaininfo.json?x=1")
        assert_equal((st, json.loads(data)["bestblockhash"]), (200, node.rpc("getbestblockhash")))

        assert_equal(self.rest_json("deploymentinfo", cache=NO_STORE),
                     node.rpc("getdeploymentinfo"))
        prev = node.rpc("getblockhash", node.rpc("getblockcount") - 1)
        assert_equal(self.rest_json("deploymentinfo/" + prev, cache=IMMUTABLE),
                     node.rpc("getdeploymentinfo", prev))
        unknown = "42759cde25462784395a337460bde75f58e73d3f08bd31fdc3507cbac856a2c4"
        self.rest_error("deploymentinfo/" + unknown, 400, "Block not found", "json")
        self.rest_error("deploymentinfo/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("deploymentinfo", 404, JSON_ONLY, "hex")
        self.rest_error("deploymentinfo/abc", 404, JSON_ONLY, "bin")

    def test_filters(self):
        node = self.nodes[0]
        self.log("/blockfilter/, /blockfilterheaders/: getblockfilter's filters and headers")
        height = node.rpc("getblockcount")
        wait_until(lambda: node.rpc("getindexinfo").get("basic block filter index") ==
                   {"synced": True, "best_block_height": height}, what="the filter index")
        start = node.rpc("getblockhash", height - 4)
        hashes = [node.rpc("getblockhash", height - 4 + i) for i in range(5)]
        rpc = [node.rpc("getblockfilter", x) for x in hashes]
        j = self.rest_json("blockfilterheaders/basic/" + start, "count=5", cache=NO_STORE)
        assert_equal(j, [f["header"] for f in rpc])
        assert_equal(self.rest_json("blockfilterheaders/basic/" + start), j)
        assert_equal(self.rest_json("blockfilterheaders/basic/5/" + start), j)
        assert_equal(self.rest_json("blockfilterheaders/basic/" + start, "count=2"), j[:2])
        b = self.rest_bin("blockfilterheaders/basic/" + start, cache=NO_STORE)
        assert_equal(b, b"".join(bytes.fromhex(x)[::-1] for x in j))
        assert_equal(self.rest_hex("blockfilterheaders/basic/" + start, cache=NO_STORE),
                     b.hex().encode() + b"\n")
        assert_equal(self.rest_json("blockfilterheaders/basic/" + ZEROS), [])
        tip = hashes[-1]
        assert_equal(self.rest_json("blockfilterheaders/basic/" + tip, "count=1"),
                     self.rest_json("blockfilterheaders/basic/5/" + tip))

        for x, f in zip(hashes, rpc):
            assert_equal(self.rest_json("blockfilter/basic/" + x, cache=IMMUTABLE),
                         {"filter": f["filter"]})
            filt = bytes.fromhex(f["filter"])
            want = b"\x00" + bytes.fromhex(x)[::-1] + ser_compact_size(len(filt)) + filt
            assert_equal(self.rest_bin("blockfilter/basic/" + x, cache=IMMUTABLE), want)
            assert_equal(self.rest_hex("blockfilter/basic/" + x, cache=IMMUTABLE),
                         want.hex().encode() + b"\n")

        self.rest_error("blockfilterheaders/abc/" + start, 400, "Unknown filtertype abc", "json")
        self.rest_error("blockfilterheaders/basic/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("blockfilterheaders/basic/" + start + "%", 400,
                        "Invalid hash: %s%%" % start, "json")
        for count in ("5a", "-5", "0", "2001", "99999999999999999999999999999999999"):
            self.rest_error("blockfilterheaders/basic/" + start, 400, COUNT_ERR + count, "json",
                            "count=" + count)
        self.rest_error("blockfilterheaders/" + start, 400, "Invalid URI format. Expected "
                        "/rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>",
                        "json")
        self.rest_error("blockfilterheaders/basic/" + start, 404, FORMATS)
        self.rest_error("blockfilter/basic/" + ZEROS, 404, ZEROS + " not found", "json")
        self.rest_error("blockfilter/basic/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("blockfilter/abc/" + start, 400, "Unknown filtertype abc", "json")
        self.rest_error("blockfilter/" + start, 400, "Invalid URI format. Expected "
                        "/rest/blockfilter/<filtertype>/<blockhash>", "json")
        self.rest_error("blockfilter/basic/" + start, 404, FORMATS)

    def test_spenttxouts(self):
        node = self.nodes[0]
        self.log("/spenttxouts/: getblock 3's prevouts, for every block")
        for height in range(node.rpc("getblockcount") + 1):
            h = node.rpc("getblockhash", height)
            txs = node.rpc("getblock", h, 3)["tx"]
            want = [[] if "coinbase" in t["vin"][0] else
                    [{"value": vin["prevout"]["value"],
                      "scriptPubKey": vin["prevout"]["scriptPubKey"]} for vin in t["vin"]]
                    for t in txs]
            assert_equal(self.rest_json("spenttxouts/" + h, cache=IMMUTABLE), want)
            b = self.rest_bin("spenttxouts/" + h, cache=IMMUTABLE)
            assert_equal(self.rest_hex("spenttxouts/" + h, cache=IMMUTABLE),
                         b.hex().encode() + b"\n")
            n, pos = read_compact_size(b, 0)
            assert_equal(n, len(txs))
            got = []
            for _ in range(n):
                k, pos = read_compact_size(b, pos)
                outs = []
                for _ in range(k):
                    value = struct.unpack("<q", b[pos:pos + 8])[0]
                    slen, pos = read_compact_size(b, pos + 8)
                    outs.append((value, b[pos:pos + slen].hex()))
                    pos += slen
                got.append(outs)
            assert_equal(pos, len(b))
            assert_equal(got, [[(sat(o["value"]), o["scriptPubKey"]["hex"]) for o in w]
                               for w in want])
        assert_equal(self.rest_bin("spenttxouts/" + genesis_of(node)), b"\x01\x00")
        self.rest_error("spenttxouts/" + ZEROS, 404, ZEROS + " not found", "json")
        self.rest_error("spenttxouts/abc", 400, "Invalid hash: abc", "json")
        self.rest_error("spenttxouts/a/b", 400, "Invalid URI format. Expected "
                        "/rest/spenttxouts/<hash>.<ext>", "json")
        self.rest_error("spenttxouts/" + genesis_of(node), 404, FORMATS)

    def test_methods_and_paths(self):
        node = self.nodes[0]
        self.log("GET, POST, HEAD, PUT alike; no credentials needed nor checked; unknown paths")
        want = self.rest("chaininfo", "json")
        for method in ("POST", "PUT"):
            assert_equal(self.rest("chaininfo", "json", method=method), want)
        self.rest("chaininfo", "json", method="HEAD")
        for auth in (None, ("nobody", "wrong")):
            st, _, data = self.request("/rest/chaininfo.json", auth=auth)
            assert_equal((st, data), (200, want))
        st, h, _ = self.request("/rest/chaininfo.json", method="DELETE")
        assert_equal(st, 405)
        for uri in ("/rest?x=1", "/rest/tx", "/rest/does-not-exist", "/rest/",
                    "/rest/blockfilterheader/basic/%s.json" % ZEROS):
            self.server_404(uri)
        # Core matches prefixes on the raw target: these reach the handlers named.
        st, _, data = self.request("/rest/chaininfoFOO.json")
        assert_equal(st, 200)
        st, _, data = self.request("/rest/deploymentinfo/.json")
        assert_equal((st, json.loads(data)), (200, node.rpc("getdeploymentinfo")))
        # JSON-RPC on the same port still wants credentials.
        st, _, _ = node.http('{"method":"getblockcount","id":1}', auth=False)
        assert_equal(st, 401)

    def test_no_index(self):
        plain = self.nodes[1]
        self.log("-rest without indexes: Core's 'Index is not enabled', no confirmed txs")
        plain.stop()
        plain.start(["-rest"])
        genesis = plain.rpc("getblockhash", 0)
        for path in ("/rest/blockfilter/basic/%s.json" % genesis,
                     "/rest/blockfilterheaders/basic/%s.json" % genesis):
            st, h, data = self.request(path, node=plain)
            assert_equal((st, data), (400, b"Index is not enabled for filtertype basic\r\n"))
        cb = plain.rpc("getblock", genesis, 1)["tx"][0]
        st, _, data = self.request("/rest/tx/%s.json" % cb, node=plain)
        assert_equal((st, data), (404, ("%s not found\r\n" % cb).encode()))
        st, _, data = self.request("/rest/chaininfo.json", node=plain)
        assert_equal(json.loads(data), plain.rpc("getblockchaininfo"))
        assert_in(b"Invalid hash", self.request("/rest/tx/x.json", node=plain)[2])


def genesis_of(node):
    return node.rpc("getblockhash", 0)


if __name__ == "__main__":
    RESTTest().main()
