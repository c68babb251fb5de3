"""zmote's example programs against Rust Zenoh 1.10.2: their command lines and output lines are
zenoh-pico 1.9.0's, and what they put or receive crosses a Rust router or a Rust peer intact."""
import re
import signal

import pytest
import zenoh.ext as zx

import harness
from harness import endpoint, free_port

PUB_KEY = "demo/example/zenoh-pico-pub"


def pub_lines(key, value, n):
    return [f"Putting Data ('{key}': '[{i:4d}] {value}')..." for i in range(n)]


def received_line(key, value):
    return f">> [Subscriber] Received ('{key}': '{value}')"


# ---- client mode, through the Rust router -------------------------------------------------------


def test_z_pub_to_rust_subscriber_via_router(router, rust, children):
    got = harness.Received()
    s = rust.client(router.endpoint)
    s.declare_subscriber("demo/example/**", got)
    harness.router_took(s)  # z_pub's first sample goes at once
    pub = children.zm("z_pub", "-m", "client", "-e", router.endpoint, "-n", "3")
    samples = got.wait(3, timeout=30, others=[pub])
    assert pub.wait_exit(15) == 0
    assert [(x["key"], x["payload"]) for x in samples] == [
        (PUB_KEY, f"[{i:4d}] Pub from Pico!".encode()) for i in range(3)]
    assert pub.output().splitlines() == [
        "Opening session...",
        f"Declaring publisher for '{PUB_KEY}'...",
        "Press CTRL-C to quit...",
        *pub_lines(PUB_KEY, "Pub from Pico!", 3),
    ]


def test_z_pub_flags_value_and_key(router, rust, children):
    got = harness.Received()
    s = rust.client(router.endpoint)
    s.declare_subscriber("zm/ex/**", got)
    harness.router_took(s)  # z_pub's first sample goes at once
    pub = children.zm("z_pub", "-e", router.endpoint, "-m", "client", "-k", "zm/ex/a", "-v", "hello", "-n", "2")
    samples = got.wait(2, timeout=30, others=[pub])
    assert pub.wait_exit(15) == 0
    assert [x["payload"] for x in samples] == [b"[   0] hello", b"[   1] hello"]
    assert pub.output().splitlines()[-2:] == pub_lines("zm/ex/a", "hello", 2)


def test_rust_publisher_to_z_sub_via_router(router, rust, children):
    sub = children.zm("z_sub", "-m", "client", "-e", router.endpoint, "-n", "3")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    s = rust.client(router.endpoint)
    p = s.declare_publisher("demo/example/rust")
    harness.wait_matching(p, others=[sub])
    for i in range(3):
        p.put(f"rust {i}")
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines() == [
        "Opening session...",
        "Declaring Subscriber on 'demo/example/**'...",
        "Press CTRL-C to quit...",
        *[received_line("demo/example/rust", f"rust {i}") for i in range(3)],
    ]


def test_rust_publisher_to_z_sub_channel_via_router(router, rust, children):
    sub = children.zm("z_sub_channel", "-m", "client", "-e", router.endpoint, "-k", "zm/chan/*")
    sub.wait_line(r"^Declaring Subscriber on 'zm/chan/\*'\.\.\.$")
    s = rust.client(router.endpoint)
    p = s.declare_publisher("zm/chan/x")
    harness.wait_matching(p, others=[sub])
    for i in range(5):
        p.put(f"chan {i}")
    sub.wait_lines(r"^>> \[Subscriber\]", 5, timeout=15)
    lines = sub.output().splitlines()
    assert lines[:2] == ["Opening session...", "Declaring Subscriber on 'zm/chan/*'..."]
    assert lines[2:] == [received_line("zm/chan/x", f"chan {i}") for i in range(5)]


def subscribed_via_router(router, rust, got, key):
    """A Rust client's subscriber on demo/example/**, once the router routes key to it: another
    Rust client's publisher there sees it match (a one-shot example sends before any retry)."""
    rust.client(router.endpoint).declare_subscriber("demo/example/**", got)
    harness.wait_matching(rust.client(router.endpoint).declare_publisher(key))


