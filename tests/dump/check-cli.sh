#!/usr/bin/env bash
# zmote-dump's command line: -h and --help print the usage (every option named) and exit 0; a
# bad command line says what is wrong and where help is, and exits 2; errors on standard input
# name their line, and nothing unprintable reaches a message.
# usage: check-cli.sh ZMOTE_DUMP
set -u

if [[ $# -ne 1 || ! -x $1 ]]; then
    echo "usage: $0 ZMOTE_DUMP" >&2
    exit 2
fi
DUMP=$1
passed=0
failed=0

# expect NAME WANT_RC WANT_STDOUT_REGEX WANT_STDERR_REGEX INPUT -- ARGS...
# The regexes (grep -E) must each match a line ("" for: that stream is empty).
expect() {
    local name=$1 want_rc=$2 out_re=$3 err_re=$4 input=$5
    shift 6
    local out err rc
    out=$(printf '%b' "$input" | "$DUMP" "$@" 2>/tmp/zmote-dump-cli.$$)
    rc=$?
    err=$(cat /tmp/zmote-dump-cli.$$)
    rm -f /tmp/zmote-dump-cli.$$
    local why=""
    [[ $rc -eq $want_rc ]] || why+=" exit $rc (not $want_rc);"
    if [[ -z $out_re ]]; then
        [[ -z $out ]] || why+=" unexpected stdout;"
    else
        grep -qE -- "$out_re" <<<"$out" || why+=" stdout lacks /$out_re/;"
    fi
    if [[ -z $err_re ]]; then
        [[ -z $err ]] || why+=" unexpected stderr;"
    else
        grep -qE -- "$err_re" <<<"$err" || why+=" stderr lacks /$err_re/;"
    fi
    if LC_ALL=C grep -q '[^[:print:][:space:]]' <<<"$err"; then
        why+=" unprintable bytes on stderr;"
    fi
    if [[ -n $why ]]; then
        echo "FAIL $name:$why" >&2
        echo "  stdout: ${out:0:300}" >&2
        echo "  stderr: ${err:0:300}" >&2
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

for help in -h --help; do
    for opt in --layer --reencode -- --help scouting transport network stream; do
        expect "$help names $opt" 0 "(^| )$opt( |$|=|,)" "" "" -- "$help"
    done
done
expect "-h wins over hex that follows" 0 '^usage: zmote-dump' "" "" -- -h 01 02

expect "--layer without a value" 2 "" '^zmote-dump: --layer needs a value \(scouting, transport, network or stream\)$' "" -- --layer
expect "--layer= without a value" 2 "" '^zmote-dump: --layer needs a value' "" -- --layer=
expect "--layer then an option" 2 "" '^zmote-dump: --layer needs a value' "" -- --layer --reencode 01
expect "unknown layer" 2 "" "^zmote-dump: unknown layer 'frame' \\(expected scouting" "" -- --layer frame 01
expect "unknown option" 2 "" "^zmote-dump: unknown option '--verbose'$" "" -- --verbose
expect "unknown short option" 2 "" "^zmote-dump: unknown option '-x'$" "" -- -x
expect "unprintable option escaped" 2 "" "^zmote-dump: unknown option '-\\\\x01'$" "" -- $'-\x01'
expect "usage errors point at --help" 2 "" '^zmote-dump: run with --help for usage$' "" -- --layer

# standard input: blank and comment lines count as lines too
expect "line of a decode error" 1 "" '^line 3: error at byte [0-9]+: ' '# a comment\n\n01 02\n' --
expect "line of bad hex" 1 "" "^line 2: error: invalid hex: unexpected character 'z' at position 3$" '\n01 zz\n' --
expect "unprintable input escaped" 1 "" '^line 1: error: invalid hex: unexpected byte 0x01 at position 0$' '\x01\n' --
expect "input after an error still read" 1 'KEEP_ALIVE' '^line 1: error' 'zz\n04\n' --
expect "arguments name no line" 1 "" '^error at byte [0-9]+: ' "" -- 01 02

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
