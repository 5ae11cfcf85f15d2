#!/bin/sh
# Run the firmware tests on QEMU (-M mps2-an385) and check them against
# expected.toml: exit status, a transcript that is the same on two runs, and
# (if present) the stored transcript expected/<name>.out.
#
#   run-qemu.sh [--update] [NAME...]
#     --update  write expected/<name>.out from the first run
#     NAME      tests to run (default: every test with qemu = true)
# Environment: QEMU (qemu-system-arm), FW_DIR (build/fw), TIMEOUT (10 s).
set -u

here=$(cd "$(dirname "$0")" && pwd)
QEMU=${QEMU:-qemu-system-arm}
FW_DIR=${FW_DIR:-build/fw}
TIMEOUT=${TIMEOUT:-10}
update=0
if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi

# "name exit qemu" per test, from expected.toml.
tests=$(awk '
    /^\[[A-Za-z0-9_-]+\]/ { if (name != "") print name, ex, q; name = substr($0, 2, index($0, "]") - 2); ex = 0; q = "true"; next }
    /^[ \t]*exit[ \t]*=/ { sub(/^[^=]*=[ \t]*/, ""); sub(/[ \t#].*$/, ""); ex = $0 }
    /^[ \t]*qemu[ \t]*=/ { sub(/^[^=]*=[ \t]*/, ""); sub(/[ \t#].*$/, ""); q = $0 }
    END { if (name != "") print name, ex, q }
' "$here/expected.toml")

run_qemu() { # elf out err
    timeout "$TIMEOUT" "$QEMU" -M mps2-an385 -nographic -monitor none \
        -chardev stdio,id=con,mux=on -serial chardev:con \
        -semihosting-config enable=on,target=native,chardev=con \
        -kernel "$1" >"$2" 2>"$3" </dev/null
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$tests" | while read -r name want_exit on_qemu; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    if [ "$on_qemu" != "true" ]; then
        echo "skip $name (qemu = false)"
        continue
    fi
    elf="$FW_DIR/test-$name.elf"
    if [ ! -f "$elf" ]; then
        echo "FAIL $name: $elf not built"
        echo 1 >"$tmp/failed"
        continue
    fi
    start=$(date +%s.%N)
    run_qemu "$elf" "$tmp/$name.1" "$tmp/$name.err1"
    rc1=$?
    end=$(date +%s.%N)
    run_qemu "$elf" "$tmp/$name.2" "$tmp/$name.err2"
    rc2=$?
    secs=$(echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }')
    problems=""
    [ "$rc1" = "$want_exit" ] || problems="$problems exit=$rc1 (want $want_exit)"
    [ "$rc2" = "$rc1" ] || problems="$problems second-run-exit=$rc2"
    cmp -s "$tmp/$name.1" "$tmp/$name.2" || problems="$problems transcript-differs-between-runs"
    [ -s "$tmp/$name.err1" ] && problems="$problems stderr:$(head -c 200 "$tmp/$name.err1" | tr '\n' ' ')"
    golden="$here/expected/$name.out"
    if [ "$update" = 1 ] && [ -z "$problems" ]; then
        mkdir -p "$here/expected"
        cp "$tmp/$name.1" "$golden"
    elif [ -f "$golden" ]; then
        cmp -s "$tmp/$name.1" "$golden" || problems="$problems transcript-differs-from-$golden"
    fi
    if [ -z "$problems" ]; then
        echo "ok   $name (exit $rc1, ${secs}s)"
    else
        echo "FAIL $name:$problems"
        diff "$golden" "$tmp/$name.1" 2>/dev/null | head -20
        echo 1 >"$tmp/failed"
    fi
done
[ -f "$tmp/failed" ] && exit 1
exit 0
