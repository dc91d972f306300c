#!/usr/bin/env bash
# Runs Bitcoin Core's own functional tests against bitnoded (not part of the suite: CI has no
# Core). Core's test framework starts bitnoded in place of bitcoind (BITCOIND) and uses Core's
# bitcoin-cli (BITCOINCLI) where a test wants a client.
#
#   contrib/interop/run-core-tests.sh BITNODED BITCOIN_CLI [TEST.py ...]
#
# Core's test tree comes from the snapshot github:l0rinc/bitcoin (Bitcoin Core v31.99), as
# fetched by the tool library into /work/.mirror (CORE_GIT overrides the git directory).
# Prints one line per test (Core's test_runner summary) into $OUT (default /tmp/core-tests).
# Without TEST.py arguments it runs Core's whole default list. Counted the same way every
# time: JOBS (default 1) and TIMEOUT_FACTOR (default 2) as given, the per-test table in
# $OUT/summary.txt (doc/interop.md keeps the last full run's).
set -u
BITNODED=${1:?bitnoded path}
CLI=${2:?bitcoin-cli path}
shift 2
CORE_GIT=${CORE_GIT:-/work/.mirror/l0rinc+bitcoin/repo}
# Core's framework takes three ranges of 5000 ports from TEST_RUNNER_PORT_MIN (P2P, RPC, Tor):
# all must stay below the kernel's ephemeral range (32768 on Debian), or a node's port can be
# taken by a client socket and the node fails to start ("Unable to connect to bitcoind").
export TEST_RUNNER_PORT_MIN=${TEST_RUNNER_PORT_MIN:-11000}
EPHEMERAL_LOW=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
if [ "$((TEST_RUNNER_PORT_MIN + 15000))" -gt "$EPHEMERAL_LOW" ]; then
    echo "TEST_RUNNER_PORT_MIN=$TEST_RUNNER_PORT_MIN: its ports reach $((TEST_RUNNER_PORT_MIN + 15000)), into the ephemeral range from $EPHEMERAL_LOW; use at most $((EPHEMERAL_LOW - 15000))" >&2
    exit 2
fi
OUT=${OUT:-/tmp/core-tests}
rm -rf "$OUT" && mkdir -p "$OUT/src"
git -C "$CORE_GIT" archive HEAD test/functional test/config.ini.in share/rpcauth src/rpc/client.cpp \
    contrib/utxo-tools contrib/linearize src/test/data |
    tar -x -C "$OUT/src"
cat >"$OUT/src/test/config.ini" <<CONF
[environment]
CLIENT_NAME=bitnode
CLIENT_BUGREPORT=https://github.com/bitcoin/bitcoin/issues
SRCDIR=$OUT/src
BUILDDIR=$OUT/src
EXEEXT=
RPCAUTH=$OUT/src/share/rpcauth/rpcauth.py

[components]
ENABLE_WALLET=false
BUILD_BENCH=false
ENABLE_CLI=true
BUILD_BITCOIN_TX=false
ENABLE_BITCOIN_UTIL=false
ENABLE_BITCOIN_CHAINSTATE=false
ENABLE_WALLET_TOOL=false
ENABLE_BITCOIND=true
ENABLE_FUZZ_BINARY=false
ENABLE_ZMQ=${ENABLE_ZMQ:-true}
ENABLE_EMBEDDED_ASMAP=false
ENABLE_EXTERNAL_SIGNER=false
ENABLE_USDT_TRACEPOINTS=false
ENABLE_IPC=false
CONF
export BITCOIND="$BITNODED" BITCOINCLI="$CLI"
cd "$OUT/src" && python3 test/functional/test_runner.py --configfile="$OUT/src/test/config.ini" \
    --tmpdirprefix="$OUT/tmp" --jobs="${JOBS:-1}" --timeout-factor="${TIMEOUT_FACTOR:-2}" "$@" \
    2>&1 | tee "$OUT/summary.txt"
