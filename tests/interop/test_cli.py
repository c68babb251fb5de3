"""What zmote's programs tell a user: every example's -h lists its flags, a bad command line keeps
zenoh-pico's getopt lines and adds how to get help, numbers are parsed strictly, a failed z_open
says why (a different reason for each cause), z_pong runs without a terminal, handshakes that
fail and links that drop are logged, and zmote-dump's command line explains itself.

Programs that end by themselves run through subprocess.run with a deadline; stdout and stderr
are kept apart, since what zmote adds goes to stderr."""
import os
import re
import signal
import socket
import subprocess
import time

import pytest

import harness
from harness import endpoint, free_port

# Every example of the default build and its getopt string (zenoh-pico's, plus h for the help).
EXAMPLES = {
    "z_bytes": "h",
    "z_delete": "k:e:m:l:h",
    "z_get": "k:v:e:m:l:h",
    "z_get_attachment": "k:v:e:m:l:h",
    "z_get_channel": "k:v:e:m:l:h",
    "z_get_liveliness": "k:e:m:l:h",
    "z_info": "e:m:l:h",
    "z_liveliness": "k:t:e:m:l:h",
    "z_ping": "s:n:w:e:m:l:h",
    "z_pong": "e:m:l:h",
    "z_pub": "k:v:e:m:l:n:ah",
    "z_pub_attachment": "k:v:e:m:l:n:h",
    "z_pub_st": "k:v:e:m:l:n:h",
    "z_pub_thr": "k:e:m:l:f:s:h",
    "z_put": "k:v:e:m:l:h",
    "z_querier": "s:v:e:m:l:n:t:ah",
    "z_queryable": "k:v:e:m:l:n:dfh",
    "z_queryable_attachment": "k:v:e:m:l:n:h",
    "z_queryable_channel": "k:v:e:m:l:h",
    "z_sub": "k:e:m:l:n:h",
    "z_sub_attachment": "k:e:m:l:n:h",
    "z_sub_channel": "k:e:m:l:h",
    "z_sub_liveliness": "k:e:m:l:n:h",  # -h is zenoh-pico's history flag there: --help is the help
    "z_sub_st": "k:e:m:l:n:h",
    "z_sub_thr": "k:e:m:l:f:h",
}
SESSION_EXAMPLES = sorted(n for n in EXAMPLES if n != "z_bytes")

# The numeric flags of each example: (flag, a value beyond its range).
NUMERIC = {
    "z_liveliness": [("t", "4294967296")],
    "z_ping": [("s", "999999999999"), ("n", "10000001"), ("w", "4294967296")],
    "z_pub": [("n", "2147483648")],
    "z_pub_attachment": [("n", "2147483648")],
    "z_pub_st": [("n", "2147483648")],
    "z_pub_thr": [("f", "1000001"), ("s", "999999999999")],
    "z_querier": [("n", "2147483648"), ("t", "2147483648")],
    "z_queryable": [("n", "2147483648")],
    "z_queryable_attachment": [("n", "2147483648")],
    "z_sub": [("n", "2147483648")],
    "z_sub_attachment": [("n", "2147483648")],
    "z_sub_liveliness": [("n", "2147483648")],
    "z_sub_st": [("n", "2147483648")],
    "z_sub_thr": [("f", "1000001")],
}


def flags_of(optstring):
    return [c for c in optstring if c != ":"]


def help_flag(name):
    return "--help" if name == "z_sub_liveliness" else "-h"


