#!/usr/bin/env python3
"""The fee estimation methods (Core's rpc/fees.cpp) on a node that has seen no transaction:
estimatesmartfee and estimaterawfee answer Core's "Insufficient data" results for every
target (the shapes Core v31.99 gives on a fresh node, checked against their declarations by
-rpcdoccheck), with Core's argument errors: conf_target outside 1..1008 (-8), an unknown
estimate_mode (-8, any case accepted for the known ones), a threshold outside 0..1 (-8),
wrong JSON types (-3); named parameters; estimatesmartfee listed under "== Util ==" and
estimaterawfee hidden from the overview."""

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true)

NO_DATA = {"errors": ["Insufficient data or no feerate found"], "blocks": 0}


def horizon(decay, scale):
    return {"decay": decay, "scale": scale,
            "fail": {"startrange": 0, "endrange": 1e99, "withintarget": 0, "totalconfirmed": 0,
                     "inmempool": 0, "leftmempool": 0},
            "errors": ["Insufficient data or no feerate found which meets threshold"]}


SHORT, MEDIUM, LONG = horizon(0.962, 1), horizon(0.9952, 2), horizon(0.99931, 24)


class FeesTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        self.log("estimatesmartfee without data")
        for target in [1, 2, 6, 1008]:
            assert_equal(node.rpc("estimatesmartfee", target), NO_DATA)
        for mode in ["unset", "economical", "conservative", "CONSERVATIVE", "Economical"]:
            assert_equal(node.rpc("estimatesmartfee", 6, mode), NO_DATA)
        assert_equal(node.rpc("estimatesmartfee", conf_target=3, estimate_mode="conservative"),
                     NO_DATA)
        for bad in [0, -1, 1009, 2**31 - 1]:
            assert_raises_rpc_error(-8, "Invalid conf_target, must be between 1 and 1008",
                                    node.rpc, "estimatesmartfee", bad)
        assert_raises_rpc_error(-8, 'Invalid estimate_mode parameter, must be one of: "unset", '
                                '"economical", "conservative"', node.rpc, "estimatesmartfee",
                                6, "fast")
        assert_raises_rpc_error(-3, None, node.rpc, "estimatesmartfee", "6")
        assert_raises_rpc_error(-3, None, node.rpc, "estimatesmartfee", 6, 1)
        assert_raises_rpc_error(-1, None, node.rpc, "estimatesmartfee", 2**31)

        self.log("estimaterawfee without data")
        assert_equal(node.rpc("estimaterawfee", 6), {"short": SHORT, "medium": MEDIUM,
                                                     "long": LONG})
        assert_equal(node.rpc("estimaterawfee", 12, 0.5), {"short": SHORT, "medium": MEDIUM,
                                                           "long": LONG})
        assert_equal(node.rpc("estimaterawfee", 13), {"medium": MEDIUM, "long": LONG})
        assert_equal(node.rpc("estimaterawfee", 49, 1), {"long": LONG})
        assert_equal(node.rpc("estimaterawfee", conf_target=1008, threshold=0), {"long": LONG})
        for bad in [1.5, -0.01, 2]:
            assert_raises_rpc_error(-8, "Invalid threshold", node.rpc, "estimaterawfee", 6, bad)
        assert_raises_rpc_error(-8, "Invalid conf_target, must be between 1 and 1008",
                                node.rpc, "estimaterawfee", 1009)
        assert_raises_rpc_error(-3, None, node.rpc, "estimaterawfee", 6, "0.5")

        self.log("help")
        overview = node.rpc("help")
        assert_in("== Util ==\n", overview)
        assert_in("\nestimatesmartfee conf_target ( \"estimate_mode\" )\n", overview + "\n")
        assert_true("estimaterawfee" not in overview, "estimaterawfee is hidden")
        assert_true(node.rpc("help", "estimaterawfee").startswith(
            "estimaterawfee conf_target ( threshold )\n"), "estimaterawfee has help")


if __name__ == "__main__":
    FeesTest().main()
