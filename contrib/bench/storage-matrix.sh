#!/usr/bin/env bash
# The storage-engine matrix: run on purpose, never by the tests.
#
#   contrib/bench/storage-matrix.sh [--work DIR] [--builds DIR] [--chain large|small|tiny]
#       [--backends "leveldb rocksdb lmdb bdb mem"] [--sig "on off"] [--dbcache "8 30 450"]
#       [--bloom "0 10"] [--par "1 all"] [--out DIR]
#
# Builds bitnode once per backend from this source tree (`configure --with-backend=<b>` in
# WORK/build-<b>, then make; with --builds DIR, the built trees DIR/<b> instead). `mem` is
# the leveldb build with -dbchainstatemem: the chainstate store in memory, the block index
# in LevelDB. The chain (generated once with `bitnode-util genchain`, kept in WORK):
#   large  --blocks 1500 --txs 2000 --seed 7 --tail 2100 --fanout 70  (5.3M coins at the tip)
#   small  --blocks 1500 --txs 2000 --seed 7 --tail 2100              (1.29M coins)
#   tiny   --blocks 150 --txs 100 --seed 7 --tail 2100                (a check of this script)
# Runs: backend x sig {on, off} x -dbcache x -dbbloombits (leveldb and rocksdb only; "-"
# for the others) x -par (1 or all cores), each with -debug=bench -logtimemicros:
#   sig on   -loadblock=<chain> -assumevalid=0 into a fresh datadir: full validation;
#   sig off  -reindex-chainstate -assumevalid=<tip> over a copy of the backend's seed
#            datadir (the chain's blocks and block index, imported once, untimed): the
#            UTXO path alone. Without scripts -par sizes nothing, so sig off runs at
#            -par=all only.
# For each (sig, -dbcache, -par, bloom) tuple every backend runs in turn: the machine's
# speed drifts. Before each run the block files it reads are read once (warm page cache).
# Every run stops at the tip (-stopatheight), except the first of each backend: it serves
# RPC, and at the tip its UTXO set hash (gettxoutsetinfo hash_serialized_3) must be
# genchain's, else the matrix stops; then `stop`. Its wall includes the call (in the table).
#
# Each row: wall, user and sys seconds and peak RSS (/usr/bin/time -v); bytes the process
# read and wrote (/proc/<pid>/io, sampled every 0.2 s until it exits: the last sample); the
# stores' size after the clean stop (the network dir without blk/rev files and debug.log)
# and the whole network dir; from the node's log: the longest gap between two connected
# blocks (in the CSV also that block's own connect time and the flush the block before it
# set off: the gap is a stall only where these do not fill it), per-block connect time
# p50/p99, and the stores' compaction seconds (LSM only).
# Per run, in WORK/runs/<id>/: bench.tsv (seconds, height, connect ms, gap ms, flush ms),
# io.tsv (seconds, write_bytes, read_bytes) and written.tsv (bytes written per block, in
# bins of 50 blocks), with time.txt and debug.log.
#
# Output in --out (default WORK/out): matrix.csv, matrix.md (also printed on stdout at the
# end; progress on stderr) and img/*.png (contrib/bench/storage-matrix-plot.sh). Exits
# non-zero if a run did not reach the tip or a hash differed.
set -euo pipefail

usage() {
    sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
WORK=${TMPDIR:-/tmp}/bitnode-storage-matrix
BUILDS=
CHAIN=large
BACKENDS="leveldb rocksdb lmdb bdb mem"
SIGS="on off"
DBCACHES="8 30 450"
BLOOMS="0 10"
PARS="1 all"
OUT=
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case "$1" in
    --work) WORK=$2 ;;
    --builds) BUILDS=$(cd "$2" && pwd) ;;
    --chain) CHAIN=$2 ;;
    --backends) BACKENDS=$2 ;;
    --sig) SIGS=$2 ;;
    --dbcache) DBCACHES=$2 ;;
    --bloom) BLOOMS=$2 ;;
    --par) PARS=$2 ;;
    --out) OUT=$2 ;;
    *) usage ;;
    esac
    shift 2
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
OUT=${OUT:-$WORK/out}
mkdir -p "$OUT/img" "$WORK/runs"
OUT=$(cd "$OUT" && pwd)
CORES=$(nproc)
RPCPORT=$((20000 + $$ % 10000))
FAILED=0

