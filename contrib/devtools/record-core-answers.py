#!/usr/bin/env python3
"""Records Bitcoin Core's answers to bitnode's RPC methods called with wrong and right arguments.

    contrib/devtools/record-core-answers.py /path/to/bitcoind
        [--out test/functional/data/rpc_core_answers.json]
        [--help-dir test/functional/data/core_help]

Starts the given bitcoind on loopback (regtest, a temporary datadir, no peers) with
-txindex and -loadblock of the bundled chain test/data/regtest-small/blk00000.dat, waits
until it reaches the chain's tip (expected.json) with its txindex synced, then makes every
call of the table built below and writes Core's answers:

  {"source": ..., "calls": [CASE, ...], "http": [HTTPCASE, ...]}

  CASE     = {"method": M, "params": [..] or {..},
              "expect": {"error": {"code": C, "message": S}} or {"result": R},
              "compare": "exact" | "error" | "code" | "keys"}
  HTTPCASE = {"path": "/", "body": "<raw request text>", "expect_status": 200,
              "expect_body": <parsed JSON, or null when empty>, "compare": "exact"}
             (with "http_method" when it is not POST, and "expect_text" when the body
             is not JSON)

compare: "exact" compares the whole answer (JSON types and object key order included);
"error" the error's code and message; "code" only the error code (the count-mismatch
errors, whose message is the whole help text, compared by the help test); "keys" only the
result's shape, for answers that depend on time, disk or process: its expect.result holds
the key list with each value replaced by its JSON type name ("number", "string", ...), or
only the type name for a result that is not an object.

Numbers in "params" are written as the JSON text sent (1e3 stays 1e3): readers that
re-serialize the params must keep the literal (rpc_argcheck.py parses floats into a float
subclass remembering its text). Cases run in file order; state-changing ones (invalidateblock
and reconsiderblock, logging) undo themselves, and the chain ends as it started.

It also writes Core's `help METHOD` result string for every method, METHOD.txt, and the
overview (`help`) as _overview.txt, into --help-dir.

A developer tool: run it by hand against Bitcoin Core when the table or Core changes; CI
never runs it (CI has no Core). Python 3 standard library only. Run it twice: the outputs
must be identical, else a case is not deterministic and needs another compare mode.
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "functional"))
from jsontext import dump, loads  # noqa: E402 (after the path)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
USER, PASSWORD = "u", "p"

METHODS = ["help", "stop", "uptime", "getrpcinfo", "logging", "echo", "echojson",
           "getblockcount", "getbestblockhash", "getblockhash", "getdifficulty",
           "getblockchaininfo", "getchaintips", "gettxoutsetinfo", "getblock", "getblockheader",
           "gettxout", "getrawtransaction", "getindexinfo", "decoderawtransaction",
           "decodescript", "submitblock", "getblockstats", "waitfornewblock", "waitforblock",
           "waitforblockheight", "preciousblock", "verifychain", "invalidateblock",
           "reconsiderblock", "submitheader", "getdeploymentinfo",
           "syncwithvalidationinterfacequeue", "setmocktime", "mockscheduler", "echoipc",
           "estimatesmartfee", "estimaterawfee"]


class Num:
    """A JSON number sent as this exact text (1e3, 1.5, 1300.0)."""

    def __init__(self, text):
        self.text = text




def type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def shape(result):
    """What a "keys" case keeps of a result: key -> JSON type name (or the type name)."""
    if isinstance(result, dict):
        return {k: type_name(v) for k, v in result.items()}
    return type_name(result)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Core:
    def __init__(self, bitcoind, tmp):
        self.datadir = tmp
        self.rpc_port = free_port()
        args = [bitcoind, "-regtest", "-datadir=" + tmp, "-daemon=0", "-server",
                "-rpcport=%d" % self.rpc_port, "-port=%d" % free_port(), "-listen=0",
                "-connect=0", "-dnsseed=0", "-fixedseeds=0", "-txindex",
                "-loadblock=" + os.path.join(SMALL, "blk00000.dat"),
                "-rpcuser=" + USER, "-rpcpassword=" + PASSWORD, "-printtoconsole=0"]
        self.log = open(os.path.join(tmp, "stdout.txt"), "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)

    def http(self, body, path="/", method="POST"):
        conn = http.client.HTTPConnection("127.0.0.1", self.rpc_port, timeout=120)
        token = base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        conn.request(method, path, body=body.encode(),
                     headers={"Authorization": "Basic " + token,
                              "Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, data

    def call(self, method, params):
        """The answer as {"result": ..} or {"error": ..} (parsed with RawFloat)."""
        body = '{"method": %s, "params": %s, "id": 1}' % (json.dumps(method), dump(params))
        _, data = self.http(body)
        reply = loads(data)
        if reply.get("error") is not None:
            return {"error": reply["error"]}
        return {"result": reply["result"]}

    def rpc(self, method, *params):
        answer = self.call(method, list(params))
        if "error" in answer:
            raise RuntimeError("%s %s: %s" % (method, params, answer["error"]))
        return answer["result"]

    def wait_ready(self, height):
        deadline = time.time() + 600
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("bitcoind exited with %d" % self.proc.returncode)
            try:
                if (self.rpc("getblockcount") == height and
                        self.rpc("getindexinfo").get("txindex", {}).get("synced")):
                    return
            except (OSError, http.client.HTTPException, RuntimeError, ValueError):
                pass
            time.sleep(0.2)
        raise RuntimeError("bitcoind did not reach height %d" % height)

    def stop(self):
        try:
            self.rpc("stop")
            self.proc.wait(timeout=60)
        except Exception:
            self.proc.kill()
            self.proc.wait()


# The arguments of each method as Core declares them (RPCMethod in src/rpc/*.cpp):
# (names, kind, required). kind picks the wrong values tried: num, hash, hex, bool, str,
# arr, verbosity (bool or number), hash_or_height (skip_type_check: number or hash), any.
ARGS = {
    "help": [("command", "str", False)],
    "stop": [("wait", "num", False)],
    "uptime": [],
    "getrpcinfo": [],
    "logging": [("include", "arr", False), ("exclude", "arr", False)],
    "echo": [("arg%d" % i, "any", False) for i in range(10)],
    "echojson": [("arg%d" % i, "any", False) for i in range(10)],
    "getblockcount": [],
    "getbestblockhash": [],
    "getblockhash": [("height", "num", True)],
    "getdifficulty": [],
    "getblockchaininfo": [],
    "getchaintips": [],
    "gettxoutsetinfo": [("hash_type", "str", False), ("hash_or_height", "hash_or_height", False),
                        ("use_index", "bool", False)],
    "getblock": [("blockhash", "hash", True), ("verbosity|verbose", "verbosity", False)],
    "getblockheader": [("blockhash", "hash", True), ("verbose", "bool", False)],
    "gettxout": [("txid", "hash", True), ("n", "num", True), ("include_mempool", "bool", False)],
    "getrawtransaction": [("txid", "hash", True), ("verbosity|verbose", "verbosity", False),
                          ("blockhash", "hash", False)],
    "getindexinfo": [("index_name", "str", False)],
    "decoderawtransaction": [("hexstring", "hex", True), ("iswitness", "bool", False)],
    "decodescript": [("hexstring", "hex", True)],
    "submitblock": [("hexdata", "hex", True), ("dummy", "str", False)],
    "getblockstats": [("hash_or_height", "hash_or_height", True), ("stats", "arr", False)],
    "waitfornewblock": [("timeout", "num", False), ("current_tip", "hash", False)],
    "waitforblock": [("blockhash", "hash", True), ("timeout", "num", False)],
    "waitforblockheight": [("height", "num", True), ("timeout", "num", False)],
    "preciousblock": [("blockhash", "hash", True)],
    "verifychain": [("checklevel", "num", False), ("nblocks", "num", False)],
    "invalidateblock": [("blockhash", "hash", True)],
    "reconsiderblock": [("blockhash", "hash", True)],
    "submitheader": [("hexdata", "hex", True)],
}

NUMS = [Num("1.5"), Num("1e3"), Num("1300.0"), -1, 2147483648, 4294967296, -2147483649, "5"]
BAD_HASHES = ["0" * 63, "x" * 64, "", "0" * 65]
VERBOSITIES = [True, False, 0, 1, 2, 3, 4, -1, Num("1.5"), "1"]


def variants(kind, required):
    """The values tried for one argument of this kind (other arguments valid)."""
    if kind == "num":
        v = NUMS + [True, {}, []]
    elif kind == "hash":
        v = BAD_HASHES + [5, True, {}, []]
    elif kind == "hex":
        v = ["0", "zz", "", 5, True, {}, []]
    elif kind == "bool":
        v = ["true", 1, 0, {}, []]
    elif kind == "str":
        v = [5, True, {}, []]
    elif kind == "arr":
        v = ["x", 5, True, {}]
    elif kind == "verbosity":
        v = VERBOSITIES + [{}, []]
    elif kind == "hash_or_height":
        v = NUMS + BAD_HASHES[:3] + ["00" * 32, True, {}, []]
    else:
        v = []
    return v + [None]  # null: a type error when required, the default when optional


def wrong_type(kind):
    return {"num": "5", "hash": 5, "hex": 5, "bool": "true", "str": 5, "arr": "x",
            "verbosity": {}, "hash_or_height": True}.get(kind, 5)


class Table:
    def __init__(self, core):
        self.core = core
        self.calls = []
        self.seen = set()
        self.dedupe = True  # off where a repeated call observes a changed state

    def add(self, method, params, compare="exact"):
        key = (method, dump(params))
        if self.dedupe and key in self.seen:
            return
        self.seen.add(key)
        self.calls.append({"method": method, "params": params, "compare": compare})

    def generic(self, method, base, min_len, no_null=()):
        """Count mismatches, every wrong value of every argument, null, named parameters.

        base: a valid value for every argument; min_len: how many of them a call sends
        at least (the required ones, plus what makes a wait return at once)."""
        args = ARGS[method]
        nreq = sum(1 for a in args if a[2])
        self.add(method, list(base) + [1], "code")  # one too many
        for n in range(nreq):  # too few
            self.add(method, list(base[:n]), "code")
        for i, (names, kind, required) in enumerate(args):
            for v in variants(kind, required):
                if v is None and i in no_null:
                    continue
                p = list(base[:max(i + 1, min_len)])
                p[i] = v
                self.add(method, p)
        first = [a[0].split("|") for a in args]
        req = {first[i][0]: base[i] for i in range(min_len)}
        self.add(method, {first[i][0]: base[i] for i in range(len(args))})  # all named
        for i, names in enumerate(first):  # each name and alias, with the minimum
            for name in names:
                p = {kk: vv for kk, vv in req.items() if kk not in names}
                p[name] = base[i]
                self.add(method, p)
        if min_len == 0:
            self.add(method, {})
        self.add(method, dict(req, nosuch=1))
        n = max(1, min_len)
        self.add(method, {"args": list(base[:n])})
        self.add(method, dict({"args": list(base[:n])}, **{first[0][0]: base[0]}))
        self.add(method, dict(req, **{first[0][0]: wrong_type(args[0][1])}))

    def record(self):
        out = []
        for c in self.calls:
            answer = self.core.call(c["method"], c["params"])
            if c["compare"] == "keys" and "result" in answer:
                answer = {"result": shape(answer["result"])}
            out.append({"method": c["method"], "params": c["params"], "expect": answer,
                        "compare": c["compare"]})
        return out


def build(t, k):
    """The cases, in replay order. k holds the chain's hashes and txids, read from Core."""
    G, TIP, H1, H111, H114, H1000 = k["G"], k["TIP"], k["H1"], k["H111"], k["H114"], k["H1000"]
    TX, TXG, CB = k["TX"], k["TXG"], k["CB"]
    UNKNOWN = "00" * 32

    # help
    t.add("help", [], "keys")
    t.add("help", ["getblockcount"], "keys")
    t.add("help", ["nosuch"])
    t.add("help", [None], "keys")
    for v in [5, True, {}, []]:
        t.add("help", [v])
    t.add("help", ["getblockcount", 1], "code")
    t.add("help", {"command": "getblockcount"}, "keys")
    t.add("help", {"nosuch": 1})
    t.add("help", {"args": ["getblockcount"], "command": "getblockcount"})
    t.add("help", {"command": 5})

    # uptime, getrpcinfo
    for m in ["uptime", "getrpcinfo"]:
        t.add(m, [], "keys")
        t.add(m, [1], "code")
        t.add(m, [None], "code")
        t.add(m, {}, "keys")
        t.add(m, {"nosuch": 1})

    # logging: every change is undone by the next call
    t.dedupe = False
    t.add("logging", [])
    t.add("logging", {})
    t.add("logging", [[]])
    t.add("logging", [[], []])
    t.add("logging", [["net"]])
    t.add("logging", [[], ["net"]])
    t.add("logging", [None, ["net"]])
    t.add("logging", [["net", "http"], ["http"]])
    t.add("logging", [[], ["net"]])
    t.add("logging", [["net"], ["net"]])
    t.add("logging", [["none"]])
    t.add("logging", [[], ["none"]])
    t.add("logging", [["nosuch"]])
    t.add("logging", [[], ["nosuch"]])
    t.add("logging", [["all"]])
    t.add("logging", [[], ["all"]])
    t.add("logging", [["1"]])
    t.add("logging", [[], ["1"]])
    t.add("logging", [[""]])
    t.add("logging", [[], [""]])
    t.add("logging", [[5]])
    t.add("logging", [[], [True]])
    for v in ["net", 5, True, {}]:
        t.add("logging", [v])
        t.add("logging", [[], v])
    t.add("logging", [[], [], 1], "code")
    t.add("logging", {"include": ["net"]})
    t.add("logging", {"exclude": ["net"]})
    t.add("logging", {"include": ["net"], "exclude": ["net"]})
    t.add("logging", {"nosuch": 1})
    t.add("logging", {"args": [[]], "include": []})
    t.add("logging", {"include": "net"})
    t.add("logging", {"args": [["http"]], "exclude": ["http"]})
    t.add("logging", [])
    t.dedupe = True

    # echo, echojson: no type check, params come back as given
    for m in ["echo", "echojson"]:
        t.add(m, [])
        t.add(m, ["a"])
        t.add(m, [Num("1.5"), Num("1e3"), Num("1300.0"), -1, 2147483648, None, True, {}, [],
                  {"a": [1, "b"]}])
        t.add(m, [None])
        t.add(m, [1, None])
        t.add(m, list(range(11)), "code")
        t.add(m, {})
        t.add(m, {"arg0": 1, "arg3": "x"})
        t.add(m, {"arg9": 9})
        t.add(m, {"arg10": 1})
        t.add(m, {"args": [1, 2], "arg5": 5})
        t.add(m, {"args": [1, 2], "arg1": 5})
        t.add(m, ["a"] * 9 + ["trigger_internal_bug"], "code")

    # methods without arguments
    for m in ["getblockcount", "getbestblockhash", "getdifficulty", "getchaintips",
              "getblockchaininfo"]:
        cmp = "keys" if m == "getblockchaininfo" else "exact"
        t.add(m, [], cmp)
        t.add(m, [1], "code")
        t.add(m, [None], "code")
        t.add(m, ["x", "y"], "code")
        t.add(m, {}, cmp)
        t.add(m, {"nosuch": 1})
        t.add(m, {"args": []}, cmp)
        t.add(m, {"args": [1]}, "code")
    t.add("nosuch", [])
    t.add("nosuch", {})

    # getblockhash
    t.add("getblockhash", [0])
    t.add("getblockhash", [1])
    t.add("getblockhash", [1300])
    t.add("getblockhash", [1301])
    t.add("getblockhash", [Num("1e0")])
    t.add("getblockhash", [Num("0.0")])
    t.add("getblockhash", [Num("-0")])
    t.add("getblockhash", [Num("1E3")])
    t.add("getblockhash", ["1"])
    t.add("getblockhash", ["abc"])
    t.generic("getblockhash", [1], 1)

    # getblock
    for v in VERBOSITIES + [None, Num("0.0"), Num("2e0"), "x", "true"]:
        t.add("getblock", [H1, v])
    t.add("getblock", [G])
    t.add("getblock", [G, 2])
    t.add("getblock", [H111, 3])
    t.add("getblock", [TIP, 1])
    t.add("getblock", [TIP.upper(), 0])
    t.add("getblock", [UNKNOWN])
    t.add("getblock", [UNKNOWN, 0])
    t.add("getblock", {"blockhash": H1, "verbose": 0})
    t.add("getblock", {"blockhash": H1, "verbose": False})
    t.add("getblock", {"blockhash": H1, "verbosity": 0, "verbose": 1})
    t.add("getblock", {"hash": H1})
    t.generic("getblock", [H1, 0], 1)

    # getblockheader
    t.add("getblockheader", [G])
    t.add("getblockheader", [H1])
    t.add("getblockheader", [TIP])
    t.add("getblockheader", [TIP, False])
    t.add("getblockheader", [TIP, True])
    t.add("getblockheader", [TIP.upper()])
    t.add("getblockheader", [UNKNOWN])
    t.add("getblockheader", [UNKNOWN, False])
    t.add("getblockheader", {"hash": H1})
    t.add("getblockheader", {"blockhash": H1, "verbosity": 0})
    t.add("getblockheader", {"blockhash": H1, "verbose": 0})
    t.generic("getblockheader", [H1, False], 1)

    # gettxout
    t.add("gettxout", [CB, 0])
    t.add("gettxout", [CB, 0, False])
    t.add("gettxout", [CB, 0, True])
    t.add("gettxout", [CB, 1])
    t.add("gettxout", [CB, 2147483647])
    t.add("gettxout", [CB, 4294967295])
    t.add("gettxout", [TX, 0])
    t.add("gettxout", [TXG, 0])
    t.add("gettxout", [UNKNOWN, 0])
    t.add("gettxout", [CB.upper(), 0])
    t.add("gettxout", [CB, Num("0.0")])
    t.generic("gettxout", [CB, 0, False], 2)

    # getrawtransaction
    t.add("getrawtransaction", [TX])
    for v in VERBOSITIES + [None, Num("0.0"), "x", "true"]:
        t.add("getrawtransaction", [TX, v])
    t.add("getrawtransaction", [TX, 1, H114])
    t.add("getrawtransaction", [TX, 2, H114])
    t.add("getrawtransaction", [TX, 0, H114])
    t.add("getrawtransaction", [TX, 0, H1])
    t.add("getrawtransaction", [TX, 0, UNKNOWN])
    t.add("getrawtransaction", [TX, None, H114])
    t.add("getrawtransaction", [TXG])
    t.add("getrawtransaction", [TXG, 1])
    t.add("getrawtransaction", [TXG, 0, G])
    t.add("getrawtransaction", [TXG, 1, G])
    t.add("getrawtransaction", [CB, 1])
    t.add("getrawtransaction", [UNKNOWN])
    t.add("getrawtransaction", [UNKNOWN, 0, TIP])
    t.add("getrawtransaction", {"txid": TX, "verbose": True})
    t.add("getrawtransaction", {"txid": TX, "verbose": 1})
    t.add("getrawtransaction", {"txid": TX, "verbosity": 1})
    t.add("getrawtransaction", {"txid": TX, "blockhash": H114})
    t.add("getrawtransaction", {"txid": TX, "verbose": 2, "blockhash": H114})
    t.add("getrawtransaction", {"txid": TX, "verbosity": 1, "verbose": 1})
    t.add("getrawtransaction", {"hash": TX})
    t.generic("getrawtransaction", [TX, 0, H114], 1)

    # gettxoutsetinfo: disk_size depends on the database files
    t.add("gettxoutsetinfo", [], "keys")
    t.add("gettxoutsetinfo", ["hash_serialized_3"], "keys")
    t.add("gettxoutsetinfo", ["muhash"], "keys")
    t.add("gettxoutsetinfo", ["none"], "keys")
    t.add("gettxoutsetinfo", ["nosuch"])
    t.add("gettxoutsetinfo", ["MUHASH"])
    t.add("gettxoutsetinfo", [""])
    for v in [1300, 0, TIP, "1300", True, {}, [], Num("1.5"), -1]:
        t.add("gettxoutsetinfo", ["muhash", v])
    t.add("gettxoutsetinfo", ["muhash", None], "keys")
    for v in ["true", 1, {}, []]:
        t.add("gettxoutsetinfo", ["muhash", None, v])
    t.add("gettxoutsetinfo", ["muhash", None, False], "keys")
    t.add("gettxoutsetinfo", ["muhash", None, True], "keys")
    t.add("gettxoutsetinfo", ["muhash", None, True, 1], "code")
    for v in [5, True, {}, []]:
        t.add("gettxoutsetinfo", [v])
    t.add("gettxoutsetinfo", {"hash_type": "muhash"}, "keys")
    t.add("gettxoutsetinfo", {"use_index": False}, "keys")
    t.add("gettxoutsetinfo", {"hash_or_height": 1})
    t.add("gettxoutsetinfo", {"nosuch": 1})
    t.add("gettxoutsetinfo", {"args": ["muhash"], "hash_type": "muhash"})
    t.add("gettxoutsetinfo", {"hash_type": 5})

    # getindexinfo
    t.add("getindexinfo", [])
    t.add("getindexinfo", ["txindex"])
    t.add("getindexinfo", ["coinstatsindex"])
    t.add("getindexinfo", ["nosuch"])
    t.add("getindexinfo", [""])
    t.add("getindexinfo", [None])
    for v in [5, True, {}, []]:
        t.add("getindexinfo", [v])
    t.add("getindexinfo", ["txindex", 1], "code")
    t.add("getindexinfo", {"index_name": "txindex"})
    t.add("getindexinfo", {})
    t.add("getindexinfo", {"nosuch": 1})
    t.add("getindexinfo", {"args": ["txindex"], "index_name": "txindex"})

    # decoderawtransaction
    TXHEX = k["TXHEX"]
    t.add("decoderawtransaction", [TXHEX])
    t.add("decoderawtransaction", [TXHEX, True])
    t.add("decoderawtransaction", [TXHEX, False])
    t.add("decoderawtransaction", [TXHEX.upper()])
    t.add("decoderawtransaction", [k["CBHEX"]])
    t.add("decoderawtransaction", [k["CBHEX"], False])
    t.add("decoderawtransaction", [TXHEX[:-2]])
    t.add("decoderawtransaction", [TXHEX + "00"])
    t.add("decoderawtransaction", ["00"])
    t.generic("decoderawtransaction", [TXHEX, True], 1)

    # decodescript
    for s in ["", "51", "00", "6a", "ac", "0014" + "11" * 20, "0020" + "22" * 32,
              "5120" + "33" * 32, "a914" + "44" * 20 + "87", "76a914" + "55" * 20 + "88ac",
              "4c", "ff", "5151ae", "0051"]:
        t.add("decodescript", [s])
    t.add("decodescript", ["ABCDEF"])
    t.generic("decodescript", ["51"], 1)

    # getblockstats
    t.add("getblockstats", [0])
    t.add("getblockstats", [1])
    t.add("getblockstats", [114])
    t.add("getblockstats", [1300])
    t.add("getblockstats", [TIP])
    t.add("getblockstats", [G])
    t.add("getblockstats", [1301])
    t.add("getblockstats", [UNKNOWN])
    for h in [0, 1, 101, 114, 142, 700, 1300]:
        t.add("getblockstats", [h, ["utxo_size_inc", "utxo_size_inc_actual"]])
    t.add("getblockstats", [1300, ["txs", "height"]])
    t.add("getblockstats", [1300, ["utxo_size_inc_actual", "utxo_size_inc", "blockhash",
                                    "avgfee", "time"]])
    t.add("getblockstats", [1300, ["height", "height"]])
    t.add("getblockstats", [1300, ["nosuch"]])
    t.add("getblockstats", [1300, ["txs", "nosuch"]])
    t.add("getblockstats", [1300, [""]])
    t.add("getblockstats", [1300, []])
    t.add("getblockstats", [1300, [5]])
    t.add("getblockstats", [1300, [None]])
    t.add("getblockstats", [1300, [["txs"]]])
    t.add("getblockstats", [TIP.upper(), ["height"]])
    t.add("getblockstats", {"hash_or_height": 0, "stats": ["txs", "height"]})
    t.generic("getblockstats", [1300, ["height", "txs"]], 1)

    # waits: a small timeout so that each returns fast
    t.add("waitfornewblock", [10])
    t.add("waitfornewblock", [10, G])
    t.add("waitfornewblock", [10, TIP])
    t.add("waitfornewblock", [10, UNKNOWN])
    # (a wrong timeout goes with current_tip = genesis: Core returns at once if it takes it,
    # and a node that reads the timeout as 0 does not wait forever)
    for v in [-1, "5", True, {}, []]:  # refused before any wait, by Core and by bitnode today
        t.add("waitfornewblock", [v])
    t.add("waitfornewblock", [-1, G])
    t.add("waitfornewblock", [Num("5.5"), G])
    t.add("waitfornewblock", {"timeout": 10, "current_tip": G})
    t.add("waitfornewblock", {"timeout": 10, "current_tip": "x"})
    t.generic("waitfornewblock", [10, G], 2)

    t.add("waitforblock", [TIP])
    t.add("waitforblock", [TIP, 10])
    t.add("waitforblock", [G, 10])
    t.add("waitforblock", [UNKNOWN, 10])
    t.add("waitforblock", [TIP, -1])
    t.add("waitforblock", [TIP, Num("5.5")])
    t.add("waitforblock", {"blockhash": G, "timeout": 10})
    t.add("waitforblock", {"hash": G, "timeout": 10})
    t.generic("waitforblock", [TIP, 10], 2)

    t.add("waitforblockheight", [1300])
    t.add("waitforblockheight", [0, 10])
    t.add("waitforblockheight", [1301, 10])
    t.add("waitforblockheight", [Num("5.5"), 10])
    t.add("waitforblockheight", [Num("5.5")])
    t.add("waitforblockheight", [Num("1300.5"), 10])
    t.add("waitforblockheight", [1300, -1])
    t.add("waitforblockheight", [1300, Num("5.5")])
    t.add("waitforblockheight", {"height": 1301, "timeout": 10})
    t.generic("waitforblockheight", [1300, 10], 2)

    # verifychain (levels outside 0-4 are clamped by Core)
    for p in [[], [0], [1], [3], [4], [5], [-1], [100], [4, 10], [5, 1], [-1, 1], [0, 0],
              [1, 0], [1, -1], [1, 1301], [1, 100000]]:
        t.add("verifychain", p)
    t.generic("verifychain", [1, 1], 0)

    # state-changing methods: errors, and calls that change nothing
    BLK1, HDR1 = k["BLK1"], k["HDR1"]
    t.add("submitblock", [BLK1])
    t.add("submitblock", [BLK1, "x"])
    t.add("submitblock", [BLK1, None])
    t.add("submitblock", ["00"])
    t.add("submitblock", [BLK1[:-2]])
    t.add("submitblock", [HDR1])
    t.generic("submitblock", [BLK1, "ignored"], 1)

    t.add("submitheader", [HDR1])
    t.add("submitheader", [k["HDR_TIP"]])
    t.add("submitheader", [HDR1[:-2]])
    t.add("submitheader", [HDR1 + "00"])
    t.add("submitheader", [k["HDR_ORPHAN"]])
    t.add("submitheader", ["00" * 80])
    t.generic("submitheader", [HDR1], 1)

    t.add("preciousblock", [H1000])
    t.add("preciousblock", [TIP])
    t.add("preciousblock", [UNKNOWN])
    t.add("getbestblockhash", [])
    t.generic("preciousblock", [TIP], 1)

    t.add("reconsiderblock", [H1000])
    t.add("reconsiderblock", [TIP])
    t.add("reconsiderblock", [UNKNOWN])
    t.generic("reconsiderblock", [TIP], 1)

    # stop: only calls refused before the handler runs (the handler shuts down first)
    for v in ["5", True, {}, [], "x"]:
        t.add("stop", [v])
    t.add("stop", [1, 2], "code")
    t.add("stop", [None, 2], "code")
    t.add("stop", {"nosuch": 1})
    t.add("stop", {"wait": "x"})
    t.add("stop", {"args": [1], "wait": 1})
    t.add("stop", {"args": ["x"]})
    t.dedupe = False
    t.add("getblockcount", [])

    # invalidateblock: refused for genesis, then the tip invalidated and reconsidered
    for v in BAD_HASHES + [5, True, {}, [], None]:
        t.add("invalidateblock", [v])
    t.add("invalidateblock", [], "code")
    t.add("invalidateblock", [TIP, 1], "code")
    t.add("invalidateblock", [UNKNOWN])
    t.add("invalidateblock", {"nosuch": 1})
    t.add("invalidateblock", {"hash": G})
    t.add("invalidateblock", {"blockhash": 5})
    t.add("invalidateblock", {"args": [UNKNOWN], "blockhash": UNKNOWN})
    t.add("invalidateblock", {"blockhash": UNKNOWN})
    t.add("invalidateblock", [G])
    t.add("getblockcount", [])
    t.add("getbestblockhash", [])
    t.add("getchaintips", [])
    t.add("invalidateblock", {"blockhash": G})
    t.add("getblockcount", [])
    t.add("invalidateblock", [TIP])
    t.add("getblockcount", [])
    t.add("getbestblockhash", [])
    t.add("getchaintips", [])
    t.add("getblockheader", [TIP])
    t.add("getblockhash", [1300])
    t.add("waitforblockheight", [1300, 10])
    t.add("invalidateblock", [TIP])
    t.add("reconsiderblock", [TIP])
    t.add("getblockcount", [])
    t.add("getbestblockhash", [])
    t.add("getchaintips", [])
    t.add("invalidateblock", {"blockhash": k["H1299"]})
    t.add("getblockcount", [])
    t.add("reconsiderblock", {"blockhash": k["H1299"]})
    t.add("getblockcount", [])
    t.add("getchaintips", [])
    t.add("gettxout", [CB, 0])


