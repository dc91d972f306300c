#!/usr/bin/env bash
# The node's main job on a fresh Debian machine, end to end: install dependencies, build,
# and read the bundled regtest chain (test/data/regtest-small), printing its tip.
# (Until the daemon and the chainstate exist, bitnode-util does the reading; later this
# starts bitnoded -regtest, imports the chain and prints the tip and the UTXO set hash.)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
contrib/install-deps.sh
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh >/dev/null
mkdir -p build/leveldb
cd build/leveldb
[ -f Makefile ] || "$ROOT/configure" >/dev/null
make -j2 >/dev/null
./bitnode-util parse-blocks "$ROOT/test/data/regtest-small/blk00000.dat"
