#!/usr/bin/env bash
# Runs every golden wire vector through zmote-dump: ok rows must re-encode to their own bytes and
# decode to at least one printed line, err rows must fail with "error at byte N" (on standard
# input "line L: error at byte N", L the row's line). All rows of a layer go through one process
# on standard input; only when that run is not clean are the rows run one by one, to name the
# ones that fail.
# usage: check-reencode.sh ZMOTE_DUMP VECTORS_DIR
set -u

if [[ $# -ne 2 ]]; then
    echo "usage: $0 ZMOTE_DUMP VECTORS_DIR" >&2
    exit 2
fi
DUMP=$1
VECTORS=$2
if [[ ! -x $DUMP ]]; then
    echo "$DUMP: not an executable" >&2
    exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Rows: parallel arrays; HEX is normalised to lowercase bytes separated by single spaces.
KIND=() LAYER=() NAME=() HEX=()
passed=0
failed=0

fail() {
    echo "FAIL $*" >&2
    failed=$((failed + 1))
}

# Lowercase, one space between bytes; returns 1 if s is not whole hex bytes.
normalise_hex() {
    local s=${1//[[:space:]]/}
    s=${s,,}
    if [[ ! $s =~ ^([0-9a-f][0-9a-f])*$ ]]; then
        return 1
    fi
    local out="" i
    for ((i = 0; i < ${#s}; i += 2)); do
        out+="${out:+ }${s:i:2}"
    done
    printf '%s' "$out"
}

add_row() { # kind layer name hex
    local norm
    if ! norm=$(normalise_hex "$4"); then
        fail "$3: malformed hex in the vector file"
        return
    fi
    KIND+=("$1") LAYER+=("$2") NAME+=("$3") HEX+=("$norm")
}

# The layer a rust-wire.txt vector belongs to, from its name.
rust_layer() {
    case $1 in
    tcp | "TCP batch"*) echo stream ;;
    SCOUT* | HELLO*) echo scouting ;;
    PUSH* | DECLARE* | INTEREST* | REQUEST* | RESPONSE* | "network OAM"*) echo network ;;
    *) echo transport ;;
    esac
}

# A PUSH whose QoS extension carries the M bit (0x31 instead of 0x21): Rust refuses it. The
# vector file states only the verdict, so the bytes are those of the QoS PUSH vector, patched.
PUSH_QOS_M_HEX="fd 03 02 2f 78 31 1c e1 80 80 80 80 18 01 01 02 43 02 01 02 02 68 69"

load_rust_wire() {
    local file=$1 line name len hex n=0 words
    local re='^(.*): \[([0-9]+)\] ?(.*)$'
    while IFS= read -r line || [[ -n $line ]]; do
        n=$((n + 1))
        line=${line%$'\r'}
        [[ -z ${line//[[:space:]]/} || $line =~ ^[[:space:]]*# ]] && continue
        if [[ $line =~ $re ]]; then
            name=${BASH_REMATCH[1]} len=${BASH_REMATCH[2]} hex=${BASH_REMATCH[3]}
            name=${name#"${name%%[![:space:]]*}"}
            case $name in
            "zint "* | "zid("* | "timestamp "* | "encoding "*) continue ;;
            esac
            read -ra words <<<"$hex"
            if [[ ${#words[@]} -ne $len ]]; then
                fail "rust-wire.txt:$n $name: [$len] but ${#words[@]} bytes"
                continue
            fi
            add_row ok "$(rust_layer "$name")" "rust-wire.txt:$n $name" "$hex"
        elif [[ $line == "decode PUSH with QoS ext header 0x31"*Err* ]]; then
            add_row err network "rust-wire.txt:$n ${line%%:*}" "$PUSH_QOS_M_HEX"
        else
            fail "rust-wire.txt:$n: line not understood: $line"
        fi
    done <"$file"
}

load_wire_gen() {
    local file=$1 kind layer name hex rest n=0 rows=0
    while IFS=$'\t' read -r kind layer name hex rest || [[ -n $kind ]]; do
        n=$((n + 1))
        hex=${hex%$'\r'}
        case $kind in
        ok | err) ;;
        *) continue ;;
        esac
        if [[ -z $layer || -z $name || -n ${rest:-} ]]; then
            fail "wire-gen.txt:$n: expected 4 TAB-separated fields"
            continue
        fi
        add_row "$kind" "$layer" "wire-gen.txt:$n $name" "$hex"
        rows=$((rows + 1))
    done <"$file"
    if [[ $rows -eq 0 ]]; then
        fail "wire-gen.txt has no ok/err rows"
    fi
}

if [[ -f $VECTORS/rust-wire.txt ]]; then
    load_rust_wire "$VECTORS/rust-wire.txt"
else
    fail "$VECTORS/rust-wire.txt is missing"
fi
if [[ -f $VECTORS/wire-gen.txt ]]; then
    load_wire_gen "$VECTORS/wire-gen.txt"
else
    echo "note: $VECTORS/wire-gen.txt not found, skipped"
fi

# ---- one row at a time (used to name the failures when a whole-layer run is not clean) -------

check_ok_row() { # index
    local i=$1 out rc
    out=$("$DUMP" --layer "${LAYER[i]}" --reencode "${HEX[i]}" 2>"$TMP/err")
    rc=$?
    if [[ $rc -ne 0 || $out != "${HEX[i]}" ]]; then
        fail "${NAME[i]} (${LAYER[i]}): re-encode exit $rc: $(head -c 300 "$TMP/err")"
        echo "    in : ${HEX[i]}" >&2
        echo "    out: $out" >&2
    else
        passed=$((passed + 1))
    fi
    out=$("$DUMP" --layer "${LAYER[i]}" "${HEX[i]}" 2>"$TMP/err")
    rc=$?
    if [[ $rc -ne 0 || -z ${out//[[:space:]]/} ]]; then
        fail "${NAME[i]} (${LAYER[i]}): decode exit $rc, output '${out:0:100}': $(head -c 300 "$TMP/err")"
    else
        passed=$((passed + 1))
    fi
}

check_err_row() { # index
    local i=$1 out rc
    out=$("$DUMP" --layer "${LAYER[i]}" --reencode "${HEX[i]}" 2>"$TMP/err")
    rc=$?
    if [[ $rc -ne 1 ]] || ! grep -qE '^error at byte [0-9]+: ' "$TMP/err"; then
        fail "${NAME[i]} (${LAYER[i]}): expected a decode error, got exit $rc, output '${out:0:100}'"
    else
        passed=$((passed + 1))
    fi
}

# ---- one process per layer and kind ------------------------------------------------------------

run_group() { # kind layer
    local kind=$1 layer=$2 i idx=() rc nout
    for i in "${!KIND[@]}"; do
        [[ ${KIND[i]} == "$kind" && ${LAYER[i]} == "$layer" ]] && idx+=("$i")
    done
    [[ ${#idx[@]} -eq 0 ]] && return
    for i in "${idx[@]}"; do
        printf '%s\n' "${HEX[i]}"
    done >"$TMP/in"

    if [[ $kind == err ]]; then
        "$DUMP" --layer "$layer" --reencode <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
        rc=$?
        # each error names the line of its input: here the rows in order, one per line
        local nerr lines_named lines_fed
        nerr=$(grep -cE '^line [0-9]+: error at byte [0-9]+: ' "$TMP/err")
        nout=$(wc -l <"$TMP/err")
        lines_named=$(sed -nE 's/^line ([0-9]+): .*/\1/p' "$TMP/err" | tr '\n' ' ')
        lines_fed=$(seq 1 "${#idx[@]}" | tr '\n' ' ')
        if [[ $rc -eq 1 && ! -s $TMP/out && $nerr -eq ${#idx[@]} && $nout -eq $nerr && $lines_named == "$lines_fed" ]]; then
            passed=$((passed + ${#idx[@]}))
        else
            for i in "${idx[@]}"; do check_err_row "$i"; done
        fi
        return
    fi

    # ok rows: each input gives exactly one line of re-encoded bytes, in order.
    "$DUMP" --layer "$layer" --reencode <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    local lines=()
    mapfile -t lines <"$TMP/out"
    if [[ $rc -eq 0 && ! -s $TMP/err && ${#lines[@]} -eq ${#idx[@]} ]]; then
        local k=0
        for i in "${idx[@]}"; do
            if [[ ${lines[k]} == "${HEX[i]}" ]]; then
                passed=$((passed + 1))
            else
                fail "${NAME[i]} ($layer): re-encoded bytes differ"
                echo "    in : ${HEX[i]}" >&2
                echo "    out: ${lines[k]}" >&2
            fi
            k=$((k + 1))
        done
    else
        for i in "${idx[@]}"; do check_ok_row "$i"; done
        return
    fi
    # Plain decoding: clean exit, nothing on stderr, and at least a line per input.
    "$DUMP" --layer "$layer" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    nout=$(grep -c '[^[:space:]]' "$TMP/out")
    if [[ $rc -eq 0 && ! -s $TMP/err && $nout -ge ${#idx[@]} ]]; then
        passed=$((passed + ${#idx[@]}))
    else
        for i in "${idx[@]}"; do
            local out
            out=$("$DUMP" --layer "$layer" "${HEX[i]}" 2>"$TMP/err1")
            rc=$?
            if [[ $rc -ne 0 || -z ${out//[[:space:]]/} ]]; then
                fail "${NAME[i]} ($layer): decode exit $rc: $(head -c 300 "$TMP/err1")"
            else
                passed=$((passed + 1))
            fi
        done
    fi
}

declare -A seen=()
for i in "${!LAYER[@]}"; do
    seen[${LAYER[i]}]=1
done
for layer in "${!seen[@]}"; do
    run_group ok "$layer"
    run_group err "$layer"
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
