#!/bin/sh
# Writes a man page (section 1) for one of bitnode's programs from its own -help, so that
# the page cannot drift from the options the binary takes.
#
#   contrib/devtools/gen-manpage.sh PROGRAM VERSION > PROGRAM.1
set -eu
prog=$1
version=$2
name=$(basename "$prog")
case "$name" in
bitnoded) what="the bitnode daemon, a Bitcoin full node" ;;
bitnode-cli) what="the RPC client of bitnoded" ;;
bitnode-util) what="offline tools on block files and datadirs" ;;
*) what="part of bitnode" ;;
esac
upper=$(echo "$name" | tr 'a-z-' 'A-Z-')
printf '.TH %s 1 "" "bitnode %s" "User Commands"\n' "$upper" "$version"
printf '.SH NAME\n%s \\- %s\n' "$name" "$what"
printf '.SH DESCRIPTION\n.nf\n'
# Escape backslashes, and a leading dot or quote that troff would read as a request.
"$prog" -help 2>&1 | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
printf '.fi\n.SH "SEE ALSO"\nbitnoded(1), bitnode-cli(1), bitnode-util(1)\n'
