#!/usr/bin/env python3
"""Argument checks of every RPC method against Bitcoin Core's answers.

Replays, in order, every call of test/functional/data/rpc_core_answers.json (recorded from
Bitcoin Core by contrib/devtools/record-core-answers.py on the same chain): each method
with every wrong JSON type and out-of-range value of each argument (fractional, exponent,
negative and 2^31/2^32 numbers, numeric strings, bad hashes and hex, wrong verbosities),
too few and too many arguments, named parameters and their aliases, unknown names, an
argument given both positionally and by name, and the valid calls with their results;
then the raw HTTP cases of the same file (JSON-RPC 1.0 without id, 2.0 notifications,
batches with non-object elements, /wallet/<name> without a wallet, bodies that are not
JSON). Each answer is compared as its case's "compare" says: "exact" (JSON types and key
order included), "error" (code and message), "code" (the count-mismatch errors, whose
message is the help text), "keys" (the result's keys and their JSON types).

The node imports test/data/regtest-small with -loadblock and -txindex, as Core did for the
recording. Every mismatch is collected and printed (method, params, expected, got) before
the test fails, so one run lists them all.

BITNODE_ARGCHECK_AGAINST=core:/path/to/bitcoind replays the table against Bitcoin Core
itself instead (a check of the table and of this test: it must report no mismatch).
"""

import http.client
import json
import os

