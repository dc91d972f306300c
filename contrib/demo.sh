#!/usr/bin/env bash
# The node's main job on a fresh Debian machine, end to end: install dependencies, build,
# start bitnoded on regtest in a fresh datadir, import the bundled chain made by Bitcoin
# Core (test/data/regtest-small) with -loadblock, and print its tip and UTXO set hash,
# which equal Core's (test/data/regtest-small/expected.json). The node is stopped at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
contrib/install-deps.sh
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh >/dev/null
mkdir -p build/leveldb
cd build/leveldb
[ -f Makefile ] || "$ROOT/configure" >/dev/null
make -j2 >/dev/null

DATADIR=$(mktemp -d)
PORT=$((20000 + RANDOM % 20000))
CLI=(./bitnode-cli -regtest -datadir="$DATADIR" -rpcport="$PORT")
trap '"${CLI[@]}" stop >/dev/null 2>&1 || true' EXIT
./bitnoded -regtest -daemon -datadir="$DATADIR" -rpcport="$PORT" \
    -loadblock="$ROOT/test/data/regtest-small/blk00000.dat"
"${CLI[@]}" -rpcwait uptime >/dev/null
want=$(python3 -c "import json;print(json.load(open('$ROOT/test/data/regtest-small/expected.json'))['tip']['height'])")
for _ in $(seq 1 600); do
    [ "$("${CLI[@]}" getblockcount)" -ge "$want" ] && break
    sleep 0.2
done
echo "tip height: $("${CLI[@]}" getblockcount)"
echo "tip hash:   $("${CLI[@]}" getbestblockhash)"
"${CLI[@]}" gettxoutsetinfo hash_serialized_3 | grep -E '"(txouts|hash_serialized_3|total_amount)"'
"${CLI[@]}" gettxoutsetinfo muhash | grep '"muhash"'
