#!/bin/sh
# Writes the example configuration file from bitnoded's own -help: every option it lists,
# commented out, under its help text and its section, as Core's gen-bitcoin-conf.sh does.
# Generated at build time, so it cannot drift from the binary.
#
#   contrib/devtools/gen-bitnode-conf.sh BITNODED > bitnode.conf
set -eu
bitnoded=$1
cat <<'HEAD'
##
## bitnode.conf (or bitcoin.conf: bitnoded reads either) configuration file.
## Generated from `bitnoded -help`. Lines beginning with # are comments.
## Every option is shown with its help; uncomment a line to set it. The same
## names work on the command line with a leading dash. Options for one chain
## go in its section: [main], [test], [testnet4], [signet] or [regtest].
##
HEAD
"$bitnoded" -help | awk '
    /^Options:$/ { started = 1 }
    !started { next }
    /^[A-Za-z].*:$/ { printf "\n\n# [%s]\n", substr($0, 1, length($0) - 1); next }
    /^  -/ {
        if (opt != "") { print_opt() }
        opt = substr($0, 4); help = ""; next
    }
    /^       / { sub(/^ +/, ""); help = help "\n# " $0; next }
    END { if (opt != "") print_opt() }
    function print_opt(   name) {
        name = opt; sub(/=.*/, "", name)
        # Command-line-only options have no place in the file.
        if (name == "help" || name == "version" || name == "conf") return
        printf "%s\n", help
        if (index(opt, "=") > 0) { printf "#%s\n", opt } else { printf "#%s=1\n", opt }
    }
'
cat <<'TAIL'

# [Sections]
# Options for one chain only go under its section, for example:
# [regtest]
# rpcport=18443
TAIL
