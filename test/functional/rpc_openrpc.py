#!/usr/bin/env python3
"""getopenrpcinfo and rpc.discover: the OpenRPC document generated from the method
declarations, with Core's schema rules (Core's rpc_openrpc checks and more): every method
that help lists is there with the arguments help shows; hidden ones only with show_hidden."""

import json

from framework import BitnodeTestFramework, assert_equal, assert_true


def method(doc, name):
    return next(m for m in doc["methods"] if m["name"] == name)


def param(m, name):
    return next(p for p in m["params"] if p["name"] == name)


class OpenRPCTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        doc = node.rpc("getopenrpcinfo")
        json.dumps(doc)
        assert_equal(doc["openrpc"], "1.4.1")
        assert_equal(sorted(doc["info"]), ["description", "title", "version"])
        assert_equal(node.rpc("rpc.discover"), doc)

        self.log("the methods are help's, sorted, in their categories")
        names = [m["name"] for m in doc["methods"]]
        assert_equal(names, sorted(names))
        listed = [line.split(" ")[0] for line in node.rpc("help").split("\n")
                  if line and not line.startswith("==")]
        assert_equal(sorted(listed), names)
        assert_equal(method(doc, "getblock")["x-bitcoin-category"], "blockchain")
        assert_equal(method(doc, "rpc.discover")["params"], [])
        hidden = node.rpc("getopenrpcinfo", True)
        assert_true("echo" in [m["name"] for m in hidden["methods"]], "echo with show_hidden")
        assert_true("echo" not in names, "echo hidden")

        self.log("arguments: names, aliases, required, defaults and hints, hidden ones")
        getblock = method(doc, "getblock")
        v = param(getblock, "verbosity")
        assert_equal(v["x-bitcoin-aliases"], ["verbose"])
        assert_equal(v["required"], False)
        assert_equal(v["schema"]["default"], 1)
        assert_equal(param(getblock, "blockhash")["schema"],
                     {"type": "string", "pattern": "^[0-9a-fA-F]+$"})
        assert_true("wait" not in [p["name"] for p in method(doc, "stop")["params"]], "hidden")
        assert_equal(param(method(hidden, "stop"), "wait")["schema"]["type"], "number")
        stats = method(doc, "getblockstats")
        assert_equal(param(stats, "hash_or_height")["schema"],
                     {"oneOf": [{"type": "integer"}, {"type": "string"}]})
        assert_equal(param(stats, "stats")["schema"]["x-bitcoin-default-hint"], "all values")
        assert_equal(param(method(doc, "testmempoolaccept"), "maxfeerate")["schema"]["default"],
                     "0.10")
        rng = param(method(doc, "deriveaddresses"), "range")["schema"]["oneOf"][1]
        assert_equal(rng, {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                           "additionalItems": False, "minItems": 2, "maxItems": 2})

        self.log("results: objects, fixed arrays, amounts, times, alternatives")
        fp = stats["result"]["schema"]["properties"]["feerate_percentiles"]
        assert_equal((fp["type"], fp["minItems"], fp["maxItems"]), ("array", 5, 5))
        psbt = method(doc, "analyzepsbt")["result"]["schema"]["properties"]
        assert_equal(psbt["estimated_feerate"]["x-bitcoin-unit"], "amount")
        hdr = method(doc, "getblockheader")["result"]["schema"]
        assert_equal(len(hdr["oneOf"]), 2)
        assert_equal(hdr["oneOf"][0]["properties"]["time"]["x-bitcoin-unit"], "unix-time")
        assert_equal(hdr["oneOf"][1]["type"], "string")
        assert_equal(hdr["oneOf"][1]["description"], "for verbose=false")
        act = method(doc, "getdescriptoractivity")["result"]["schema"]["properties"]["activity"]
        assert_equal(act["type"], "array")
        assert_equal(method(doc, "uptime")["result"], {"name": "result",
                                                       "schema": {"type": "number"}})


if __name__ == "__main__":
    OpenRPCTest().main()
