#!/usr/bin/env bash
# The REST benchmark: run on purpose, never by the tests.
#
#   contrib/bench/rest.sh BUILDDIR [--seconds S] [--rounds N] [--work DIR] [--blocks B]
#
# Imports the chain contrib/bench/import.sh generates (--blocks B spending blocks, default
# 500; generated here too if missing) into a fresh datadir with -rest, then asks for blocks
# in random order over one keep-alive connection, S seconds each (default 10), alternated N
# rounds (default 2): the REST block in binary (/rest/block/<hash>.bin), the REST block in
# JSON without transaction details (/rest/block/notxdetails/<hash>.json), and the RPCs that
# answer the same (getblock <hash> 0, getblock <hash> 1). One Markdown row per run: requests
# per second and MiB per second received. The client (Python's http.client) runs on the same
# machine, so these are the node and the client together.
set -euo pipefail

usage() {
    sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
SECONDS_EACH=10
ROUNDS=2
WORK=${TMPDIR:-/tmp}/bitnode-import-bench
BLOCKS=500
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --blocks) BLOCKS=$2; shift 2 ;;
    *) usage ;;
    esac
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
NAME=chain-b$BLOCKS-t200-s1-tail2100
CHAIN=$WORK/$NAME.dat
EXPECT=$WORK/$NAME.json
if [ ! -s "$CHAIN" ] || [ ! -s "$EXPECT" ]; then
    echo "rest.sh: generating $NAME (once)" >&2
    "$BUILD/bitnode-util" genchain --blocks "$BLOCKS" --txs 200 --seed 1 --tail 2100 \
        --out "$CHAIN.tmp" --expect "$EXPECT.tmp" >&2
    mv "$CHAIN.tmp" "$CHAIN"
    mv "$EXPECT.tmp" "$EXPECT"
fi
HEIGHT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["height"])' "$EXPECT")
TIP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tip"])' "$EXPECT")
PORT=$((20000 + RANDOM % 20000))
dd=$WORK/datadir-rest
rm -rf "$dd"
mkdir -p "$dd"
printf 'regtest=1\n[regtest]\nprinttoconsole=0\nrpcport=%d\nlisten=0\nrest=1\nrpcuser=bench\nrpcpassword=bench\n' \
    "$PORT" >"$dd/bitnode.conf"
"$BUILD/bitnoded" -datadir="$dd" -loadblock="$CHAIN" -assumevalid="$TIP" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
cli=("$BUILD/bitnode-cli" -datadir="$dd")
until [ "$("${cli[@]}" getblockcount 2>/dev/null || echo -1)" = "$HEIGHT" ]; do
    sleep 0.2
done

python3 - "$PORT" "$HEIGHT" "$SECONDS_EACH" "$ROUNDS" <<'PY'
import base64, http.client, json, random, sys, time
port, height, seconds, rounds = (int(a) for a in sys.argv[1:5])
auth = "Basic " + base64.b64encode(b"bench:bench").decode()
conn = http.client.HTTPConnection("127.0.0.1", port)
def rpc(method, *params):
    conn.request("POST", "/", json.dumps({"method": method, "params": list(params), "id": 1}),
                 {"Authorization": auth, "Content-Type": "application/json"})
    r = conn.getresponse()
    body = r.read()
    assert r.status == 200, (r.status, body[:200])
    return body
hashes = [json.loads(rpc("getblockhash", h))["result"] for h in range(height + 1)]
def rest(path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    assert r.status == 200, (r.status, path)
    return body
kinds = [("REST /rest/block/<hash>.bin", lambda h: rest("/rest/block/%s.bin" % h)),
         ("RPC getblock <hash> 0", lambda h: rpc("getblock", h, 0)),
         ("REST /rest/block/notxdetails/<hash>.json", lambda h: rest("/rest/block/notxdetails/%s.json" % h)),
         ("RPC getblock <hash> 1", lambda h: rpc("getblock", h, 1))]
print("| request | round | requests/s | MiB/s received |")
print("|---|---:|---:|---:|")
rng = random.Random(1)
for r in range(1, rounds + 1):
    for name, call in kinds:
        n = size = 0
        end = time.time() + seconds
        while time.time() < end:
            size += len(call(rng.choice(hashes)))
            n += 1
        print("| %s | %d | %.0f | %.1f |" % (name, r, n / seconds, size / seconds / 1048576))
PY
"${cli[@]}" stop >/dev/null
wait $pid || true