def run(name, *args, timeout=10, path=None):
    """Runs a program that ends by itself, stdin at its end; returns (exit status, stdout, stderr)."""
    p = subprocess.run([path or harness.program(name), *args], stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- usage --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_help_lists_every_flag(name):
    for asked in {help_flag(name), "--help"}:
        rc, out, err = run(name, asked)
        assert rc == 0, (asked, out, err)
        assert out.startswith(f"Usage: {name} [OPTIONS]\n"), out
        assert err == ""
        for flag in flags_of(EXAMPLES[name]):
            if flag == "h" and name != "z_sub_liveliness":
                assert re.search(r"^  -h, --help +print this help and exit$", out, re.M), out
                continue
            # "  -k KEYEXPR    meaning (default: ...)": each flag on a line of its own, with a meaning
            assert re.search(rf"^  -{flag}( [A-Z]+)? +\S.*$", out, re.M), f"-{flag} missing\n{out}"
        if name == "z_sub_liveliness":
            assert re.search(r"^  --help +print this help and exit$", out, re.M), out


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_unknown_flag_keeps_getopt_lines_and_hints(name):
    rc, out, err = run(name, "-Z")
    assert rc == 1
    lines = err.splitlines()
    assert "Unknown option `-Z'." in lines, err
    assert lines[-1] == f"{name}: run with {help_flag(name)} for usage", err


@pytest.mark.parametrize("name", SESSION_EXAMPLES)
def test_flag_without_its_value(name):
    rc, out, err = run(name, "-e")
    assert rc == 1
    lines = err.splitlines()
    assert "Option -e requires an argument." in lines, err
    assert lines[-1] == f"{name}: run with {help_flag(name)} for usage", err


@pytest.mark.parametrize("name,flag,too_big", [(n, f, v) for n, fs in sorted(NUMERIC.items()) for f, v in fs])
def test_numbers_are_strict(name, flag, too_big):
    for bad in ["abc", "-1", "12x", "", " 5", "+5", "0x10", too_big]:
        rc, out, err = run(name, f"-{flag}", bad)
        assert rc == 1, (bad, out, err)
        assert out == "", (bad, out)  # nothing opened, nothing printed
        lines = err.splitlines()
        assert re.fullmatch(rf"{name}: invalid value '{re.escape(bad)}' for -{flag}: expected a whole number "
                            r"from \d+ to \d+", lines[0]), (bad, err)
        assert lines[1:] == [f"{name}: run with {help_flag(name)} for usage"], (bad, err)


# ---- why z_open failed --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def unreachable():
    """Ports for the open failures: one bound but not listening (connections to it are refused),
    one listened on (a second listener is refused)."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    yield closed.getsockname()[1], busy.getsockname()[1]
    closed.close()
    busy.close()


def open_failures(closed, busy):
    """(case, arguments, the reason line expected)"""
    refused = endpoint(closed)
    return [
        ("malformed endpoint", ["-e", "tcp/nohost:abc"],
         r"invalid locator \(tcp/nohost:abc: expected PROTOCOL/ADDRESS, e\.g\. tcp/127\.0\.0\.1:7447\)"),
        ("refused port", ["-e", refused], rf"connection refused \({re.escape(refused)}\)"),
        ("listen port in use", ["-l", endpoint(busy)],
         rf"address already in use \(listen on {re.escape(endpoint(busy))}\)"),
        ("unknown mode", ["-m", "nonsense", "-e", refused],
         r"invalid mode in the configuration \(mode 'nonsense': expected client or peer\)"),
        # quic and ws: links zmote does not have
        ("protocol not built", ["-e", "quic/127.0.0.1:7447"],
         r"unsupported \(quic/127\.0\.0\.1:7447: protocol 'quic' is not in this build\)"),
        ("another protocol not built", ["-e", "ws/127.0.0.1:7447"],
         r"unsupported \(ws/127\.0\.0\.1:7447: protocol 'ws' is not in this build\)"),
    ]


@pytest.mark.parametrize("name", SESSION_EXAMPLES)
def test_failed_open_says_why(name, unreachable):
    reasons = set()
    for case, args, want in open_failures(*unreachable):
        rc, out, err = run(name, *args)
        assert rc == 255, (case, rc, out, err)
        assert "Unable to open session!" in out.splitlines(), (case, out, err)
        found = [x for x in err.splitlines() if x.startswith("zmote: cannot open session: ")]
        assert len(found) == 1, (case, err)
        assert re.fullmatch(r"zmote: cannot open session: " + want, found[0]), (case, found[0])
        reasons.add(found[0])
    assert len(reasons) == len(open_failures(*unreachable))


def test_no_endpoint_at_all():
    rc, out, err = run("z_put")
    assert rc == 255
    assert "Unable to open session!" in out.splitlines()
    # no router answers scouting in the suite's namespace
    assert "zmote: cannot open session: scouting found nothing (no endpoint given)" in err.splitlines()


# ---- z_pong without a terminal ------------------------------------------------------------------


def test_z_pong_without_stdin_answers_until_a_signal(children):
    ep = endpoint(free_port())
    pong = children.zm("z_pong", "-m", "peer", "-l", ep, stdin=False)
    pong.wait_line(r"^Pong app is running, press 'q' to quit$", timeout=10)
    pong.wait_line(r"^z_pong: standard input ended: running until SIGINT or SIGTERM$", timeout=10)
    rc, out, err = run("z_ping", "-m", "peer", "-e", ep, "-n", "5", "-s", "16", "-w", "100", timeout=20)
    assert rc == 0, (out, err, pong.describe())
    assert len(out.splitlines()) == 5 and all(re.fullmatch(r"\d+", x) for x in out.splitlines()), out
    assert pong.p.poll() is None, pong.describe()
    pong.signal(signal.SIGTERM)
    assert pong.wait_exit(10) == 0


def test_z_pong_still_quits_on_q(children):
    ep = endpoint(free_port())
    pong = children.zm("z_pong", "-m", "peer", "-l", ep)
    pong.wait_line(r"^Pong app is running", timeout=10)
    pong.send("q")
    assert pong.wait_exit(10) == 0


# ---- logs: handshakes that fail, links that drop ------------------------------------------------


class OneShotServer:
    """A TCP listener that answers its first connection with reply (after reading what comes
    first, if reply is not None) and closes it."""

    def __init__(self, reply):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.reply = reply

    def serve(self, timeout):
        self.sock.settimeout(timeout)
        c, _ = self.sock.accept()
        with c:
            if self.reply is not None:
                c.settimeout(timeout)
                c.recv(4096)
                c.sendall(self.reply)
        self.sock.close()


@pytest.mark.parametrize("reply,why", [(None, "link closed"), (b"\x03\x00\xff\xff\xff", "unknown message id")])
def test_handshake_failure_when_connecting_is_logged(reply, why, children):
    srv = OneShotServer(reply)
    ep = endpoint(srv.port)
    put = children.zm("z_put", "-e", ep, stdin=False)
    srv.serve(10)
    assert put.wait_exit(15) == 255
    lines = put.output().splitlines()
    assert f"zmote warn: handshake with {ep} failed: {why}" in lines, put.describe()
    assert "Unable to open session!" in lines
    assert f"zmote: cannot open session: {why} ({ep})" in lines, put.describe()


def test_handshake_failure_when_accepting_is_logged(children):
    port = free_port()
    sub = children.zm("z_sub", "-m", "peer", "-l", endpoint(port), stdin=False)
    sub.wait_line(r"^Press CTRL-C to quit", timeout=10)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
        c.sendall(b"\x03\x00\xff\xff\xff")  # a batch of 3 bytes that is no message
        sub.wait_line(r"^zmote warn: handshake with an accepted peer failed: unknown message id \(close: invalid\)$",
                      timeout=10)


def test_a_link_that_drops_is_logged(children):
    ep = endpoint(free_port())
    sub = children.zm("z_sub", "-m", "peer", "-l", ep, stdin=False)
    sub.wait_line(r"^Press CTRL-C to quit", timeout=10)
    pub = children.zm("z_pub", "-m", "peer", "-e", ep, stdin=False)
    sub.wait_line(r"^>> \[Subscriber\] Received", timeout=15, others=[pub])
    pub.signal(signal.SIGKILL)  # no CLOSE goes out
    sub.wait_line(r"^zmote warn: peer [0-9a-f]+ dropped \(close: generic\): its link was lost \(no CLOSE came\)$",
                  timeout=10, others=[pub])


# ---- zmote-dump ---------------------------------------------------------------------------------


def dump_path():
    path = os.path.join(harness.bin_dir(), os.pardir, "zmote-dump")
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{path} is missing: build zmote first")
    return path


@pytest.mark.parametrize("asked", ["-h", "--help"])
def test_zmote_dump_help(asked):
    rc, out, err = run("zmote-dump", asked, path=dump_path())
    assert rc == 0 and err == ""
    assert out.startswith("usage: zmote-dump ")
    for opt in ["--layer", "--reencode", "--help", "scouting", "transport", "network", "stream"]:
        assert opt in out


@pytest.mark.parametrize("args,message", [
    (["--layer"], "zmote-dump: --layer needs a value (scouting, transport, network or stream)"),
    (["--layer", "frame"], "zmote-dump: unknown layer 'frame' (expected scouting, transport, network or stream)"),
    (["--verbose"], "zmote-dump: unknown option '--verbose'"),
])
def test_zmote_dump_usage_errors(args, message):
    rc, out, err = run("zmote-dump", *args, path=dump_path())
    assert rc == 2 and out == ""
    assert err.splitlines() == [message, "zmote-dump: run with --help for usage"]


def test_zmote_dump_names_the_line_of_an_error():
    p = subprocess.run([dump_path()], input=b"# header\n04\n01 zz\n\x01\n", capture_output=True, timeout=10)
    assert p.returncode == 1
    assert p.stderr.decode().splitlines() == [
        "line 3: error: invalid hex: unexpected character 'z' at position 3",
        "line 4: error: invalid hex: unexpected byte 0x01 at position 0",
    ]
