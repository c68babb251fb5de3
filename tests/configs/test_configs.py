"""The size table's apps (tools/sizes/app_*.c), unchanged, each linked with the library built for
the host in the app's own configuration (tools/sizes/NAME.flags, which scripts/sizes.sh sizes for
Cortex-M4; scripts/check-configs.sh builds them), against Rust Zenoh 1.10.2. Each app connects to
"serial/uart0": here a link of that name in its working folder to one end of a pseudo-terminal
pair, the Rust serial router on the other, and Rust sessions on the router's TCP side check what
crosses both ways. So the narrow builds' own paths run: the direct serial link, the unbatched
sender without fragmentation, the lean decoders and encoders, the publisher-only key list, a
client that neither reconnects nor pushes declarations, the single-thread zp_read loop."""
import os
import time

import pytest

import harness
from harness import Proc
from test_serial import Line

PUB = "demo/zmote/pub"
SUB = "demo/zmote/sub"
QUERY = "demo/zmote/q"
ROUNDS = 100  # each app's loop
BLOCK = harness.zenoh.CongestionControl.BLOCK


def app_path(name: str) -> str:
    d = os.environ.get("ZMOTE_CONFIGS_DIR", os.path.join(harness.ROOT, "build", "configs"))
    path = os.path.join(d, name, f"app_{name}")
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{path} is missing: run scripts/check-configs.sh")
    return path


@pytest.fixture
def line(children):
    return Line(children)


def start_app(name, line, children, folder) -> Proc:
    os.symlink(line.zmote_pty, folder / "uart0")
    p = Proc(["env", "-C", str(folder), app_path(name)], name=f"app_{name}", stdin=False)
    children.all.append(p)
    return p


def subscribed(rust, line, key, got):
    """A Rust subscriber on key, known to the router before this returns: a publisher of a
    second session sees it matching."""
    rust.client(line.tcp).declare_subscriber(key, got)
    watcher = rust.client(line.tcp).declare_publisher(key)
    harness.wait_matching(watcher, others=line.others())


def app_samples(got, p, line):
    samples = got.wait(ROUNDS, timeout=20, others=[p, *line.others()])
    assert [(x["key"], x["payload"]) for x in samples] == [(PUB, b"hello")] * ROUNDS
    time.sleep(0.2)  # none more than the app put
    assert len(got.snapshot()) == ROUNDS


def test_pub(line, children, rust, tmp_path):
    """The publisher-only client on one thread: its 100 puts reach a Rust subscriber in order."""
    got = harness.Received()
    subscribed(rust, line, PUB, got)
    p = start_app("pub", line, children, tmp_path)
    assert p.wait_exit(60, others=line.others()) == 0, p.describe()
    app_samples(got, p, line)


def test_pubsub(line, children, rust, tmp_path):
    """The pub+sub client with its read and lease tasks: its puts reach Rust, and Rust's samples
    reach its subscriber (it exits 4 if none did)."""
    got = harness.Received()
    subscribed(rust, line, PUB, got)
    pub = rust.client(line.tcp).declare_publisher(SUB, congestion_control=BLOCK)
    p = start_app("pubsub", line, children, tmp_path)
    sent = 0
    while p.p.poll() is None:
        if harness.matching(pub):
            pub.put(f"rust {sent}")
            sent += 1
        time.sleep(0.005)
    assert p.wait_exit(5) == 0, f"{p.describe()}\n(Rust put {sent} samples)"
    assert sent > 0
    app_samples(got, p, line)


class Queries:
    """A Rust queryable's handler: answers every query, and counts them."""

    def __init__(self):
        self.keys = []

    def __call__(self, query):
        self.keys.append(str(query.key_expr))
        query.reply(query.key_expr, b"rust answer")


def test_full(line, children, rust, tmp_path):
    """The full client: its puts, its queryable's answers and its liveliness token reach Rust;
    Rust's samples reach its subscriber and Rust's answers its gets (it exits 6 if either did not)."""
    got = harness.Received()
    subscribed(rust, line, PUB, got)
    s = rust.client(line.tcp)
    tokens = harness.Received()
    s.liveliness().declare_subscriber(PUB, tokens)
    queries = Queries()
    s.declare_queryable(QUERY, queries)
    pub = s.declare_publisher(SUB, congestion_control=BLOCK)
    getter = rust.client(line.tcp)
    p = start_app("full", line, children, tmp_path)
    sent = 0
    answers = []
    while p.p.poll() is None:
        if harness.matching(pub):
            pub.put(f"rust {sent}")
            sent += 1
        for r in getter.get(QUERY, timeout=2):
            if r.ok is not None and r.ok.payload.to_bytes() == b"answer":
                answers.append(str(r.ok.key_expr))
        time.sleep(0.005)
    assert p.wait_exit(5) == 0, f"{p.describe()}\n(Rust put {sent} samples, queryable got {len(queries.keys)})"
    assert sent > 0
    app_samples(got, p, line)
    assert answers and set(answers) == {QUERY}, answers
    assert queries.keys and set(queries.keys) == {QUERY}, queries.keys
    events = tokens.wait(2, timeout=20, others=line.others())
    assert [(x["key"], x["kind"]) for x in events] == [(PUB, harness.zenoh.SampleKind.PUT),
                                                       (PUB, harness.zenoh.SampleKind.DELETE)]
