#!/usr/bin/env bash
# Checks the include graph against the layer table in design.md: a file in a lower layer
# never includes a header from a higher one. Speaks TAP (one case per source file).
src="${BITNODE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src"
rank() {
    case "$1" in
    util) echo 0 ;; crypto) echo 1 ;; primitives) echo 2 ;; consensus) echo 3 ;;
    script) echo 4 ;; kv) echo 5 ;; blockstore) echo 6 ;; coins) echo 7 ;;
    validation) echo 8 ;; net) echo 9 ;; mempool) echo 10 ;; rpc) echo 11 ;;
    *) echo 99 ;;
    esac
}
n=0; failed=0
while IFS= read -r f; do
    rel=${f#"$src"/}
    case "$rel" in */*) layer=${rel%%/*} ;; *) layer=programs ;; esac
    mine=$(rank "$layer")
    bad=""
    while IFS= read -r inc; do
        dep=${inc%%/*}
        [ "$dep" = "$inc" ] && continue
        [ "$(rank "$dep")" = 99 ] && continue
        if [ "$(rank "$dep")" -gt "$mine" ]; then
            bad="$bad $inc"
        fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    n=$((n + 1))
    if [ -n "$bad" ]; then
        failed=$((failed + 1))
        echo "not ok $n - $rel ($layer) includes higher layer:$bad"
    else
        echo "ok $n - $rel"
    fi
done < <(find "$src" -name '*.[ch]' | sort)
echo "1..$n"
[ "$failed" -eq 0 ]
