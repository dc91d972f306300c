#!/usr/bin/env bash
# doc/bitcoin-conf.md's table is contrib/devtools/gen-conf-compat.py's output for the option
# table as it is: an option ignored, refused or accepted off only cannot go undocumented.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
echo "1..1"
want=$(python3 "$ROOT/contrib/devtools/gen-conf-compat.py")
have=$(sed -n '/^<!-- generated: /,/^<!-- end generated -->/p' "$ROOT/doc/bitcoin-conf.md" | sed '1d;$d')
if [ "$want" = "$have" ]; then
    echo "ok 1 - doc/bitcoin-conf.md's table is current"
else
    echo "not ok 1 - doc/bitcoin-conf.md's table is stale: run contrib/devtools/gen-conf-compat.py"
    diff <(echo "$have") <(echo "$want") | sed 's/^/# /' | head -20
fi
