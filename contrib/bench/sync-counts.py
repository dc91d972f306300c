#!/usr/bin/env python3
"""What durability costs: the fsync/fdatasync calls per flush, per kind of file, during one
-loadblock import of the bundled regtest chain under the power-loss layer
(test/util/powerloss.so, which counts them; nothing is cut or restored here).

    contrib/bench/sync-counts.py BUILDDIR [bitnoded options...]
    e.g. contrib/bench/sync-counts.py build/lmdb -dbcache=4 -maxmempool=0
         contrib/bench/sync-counts.py build/lmdb -dbcache=4 -testflushblocks=25

Prints the flushes the debug log shows up to the tip (and how many synced the coins), then
one line per kind of file: syncs (fsync + fdatasync), sync_file_range calls (which make
nothing durable), writes on O_SYNC/O_DSYNC descriptors, and write calls. Counted until the
tip is reached, before the shutdown's own flush. Python 3, standard library.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "test", "functional"))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    build = os.path.abspath(sys.argv[1])
    os.environ["BITNODE_BUILDDIR"] = build
    from framework import TestNode  # noqa: E402 (needs BITNODE_BUILDDIR)
    tool = os.path.join(build, "test", "util", "powerloss-restore")
    shim = os.path.join(build, "test", "util", "powerloss.so")
    if not (os.path.exists(tool) and os.path.exists(shim)):
        subprocess.run(["make", "-C", build, "test/util/powerloss.so",
                        "test/util/powerloss-restore"], check=True, stdout=subprocess.DEVNULL)
    root = tempfile.mkdtemp(prefix="sync_counts_")
    journal = os.path.join(root, "journal")
    os.makedirs(journal)
    node = TestNode(0, root)
    blk = os.path.join(SRC, "test", "data", "regtest-small", "blk00000.dat")
    args = ["-loadblock=" + blk, "-debug=coindb"] + sys.argv[2:]
    env = dict(LD_PRELOAD=shim, POWERLOSS_DIR=node.datadir, POWERLOSS_JOURNAL=journal)
    os.environ.update(env)
    node.start(args)
    for k in env:
        os.environ.pop(k)
    deadline = time.time() + 600
    while node.rpc("getblockcount") < 1300 and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # the last block's flush
    out = subprocess.run([tool, "counts", journal], capture_output=True, text=True,
                         check=True).stdout
    log = open(node.debug_log, errors="replace").read()
    node.stop()
    flushes = len(re.findall(r"flushed \d+ bytes of coins cache", log))
    synced = len(re.findall(r"and synced at height", log))
    kinds = {}
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        label, fs, fds, ranges, dsync, writes, _ = line.split("\t")
        folder, kind = label.split(":", 1)
        if kind.endswith((".tmp", ".new")) or "dbtmp" in kind:
            kind = "temporary files"
        k = kinds.setdefault("%s:%s" % ("datadir" if folder == "." else folder, kind),
                             [0, 0, 0, 0])
        for i, v in enumerate((int(fs) + int(fds), int(ranges), int(dsync), int(writes))):
            k[i] += v
    total = sum(v[0] for v in kinds.values())
    print("flushes %d (coins synced: %d); syncs %d, %.2f per flush" %
          (flushes, synced, total, total / max(flushes, 1)))
    for name, v in sorted(kinds.items()):
        if any(v):
            print("  %-30s syncs %6d  range-syncs %3d  dsync-writes %3d  writes %6d" %
                  ((name,) + tuple(v)))
    shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
