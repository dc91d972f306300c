"""The crash drill's parts (feature_crash_drill.py, contrib/bench/crash-drill.sh): start a node,
watch its debug log as it is written, SIGKILL it at a chosen moment (a random instant, or
the moment the log shows a flush beginning or a part of a coins flush being written), and
tell from the log where the kill landed.

Where a kill landed is read from the node's own log lines (with -debug=coindb), Core's
words where Core has them:

  "Writing chainstate to disk: flush mode=..."   a flush begins (blocks, block index, coins)
  "[coindb] flushed ... at height N"             the validation thread's part of it is over
  "Writing partial batch of" / "Writing final batch of"   a coins part is being written (by
                                                 the validation thread, or by the coins
                                                 writer thread with -dbbackgroundflush)
  "Committed N changed transaction outputs"      the coins write is over

A kill is inside a flush when the run's log ends after a start and before its end (either
pair). Blocks are counted from "bench: block height=N" (-debug=bench) and "Loaded best
chain: ... height=N" (the height a restart found on disk).
"""

import os
import re
import signal
import time

FLUSH_START = "Writing chainstate to disk"
FLUSH_END = "[coindb] flushed "
PARTS = ("Writing partial batch of", "Writing final batch of")
PART = "Writing partial batch of"
COINS_END = "changed transaction outputs"
DRILL_DEBUG = ["-debug=coindb", "-debug=bench"]

BENCH_RE = re.compile(r"bench: block height=(\d+)")
LOADED_RE = re.compile(r"Loaded best chain: .* height=(-?\d+)")


def inside_flush(lines):
    """True if these log lines (one run's, in order) end inside a flush."""
    main = coins = False
    for line in lines:
        if FLUSH_START in line:
            main = True
        elif FLUSH_END in line:
            main = False
        elif PARTS[0] in line or PARTS[1] in line:
            coins = True
        elif COINS_END in line:
            coins = False
    return main or coins


def reached_height(lines):
    """The highest block connected in these lines (-1 if none)."""
    h = -1
    for line in lines:
        m = BENCH_RE.search(line)
        if m:
            h = max(h, int(m.group(1)))
    return h


def loaded_height(lines):
    """The tip height the node found at start-up (None if not logged)."""
    for line in lines:
        m = LOADED_RE.search(line)
        if m:
            return int(m.group(1))
    return None


class LogTail:
    """The lines appended to a debug log since it was opened at its then end."""

    def __init__(self, path):
        self.path = path
        self.offset = os.path.getsize(path) if os.path.exists(path) else 0
        self.partial = b""
        self.lines = []

    def poll(self):
        """Reads what was appended; returns the new complete lines."""
        if not os.path.exists(self.path):
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        self.offset += len(data)
        data = self.partial + data
        parts = data.split(b"\n")
        self.partial = parts.pop()
        new = [p.decode("utf-8", "replace") for p in parts]
        self.lines.extend(new)
        return new


def pick_trigger(rng, max_time=1.2, max_skip=6):
    """A kill moment: ("flush", k): when the k-th flush begins; ("part", k): when the k-th
    coins part is written; ("time", s): s seconds after the start; ("line", text, k): when
    the k-th line holding text is logged."""
    r = rng.random()
    if r < 0.35:
        return ("flush", rng.randint(1, max_skip))
    if r < 0.7:
        return ("part", rng.randint(1, max_skip * 3))
    return ("time", rng.uniform(0.05, max_time))


class DrillError(AssertionError):
    pass


def run_and_kill(node, args, trigger, timeout=4.0, wait_rpc=False, after=None, delay=0.0):
    """Starts node with args and SIGKILLs it at trigger (see pick_trigger; the kill falls
    back to timeout seconds if the trigger never comes). wait_rpc: first waits for RPC and
    measures it (then the trigger counts from there). after(node): called once the node is
    started (before the watch), e.g. to send it work. Returns a dict: trigger, fired (the
    trigger was met), inside (the log ends inside a flush), reached (highest block connected
    in this run), loaded (the height found at start-up), rpc_s (seconds to RPC, or None),
    lines. delay: the kill comes this many seconds after the trigger. Raises DrillError when
    the node exits by itself (a failed start)."""
    tail = LogTail(node.debug_log)
    t0 = time.time()
    node.start(args, wait=False)
    rpc_s = None
    if wait_rpc:
        node.wait_for_rpc(timeout=120)
        rpc_s = time.time() - t0
    if after:
        after(node)
    kind, value = trigger[0], trigger[-1]
    text = {"flush": FLUSH_START, "part": PART}.get(kind, trigger[1] if kind == "line" else None)
    seen = 0
    fired = False
    start = time.time()
    deadline = start + (value if kind == "time" else timeout)
    while True:
        if node.process.poll() is not None:
            tail.poll()
            raise DrillError("bitnoded exited by itself (rc %s): %s\n%s" %
                             (node.process.returncode, node.stderr_text(),
                              "\n".join(tail.lines[-20:])))
        for line in tail.poll():
            if text is not None and text in line:
                seen += 1
                if seen >= value:
                    fired = True
                    break
        if fired or time.time() >= deadline:
            fired = fired or kind == "time"
            break
        time.sleep(0.0005)
    if fired and delay > 0:
        time.sleep(delay)
    os.kill(node.process.pid, signal.SIGKILL)
    node.process.wait()
    node.process = None
    tail.poll()
    if tail.partial:
        tail.lines.append(tail.partial.decode("utf-8", "replace"))
    return {"trigger": trigger, "fired": fired, "inside": inside_flush(tail.lines),
            "reached": reached_height(tail.lines), "loaded": loaded_height(tail.lines),
            "rpc_s": rpc_s, "lines": tail.lines}


def utxo_state(node):
    """(tip hash, height, hash_serialized_3, muhash, txouts) of a running node."""
    a = node.rpc("gettxoutsetinfo", "hash_serialized_3")
    b = node.rpc("gettxoutsetinfo", "muhash")
    return (node.rpc("getbestblockhash"), a["height"], a["hash_serialized_3"], b["muhash"],
            a["txouts"])


def expected_state(exp):
    """The same tuple from a data set's expected.json (Core's answers)."""
    t = exp["gettxoutsetinfo_tip"]
    return (exp["tip"]["hash"], exp["tip"]["height"], t["hash_serialized_3"]["hash_serialized_3"],
            t["muhash"]["muhash"], t["hash_serialized_3"]["txouts"])
