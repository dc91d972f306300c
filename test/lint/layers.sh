#!/usr/bin/env bash
# Checks src/ against the layer table of doc/architecture.md and the purity rules of
# doc/conventions.md.
# Speaks TAP: one case for the table, one per folder of src/, one per source file.
#
# Rules:
#   folder   every folder of src/ is a layer of the table below (a new folder is a table edit).
#   layer    a file in folder A includes a header of folder B only if A = B or the table
#            allows A -> B. Program files at the top of src/ may include any layer.
#            Every #include is read, indented or not ("  #  include"), quoted or <angled>
#            (an <angled> name that exists under src/ is a project header: -Isrc finds it).
#            A quoted name is looked up beside the including file first, then under src/,
#            as the compiler does, and "../" is resolved; a name that leaves src/ fails.
#            An include whose target is not a literal name cannot be checked and fails.
#   io       primitives/, consensus/, script/ do no I/O: no <fcntl.h>, <unistd.h>, <sys/...>,
#            <dirent.h>, <poll.h>, <syslog.h>, <termios.h>, <netdb.h>, <arpa/...>, <netinet/...>,
#            "util/file.h", "util/fs.h"; no call to a stdio or POSIX I/O function; no FILE,
#            stdin, stdout, stderr. <stdio.h> is allowed only in a file that uses it to
#            format into a buffer (snprintf/vsnprintf) and calls nothing of it that does I/O.
#   log      the same three folders do not log: no "util/log.h", no LOG(...), LOG_*(...),
#            log_*(...).
#   backend  only kv/ includes backend headers: <leveldb/...>, <rocksdb/...>, <lmdb.h>,
#            <db.h> (Berkeley DB), and the backends' own "kv/backend.h".
# Comments and string literals are blanked before the calls are looked for, so a comment
# saying "read(" is not a call. Libraries that are not backends (OpenSSL, libsecp256k1,
# libevent, jansson, liblzma) are not restricted here.
#
# The tree checked is $LAYERS_SRC if set (a src/ root, used by layers_selftest.sh on the
# fixtures), else $BITNODE_SRCDIR/src, else the src/ beside this script.

set -u

# The layer table: each layer, then the layers it may include (its own folder always).
# The order of the lines is the order of doc/architecture.md's table; the pairs are what
# matters.
declare -A allow=(
    [util]=""
    [crypto]="util"
    [primitives]="util crypto"
    [consensus]="util crypto primitives"
    [script]="util crypto primitives consensus"
    [sign]="util crypto primitives consensus script"
    [kv]="util"
    [blockstore]="util crypto primitives consensus kv"
    [coins]="util crypto primitives consensus script kv"
    [validation]="util crypto primitives consensus script kv blockstore coins"
    [mempool]="util crypto primitives consensus script coins validation"
    [index]="util crypto primitives consensus script kv blockstore coins validation"
    [net]="util crypto primitives consensus script blockstore coins validation mempool index"
    [notify]="util crypto primitives consensus blockstore validation mempool"
    [node]="util crypto primitives consensus script kv blockstore coins validation mempool index net notify"
    [rpc]="util crypto primitives consensus script sign blockstore coins validation mempool index net notify node"
)
pure=" primitives consensus script sign "   # no I/O, no logging
backend_owner=kv

io_headers='stdio\.h|fcntl\.h|unistd\.h|sys/.*|dirent\.h|poll\.h|syslog\.h|termios\.h|netdb\.h|arpa/.*|netinet/.*|util/file\.h|util/fs\.h'
io_calls='printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|puts|fputs|putchar|putc|fputc'
io_calls+='|getchar|getc|fgetc|fgets|gets|getline|getdelim|ungetc|scanf|fscanf|vscanf|vfscanf'
io_calls+='|fopen|fdopen|freopen|fclose|fread|fwrite|fflush|fseek|fseeko|ftell|ftello|rewind'
io_calls+='|fgetpos|fsetpos|setbuf|setvbuf|feof|ferror|fileno|perror|tmpfile|popen|pclose'
io_calls+='|remove|rename|open|openat|creat|close|read|write|pread|pwrite|readv|writev|lseek'
io_calls+='|fsync|fdatasync|ftruncate|truncate|mmap|munmap|msync|stat|fstat|lstat|unlink'
io_calls+='|mkdir|rmdir|opendir|readdir|closedir|ioctl|fcntl|flock|dup|dup2|pipe|socket'
io_calls+='|connect|bind|listen|accept|send|recv|sendto|recvfrom|select|poll|syslog'
log_calls='LOG|LOG_[A-Z_]+|log_[a-z0-9_]+'
backend_headers='leveldb/.*|rocksdb/.*|lmdb\.h|db\.h|db_185\.h|kv/backend\.h'
re_quoted='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)"'
re_angled='^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]+)>'

