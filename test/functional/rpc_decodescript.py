#!/usr/bin/env python3
"""decodescript's segwit descriptor: the script inside its P2WSH inferred as Core does,
miniscript included (Core's rpc_decodescript cases), and what is not sane miniscript."""

from framework import BitnodeTestFramework, assert_equal

KEY = "0250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"
HTLC = "82012088a914" + "ff" * 20 + "8821" + KEY + "ad51b2"
NOT_MS = "82012088a914" + "ff" * 20 + "882102" + "ff" * 32 + "acb2"


class DecodeScriptTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def desc(self, hexscript):
        return self.nodes[0].rpc("decodescript", hexscript)["segwit"]["desc"]

    def run_test(self):
        self.log("miniscript inside P2WSH, as Core's")
        assert_equal(self.desc(HTLC), "wsh(and_v(and_v(v:hash160(" + "ff" * 20 + "),v:pk(" + KEY +
                     ")),older(1)))#gm8xz4fl")
        assert_equal(self.desc("00"), "wsh(0)#a0qjqdfq")
        # multi() and or_d(multi, and_v(v:older, multi)), checksums from Core.
        keys = ["02" + "%064x" % (i + 1) for i in range(4)]
        multi = "52" + "".join("21" + k for k in keys[:3]) + "53ae"
        assert_equal(self.desc(multi), "wsh(multi(2,%s))#wn07nfhc" % ",".join(keys[:3]))
        ordm = "5121" + keys[3] + "51ae" + "7364" + "02c00f" + "b269" + multi + "68"
        assert_equal(self.desc(ordm),
                     "wsh(or_d(multi(1,%s),and_v(v:older(4032),multi(2,%s))))#yps93j3h" %
                     (keys[3], ",".join(keys[:3])))
        # The same with a key twice is not sane (Core: the address).
        dup = "5121" + keys[0] + "51ae" + "7364" + "02c00f" + "b269" + multi + "68"
        assert_equal(self.desc(dup).split("(")[0], "addr")

        self.log("not sane miniscript: the address")
        assert_equal(self.desc(NOT_MS).split("(")[0], "addr")
        assert_equal(self.desc("51").split("(")[0], "addr")  # "1": no signature needed
        assert_equal(self.desc("b2").split("(")[0], "addr")
        top = self.nodes[0].rpc("decodescript", HTLC)["desc"]
        assert_equal(top.split("(")[0], "raw")  # no miniscript outside P2WSH


if __name__ == "__main__":
    DecodeScriptTest().main()