def http_cases(core):
    bodies = [
        ("/", '{"method": "getblockcount", "params": []}'),
        ("/", '{"method": "getblockcount"}'),
        ("/", '{"method": "getblockcount", "params": [], "id": null}'),
        ("/", '{"jsonrpc": "1.0", "method": "getblockcount", "params": [], "id": 1}'),
        ("/", '{"jsonrpc": "1.0", "method": "getblockcount", "params": []}'),
        ("/", '{"jsonrpc": "2.0", "method": "getblockcount", "params": [], "id": 1}'),
        ("/", '{"jsonrpc": "2.0", "method": "getblockcount", "params": []}'),
        ("/", '{"jsonrpc": "2.0", "method": "getblockhash", "params": [1.5], "id": 1}'),
        ("/", '{"jsonrpc": "2.0", "method": "getblockhash", "params": [1.5]}'),
        ("/", '{"jsonrpc": "2.0", "method": "nosuch", "id": 1}'),
        ("/", '{"jsonrpc": "3.0", "method": "getblockcount", "id": 1}'),
        ("/", '{"jsonrpc": 2, "method": "getblockcount", "id": 1}'),
        ("/", '{"method": "getblockhash", "params": [1.5], "id": 1}'),
        ("/", '{"method": "getblockhash", "params": [1301], "id": 1}'),
        ("/", '{"method": "nosuch", "params": [], "id": 1}'),
        ("/", '{"method": "getblockcount", "params": [], "id": "x"}'),
        ("/", '{"method": "getblockcount", "params": [], "id": {"a": [1]}}'),
        ("/", '{"method": "getblockcount", "params": 5, "id": 1}'),
        ("/", '{"method": "getblockcount", "params": "x", "id": 1}'),
        ("/", '{"method": "getblockcount", "params": null, "id": 1}'),
        ("/", '{"method": 5, "params": [], "id": 1}'),
        ("/", '{"params": [], "id": 1}'),
        ("/", '[1, {"method": "getblockcount", "id": 1}]'),
        ("/", '[]'),
        ("/", '[{"method": "getblockcount", "id": 1}, {"method": "getbestblockhash", "id": 2}]'),
        ("/", '[{"method": "getblockhash", "params": [1.5], "id": 1}, '
              '{"method": "nosuch", "id": 2}]'),
        ("/", '[{"jsonrpc": "2.0", "method": "getblockcount"}, '
              '{"jsonrpc": "2.0", "method": "getblockcount", "id": 3}]'),
        ("/", '[{"jsonrpc": "2.0", "method": "getblockcount"}]'),
        ("/", '[[]]'),
        ("/", '[null]'),
        ("/wallet/w1", '{"method": "getblockcount", "params": [], "id": 1}'),
        ("/wallet/", '{"method": "getblockcount", "params": [], "id": 1}'),
        ("/nosuch", '{"method": "getblockcount", "params": [], "id": 1}'),
        ("/", 'not json'),
        ("/", '5'),
        ("/", '"getblockcount"'),
        ("/", 'null'),
        ("/", ''),
        ("/", '{"method": "getblockcount", "params": [], "id": 1} x'),
    ]
    cases = []
    for path, body in bodies:
        cases.append({"path": path, "body": body})
    cases.append({"path": "/", "body": "", "http_method": "GET"})
    for c in cases:
        status, data = core.http(c["body"], c["path"], c.get("http_method", "POST"))
        c["expect_status"] = status
        text = data.decode()
        if not text.strip():
            c["expect_body"] = None
        else:
            try:
                c["expect_body"] = loads(text)
            except ValueError:
                c["expect_body"] = None
                c["expect_text"] = text
        c["compare"] = "exact"
    return cases


