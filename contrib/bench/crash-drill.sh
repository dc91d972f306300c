#!/usr/bin/env bash
# The long crash drill: SIGKILL a node again and again (200 times by default) at moments aimed
# from its log (a random instant, a flush beginning, a coins part being written, a prune),
# across rounds of the short drill's scenarios (test/functional/feature_crash_drill.py):
# -loadblock import with flushes in parts, an import with the coins written in the
# background, P2P sync from a second node, the three indexes, pruning, a 10-block reorg
# (also with the three indexes), and a -reindex and a -reindex-chainstate killed again and
# again (only their first start asks for them).
# After each kill the node is started again with the same options; each round ends with a
# run left alone that must reach Core's tip and UTXO set (hash_serialized_3, muhash).
#
#   contrib/bench/crash-drill.sh BUILDDIR [--kills N] [--seed S] [--ports BASE]
#
# Reports: kills made; kills survived (the restart after it came up, and the round it belongs
# to ended at Core's state); kills that landed inside a flush (from the log); time from the
# restart to RPC ready (mean, max); blocks redone per restart (the height the killed run had
# connected minus the height the restart found on disk: mean, max); one line per failure.
# Nodes listen on BASE.. BASE+499 (default 15500; never the 18443/18444 defaults).
# Needs python3 (stdlib) and BITNODE_SHARED for the reorg data (skipped without it).
set -euo pipefail

if [ $# -lt 1 ] || [ ! -x "$1/bitnoded" ]; then
    echo "usage: $0 BUILDDIR [--kills N] [--seed S] [--ports BASE]" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec /usr/bin/python3 - "$BUILD" "$ROOT" "$@" <<'EOF'
import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time

build, root = sys.argv[1], sys.argv[2]
ap = argparse.ArgumentParser()
ap.add_argument("--kills", type=int, default=200)
ap.add_argument("--seed", type=int, default=35035)
ap.add_argument("--ports", type=int, default=15500)
ap.add_argument("--scenarios", default="", help="comma-separated names (default: all)")
opt = ap.parse_args(sys.argv[3:])

os.environ["BITNODE_BUILDDIR"] = build
sys.path.insert(0, os.path.join(root, "test", "functional"))
import framework  # noqa: E402
import crashdrill  # noqa: E402
from feature_crash_drill import FLUSHY, TIPAGE, split_records  # noqa: E402

# Ports from our own range, one after the other (the framework's own picker takes any).
_next = [opt.ports]


def _port(with_next=False):
    p = _next[0]
    _next[0] += 2 if with_next else 1
    if _next[0] >= opt.ports + 500:
        _next[0] = opt.ports
    return p


framework.free_port = _port

SMALL = os.path.join(root, "test", "data", "regtest-small")
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(root, "..", "shared")
REORG = os.path.join(SHARED, "data", "regtest-reorg")
small = json.load(open(os.path.join(SMALL, "expected.json")))
BLK = os.path.join(SMALL, "blk00000.dat")
rng = random.Random(opt.seed)
tmp = tempfile.mkdtemp(prefix="crash_drill_")
at = small["gettxoutsetinfo_at_height"]["500"]
exp500 = {"tip": {"height": 500, "hash": at["bestblock"]},
          "gettxoutsetinfo_tip": {"hash_serialized_3": at["hash_serialized_3"],
                                  "muhash": at["muhash"]}}
part500 = os.path.join(tmp, "blk-0-500.dat")
open(part500, "wb").write(split_records(BLK, 501)[0])

stats = {"kills": 0, "survived": 0, "inside": 0, "rpc": [], "redone": [], "failures": [],
         "rounds": 0, "by_scenario": {}}
nodes_made = [0]


def new_node():
    nodes_made[0] += 1
    return framework.TestNode(nodes_made[0], tmp)


def prune_after(state):
    def after(node):
        state["n"] += 1
        target = min(1000, 100 + 150 * (state["n"] % 7))

        def ask():
            try:
                node.wait_for_rpc(timeout=30)
                framework.wait_until(lambda: node.rpc("getblockcount") >= target + 288, timeout=30)
                node.rpc("pruneblockchain", target)
            except Exception:
                pass
        threading.Thread(target=ask, daemon=True).start()
    return after


def scenarios():
    out = [("import", lambda: (["-loadblock=" + BLK] + FLUSHY, small, None, None)),
           ("import-background", lambda: (["-loadblock=" + part500, "-dbcache=4", "-maxmempool=0",
                                           "-dbbackgroundflush=1", "-dbbatchsize=300"] +
                                          crashdrill.DRILL_DEBUG, exp500, None, None)),
           ("p2p", "p2p"),
           ("indexes", lambda: (["-loadblock=" + BLK, "-txindex", "-blockfilterindex",
                                 "-coinstatsindex"] + FLUSHY, small, None, None)),
           ("prune", lambda: (["-loadblock=" + BLK, "-prune=1", "-fastprune", TIPAGE,
                               "-debug=blockstorage"] + FLUSHY, small, prune_after({"n": 0}),
                              [("line", "prune=1", 1), ("line", "UnlinkPrunedFiles", 1)]))]
    out.append(("reindex", "reindex"))
    out.append(("reindex-chainstate", "reindex-chainstate"))
    if os.path.exists(os.path.join(REORG, "blk-reorg.dat")):
        out.append(("reorg", "reorg"))
        out.append(("reorg-indexes", "reorg-indexes"))
    if opt.scenarios:
        out = [s for s in out if s[0] in opt.scenarios.split(",")]
    return out


def wait_state(node, exp, args):
    h = exp["tip"]["height"]
    framework.wait_until(lambda: node.rpc("getblockcount") == h, timeout=300, what="height %d" % h)
    if "-coinstatsindex" in args:
        framework.wait_until(lambda: all(v["synced"] for v in node.rpc("getindexinfo").values()),
                             timeout=300, what="indexes synced")
    got, want = crashdrill.utxo_state(node), crashdrill.expected_state(exp)
    if got != want:
        raise AssertionError("end state %s, Core's %s" % (got, want))


def round_(name, make, kills):
    """One round: a fresh node, `kills` kills at aimed moments, then a run left alone."""
    server = None
    node = new_node()
    triggers = None
    after = None
    first_args = None
    if make == "p2p":
        server = new_node()
        server.start(["-loadblock=" + BLK, TIPAGE])
        framework.wait_until(lambda: server.rpc("getblockcount") == 1300, timeout=300)
        args, exp = ["-connect=127.0.0.1:%d" % server.p2p_port, TIPAGE] + FLUSHY, small
    elif make in ("reindex", "reindex-chainstate"):
        # A node with the chain, then -reindex killed again and again: only the first
        # start asks for it (the 'R' flag resumes it after a kill, with no operator action).
        node.start(["-loadblock=" + BLK])
        framework.wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120)
        node.stop()
        args, exp = FLUSHY, small
        first_args = ["-" + make] + FLUSHY
    elif make in ("reorg", "reorg-indexes"):
        exp = json.load(open(os.path.join(REORG, "expected.json")))
        a, b = split_records(os.path.join(REORG, "blk-reorg.dat"), 161)
        pa, pb = os.path.join(tmp, "reorg-a.dat"), os.path.join(tmp, "reorg-b.dat")
        open(pa, "wb").write(a)
        open(pb, "wb").write(b)
        idx = ["-txindex", "-blockfilterindex", "-coinstatsindex"] if make == "reorg-indexes" else []
        node.start(["-loadblock=" + pa] + idx)
        framework.wait_until(lambda: node.rpc("getblockcount") == 160, timeout=120)
        node.stop()
        args = ["-loadblock=" + pb, "-testflushblocks=1", "-dbbatchsize=500"] + idx + \
            crashdrill.DRILL_DEBUG
        triggers = [("flush", k) for k in (1, 2, 3, 5, 7, 9, 11)]
    else:
        args, exp, after, triggers = make()
    made = []
    prev = None
    ok = True
    try:
        for i in range(kills):
            trig = triggers[i % len(triggers)] if triggers else crashdrill.pick_trigger(rng)
            a = first_args if first_args and i == 0 else args
            k = crashdrill.run_and_kill(node, a, trig, after=after, wait_rpc=prev is not None)
            if prev is not None:
                stats["rpc"].append(k["rpc_s"])
                if k["loaded"] is not None:
                    before = max(prev["reached"], prev["loaded"] if prev["loaded"] is not None else -1)
                    stats["redone"].append(max(0, before - k["loaded"]))
            made.append(k)
            prev = k
        t0 = time.time()
        node.start(args, wait=False)
        node.wait_for_rpc(timeout=120)
        stats["rpc"].append(time.time() - t0)
        lines = open(node.debug_log, errors="replace").read().splitlines()
        loaded = crashdrill.loaded_height(reversed(lines))
        if prev is not None and loaded is not None:
            before = max(prev["reached"], prev["loaded"] if prev["loaded"] is not None else -1)
            stats["redone"].append(max(0, before - loaded))
        wait_state(node, exp, args)
        node.stop()
    except Exception as e:  # a failure of the round: its kills did not survive
        ok = False
        stats["failures"].append("%s round %d after %d kills: %s (datadir %s)" %
                                 (name, stats["rounds"], len(made), str(e)[:300], node.datadir))
        node.kill()
    finally:
        if server:
            server.kill()
    stats["kills"] += len(made)
    stats["inside"] += sum(1 for k in made if k["inside"])
    if ok:
        stats["survived"] += len(made)
        shutil.rmtree(node.datadir, ignore_errors=True)
    s = stats["by_scenario"].setdefault(name, [0, 0])
    s[0] += len(made)
    s[1] += len(made) if ok else 0
    stats["rounds"] += 1