from jsontext import dump, loads
from framework import (BitnodeTestFramework, FailedCheck, TestNode, free_port, wait_until)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
TABLE = os.path.join(HERE, "data", "rpc_core_answers.json")
# Answers bitnode knowingly gives differently, each with its reason: (method, params as
# show() prints them) -> why. The case must still differ (a known difference that went away
# is reported, so this list cannot go stale).
KNOWN = {}
CALL_TIMEOUT = 30  # seconds; the waits in the table use 10 ms timeouts
SHOWN = 1500       # characters of one value printed in a mismatch


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "fraction"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def same(a, b):
    """JSON equality without Python's shortcuts: true is not 1, 1 is not 1.0, and object
    keys must come in the same order."""
    if kind(a) != kind(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return (list(a) == list(b)) and all(same(a[k], b[k]) for k in a)
    return a == b


def type_name(v):
    k = kind(v)
    return {"integer": "number", "fraction": "number"}.get(k, k)


def shape(result):
    if isinstance(result, dict):
        return {k: type_name(v) for k, v in result.items()}
    return type_name(result)


def unordered(v):
    """v with every object's keys sorted: tells "same answer, other key order" apart."""
    if isinstance(v, dict):
        return {k: unordered(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [unordered(x) for x in v]
    return v


def matches(case, got):
    """'' when got answers the case as Core did, else why not."""
    expect, mode = case["expect"], case["compare"]
    if "error" in expect:
        if "error" not in got:
            return "a result where Core answers an error"
        e, g = expect["error"], got["error"]
        if not isinstance(g, dict) or g.get("code") != e["code"]:
            return "error code differs"
        if mode == "code":
            return ""
        if g.get("message") != e["message"]:
            return "error message differs"
        if mode == "exact" and not same(g, e):
            return "error object differs"
        return ""
    if "result" not in got:
        return "an error where Core answers a result"
    if mode == "keys":
        return "" if same(shape(got["result"]), expect["result"]) else "result keys/types differ"
    if same(got["result"], expect["result"]):
        return ""
    if same(unordered(got["result"]), unordered(expect["result"])):
        return "same result, other key order"
    return "result differs at " + where(expect["result"], got["result"])


def where(a, b, path="result"):
    """The first place where b differs from a, as a path (for the mismatch report)."""
    if kind(a) != kind(b):
        return "%s: %s, not %s" % (path, kind(b), kind(a))
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            w = where(x, y, "%s[%d]" % (path, i))
            if w:
                return w
        if len(a) != len(b):
            return "%s: %d items, not %d" % (path, len(b), len(a))
        return ""
    if isinstance(a, dict):
        for k in a:
            if k not in b:
                return "%s.%s: missing" % (path, k)
        for k in b:
            if k not in a:
                return "%s.%s: not in Core's answer" % (path, k)
        for k in a:
            w = where(a[k], b[k], "%s.%s" % (path, k))
            if w:
                return w
        if list(a) != list(b):
            return "%s: key order %s" % (path, list(b))
        return ""
    return "" if a == b else "%s: %s, not %s" % (path, dump(b), dump(a))


def show(v):
    text = dump(v)
    return text if len(text) <= SHOWN else text[:SHOWN] + "... (%d chars)" % len(text)


class CoreNode(TestNode):
    """Bitcoin Core's bitcoind, started as contrib/devtools/record-core-answers.py does."""

    def __init__(self, index, root, bitcoind, extra_args):
        super().__init__(index, root, extra_args)
        self.bitcoind = bitcoind
        self.auth = ("u", "p")

    def args(self, extra_args=None):
        return [self.bitcoind, "-regtest", "-datadir=" + self.datadir, "-daemon=0", "-server",
                "-rpcport=%d" % self.rpc_port, "-port=%d" % free_port(), "-listen=0",
                "-connect=0", "-dnsseed=0", "-fixedseeds=0", "-rpcuser=u", "-rpcpassword=p",
                "-printtoconsole=0"] + self.extra_args + list(extra_args or [])

    def stop(self, expected_rc=0):
        self.rpc("stop")
        self.wait_exit(60)
        self.process = None


class RpcArgcheckTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False
        self.node_args = ["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), "-txindex"]
        self.extra_args = [self.node_args]

    def http(self, node, body, **kw):
        """One request on its own connection, given up after CALL_TIMEOUT seconds."""
        conn = http.client.HTTPConnection("127.0.0.1", node.rpc_port, timeout=CALL_TIMEOUT)
        try:
            return node.http(body, conn=conn, **kw)
        finally:
            conn.close()

    def call(self, node, method, params):
        body = '{"method": %s, "params": %s, "id": 1}' % (json.dumps(method), dump(params))
        status, _, data = self.http(node, body)
        try:
            reply = loads(data)
        except ValueError:
            return {"http": status, "body": data.decode(errors="replace")}
        if not isinstance(reply, dict):
            return {"http": status, "body": reply}
        if reply.get("error") is not None:
            return {"error": reply["error"]}
        if "result" not in reply:
            return {"http": status, "body": reply}
        return {"result": reply["result"]}

    def run_test(self):
        against = os.environ.get("BITNODE_ARGCHECK_AGAINST", "")
        if against.startswith("core:"):
            self.nodes[0] = CoreNode(0, self.tmpdir, against[len("core:"):], self.node_args)
            self.log("replaying against Bitcoin Core: %s" % against[len("core:"):])
        node = self.nodes[0]
        with open(TABLE) as f:
            table = loads(f.read())
        tip = json.load(open(os.path.join(SMALL, "expected.json")))["tip"]
        node.start()
        wait_until(lambda: node.rpc("getblockcount") == tip["height"], timeout=300,
                   what="height %d" % tip["height"])
        wait_until(lambda: node.rpc("getindexinfo").get("txindex", {}).get("synced"),
                   timeout=120, what="txindex synced")

        methods = sorted(set(c["method"] for c in table["calls"]))
        self.log("%d calls over %d methods, %d raw HTTP cases (%s)" %
                 (len(table["calls"]), len(methods), len(table["http"]), table.get("source")))
        mismatches = []
        dead = False
        for i, case in enumerate(table["calls"]):
            head = "#%d %s %s [%s]" % (i, case["method"], show(case["params"]), case["compare"])
            if dead:
                mismatches.append((head, "not run: the node is gone", case["expect"], None))
                continue
            try:
                got = self.call(node, case["method"], case["params"])
            except Exception as e:  # a timeout or a dropped connection is a mismatch too
                got = {"exception": "%s: %s" % (type(e).__name__, e)}
                if node.process is not None and node.process.poll() is not None:
                    dead = True
            why = matches(case, got)
            known = KNOWN.get((case["method"], show(case["params"])))
            if known and not against:
                if not why:
                    why = "listed as a known difference, but answers as Core now"
                else:
                    self.log("known difference %s: %s" % (head, known))
                    why = ""
            if why:
                want = case["expect"]
                if case["compare"] == "code":  # the message is the help text, not compared
                    want = {"error": {"code": want["error"]["code"], "message": "(help text)"}}
                mismatches.append((head, why, want, got))

        for i, case in enumerate(table["http"]):
            verb = case.get("http_method", "POST")
            head = "http#%d %s %s %s" % (i, verb, case["path"], case["body"])
            if dead:
                mismatches.append((head, "not run: the node is gone", case, None))
                continue
            want = {"status": case["expect_status"]}
            want["body"] = case["expect_text"] if "expect_text" in case else case["expect_body"]
            try:
                status, _, data = self.http(node, case["body"], method=verb, path=case["path"])
                text = data.decode(errors="replace")
                got = {"status": status, "body": None}
                if text.strip():
                    try:
                        got["body"] = loads(text)
                    except ValueError:
                        got["body"] = text
            except Exception as e:
                got = {"exception": "%s: %s" % (type(e).__name__, e)}
                if node.process is not None and node.process.poll() is not None:
                    dead = True
            if "exception" in got:
                why = "no answer"
            elif got["status"] != want["status"]:
                why = "HTTP status differs"
            elif not same(got["body"], want["body"]):
                why = "body differs"
            else:
                why = ""
            if why:
                mismatches.append((head, why, want, got))

        if mismatches:
            print("%d of %d cases answer differently from Bitcoin Core:" %
                  (len(mismatches), len(table["calls"]) + len(table["http"])), flush=True)
            for head, why, want, got in mismatches:
                print("%s: %s" % (head, why))
                if why.startswith("not run"):
                    continue
                print("    expected: %s" % show(want))
                print("    got:      %s" % show(got), flush=True)
            raise FailedCheck("%d mismatches with Bitcoin Core's answers" % len(mismatches))
        self.log("all %d cases answer as Bitcoin Core" %
                 (len(table["calls"]) + len(table["http"])))


if __name__ == "__main__":
    RpcArgcheckTest().main()