def gather(core):
    k = {}
    k["G"] = core.rpc("getblockhash", 0)
    for h in [1, 111, 114, 1000, 1299]:
        k["H%d" % h] = core.rpc("getblockhash", h)
    k["TIP"] = core.rpc("getbestblockhash")
    k["TXG"] = core.rpc("getblock", k["G"])["tx"][0]
    k["CB"] = core.rpc("getblock", k["TIP"])["tx"][0]
    k["CBHEX"] = core.rpc("getrawtransaction", core.rpc("getblock", k["H1"])["tx"][0])
    # the smallest non-coinbase transaction of block 114 (a plain payment)
    txs = core.rpc("getblock", k["H114"], 2)["tx"][1:]
    k["TX"] = min(txs, key=lambda tx: (tx["size"], tx["txid"]))["txid"]
    k["TXHEX"] = core.rpc("getrawtransaction", k["TX"])
    k["BLK1"] = core.rpc("getblock", k["H1"], 0)
    k["HDR1"] = core.rpc("getblockheader", k["H1"], False)
    k["HDR_TIP"] = core.rpc("getblockheader", k["TIP"], False)
    # block 1's header with an unknown previous block
    k["HDR_ORPHAN"] = k["HDR1"][:8] + "11" * 32 + k["HDR1"][72:]
    return k