def test_z_put_to_rust_subscriber_via_router(router, rust, children):
    got = harness.Received()
    subscribed_via_router(router, rust, got, "demo/example/zenoh-pico-put")
    put = children.zm("z_put", "-m", "client", "-e", router.endpoint)
    samples = got.wait(1, timeout=20, others=[put])
    assert put.wait_exit(15) == 0
    assert samples[0]["key"] == "demo/example/zenoh-pico-put"
    assert samples[0]["payload"] == b"Pub from Pico!"
    assert samples[0]["kind"] == harness.zenoh.SampleKind.PUT
    assert put.output().splitlines() == [
        "Opening session...",
        "Declaring key expression 'demo/example/zenoh-pico-put'...",
        "Putting Data ('demo/example/zenoh-pico-put': 'Pub from Pico!')...",
    ]


def test_z_delete_to_rust_subscriber_via_router(router, rust, children):
    got = harness.Received()
    subscribed_via_router(router, rust, got, "demo/example/zenoh-pico-delete")
    dele = children.zm("z_delete", "-m", "client", "-e", router.endpoint)
    samples = got.wait(1, timeout=20, others=[dele])
    assert dele.wait_exit(15) == 0
    assert samples[0]["key"] == "demo/example/zenoh-pico-delete"
    assert samples[0]["kind"] == harness.zenoh.SampleKind.DELETE
    assert samples[0]["payload"] == b""
    assert dele.output().splitlines() == [
        "Opening session...",
        "Deleting resources matching 'demo/example/zenoh-pico-delete'...",
    ]


