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
set -u
BITNODED=${1:?bitnoded path}
CLI=${2:?bitcoin-cli path}
shift 2
CORE_GIT=${CORE_GIT:-/work/.mirror/l0rinc+bitcoin/repo}
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