log() { echo "storage-matrix.sh: $*" >&2; }
die() { log "$*"; exit 1; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
build_of() { [ "$1" = mem ] && echo leveldb || echo "$1"; }
is_lsm() { [ "$1" = leveldb ] || [ "$1" = rocksdb ]; }
par_n() { [ "$1" = all ] && echo "$CORES" || echo "$1"; }

for b in $BACKENDS; do
    case "$b" in leveldb | rocksdb | lmdb | bdb | mem) ;; *) die "unknown backend $b" ;; esac
done
for s in $SIGS; do
    case "$s" in on | off) ;; *) die "--sig takes on and off, not $s" ;; esac
done

chain_args() {
    case "$1" in
    large) echo "--blocks 1500 --txs 2000 --seed 7 --tail 2100 --fanout 70" ;;
    small) echo "--blocks 1500 --txs 2000 --seed 7 --tail 2100" ;;
    tiny) echo "--blocks 150 --txs 100 --seed 7 --tail 2100" ;;
    *) die "unknown chain $1" ;;
    esac
}

# --- processes: the node under time -v, its I/O sampler, the trap that ends both -------

TPID="" NPID="" SPID=""
cleanup() {
    [ -z "$NPID" ] || kill "$NPID" 2>/dev/null || true
    [ -z "$SPID" ] || kill "$SPID" 2>/dev/null || true
    [ -z "$TPID" ] || wait "$TPID" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Prints "epoch write_bytes read_bytes" for pid $1 every 0.2 s while it lives.
sample_io() {
    local k v r w
    while [ -r "/proc/$1/io" ]; do
        r="" w=""
        { while read -r k v; do
            case "$k" in read_bytes:) r=$v ;; write_bytes:) w=$v ;; esac
        done; } 2>/dev/null <"/proc/$1/io" || true
        [ -z "$w" ] || echo "$EPOCHREALTIME $w $r"
        sleep 0.2
    done
}

# Starts "$@" under time -v (report to $1, the node's output beside it in node.out) and its
# sampler (to $2); sets T0 TPID NPID SPID.
start_node() {
    local tf=$1 io=$2
    shift 2
    T0=$EPOCHREALTIME
    /usr/bin/time -v -o "$tf" "$@" >"${tf%/*}/node.out" 2>&1 &
    TPID=$!
    NPID=
    for _ in $(seq 250); do
        NPID=$(pgrep -P "$TPID" | head -1 || true)
        [ -n "$NPID" ] && break
        sleep 0.02
    done
    sample_io "${NPID:-0}" >"$io" &
    SPID=$!
}

# Waits for the node; sets WALL UTIME STIME RSS FSOUT (from time -v) and RD WR (last sample).
finish_node() {
    local tf=$1 io=$2 rc=0
    wait "$TPID" || rc=$?
    wait "$SPID" || true
    TPID="" NPID="" SPID=""
    WALL=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tf" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f", s }')
    UTIME=$(awk '/User time/ { printf "%.1f", $NF }' "$tf")
    STIME=$(awk '/System time/ { printf "%.1f", $NF }' "$tf")
    RSS=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$tf")
    FSOUT=$(awk '/File system outputs/ { printf "%.1f", $NF * 512 / 1e6 }' "$tf")
    read -r _ WR RD < <(tail -1 "$io"; echo "- - -") || true
    [ "$WR" = - ] || { WR=$(mb "$WR"); RD=$(mb "$RD"); }
    return $rc
}

# --- builds, chain, seeds ------------------------------------------------------------

