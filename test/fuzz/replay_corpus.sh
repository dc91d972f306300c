#!/usr/bin/env bash
# Replays every fuzz target's seed corpus, test/fuzz/corpus/<target>/ (real inputs, and the
# inputs that once crashed a target, kept as regressions; each test/fuzz/<target>.c must have
# one; seeds over 16 KB are made from test data here instead, by test/fuzz/gen_corpus.py), through its standalone replayer test/fuzz/<target>_replay: one TAP case per target,
# failing if the replayer exits non-zero (a crash, an abort() of a target's property check, a
# sanitizer report in a sanitizer build, a leak under LeakSanitizer) or replays fewer inputs
# than the directory holds. Run by `make check` in every configuration, so each backend's
# build runs the kv and kvstore targets against its own persistent backend.
. "$(dirname "$0")/../util/tap.sh"
CORPUS="$SRC/test/fuzz/corpus"
# The seeds too large to keep in the repository (over 16 KB), made from test data now.
BIG="$TMP/big"
mkdir -p "$BIG"
if ! python3 "$SRC/test/fuzz/gen_corpus.py" --big "$BIG"; then
    notok "the large seeds are generated (test/fuzz/gen_corpus.py --big)"
fi
for src in "$SRC"/test/fuzz/*.c; do
    t=$(basename "$src" .c)
    dir="$CORPUS/$t"
    bin="$BUILD/test/fuzz/${t}_replay"
    if [ ! -d "$dir" ]; then
        notok "$t: has a seed corpus ($dir)"; continue
    fi
    if [ ! -x "$bin" ]; then
        echo "# $bin not built"; notok "$t: replayer built"; continue
    fi
    dirs=("$dir")
    [ -d "$BIG/$t" ] && dirs+=("$BIG/$t")
    want=$(find "${dirs[@]}" -maxdepth 1 -type f ! -name '.*' | wc -l)
    TMPDIR="$TMP" "$bin" "${dirs[@]}" >"$TMP/out" 2>&1; rc=$?
    got=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$TMP/out" | tail -1)
    if [ "$rc" != 0 ] || [ "${got:-0}" -lt "$want" ]; then
        echo "# exit $rc, replayed ${got:-none} of $want"; tail -15 "$TMP/out" | sed 's/^/#   /'
        notok "$t: $want corpus inputs replay"
    else
        ok "$t: $want corpus inputs replay"
    fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
