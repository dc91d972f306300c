#!/usr/bin/env bash
# Proves that test/lint/layers.sh catches what it claims to: run on the fixture tree
# test/lint/fixtures/bad/src (one planted violation of each kind, each in its own file) it
# must fail and report each violation by kind, file and line; run on
# test/lint/fixtures/good/src (allowed look-alikes of each) it must pass. Speaks TAP: one
# case per violation kind, plus the exit codes, the absence of false positives, and the
# clean tree.

set -u
here=$(cd "$(dirname "$0")" && pwd)
lint=$here/layers.sh
bad_src=$here/fixtures/bad/src
good_src=$here/fixtures/good/src

n=0
failed=0
report() { # report OK DESCRIPTION [DIAGNOSTIC...]
    local ok=$1 what=$2
    shift 2
    n=$((n + 1))
    if [ "$ok" = 1 ]; then
        echo "ok $n - $what"
    else
        failed=$((failed + 1))
        echo "not ok $n - $what"
        printf '# %s\n' "$@"
    fi
}

# Runs the lint on a tree; sets $out (its TAP) and $rc.
run_lint() {
    out=$(LAYERS_SRC=$1 bash "$lint" 2>&1)
    rc=$?
}

# expect KIND FILE MARKER REPORT: the line of FILE (relative to the bad src/) holding the
# fixed string MARKER must be reported as "KIND: FILE:LINE: ...REPORT...".
missing=()
expect() {
    local kind=$1 file=$2 marker=$3 text=$4 line
    line=$(grep -nF -- "$marker" "$bad_src/$file" | head -n 1 | cut -d: -f1)
    if [ -z "$line" ]; then
        missing+=("fixture $file has no line with: $marker")
    elif ! grep -qF -- "# $kind: $file:$line: " <<<"$out" ||
        ! grep -F -- "# $kind: $file:$line: " <<<"$out" | grep -qF -- "$text"; then
        missing+=("not reported: $kind: $file:$line: ...$text...")
    fi
}
# check DESCRIPTION: one TAP case for the expectations gathered since the last check.
check() {
    report $((${#missing[@]} == 0)) "$1" "${missing[@]}"
    missing=()
}

run_lint "$bad_src"
bad_out=$out
report $((rc == 1)) "layers.sh fails (exit 1) on the fixture tree with planted violations" "exit code $rc"

expect layer consensus/higher.c '"validation/chainstate.h"' \
    'consensus may not include validation: #include "validation/chainstate.h"'
check "higher-layer include is reported (consensus -> validation)"

expect layer coins/dotdot.c '"../validation/chainstate.h"' \
    'coins may not include validation: #include "../validation/chainstate.h" (= validation/chainstate.h)'
check "../ include climbing into a higher layer is resolved and reported (coins -> validation)"

expect escape util/escape.c '"../../bitnode-config.h"' 'leaves src/'
check "../ include leaving src/ is reported"

expect layer primitives/indented.c '#  include' \
    'primitives may not include coins: #  include "coins/coin.h"'
check "indented '#  include' is read and reported (primitives -> coins)"

missing=()
grep -qxF '# unknown-folder: src/wallet/ is not in the layer table of test/lint/layers.sh' \
    <<<"$out" || missing+=("not reported: folder src/wallet/")
grep -qF '# unknown-folder: wallet/wallet.h: folder wallet/ is not in the layer table' \
    <<<"$out" || missing+=("not reported: file wallet/wallet.h in the unknown folder")
expect unknown-folder rpc/wallet.c '"wallet/wallet.h"' 'folder wallet/ is not in the layer table'
check "unknown folder is reported (src/wallet/, and an include of it)"

f=consensus/io.c
expect io $f '<stdio.h>' '#include <stdio.h> without snprintf/vsnprintf'
expect io $f '<fcntl.h>' '#include <fcntl.h>: consensus/ does no I/O'
expect io $f '<unistd.h>' '#include <unistd.h>: consensus/ does no I/O'
expect io $f '<sys/stat.h>' '#include <sys/stat.h>: consensus/ does no I/O'
expect io $f '"util/file.h"' '#include "util/file.h": consensus/ does no I/O'
expect io $f 'fopen(' 'fopen(): consensus/ does no I/O'
expect io $f 'FILE *f' 'FILE: consensus/ does no I/O'
expect io $f ' open(' 'open(): consensus/ does no I/O'
expect io $f 'read(fd' 'read(): consensus/ does no I/O'
expect io $f 'write(fd' 'write(): consensus/ does no I/O'
expect io $f ' close(' 'close(): consensus/ does no I/O'
expect io $f ' printf(' 'printf(): consensus/ does no I/O'
expect io $f 'fprintf(' 'fprintf(): consensus/ does no I/O'
expect io $f 'fprintf(' 'stderr: consensus/ does no I/O'
expect io $f 'puts(' 'puts(): consensus/ does no I/O'
check "I/O in consensus/ is reported (headers, calls, FILE and stderr)"

f=script/log.c
expect log $f '"util/log.h"' '#include "util/log.h": script/ does not log'
expect log $f 'LOG(' 'LOG(): script/ does not log'
expect log $f 'LOG_INFO(' 'LOG_INFO(): script/ does not log'
expect log $f 'log_print(' 'log_print(): script/ does not log'
check "logging in script/ is reported (util/log.h, LOG, LOG_INFO, log_print)"

f=validation/backend.c
expect backend $f '<leveldb/c.h>' '#include <leveldb/c.h>: only kv/ includes backend headers'
expect backend $f '<db.h>' '#include <db.h>: only kv/ includes backend headers'
expect backend $f '"kv/backend.h"' '#include "kv/backend.h": only kv/ includes backend headers'
check "backend headers outside kv/ are reported (leveldb, Berkeley DB, kv/backend.h)"

expect include coins/computed.c '#include CHAIN_HEADER' 'cannot be checked'
check "an include of a macro, which cannot be checked, is reported"

# Exactly the planted files fail: the clean files of the bad tree (a backend header in kv/,
# "../kv/kv.h" from coins/, util/ including util/file.h) stay ok.
want=$(printf '%s\n' "folder wallet/ is in the layer table" src/coins/computed.c \
    src/coins/dotdot.c src/consensus/higher.c src/consensus/io.c src/primitives/indented.c \
    src/rpc/wallet.c src/script/log.c src/util/escape.c src/validation/backend.c \
    src/wallet/wallet.h | sort)
got=$(sed -nE 's/^not ok [0-9]+ - //p' <<<"$bad_out" | sort)
mapfile -t diffs < <(
    comm -23 <(echo "$want") <(echo "$got") | sed '/^$/d' | sed 's/^/expected to fail, but ok: /'
    comm -13 <(echo "$want") <(echo "$got") | sed '/^$/d' | sed 's/^/failed, but not planted: /'
)
report $((${#diffs[@]} == 0)) "on the fixture tree only the planted files fail" "${diffs[@]}"

tap_ok() { # the plan matches the cases
    local plan cases
    plan=$(sed -nE 's/^1\.\.([0-9]+)$/\1/p' <<<"$1")
    cases=$(grep -cE '^(not )?ok ' <<<"$1")
    [ -n "$plan" ] && [ "$plan" = "$cases" ]
}
report $(tap_ok "$bad_out" && echo 1 || echo 0) "TAP plan of the fixture run matches its cases"

run_lint "$good_src"
mapfile -t diags < <(grep -A20 '^not ok' <<<"$out")
report $((rc == 0)) "layers.sh passes on the clean fixture tree" "exit code $rc" "${diags[@]}"
report $(tap_ok "$out" && ! grep -q '^not ok' <<<"$out" && echo 1 || echo 0) \
    "every case of the clean fixture run is ok, and its plan matches"

echo "1..$n"
[ "$failed" -eq 0 ]
