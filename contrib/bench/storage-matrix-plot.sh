#!/usr/bin/env bash
# The charts of the storage-engine matrix (contrib/bench/storage-matrix.sh).
#
#   contrib/bench/storage-matrix-plot.sh MATRIX.CSV RUNSDIR IMGDIR
#
# For each (sig, -dbcache) of the matrix, at -par=all and bloom 10 (the LSM backends' only
# bloom if 10 was not run; the other backends have none), one line per backend, from the
# series in RUNSDIR/<run>/:
#   height-sig<s>-db<N>.png   height over seconds since the start (bench.tsv);
#   connect-sig<s>-db<N>.png  each block's connect time over its height, log scale;
#   written-sig<s>-db<N>.png  bytes the process wrote per block over height, in bins of 50
#                             blocks (written.tsv: /proc/<pid>/io joined with the blocks).
# With gnuplot, terminal pngcairo where it exists, else png.
set -euo pipefail

[ $# = 3 ] || { sed -n '4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
CSV=$1
RUNS=$2
IMG=$3
mkdir -p "$IMG"
TERMINAL=png
gnuplot -e 'set terminal' 2>&1 </dev/null | grep -qw pngcairo && TERMINAL=pngcairo

# Prints the named columns of every row of the CSV, space-separated.
cols() {
    awk -F, -v want="$*" '
        NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; n = split(want, w, " "); next }
        { s = $(at[w[1]]); for (j = 2; j <= n; j++) s = s " " $(at[w[j]]); print s }' "$CSV"
}

# The LSM backends' bloom the charts show: 10 if it was run, else the lowest.
BLOOM=$(cols bloom | { grep -v -x -- - || true; } | sort -n -u | awk '$1 == 10 { t = 10 } NR == 1 { f = $1 }
    END { print (t != "" ? t : f) }')

# The runs of one chart: "run backend" lines for sig $1 and -dbcache $2, in backend order.
chart_runs() {
    cols run backend sig dbcache bloom par |
        awk -v s="$1" -v d="$2" -v b="$BLOOM" '$3 == s && $4 == d && $6 == "all" &&
            ($5 == b || $5 == "-") { print index("leveldb rocksdb lmdb bdb mem", $2), $1, $2 }' |
        sort -n | cut -d' ' -f2-
}

# Writes one chart: name title ylabel xlabel file using style logy, the runs on stdin.
chart() {
    local name=$1 title=$2 ylabel=$3 xlabel=$4 file=$5 using=$6 style=$7 logy=$8 run b sep=
    {
        echo "set terminal $TERMINAL size 1000,600"
        echo "set output '$IMG/$name.png'"
        echo "set title '$title' noenhanced"
        echo "set xlabel '$xlabel'"
        echo "set ylabel '$ylabel'"
        echo "set key outside right top noenhanced"
        echo "set grid"
        [ "$logy" = 0 ] || echo "set logscale y"
        printf 'plot'
        while read -r run b; do
            printf "%s '%s' using %s with %s title '%s'" "$sep" "$RUNS/$run/$file" "$using" \
                "$style" "$b"
            sep=,
        done
        echo
    } | gnuplot || echo "storage-matrix-plot.sh: $name failed" >&2
}

# shellcheck disable=SC2016 # the $N are gnuplot's columns
charts() { # sig dbcache
    local runs w="" t="sig $1, -dbcache=$2, -par=all, bloom $BLOOM (LSM)" s="sig$1-db$2"
    runs=$(chart_runs "$1" "$2")
    [ -n "$runs" ] || { echo "storage-matrix-plot.sh: no -par=all runs at $s" >&2; return 0; }
    chart "height-$s" "$t: height over time" height "seconds since the start" \
        bench.tsv 1:2 lines 0 <<<"$runs"
    chart "connect-$s" "$t: connect time per block" "connect ms" height \
        bench.tsv '2:($3 > 0 ? $3 : 1/0)' 'points pt 7 ps 0.4' 1 <<<"$runs"
    [ "$1" = off ] || w=", block files included"
    chart "written-$s" "$t: bytes written per block (bins of 50 blocks$w)" \
        "kB written per block" height written.tsv '1:($6 / 1e3)' 'steps lw 2' 0 <<<"$runs"
    echo "storage-matrix-plot.sh: $IMG/{height,connect,written}-$s.png" >&2
}

cols sig dbcache | sort -u -k1,1r -k2,2n | while read -r sig dbc; do
    charts "$sig" "$dbc"
done