top=${BITNODE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
src=${LAYERS_SRC:-$top/src}
if ! src=$(cd "$src" 2>/dev/null && pwd); then
    echo "Bail out! no source tree at ${LAYERS_SRC:-$top/src}"
    exit 1
fi

# Blanks comments, string and character literals, keeping one output line per input line
# and the target of a quoted #include. A block comment's state crosses lines in the hold
# space ("c" while inside one).
strip_sed=$(
    cat <<'EOF'
x
/^c$/ {
    x
    /\*\//! {
        s/.*//
        b
    }
    s/^([^*]|\*+[^*/])*\*+\///
    x
    s/.*//
    x
    b body
}
x
:body
s/^([[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*")|(")(\\.|[^"\\])*"|(')(\\.|[^'\\])*'|\/\*([^*]|\*+[^*/])*\*+\/|\/\/.*$/\1\2\2\4\4 /g
/\/\*/ {
    s/\/\*.*//
    x
    s/.*/c/
    x
}
EOF
)

# normpath PATH: sets $norm to PATH with "." and ".." resolved (leading ".." kept when
# the path leaves its root).
normpath() {
    local part
    local -a parts out=()
    IFS=/ read -ra parts <<<"$1"
    for part in "${parts[@]}"; do
        case $part in
        '' | .) ;;
        ..)
            if [ ${#out[@]} -gt 0 ] && [ "${out[-1]}" != .. ]; then
                unset 'out[-1]'
            else
                out+=(..)
            fi
            ;;
        *) out+=("$part") ;;
        esac
    done
    norm=$(
        IFS=/
        echo "${out[*]}"
    )
}

# resolve DIR DELIM NAME: sets $res to the src-relative path of the project header that
# '#include DELIM NAME DELIM' in folder DIR ("" at the top of src/) names, or to "" for a
# system header.
resolve() {
    local dir=$1 delim=$2 name=$3 beside=""
    res=""
    if [ "$delim" = '"' ]; then
        normpath "${dir:+$dir/}$name"
        beside=$norm
        if [ "${beside#../}" = "$beside" ] && [ "$beside" != .. ] && [ -e "$src/$beside" ]; then
            res=$beside
            return
        fi
    fi
    normpath "$name"
    if [ "${norm#../}" = "$norm" ] && [ -e "$src/$norm" ]; then
        res=$norm
        return
    fi
    [ "$delim" = '"' ] || return
    # Not found: judge it by its spelling, as -Isrc would find it once it exists.
    case $name in
    ./* | ../*) res=$beside ;;
    */*) res=$norm ;;
    *) res=$beside ;;
    esac
}

known() { [ -n "${allow[$1]+set}" ]; }

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

# The table itself: every layer it names is a layer of the table.
bad=()
for layer in "${!allow[@]}"; do
    for dep in ${allow[$layer]}; do
        known "$dep" || bad+=("table: $layer may include $dep, which is not in the table")
    done