t_start = time.time()
per_round = 8
todo = scenarios()
i = 0
while stats["kills"] < opt.kills:
    name, make = todo[i % len(todo)]
    i += 1
    n = min(per_round, opt.kills - stats["kills"])
    round_(name, make, n)
    print("  %s: %d kills so far, %d survived, %d failures" %
          (name, stats["kills"], stats["survived"], len(stats["failures"])), flush=True)

rpc, red = stats["rpc"], stats["redone"]
backend = open(os.path.join(build, "config.log"), errors="replace").read()
be = "?"
for word in ("leveldb", "rocksdb", "lmdb", "bdb"):
    if "--with-backend=" + word in backend:
        be = word
print()
print("| backend | kills made | survived | inside a flush | rounds | RPC ready after restart "
      "(mean / max) | blocks redone per restart (mean / max) | drill time |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
print("| %s | %d | %d | %d | %d | %.2f s / %.2f s | %.1f / %d | %.0f s |" %
      (be, stats["kills"], stats["survived"], stats["inside"], stats["rounds"],
       statistics.mean(rpc) if rpc else 0, max(rpc) if rpc else 0,
       statistics.mean(red) if red else 0, max(red) if red else 0, time.time() - t_start))
print()
print("per scenario (kills made / survived): " +
      ", ".join("%s %d/%d" % (k, v[0], v[1]) for k, v in stats["by_scenario"].items()))
for f in stats["failures"]:
    print("FAILURE: " + f)
if not stats["failures"]:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if stats["failures"] else 0)
EOF
