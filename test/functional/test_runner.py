#!/usr/bin/env python3
"""Runs every functional test (feature_*, rpc_*, p2p_*, mempool_*, mining_*, interface_*.py) here,
two at a time.

Prints one line per test, then "N passed, N failed" as the last line, and exits non-zero if
any test failed. A failing test's output is printed in full.

    test/functional/test_runner.py --builddir /path/to/build [-j N] [test names...]
    (or BITNODE_BUILDDIR=/path/to/build test/functional/test_runner.py ...)
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_one(name, timeout):
    start = time.time()
    try:
        r = subprocess.run([sys.executable, os.path.join(HERE, name)], capture_output=True,
                           text=True, timeout=timeout, cwd=HERE)
        ok = r.returncode == 0
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        ok = False
        out = "timed out after %ds\n%s" % (timeout, e.stdout or "")
    return name, ok, time.time() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--builddir", help="the build folder holding bitnoded "
                        "(default: $BITNODE_BUILDDIR)")
    parser.add_argument("tests", nargs="*")
    args = parser.parse_args()
    if args.builddir:
        os.environ["BITNODE_BUILDDIR"] = os.path.abspath(args.builddir)
    if not os.environ.get("BITNODE_BUILDDIR"):
        print("set BITNODE_BUILDDIR to the build folder holding bitnoded", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    tests = args.tests or sorted(f for f in os.listdir(HERE)
                                 if f.startswith(("feature_", "rpc_", "p2p_", "mempool_", "mining_",
                                                "interface_"))
                                 and f.endswith(".py"))
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, t, args.timeout) for t in tests]
        for fut in concurrent.futures.as_completed(futures):
            name, ok, secs, out = fut.result()
            print("%-32s %s  %5.1fs" % (name, "passed" if ok else "FAILED", secs), flush=True)
            if ok:
                passed += 1
            else:
                failed += 1
                print("".join("    | " + line + "\n" for line in out.splitlines()), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