done
report $((${#bad[@]} == 0)) "layer table names only its own layers" "${bad[@]}"

# Every folder of src/ is a layer.
while IFS= read -r d; do
    name=${d##*/}
    if known "$name"; then
        report 1 "folder $name/ is in the layer table"
    else
        report 0 "folder $name/ is in the layer table" \
            "unknown-folder: src/$name/ is not in the layer table of test/lint/layers.sh"
    fi
done < <(find "$src" -mindepth 1 -maxdepth 1 -type d ! -name ".*" | sort)

# One case per source file.
while IFS= read -r f; do
    rel=${f#"$src"/}
    case $rel in
    */*)
        dir=${rel%/*}
        mine=${rel%%/*}
        ;;
    *)
        dir=""
        mine=""
        ;;
    esac
    bad=()
    if [ -n "$mine" ] && ! known "$mine"; then
        bad+=("unknown-folder: $rel: folder $mine/ is not in the layer table")
    fi
    is_pure=0
    case $pure in *" $mine "*) [ -n "$mine" ] && is_pure=1 ;; esac

    stripped=$(sed -E "$strip_sed" "$f")
    stdio_line=""
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        ln=${line%%:*}
        text=${line#*:}
        spelled=${text#"${text%%[![:space:]]*}"}
        spelled=${spelled%"${spelled##*[![:space:]]}"}
        if [[ $text =~ $re_quoted ]]; then
            delim='"'
        elif [[ $text =~ $re_angled ]]; then
            delim='<'
        else
            bad+=("include: $rel:$ln: $spelled: not a literal \"name\" or <name>, cannot be checked")
            continue
        fi
        name=${BASH_REMATCH[1]}
        resolve "$dir" "$delim" "$name"
        shown="$spelled"
        [ -n "$res" ] && [ "$res" != "$name" ] && shown="$spelled (= $res)"

        # Which layer the header belongs to, and may this file include it?
        if [ -n "$res" ]; then
            case $res in
            .. | ../*)
                bad+=("escape: $rel:$ln: $spelled leaves src/")
                res=""
                ;;
            */*)
                dep=${res%%/*}
                if ! known "$dep"; then
                    bad+=("unknown-folder: $rel:$ln: $shown: folder $dep/ is not in the layer table")
                elif [ -n "$mine" ] && known "$mine" && [ "$dep" != "$mine" ] &&
                    [[ " ${allow[$mine]} " != *" $dep "* ]]; then
                    bad+=("layer: $rel:$ln: $mine may not include $dep: $shown")
                fi
                ;;
            *)
                if [ -n "$mine" ]; then
                    bad+=("layer: $rel:$ln: $mine may not include the programs' header: $shown")
                fi
                ;;
            esac
        fi

        hdr=${res:-$name}
        if [ "$mine" != "$backend_owner" ] && [[ $hdr =~ ^($backend_headers)$ ]]; then
            bad+=("backend: $rel:$ln: $shown: only $backend_owner/ includes backend headers")
        fi
        if [ "$is_pure" = 1 ]; then
            if [ "$hdr" = util/log.h ]; then
                bad+=("log: $rel:$ln: $shown: $mine/ does not log")
            elif [ -z "$res" ] && [ "$hdr" = stdio.h ]; then
                stdio_line=$ln
            elif [[ $hdr =~ ^($io_headers)$ ]]; then
                bad+=("io: $rel:$ln: $shown: $mine/ does no I/O")
            fi
        fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' <<<"$stripped")

    if [ "$is_pure" = 1 ]; then
        if [ -n "$stdio_line" ] &&
            ! grep -qE '(^|[^[:alnum:]_.>])v?snprintf[[:space:]]*\(' <<<"$stripped"; then
            bad+=("io: $rel:$stdio_line: #include <stdio.h> without snprintf/vsnprintf: $mine/ does no I/O")
        fi
        while IFS=: read -r ln call; do
            [ -n "$ln" ] || continue
            call=$(sed -E 's/^[^[:alnum:]_]//; s/[[:space:]]*\($//' <<<"$call")
            bad+=("io: $rel:$ln: $call(): $mine/ does no I/O")
        done < <(grep -noE "(^|[^[:alnum:]_.>])($io_calls)[[:space:]]*\(" <<<"$stripped")
        while IFS=: read -r ln word; do
            [ -n "$ln" ] || continue
            bad+=("io: $rel:$ln: $word: $mine/ does no I/O")
        done < <(grep -nowE 'FILE|stdin|stdout|stderr' <<<"$stripped")
        while IFS=: read -r ln call; do
            [ -n "$ln" ] || continue
            call=$(sed -E 's/^[^[:alnum:]_]//; s/[[:space:]]*\($//' <<<"$call")
            bad+=("log: $rel:$ln: $call(): $mine/ does not log")
        done < <(grep -noE "(^|[^[:alnum:]_.>])($log_calls)[[:space:]]*\(" <<<"$stripped")
    fi

    report $((${#bad[@]} == 0)) "src/$rel" "${bad[@]}"
done < <(find "$src" -mindepth 1 -name ".*" -prune -o -type f -name "*.[ch]" -print | sort)

echo "1..$n"
[ "$failed" -eq 0 ]
