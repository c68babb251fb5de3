"""Each session's memory account (src/transport/account.h) against hostile peers (tests/interop/zm_attack):
two sessions in one process keep their own reassembly budgets, so that one session's hostile peers
cannot starve the other's fragmented messages; several peers whose declarations together pass the
session's bound (ZM_SESSION_DECL_BYTES_MAX) are refused one by one, while a Rust 1.10.2 peer
already connected keeps working; and each account is back at zero once the peers are gone.

The zmote end is zm_budget (zm_budget_small: its declarations bounded at 16 KiB per session),
which prints each session's account on "held"; its sessions' close asserts (debug builds) that the
account is at zero."""
import re
import time

import pytest

import harness

MIB = 1 << 20
CLOSE_INVALID = 2
HELD = re.compile(r"^held s=(\d+) decls=(\d+) frags=(\d+) replies=(\d+) total=(\d+)$")
FRAG_BYTES_MAX = 16 * MIB + 4096 + (16 * MIB + 4096) // 2  # zmote's ZM_FRAG_BYTES_MAX, per session
SMALL_DECL_BYTES_MAX = 16384  # zm_budget_small's ZM_SESSION_DECL_BYTES_MAX


def held(p, sessions):
    """Each session's account, as zm_budget prints it: [{decls, frags, replies, total}, ...]."""
    mark = len(p.matches(HELD.pattern))
    p.send("held")
    lines = p.wait_lines(HELD.pattern, mark + sessions, 10)[mark:]
    out = [None] * sessions
    for m in lines:
        out[int(m.group(1))] = {k: int(m.group(i)) for i, k in enumerate(("decls", "frags", "replies", "total"), 2)}
    return out


def wait_held(p, sessions, predicate, timeout, what):
    """Polls the accounts until predicate(accounts) holds; fails with the last ones seen."""
    deadline = time.monotonic() + timeout
    while True:
        got = held(p, sessions)
        if predicate(got):
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: accounts {got} after {timeout} s\n{p.describe()}")
        time.sleep(0.2)


def start(children, name, ports, key):
    args = []
    for port in ports:
        args += ["-l", harness.endpoint(port)]
    p = children.zm(name, *args, "-k", key, "-t", "240000")
    p.wait_line("^ready$")
    for port in ports:
        harness.wait_listening(port, 20, p)
    return p


def rust_samples(s, p, key, session, count, size, timeout):
    """Puts samples of size bytes from Rust session s on key until count more reach zm_budget's
    session; True when they did within timeout."""
    pub = s.declare_publisher(key)
    regex = rf"^sample s={session} len={size}$"
    want = len(p.matches(regex)) + count
    deadline = time.monotonic() + timeout
    payload = (bytes(range(256)) * (size // 256 + 1))[:size]
    while len(p.matches(regex)) < want and time.monotonic() < deadline:
        pub.put(payload)
        time.sleep(0.2)
    pub.undeclare()
    return len(p.matches(regex)) >= want


@pytest.mark.serial
def test_sessions_keep_their_own_reassembly(children, rust):
    """Session 0's 8 hostile peers each hold unfinished 200 KB messages on all 16 channels, more
    than its reassembly budget: none is large enough to give way to a 1 MiB message. Session 1 in
    the same process, with its own budget, keeps taking a Rust peer's 1 MiB samples, and holds
    nothing of session 0's; both accounts are back at zero once the peers are gone."""
    key = "zm/budget/data"
    ports = [harness.free_port(), harness.free_port()]
    p = start(children, "zm_budget", ports, key)
    s = rust.peer(connect=[harness.endpoint(ports[1])])
    assert rust_samples(s, p, key, 1, 1, MIB, 30), f"no 1 MiB sample before the attack\n{p.describe()}"

    attack = children.zm("zm_attack", "-e", harness.endpoint(ports[0]), "-t", "200000", "-L", "60000",
                         "-K", "200000", "-P", "frag", "8")
    attack.wait_line("^ready$", timeout=120, others=[p])
    assert len(attack.matches(r"^unfinished \d+ .* rc=0 ")) == 8 * 16, attack.describe()
    # the fragments are sent; zmote reads them at its own pace (a loaded machine): its budget fills
    deadline = time.monotonic() + 30
    full = held(p, 2)
    while full[0]["frags"] <= FRAG_BYTES_MAX - 2 * MIB and time.monotonic() < deadline:
        full = held(p, 2)
    print(f"session 0 under attack: {full[0]}; session 1: {full[1]}")
    assert full[0]["frags"] > FRAG_BYTES_MAX - 2 * MIB, full  # its budget is full
    assert full[0]["frags"] <= FRAG_BYTES_MAX, full
    assert rust_samples(s, p, key, 1, 5, MIB, 60), f"session 1 starved of its 1 MiB samples\n{p.describe()}"
    assert held(p, 2)[0]["frags"] <= FRAG_BYTES_MAX

    attack.send("stop")
    assert attack.wait_exit(30) == 0, attack.describe()
    s.close()
    wait_held(p, 2, lambda a: all(x["total"] == 0 for x in a), 30, "the accounts back at zero")
    p.send("stop")
    assert p.wait_exit(30) == 0, p.describe()


def test_session_declaration_budget(children, rust):
    """Peers each within their own bounds but together past the session's (16 KiB here): the one
    that passes it is closed (CLOSE INVALID), the others and an earlier Rust peer keep working, and
    the account is back at zero once every peer is gone."""
    key = "zm/budget/decl"
    port = harness.free_port()
    ep = harness.endpoint(port)
    p = start(children, "zm_budget_small", [port], key)
    s = rust.peer(connect=[ep])
    assert rust_samples(s, p, key, 0, 1, 64, 20), f"no sample before the storms\n{p.describe()}"
    before = held(p, 1)[0]["decls"]

    storms = []
    outcomes = []
    for i in range(4):  # 200 subscribers each, about 6.4 KB of the session's 16 KiB
        a = children.zm("zm_attack", "-e", ep, "-t", "60000", "storm", "-n", "200")
        m = a.wait_line(r"^storm written=(\d+) .*close=(\w+) final=(\w+) elapsed=(-?\d+)$", 40, [p])
        outcomes.append((m.group(2), m.group(3)))
        storms.append(a)
        decls = held(p, 1)[0]["decls"]
        assert decls <= SMALL_DECL_BYTES_MAX, decls
    print(f"storms: {outcomes}; the Rust peer's declarations {before} B")
    absorbed = [o for o in outcomes if o == ("none", "yes")]
    refused = [o for o in outcomes if o[0] == str(CLOSE_INVALID)]
    assert len(absorbed) >= 1 and len(refused) >= 1 and len(absorbed) + len(refused) == 4, outcomes
    assert outcomes.index(refused[0]) > outcomes.index(absorbed[0]), outcomes  # the later ones refused
    assert p.matches(r"ZM_SESSION_DECL_BYTES_MAX"), p.describe()  # the refusal's log line
    assert rust_samples(s, p, key, 0, 5, 64, 20), f"the Rust peer's samples stopped\n{p.describe()}"

    for a in storms:
        a.send("stop")
        assert a.wait_exit(15) == 0, a.describe()
    wait_held(p, 1, lambda a: a[0]["decls"] == before, 20, "the storms' declarations refunded")
    s.close()
    wait_held(p, 1, lambda a: a[0]["total"] == 0, 20, "the account back at zero")
    p.send("stop")
    assert p.wait_exit(30) == 0, p.describe()
