#!/usr/bin/env bash
# The ZMQ benchmark: run on purpose, never by the tests.
#
#   contrib/bench/zmq.sh BUILDDIR [--rounds N] [--work DIR] [--par P] [--blocks B] [--mode none|tip]
#
# Imports the chain contrib/bench/import.sh generates (--blocks B spending blocks of about 200
# transactions, then 2,100 empty ones; default 2500; generated here too if missing, into the
# same work folder) into a fresh datadir with -loadblock, alternating, N rounds (default 2):
# no ZMQ; every topic (-zmqpub{hashblock,hashtx,rawblock,rawtx,sequence}) on one address with
# no subscriber (the node's own cost: it reads and sends all the same); and with a subscriber
# on all of them (Debian's python3-zmq, on the same cores) counting the messages and checking
# that no topic's counter skipped. --mode tip adds -assumevalid=<tip> (no scripts: where
# publishing weighs most). One Markdown row per run: seconds until the tip was connected, the
# validation thread's own span (the node's "... in X s of connecting"), user and sys CPU of
# the node, and the messages the subscriber got.
set -euo pipefail

usage() {
    sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
ROUNDS=2
WORK=${TMPDIR:-/tmp}/bitnode-import-bench
PAR=2
BLOCKS=2500
MODE=none
while [ $# -gt 0 ]; do
    case "$1" in
    --blocks) BLOCKS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --par) PAR=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    *) usage ;;
    esac
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
NAME=chain-b$BLOCKS-t200-s1-tail2100
CHAIN=$WORK/$NAME.dat
EXPECT=$WORK/$NAME.json
if [ ! -s "$CHAIN" ] || [ ! -s "$EXPECT" ]; then
    echo "zmq.sh: generating $NAME (once)" >&2
    "$BUILD/bitnode-util" genchain --blocks "$BLOCKS" --txs 200 --seed 1 --tail 2100 \
        --out "$CHAIN.tmp" --expect "$EXPECT.tmp" >&2
    mv "$CHAIN.tmp" "$CHAIN"
    mv "$EXPECT.tmp" "$EXPECT"
fi
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
HEIGHT=$(json "$EXPECT" height)
TIP=$(json "$EXPECT" tip)
PORT=$((20000 + RANDOM % 20000))
ZPORT=$((PORT + 1))

now() { date +%s.%N; }

# The subscriber: every topic, until told to stop (SIGTERM); prints "topic=count" and gaps.
SUB=$WORK/zmq-sub.py
cat >"$SUB" <<'PY'
import signal, struct, sys, zmq
ctx = zmq.Context()
s = ctx.socket(zmq.SUB)
s.setsockopt(zmq.RCVHWM, 0)
s.setsockopt(zmq.SUBSCRIBE, b"")
s.connect(sys.argv[1])
counts, last, gaps, size = {}, {}, 0, 0
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
while not stop:
    if not s.poll(200):
        continue
    topic, body, seq = s.recv_multipart()
    n = struct.unpack("<I", seq)[0]
    if topic in last and n != last[topic] + 1:
        gaps += 1
    last[topic] = n
    counts[topic] = counts.get(topic, 0) + 1
    size += len(body)
print(" ".join("%s=%d" % (t.decode(), c) for t, c in sorted(counts.items())),
      "MiB=%.0f gaps=%d" % (size / 1048576, gaps))
PY

run() { # $1: label, $2: zmq (0/1)
    local label=$1 zmq=$2
    local dd=$WORK/datadir-zmq
    rm -rf "$dd"
    mkdir -p "$dd"
    printf 'regtest=1\n[regtest]\nprinttoconsole=0\nrpcport=%d\nlisten=0\n' "$PORT" >"$dd/bitnode.conf"
    local args=(-datadir="$dd" -loadblock="$CHAIN" -par="$PAR")
    [ "$MODE" = tip ] && args+=(-assumevalid="$TIP")
    local sub=""
    if [ "$zmq" != 0 ]; then
        for t in hashblock hashtx rawblock rawtx sequence; do
            args+=(-zmqpub$t=tcp://127.0.0.1:$ZPORT)
        done
    fi
    if [ "$zmq" = 2 ]; then
        /usr/bin/python3 "$SUB" tcp://127.0.0.1:$ZPORT >"$dd/sub.txt" &
        sub=$!
        sleep 0.5
    fi
    local cli=("$BUILD/bitnode-cli" -datadir="$dd")
    local start t_tip=""
    start=$(now)
    /usr/bin/time -f "%U %S" -o "$dd/time.txt" "$BUILD/bitnoded" "${args[@]}" >/dev/null 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$("${cli[@]}" getblockcount 2>/dev/null || echo -1)" = "$HEIGHT" ]; then
            t_tip=$(now)
            "${cli[@]}" stop >/dev/null
            break
        fi
        sleep 0.05
    done
    wait "$pid" || true
    local msgs="-"
    if [ -n "$sub" ]; then
        sleep 0.5
        kill -TERM "$sub"
        wait "$sub" || true
        msgs=$(cat "$dd/sub.txt")
    fi
    local span
    span=$(grep -o "inputs in [0-9.]* s of connecting" "$dd/regtest/debug.log" | tail -1 |
        sed 's/inputs in \([0-9.]*\) s.*/\1/' || true)
    read -r user sys <"$dd/time.txt"
    printf '| %s | %.2f | %s | %s | %s | %s |\n' "$label" "$(echo "${t_tip:-$start} - $start" | bc -l)" \
        "${span:-?}" "$user" "$sys" "$msgs"
}

echo "chain: $HEIGHT blocks ($CHAIN), -par=$PAR, mode $MODE, $(sed -n 's/^BACKEND = //p' "$BUILD/Makefile")"
echo
echo "| ZMQ | tip connected s | connecting s | user s | sys s | messages received |"
echo "|---|---:|---:|---:|---:|---|"
for r in $(seq "$ROUNDS"); do
    run "none ($r)" 0
    run "every topic, no subscriber ($r)" 1
    run "every topic, one subscriber ($r)" 2
done