# Prints the directory that holds backend $1's bitnoded, building it first unless --builds.
build_dir() {
    local d opts
    if [ -n "$BUILDS" ]; then
        d=$BUILDS/$1
    else
        d=$WORK/build-$1
        mkdir -p "$d"
        if [ ! -f "$d/Makefile" ]; then
            log "configuring $d (--with-backend=$1)"
            (cd "$d" && "$SRC/configure" --with-backend="$1" >configure.out)
        fi
        log "building $d"
        make -C "$d" -j"$CORES" bitnoded bitnode-cli bitnode-util >"$d/make.out" ||
            die "the $1 build failed; see $d/make.out"
    fi
    for f in bitnoded bitnode-cli bitnode-util; do
        [ -x "$d/$f" ] || die "$d/$f is missing"
    done
    mapfile -t opts < <(needed_options "$1")
    "$d/bitnoded" "${opts[@]}" -version >/dev/null 2>&1 ||
        die "$d/bitnoded does not know ${opts[*]}: rebuild it"
    echo "$d"
}

# The hidden options the matrix passes to build $1's bitnoded.
needed_options() {
    ! is_lsm "$1" || echo -dbbloombits=10
    [ "$1" != leveldb ] || [[ " $BACKENDS " != *" mem "* ]] || echo -dbchainstatemem
}

# Generates the chain once (into WORK); sets CH TIP H HS.
prepare_chain() {
    local ga name=chain-$CHAIN ex
    read -r -a ga <<<"$(chain_args "$CHAIN")"
    CH=$WORK/$name.dat
    ex=$WORK/$name.json
    if [ ! -s "$CH" ] || [ ! -s "$ex" ]; then
        log "generating $name (once): genchain ${ga[*]}"
        "$1/bitnode-util" genchain "${ga[@]}" --out "$CH.tmp" --expect "$ex.tmp" >&2
        mv "$CH.tmp" "$CH"
        mv "$ex.tmp" "$ex"
    fi
    TIP=$(json "$ex" tip)
    H=$(json "$ex" height)
    HS=$(json "$ex" hash_serialized_3)
    COINS=$(json "$ex" txouts)
    log "$name: tip $TIP at height $H, $COINS coins"
}

# The seed datadir of build $1: the chain's blocks and block index, imported once.
prepare_seed() {
    local s=$WORK/seed-$CHAIN-$1
    if [ ! -s "$s/done" ]; then
        rm -rf "$s"
        mkdir -p "$s"
        log "importing the chain into $s (once, untimed)"
        "${BIN[$1]}/bitnoded" -regtest -datadir="$s" -printtoconsole=0 -listen=0 -connect=0 \
            -server=0 -loadblock="$CH" -assumevalid="$TIP" -stopatheight="$H" >&2
        echo ok >"$s/done"
    fi
}

# --- one run ---------------------------------------------------------------------------

# A fresh datadir for the run (sig on) or a copy of the seed (sig off), its blocks read once.
prepare_datadir() { # dd backend sig
    rm -rf "$1"
    if [ "$3" = on ]; then
        mkdir -p "$1"
        cat "$CH" >/dev/null
    else
        cp -a --reflink=auto "$WORK/seed-$CHAIN-$(build_of "$2")" "$1"
        rm -f "$1/regtest/debug.log" "$1/done"
        [ "$2" != mem ] || rm -rf "$1/regtest/chainstate" # unused: the store is in memory
        cat "$1"/regtest/blocks/blk*.dat >/dev/null
    fi
}

# At the tip, checks the UTXO set hash over RPC and stops the node; sets HASH CHECKS REACHED.
check_and_stop() { # bin dd
    local cli=("$1/bitnode-cli" -regtest -datadir="$2" -rpcport="$RPCPORT") n="" t info
    while kill -0 "$NPID" 2>/dev/null; do
        n=$("${cli[@]}" getblockcount 2>/dev/null || true)
        [ "$n" = "$H" ] && break
        sleep 0.2
    done
    [ "$n" = "$H" ] || return 0
    REACHED=1
    t=$EPOCHREALTIME
    info=$("${cli[@]}" gettxoutsetinfo)
    "${cli[@]}" stop >/dev/null || kill "$NPID"
    CHECKS=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if echo "$info" | grep -q "\"hash_serialized_3\": \"$HS\""; then
        HASH=ok
        log "hash_serialized_3 $HS as generated (gettxoutsetinfo took $CHECKS s)"
    else
        HASH=MISMATCH
    fi
}