def write_json(path, doc):
    out = ["{\n"]
    keys = list(doc)
    for n, key in enumerate(keys):
        v = doc[key]
        if isinstance(v, list):
            out.append(" %s: [\n" % json.dumps(key))
            out.append(",\n".join("  " + dump(c) for c in v))
            out.append("\n ]")
        else:
            out.append(" %s: %s" % (json.dumps(key), dump(v)))
        out.append(",\n" if n + 1 < len(keys) else "\n")
    out.append("}\n")
    text = "".join(out)
    loads(text)  # it must read back
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bitcoind")
    ap.add_argument("--out", default=os.path.join(SRC, "test", "functional", "data",
                                                  "rpc_core_answers.json"))
    ap.add_argument("--help-dir", default=os.path.join(SRC, "test", "functional", "data",
                                                       "core_help"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary datadir")
    a = ap.parse_args()
    height = json.load(open(os.path.join(SMALL, "expected.json")))["tip"]["height"]
    tmp = tempfile.mkdtemp(prefix="record_core_")
    core = Core(os.path.abspath(a.bitcoind), tmp)
    try:
        core.wait_ready(height)
        version = core.rpc("getnetworkinfo")["subversion"]
        k = gather(core)
        t = Table(core)
        build(t, k)
        calls = t.record()
        https = http_cases(core)
        # the chain must end as it started
        if core.rpc("getbestblockhash") != k["TIP"]:
            raise RuntimeError("the cases left the chain changed")
        os.makedirs(a.help_dir, exist_ok=True)
        for m in METHODS:
            with open(os.path.join(a.help_dir, m + ".txt"), "w") as f:
                f.write(core.rpc("help", m))
        with open(os.path.join(a.help_dir, "_overview.txt"), "w") as f:
            f.write(core.rpc("help"))
        doc = {"source": "Bitcoin Core %s on test/data/regtest-small (-txindex, -loadblock), "
                         "recorded by contrib/devtools/record-core-answers.py" % version,
               "calls": calls, "http": https}
        write_json(a.out, doc)
        print("%d calls, %d http cases -> %s; help texts -> %s" %
              (len(calls), len(https), a.out, a.help_dir))
    finally:
        core.stop()
        if a.keep:
            print("datadir kept in", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
