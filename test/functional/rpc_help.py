#!/usr/bin/env python3
"""`help METHOD` against Bitcoin Core's, and the method declarations against doc/rpc.md.

For every method Core's help was recorded for (test/functional/data/core_help/METHOD.txt,
written by contrib/devtools/record-core-answers.py from Bitcoin Core), the node's `help
METHOD` must be the same text, section for section (signature, description, Arguments,
Result, Examples), once the client is named: "bitcoin-cli" is "bitnode-cli" and "Bitcoin
Core" is "bitnode" here. A difference is shown as a diff of the two texts.

Then doc/rpc.md must have one "### SIGNATURE" heading per method, SIGNATURE being the
method's signature line exactly as the declarations make `help` print it, and no other
method heading, so that the reference cannot drift from the declarations.
"""

import difflib
import os
import re

from framework import BitnodeTestFramework, FailedCheck, assert_equal, assert_true

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
CORE_HELP = os.path.join(HERE, "data", "core_help")
RPC_DOC = os.path.join(SRC, "doc", "rpc.md")
# Not in the overview; doc/rpc.md has them.
HIDDEN = ["echo", "echojson", "echoipc", "setmocktime", "mockscheduler", "estimaterawfee",
          "getmempoolfeeratediagram", "generate", "generatetoaddress", "generatetodescriptor",
          "generateblock", "invalidateblock", "reconsiderblock",
          "syncwithvalidationinterfacequeue", "addconnection", "addpeeraddress",
          "sendmsgtopeer", "getrawaddrman", "getorphantxs"]


def normalise(text):
    return text.replace("bitcoin-cli", "bitnode-cli").replace("Bitcoin Core", "bitnode")


def sections(text):
    """The help text cut at its section headings: {"signature": ..., "Arguments:": ...}."""
    out, name = {}, "signature"
    for line in text.split("\n"):
        if re.match(r"^(Arguments|Named Arguments|Result|Result \(.*\)|Examples):$", line):
            name = line
            continue
        out.setdefault(name, []).append(line)
    return {k: "\n".join(v) for k, v in out.items()}


class HelpTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.log("help dump_all_command_conversions: each argument name, as Core's GetArgMap")
        rows = node.rpc("help", "dump_all_command_conversions")
        for want in (["getblock", 0, "blockhash", True], ["getblock", 1, "verbosity", False],
                     ["getblock", 1, "verbose", False],
                     ["generatetoaddress", 0, "nblocks", False]):
            assert_true(want in rows, "%r in the conversions" % (want,))
        methods = sorted(f[:-4] for f in os.listdir(CORE_HELP)
                         if f.endswith(".txt") and not f.startswith("_"))
        self.log("help METHOD for %d methods against Bitcoin Core's" % len(methods))
        bad = []
        for m in methods:
            want = normalise(open(os.path.join(CORE_HELP, m + ".txt")).read())
            got = node.rpc("help", m)
            if got == want:
                continue
            ws, gs = sections(want), sections(got)
            differing = [k for k in list(ws) + [k for k in gs if k not in ws]
                         if ws.get(k) != gs.get(k)]
            diff = "\n".join(difflib.unified_diff(want.split("\n"), got.split("\n"),
                                                  "core", "bitnode", lineterm="", n=1))
            bad.append("%s: sections %s differ\n%s" % (m, differing, diff))
        for b in bad:
            print(b)
        if bad:
            raise FailedCheck("%d of %d help texts differ from Core's" % (len(bad), len(methods)))

        self.log("help's categories are Core's, without the hidden methods")
        titles = [line[3:-3] for line in node.rpc("help").split("\n") if line.startswith("==")]
        assert_equal(titles, ["Blockchain", "Control", "Mining", "Network", "Rawtransactions",
                              "Util", "Zmq"])
        for m in HIDDEN:
            assert_true("\n%s" % m not in "\n" + node.rpc("help"), "%s hidden" % m)

        self.log("doc/rpc.md has a heading for every method's signature, and no other")
        overview = node.rpc("help")
        signatures = [line for line in overview.split("\n") if line and not line.startswith("==")]
        signatures += [node.rpc("help", m).split("\n")[0] for m in HIDDEN]
        names = set(s.split(" ")[0] for s in signatures)
        headings = [h for h in re.findall(r"^### (.*)$", open(RPC_DOC).read(), re.M)
                    if h.split(" ")[0] in names or h.split(" ")[0].islower()]
        assert_equal(sorted(s for s in signatures if s not in headings), [])
        assert_equal(sorted(h for h in headings if h not in signatures), [])


if __name__ == "__main__":
    HelpTest().main()