# What sed regex $3 captures in the last line of log $1 that holds $2 ("-" if none).
log_field() { # log key regex
    local v
    v=$({ grep -a -- "$2" "$1" || true; } | tail -1 | sed -n "s/.*$3.*/\1/p")
    echo "${v:--}"
}

# The summed "compaction X s" (or $2) figures of the stores' close lines ("-" if none).
log_sum() { # log label
    { grep -a -E 'kv (block index|chainstate): ' "$1" || true; } |
        { grep -o -- "$2 [0-9.]* s" || true; } |
        awk '{ s += $(NF - 1); n++ } END { if (n) printf "%.2f", s; else print "-" }'
}

# Reads the close lines of the run's log; sets P50 P99 GAP GAPH FLUSHES FLUSHS COMPACT STALL.
parse_log() {
    local l=$1
    P50=$(log_field "$l" "block times: " 'connect p50 \([0-9.]*\) ms')
    P99=$(log_field "$l" "block times: " 'connect p50 [^;]* p99 \([0-9.]*\) ms')
    FLUSHES=$(log_field "$l" "block times: " 'flushes \([0-9]*\),')
    FLUSHS=$(log_field "$l" "block times: " 'flushes [0-9]*, \([0-9.]*\) s in all')
    GAP=$(log_field "$l" " coins: " 'connected blocks \([0-9.]*\) ms')
    GAPH=$(log_field "$l" " coins: " '(before height \([0-9]*\))')
    COMPACT=$(log_sum "$l" compaction)
    STALL=$(log_sum "$l" "writes stalled")
}

# From the bench lines and the I/O samples: bench.tsv, io.tsv and written.tsv in $1;
# prints the highest height connected.
series() { # rundir t0
    python3 - "$1" "$2" <<'PY'
import datetime, sys
d, t0 = sys.argv[1], float(sys.argv[2])
utc = datetime.timezone.utc

def stamp(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=utc).timestamp()

blocks = []
for line in open(d + "/debug.log", errors="replace"):
    if " bench: block height=" in line:
        f = dict(kv.split("=") for kv in line.split(" bench: block ")[1].split())
        ms = [float(f[k][:-2]) for k in ("connect", "gap", "flush")]
        blocks.append((stamp(line[:27]) - t0, int(f["height"]), *ms))
with open(d + "/bench.tsv", "w") as o:
    o.write("# seconds height connect_ms gap_ms flush_ms\n")
    o.writelines("%.6f %d %.3f %.3f %.3f\n" % b for b in blocks)

io = [(0.0, 0, 0)]
for line in open(d + "/io-raw.tsv"):
    t, w, r = line.split()
    io.append((float(t) - t0, int(w), int(r)))
with open(d + "/io.tsv", "w") as o:
    o.write("# seconds write_bytes read_bytes\n")
    o.writelines("%.3f %d %d\n" % s for s in io)

def written(t):  # write_bytes at time t, linear between samples
    for (ta, wa, _), (tb, wb, _) in zip(io, io[1:]):
        if ta <= t <= tb:
            return wa + (wb - wa) * (t - ta) / (tb - ta) if tb > ta else wb
    return io[-1][1] if t > io[-1][0] else 0

with open(d + "/written.tsv", "w") as o:
    o.write("# height_from height_to seconds_from seconds_to written_bytes bytes_per_block\n")
    for i in range(0, len(blocks), 50):
        part = blocks[i:i + 50]
        ta = blocks[i - 1][0] if i else part[0][0]
        w = written(part[-1][0]) - written(ta)
        o.write("%d %d %.3f %.3f %.0f %.0f\n" % (part[0][1], part[-1][1], ta, part[-1][0],
                                                w, w / len(part)))
# The longest gap: the height it ends at, that block's own time on the validation thread
# and the flush the block before it set off (the rest: waits, reads of the next block).
g = max(range(1, len(blocks)), key=lambda i: blocks[i][3], default=None)
with open(d + "/gap.txt", "w") as o:
    if g is None:
        o.write("- - - -\n")
    else:
        o.write("%d %.1f %.1f %.1f\n" % (blocks[g][1], blocks[g][3], blocks[g][2],
                                          blocks[g - 1][4]))
print(max((b[1] for b in blocks), default=-1))
PY
}