def test_z_pub_to_z_sub_via_router(router, children):
    sub = children.zm("z_sub", "-m", "client", "-e", router.endpoint, "-n", "3")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = children.zm("z_pub", "-m", "client", "-e", router.endpoint, "-n", "3")
    assert sub.wait_exit(30, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert sub.output().splitlines()[3:] == [
        received_line(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(3)]


# ---- peer mode, no router -----------------------------------------------------------------------


def test_z_pub_to_z_sub_peer_to_peer(children):
    ep = endpoint(free_port())
    sub = children.zm("z_sub", "-m", "peer", "-l", ep, "-n", "3")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = children.zm("z_pub", "-m", "peer", "-e", ep, "-n", "3")
    assert sub.wait_exit(30, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert sub.output().splitlines()[3:] == [
        received_line(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(3)]


def test_rust_peer_connects_to_listening_z_sub(rust, children):
    ep = endpoint(free_port())
    sub = children.zm("z_sub", "-m", "peer", "-l", ep, "-n", "2", "-k", "zm/peer/**")
    sub.wait_line(r"^Press CTRL-C to quit")
    s = rust.peer(connect=[ep])
    p = s.declare_publisher("zm/peer/x")
    harness.wait_matching(p, others=[sub])
    p.put("one")
    p.put("two")
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines()[3:] == [received_line("zm/peer/x", "one"), received_line("zm/peer/x", "two")]


def test_z_sub_connects_to_listening_rust_peer(rust, children):
    ep = endpoint(free_port())
    s = rust.peer(listen=[ep])
    p = s.declare_publisher("zm/peer/y")
    sub = children.zm("z_sub", "-m", "peer", "-e", ep, "-n", "2", "-k", "zm/peer/**")
    harness.wait_matching(p, others=[sub])
    p.put("one")
    p.put("two")
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines()[3:] == [received_line("zm/peer/y", "one"), received_line("zm/peer/y", "two")]


# ---- attachments and serialization --------------------------------------------------------------

ATT_PAIRS = list[tuple[str, str]]


def att_pairs(i):
    return [("source", "C"), ("index", str(i))]


def check_pub_attachment_samples(samples, n, key=PUB_KEY, value="Pub from Pico!"):
    """What z_pub_attachment puts, as the Rust subscriber received it."""
    assert [x["key"] for x in samples] == [key] * n
    assert [x["payload"] for x in samples] == [f"[{i:4d}] {value}".encode() for i in range(n)]
    assert [zx.z_deserialize(ATT_PAIRS, harness.zenoh.ZBytes(x["attachment"])) for x in samples] == [
        att_pairs(i) for i in range(n)]
    assert all(x["encoding"] == "zenoh/string;utf8" for x in samples)
    stamps = [int(x["timestamp"].split("/")[0]) for x in samples]
    assert stamps == sorted(stamps) and len(set(stamps)) == n


def test_z_pub_attachment_to_rust_peer(rust, children):
    ep = endpoint(free_port())
    got = harness.Received()
    s = rust.peer(listen=[ep])
    s.declare_subscriber("demo/example/**", got)
    pub = children.zm("z_pub_attachment", "-m", "peer", "-e", ep, "-n", "3")
    samples = got.wait(3, timeout=30, others=[pub])
    assert pub.wait_exit(15) == 0
    check_pub_attachment_samples(samples, 3)  # with no router between them, zmote stamped them
    assert pub.output().splitlines() == [
        "Opening session...",
        f"Declaring publisher for '{PUB_KEY}'...",
        "Press CTRL-C to quit...",
        *pub_lines(PUB_KEY, "Pub from Pico!", 3),
    ]


def test_z_pub_attachment_to_rust_subscriber_via_router(router, rust, children):
    got = harness.Received()
    s = rust.client(router.endpoint)
    s.declare_subscriber("zm/att/**", got)
    harness.router_took(s)  # z_pub's first sample goes at once
    pub = children.zm("z_pub_attachment", "-m", "client", "-e", router.endpoint, "-k", "zm/att/x", "-v", "v", "-n", "2")
    samples = got.wait(2, timeout=30, others=[pub])
    assert pub.wait_exit(15) == 0
    check_pub_attachment_samples(samples, 2, key="zm/att/x", value="v")


def sub_attachment_lines(key, value, stamp, pairs, encoding="zenoh/string;utf8"):
    lines = [received_line(key, value), f"    with encoding: {encoding}"]
    if stamp is not None:
        lines.append(f"    with timestamp: {stamp}")
    if pairs:
        lines.append("    with attachment:")
        lines += [f"     {i}: {k}, {v}" for i, (k, v) in enumerate(pairs)]
    return lines


def test_rust_peer_attachments_to_z_sub_attachment(rust, children):
    ep = endpoint(free_port())
    sub = children.zm("z_sub_attachment", "-m", "peer", "-l", ep, "-n", "4", "-k", "zm/att/**")
    sub.wait_line(r"^Press CTRL-C to quit")
    s = rust.peer(connect=[ep])
    p = s.declare_publisher("zm/att/py", encoding="zenoh/string;utf8")
    harness.wait_matching(p, others=[sub])
    stamps = []
    pairs = [("source", "Python"), ("index", "0"), ("unicode", "h\u00e9llo \u20ac"), ("empty", "")]
    for i, att in enumerate([
        zx.z_serialize(pairs),
        zx.z_serialize([]),                    # no pairs: nothing printed
        b"\x05\x01",                           # malformed (5 pairs in 1 byte): nothing printed
        None,                                  # no attachment
    ]):
        ts = s.new_timestamp()
        stamps.append(int(str(ts).split("/")[0]))
        p.put(f"py {i}", attachment=att, timestamp=ts)
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines()[3:] == [
        *sub_attachment_lines("zm/att/py", "py 0", stamps[0], pairs),
        *sub_attachment_lines("zm/att/py", "py 1", stamps[1], []),
        *sub_attachment_lines("zm/att/py", "py 2", stamps[2], []),
        *sub_attachment_lines("zm/att/py", "py 3", stamps[3], []),
    ]


def test_rust_attachment_to_z_sub_attachment_via_router(router, rust, children):
    sub = children.zm("z_sub_attachment", "-m", "client", "-e", router.endpoint, "-n", "1")
    sub.wait_line(r"^Press CTRL-C to quit")
    s = rust.client(router.endpoint)
    p = s.declare_publisher("demo/example/rust", encoding="text/plain")
    harness.wait_matching(p, others=[sub])
    p.put("from rust", attachment=zx.z_serialize([("source", "Rust"), ("index", "7")]))
    assert sub.wait_exit(15) == 0
    lines = sub.output().splitlines()[3:]
    # the router stamps what reaches it unstamped
    stamp = re.fullmatch(r"    with timestamp: (\d+)", lines[2])
    assert stamp, sub.describe()
    assert lines == sub_attachment_lines("demo/example/rust", "from rust", stamp.group(1),
                                         [("source", "Rust"), ("index", "7")], encoding="text/plain")


def test_z_pub_attachment_to_z_sub_attachment_peer_to_peer(children):
    ep = endpoint(free_port())
    sub = children.zm("z_sub_attachment", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = children.zm("z_pub_attachment", "-m", "peer", "-e", ep, "-n", "2")
    assert sub.wait_exit(30, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    lines = sub.output().splitlines()[3:]
    stamps = [m.group(1) for m in (re.fullmatch(r"    with timestamp: (\d+)", x) for x in lines) if m]
    assert len(stamps) == 2, sub.describe()
    assert lines == [*sub_attachment_lines(PUB_KEY, "[   0] Pub from Pico!", stamps[0], att_pairs(0)),
                     *sub_attachment_lines(PUB_KEY, "[   1] Pub from Pico!", stamps[1], att_pairs(1))]


def test_z_bytes(children):
    p = children.zm("z_bytes", stdin=False)
    assert p.wait_exit(10) == 0
    # one run per appended payload, kept as it was given, as zenoh-pico prints them
    assert p.output().splitlines() == [
        "slice len: 3, slice data: '0x61 0x62 0x63 '",
        "slice len: 3, slice data: '0x64 0x65 0x66 '",
        "slice len: 3, slice data: '0x68 0x69 0x6a '"]


# ---- ping / pong, throughput pair ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["peer", "client"])
def test_z_ping_z_pong(mode, children):
    if mode == "peer":
        ep = endpoint(free_port())
        pong_args, ping_args = ["-m", "peer", "-l", ep], ["-m", "peer", "-e", ep]
    else:
        r = children.router()
        pong_args = ping_args = ["-m", "client", "-e", r.endpoint]
    pong = children.zm("z_pong", *pong_args)
    pong.wait_line(r"^Pong app is running, press 'q' to quit$")
    ping = children.zm("z_ping", *ping_args, "-n", "50", "-s", "64", "-w", "200")
    assert ping.wait_exit(60, others=[pong]) == 0
    rtts = ping.output().splitlines()
    assert len(rtts) == 50 and all(re.fullmatch(r"\d+", x) for x in rtts), ping.describe()
    pong.send("q")
    assert pong.wait_exit(10) == 0


def test_z_pong_outlives_its_input(children):
    # a background job has no input: z_pong then runs until a signal (test_cli.py pings it so)
    ep = endpoint(free_port())
    pong = children.zm("z_pong", "-m", "peer", "-l", ep)
    pong.wait_line(r"^Pong app is running")
    pong.close_stdin()
    pong.wait_line(r"^z_pong: standard input ended: running until SIGINT or SIGTERM$", timeout=10)
    assert pong.p.poll() is None, pong.describe()
    pong.signal(signal.SIGINT)
    assert pong.wait_exit(10) == 0


def test_z_pub_thr_to_z_sub_thr_peer_to_peer(children):
    port = free_port()
    ep = endpoint(port)
    sub = children.zm("z_sub_thr", "-m", "peer", "-l", ep)
    harness.wait_listening(port, 10, sub)  # z_sub_thr prints nothing until samples flow
    pub = children.zm("z_pub_thr", "-m", "peer", "-e", ep, "-s", "64")
    sub.wait_lines(r"^\d+\.\d{3}$", 3, timeout=20, others=[pub])
    pub.wait_lines(r"^\d+\.\d{3}$", 3, timeout=10)
    for p in (sub, pub):
        p.signal(signal.SIGTERM)
        p.wait_exit(10)
        # the publisher may log the subscriber's link lost (stderr) before it is killed in turn
        lines = [x for x in p.output().splitlines() if not x.startswith("zmote warn: ")]
        assert all(re.fullmatch(r"\d+\.\d{3}", x) for x in lines), p.describe()


def test_z_pub_thr_to_z_sub_thr_via_router(router, children):
    sub = children.zm("z_sub_thr", "-m", "client", "-e", router.endpoint)
    pub = children.zm("z_pub_thr", "-m", "client", "-e", router.endpoint, "-s", "1024")
    sub.wait_lines(r"^\d+\.\d{3}$", 3, timeout=20, others=[pub])


# ---- command lines ------------------------------------------------------------------------------

EXAMPLES = {
    "z_pub": "k:v:e:m:l:n:a",
    "z_sub": "k:e:m:l:n:",
    "z_pub_attachment": "k:v:e:m:l:n:",
    "z_sub_attachment": "k:e:m:l:n:",
    "z_put": "k:v:e:m:l:",
    "z_delete": "k:e:m:l:",
    "z_sub_channel": "k:e:m:l:",
    "z_pub_thr": "k:e:m:l:f:s:",
    "z_sub_thr": "k:e:m:l:f:",
    "z_ping": "s:n:w:e:m:l:",
    "z_pong": "e:m:l:",
    "z_liveliness": "k:t:e:m:l:",
    "z_sub_liveliness": "k:e:m:l:n:h",
    "z_get_liveliness": "k:e:m:l:",
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_unknown_option(name, children):
    p = children.zm(name, "-Z", stdin=False)
    assert p.wait_exit(10) == 1
    assert "Unknown option `-Z'." in p.output().splitlines()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_option_without_argument(name, children):
    p = children.zm(name, "-e", stdin=False)
    assert p.wait_exit(10) == 1
    assert "Option -e requires an argument." in p.output().splitlines()


def test_single_thread_examples_in_a_threaded_build(children):
    # z_pub_st and z_sub_st drive their sessions themselves (zp_spin_once), tasks or not
    port = free_port()
    ep = endpoint(port)
    sub = children.zm("z_sub_st", "-m", "peer", "-l", ep, "-n", "2", stdin=False)
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = children.zm("z_pub_st", "-m", "peer", "-e", ep, "-n", "3", stdin=False)
    assert sub.wait_exit(30, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert sub.output().splitlines() == [
        "Opening session...",
        "Declaring Subscriber on 'demo/example/**'...",
        "Press CTRL-C to quit...",
        received_line(PUB_KEY, "[   0] Pub from Pico!"),
        received_line(PUB_KEY, "[   1] Pub from Pico!"),
    ]
    assert pub.output().splitlines()[3:] == pub_lines(PUB_KEY, "Pub from Pico!", 3)


# ---- z_info -----------------------------------------------------------------------------------


def test_z_info_lists_its_router(router, children):
    info = children.zm("z_info", "-m", "client", "-e", router.endpoint)
    lines = harness.z_info_lines(info)
    assert lines[0] == "Opening session..."
    assert re.fullmatch(r"Own ID: [0-9a-f]{32}", lines[1])
    # zenoh-pico prints all 32 digits, Rust drops leading zeros
    assert [x.lstrip(" 0") for x in lines[2:]] == ["Routers IDs:", router.zid.lstrip("0"), "Peers IDs:"]


def test_z_info_lists_its_peers(rust, children):
    port = free_port()
    s = rust.peer(listen=[endpoint(port)])
    info = children.zm("z_info", "-m", "peer", "-e", endpoint(port))
    lines = harness.z_info_lines(info)
    assert [x.lstrip(" 0") for x in lines[2:]] == ["Routers IDs:", "Peers IDs:", harness.zid_text(s.info.zid())]
