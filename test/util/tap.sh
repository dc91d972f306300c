# Sourced by the test/util/*.sh scripts: the folders they read (BITNODE_SRCDIR,
# BITNODE_BUILDDIR, BITNODE_SHARED), a temporary folder removed at exit, and TAP counting:
# ok NAME, notok NAME, then the caller prints "1..$n" and exits with [ "$failed" -eq 0 ].
set -u
SRC=${BITNODE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BITNODE_BUILDDIR:-.}
SHARED=${BITNODE_SHARED:-$SRC/../shared}
UTIL="$BUILD/bitnode-util"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0; failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