# The network dir's sizes after the stop, in MB: the stores (no blk/rev files, no log), all.
sizes() {
    STORE=- DATADIR=-
    [ -d "$1" ] || return 0
    STORE=$(du -sb --exclude='blk*.dat' --exclude='rev*.dat' --exclude=debug.log "$1" |
        awk '{ printf "%.1f", $1 / 1e6 }')
    DATADIR=$(du -sb "$1" | awk '{ printf "%.1f", $1 / 1e6 }')
}

CSV_HEAD="run,chain,backend,sig,dbcache,bloom,par,wall_s,user_s,sys_s,peak_rss_mib,read_mb"
CSV_HEAD+=",written_mb,fs_outputs_mb,store_mb,datadir_mb,longest_gap_ms,longest_gap_height"
CSV_HEAD+=",connect_p50_ms,connect_p99_ms,flushes,flush_s,compaction_s,stall_s,utxo_hash"
CSV_HEAD+=",check_s,gap_block_connect_ms,gap_prev_flush_ms"
MD_HEAD="| backend | sig | -dbcache | bloom | -par | wall s | user s | sys s | peak RSS MiB"
MD_HEAD+=" | read MB | written MB | stores MB | datadir MB | longest gap ms | connect p50 ms"
MD_HEAD+=" | connect p99 ms | compaction s | UTXO hash |"
MD_RULE="|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"

# The run's CSV row, its Markdown row (kept for the table) and what the summary takes.
emit_row() { # id backend sig dbc bloom par
    local hash=$HASH csv md
    [ "$CHECKS" = - ] || hash="$HASH (+$CHECKS s)"
    csv=("$1" "$CHAIN" "$2" "$3" "$4" "$5" "$6" "$WALL" "$UTIME" "$STIME" "$RSS" "$RD" "$WR"
        "$FSOUT" "$STORE" "$DATADIR" "$GAP" "$GAPH" "$P50" "$P99" "$FLUSHES" "$FLUSHS"
        "$COMPACT" "$STALL" "$HASH" "$CHECKS" "$GAPWORK" "$GAPFLUSH")
    md=("$2" "$3" "$4" "$5" "$6" "$WALL" "$UTIME" "$STIME" "$RSS" "$RD" "$WR" "$STORE"
        "$DATADIR" "$GAP" "$P50" "$P99" "$COMPACT" "$hash")
    (IFS=,; echo "${csv[*]}") >>"$OUT/matrix.csv"
    { printf '| %s ' "${md[@]}"; echo '|'; } >>"$WORK/rows.md"
    NETS[$2/$3/$4/$5/$6]=$WALL
    [ "$CHECKS" = - ] || NETS[$2/$3/$4/$5/$6]=$(awk -v w="$WALL" -v c="$CHECKS" \
        'BEGIN { printf "%.1f", w - c }')
    GAPS[$2/$3/$4/$5/$6]=$GAP
    STORES[$2/$3/$4/$5/$6]=$STORE
}

# The node's options for one run (the first of a backend serves RPC); sets ARGS.
node_args() { # datadir backend sig dbcache bloom par
    ARGS=(-regtest -datadir="$1" -printtoconsole=0 -listen=0 -connect=0 -dnsseed=0
        -dbcache="$4" -par="$(par_n "$6")" -debug=bench -logtimemicros)
    [ "$5" = - ] || ARGS+=(-dbbloombits="$5")
    [ "$2" != mem ] || ARGS+=(-dbchainstatemem)
    if [ "$3" = on ]; then
        ARGS+=(-loadblock="$CH" -assumevalid=0)
    else
        ARGS+=(-reindex-chainstate -assumevalid="$TIP")
    fi
    if [ -z "${CHECKED[$2]:-}" ]; then
        ARGS+=(-server=1 -rpcport="$RPCPORT")
    else
        ARGS+=(-server=0 -stopatheight="$H")
    fi
}

# One configuration: backend sig dbcache bloom par.
run_one() {
    local b=$1 id bin dd=$WORK/datadir rd top
    id=$CHAIN-$b-sig$2-db$3-bloom${4/-/x}-par$5
    bin=${BIN[$(build_of "$b")]}
    rd=$WORK/runs/$id
    rm -rf "$rd"
    mkdir -p "$rd"
    prepare_datadir "$dd" "$b" "$2"
    node_args "$dd" "$@"
    log "$id: bitnoded ${ARGS[*]}"
    HASH=- CHECKS=- REACHED=0
    start_node "$rd/time.txt" "$rd/io-raw.tsv" "$bin/bitnoded" "${ARGS[@]}"
    [ -n "${CHECKED[$b]:-}" ] || check_and_stop "$bin" "$dd"
    finish_node "$rd/time.txt" "$rd/io-raw.tsv" ||
        log "$id: bitnoded exited with an error: $(tail -c 300 "$rd/node.out")"
    CHECKED[$b]=1
    cp "$dd/regtest/debug.log" "$rd/debug.log" || : >"$rd/debug.log"
    parse_log "$rd/debug.log"
    sizes "$dd/regtest"
    grep -q -- "-stopatheight reached" "$rd/debug.log" && REACHED=1
    top=$(series "$rd" "$T0")
    read -r _ _ GAPWORK GAPFLUSH <"$rd/gap.txt"
    [ "$top" != -1 ] || log "$id: no bench lines in the log (a build older than -debug=bench's)"
    if [ $REACHED = 0 ]; then
        log "$id: the tip was not reached; see $rd/debug.log"
        HASH="no tip"
        FAILED=1
    fi
    emit_row "$id" "$@"
    log "$id: $WALL s wall, $WR MB written, hash $HASH"
    rm -rf "$dd"
    [ "$HASH" != MISMATCH ] || { finish_output; die "$id: the UTXO set hash is not genchain's"; }
}

# --- the matrix and its output ---------------------------------------------------------

run_matrix() {
    local sig dbc par bloom b pars first
    for sig in $SIGS; do
        pars=$PARS
        [ "$sig" = on ] || pars=all
        for dbc in $DBCACHES; do
            for par in $pars; do
                first=1
                for bloom in $BLOOMS; do
                    for b in $BACKENDS; do
                        if is_lsm "$b"; then
                            run_one "$b" "$sig" "$dbc" "$bloom" "$par"
                        elif [ $first = 1 ]; then
                            run_one "$b" "$sig" "$dbc" - "$par"
                        fi
                    done
                    first=0
                done
            done
        done
    done
}

# Field $1 of the row $2 (NETS, GAPS or STORES) with unit $3, or "-".
field_of() {
    local -n a=$1
    [ -n "${a[$2]:-}" ] && [ "${a[$2]}" != - ] && echo "${a[$2]}$3" || echo -
}
# The larger of two "N ms" figures (either may be "-").
larger() {
    if [ "$1" = - ]; then echo "$2"; elif [ "$2" = - ]; then echo "$1"; else
        awk -v a="${1% ms}" -v b="${2% ms}" 'BEGIN { printf "%s ms", (a > b ? a : b) }'
    fi
}
ratio() {
    if [ "$1" = - ] || [ "$2" = - ]; then
        echo -
    else
        awk -v a="${1% *}" -v b="${2% *}" 'BEGIN { printf "%.2f", a / b }'
    fi
}

# The 2012 table (Bitcoin 0.8's switch from BDB to LevelDB: 185,127 blocks, its figures)
# with ours beside it, at one -dbcache (30 MiB if run: 2012's "30 MB cache changed
# nothing"), -par=all, walls less the UTXO-hash call.
summary_table() {
    local d=${DBCACHES%% *} row b bl name on off gap st lon loff lpause lstore
    local BON=- BOFF=- LON=- LOFF=-
    [[ " $DBCACHES " != *" 30 "* ]] || d=30
    echo "At -dbcache=$d, -par=all; ours in seconds on the $CHAIN chain ($H blocks), 2012's" \
        "in minutes for 185,127 blocks; longest pause: 2012's \"Flushing\", ours the longest" \
        "gap between two connected blocks in either run; store: the block index and the" \
        "coins (2012: BDB's index against LevelDB's files)."
    echo
    echo "| store | checks on, 2012 | checks on, ours | checks off, 2012 | checks off, ours" \
        "| longest pause, 2012 | longest gap, ours | store, 2012 | store, ours |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for row in "bdb - BDB|96 min|42 min|8-10 s|611 MB" "leveldb 0 LevelDB|51 min|13 min|-|397 MB" \
        "leveldb 10 LevelDB, bloom 10|-|-|-|424 MB" "rocksdb 0 RocksDB|-|-|-|-" \
        "rocksdb 10 RocksDB, bloom 10|-|-|-|-" "lmdb - LMDB|-|-|-|-" \
        "mem - in memory (ceiling)|-|-|-|-"; do
        read -r b bl name <<<"${row%%|*}"
        [[ " $BACKENDS " == *" $b "* ]] || continue
        if is_lsm "$b" && [[ " $BLOOMS " != *" $bl "* ]]; then continue; fi
        IFS='|' read -r _ lon loff lpause lstore <<<"$row"
        on=$(field_of NETS "$b/on/$d/$bl/all" " s")
        off=$(field_of NETS "$b/off/$d/$bl/all" " s")
        [ "$b" = bdb ] && { BON=$on; BOFF=$off; }
        # LevelDB's last row is the ratio's: bloom 10 where run (it follows bloom 0).
        [ "$b" != leveldb ] || { LON=$on; LOFF=$off; }
        gap=$(larger "$(field_of GAPS "$b/on/$d/$bl/all" " ms")" \
            "$(field_of GAPS "$b/off/$d/$bl/all" " ms")")
        st=$(field_of STORES "$b/off/$d/$bl/all" " MB")
        [ "$st" != - ] || st=$(field_of STORES "$b/on/$d/$bl/all" " MB")
        echo "| $name | $lon | $on | $loff | $off | $lpause | $gap | $lstore | $st |"
    done
    echo "| BDB / LevelDB (ours: bloom 10 where run) | 1.88 | $(ratio "$BON" "$LON") | 3.23 |" \
        "$(ratio "$BOFF" "$LOFF") | | | 1.54 | |"
}

finish_output() {
    local table=$OUT/matrix.md
    {
        echo "Storage-engine matrix, $CHAIN chain (genchain $(chain_args "$CHAIN")): height $H," \
            "$COINS coins at the tip; $CORES cores (-par=all is $CORES)," \
            "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
            "source $(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown);" \
            "$STARTED to $(date -u +%H:%M) UTC."
        echo
        echo "$MD_HEAD"
        echo "$MD_RULE"
        cat "$WORK/rows.md"
        echo
        echo "sig off runs only at -par=all (no script checks: -par sizes nothing else)." \
            "bloom: -dbbloombits (\"-\": the backend has no filter). written MB includes the" \
            "block files a sig-on run writes. stores MB: the network dir without blk/rev files" \
            "and debug.log (mem: the block index only). compaction s: both stores (\"-\": none" \
            "reported). UTXO hash \"ok (+N s)\": checked in that run, whose wall includes the" \
            "N s of gettxoutsetinfo; \"-\": not checked in that run."
        echo
        summary_table
    } >"$table"
    "$HERE/storage-matrix-plot.sh" "$OUT/matrix.csv" "$WORK/runs" "$OUT/img" >&2 ||
        log "plotting failed"
    cat "$table"
}

main() {
    local b
    declare -gA BIN=() CHECKED=() NETS=() GAPS=() STORES=()
    STARTED=$(date -u '+%Y-%m-%d %H:%M')
    for b in $BACKENDS; do
        b=$(build_of "$b")
        [ -n "${BIN[$b]:-}" ] || BIN[$b]=$(build_dir "$b")
    done
    for b in "${!BIN[@]}"; do
        prepare_chain "${BIN[$b]}"
        break
    done
    for b in "${!BIN[@]}"; do
        [[ " $SIGS " != *" off "* ]] || prepare_seed "$b"
    done
    echo "$CSV_HEAD" >"$OUT/matrix.csv"
    : >"$WORK/rows.md"
    run_matrix
    finish_output
    [ $FAILED = 0 ] || die "a run did not reach the tip"
}

main
