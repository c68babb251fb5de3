"""zenoh-pico 1.9.0's own examples (examples/unix/c11 and c99), built as C++ against zmote by
scripts/check-cxx.sh, run peer to peer on loopback: with each other, and with zmote's examples
built as C++. What they print is checked line by line."""
import re

import pytest

import harness

C11 = "pico/c11/"
C99 = "pico/c99/"
ST11 = "pico-st/c11/"
ST99 = "pico-st/c99/"
Z = "zmote/"
PUT_KEY = "demo/example/zenoh-pico-put"
PUB_KEY = "demo/example/zenoh-pico-pub"
QBL_KEY = "demo/example/zenoh-pico-queryable"
QBL_VALUE = "Queryable from Pico!"
TOKEN_KEY = "group1/zenoh-pico"


def received(key, value):
    return f">> [Subscriber] Received ('{key}': '{value}')"


def lines(p):
    return p.output().splitlines()


def test_c11_z_put_and_z_pub_to_z_sub(run, ep):
    sub = run(C11 + "z_sub", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    put = run(C11 + "z_put", "-m", "peer", "-e", ep)
    assert put.wait_exit(15, others=[sub]) == 0
    sub.wait_line(re.escape(received(PUT_KEY, "Pub from Pico!")), others=[put])
    pub = run(C11 + "z_pub", "-m", "peer", "-e", ep, "-n", "1")
    assert pub.wait_exit(15, others=[sub]) == 0
    assert sub.wait_exit(15, others=[pub]) == 0
    assert lines(sub)[3:] == [received(PUT_KEY, "Pub from Pico!"), received(PUB_KEY, "[   0] Pub from Pico!")]


def test_c11_z_get_to_z_queryable(run, ep):
    qbl = run(C11 + "z_queryable", "-m", "peer", "-l", ep, "-n", "1")
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = run(C11 + "z_get", "-m", "peer", "-e", ep, "-v", "ask")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert qbl.wait_exit(15) == 0
    assert lines(get) == [
        "Opening session...",
        "Sending Query 'demo/example/**'...",
        f">> Received PUT ('demo/example/**': '{QBL_VALUE}')",
        ">> Received query final notification",
    ]
    assert lines(qbl)[3:] == [" >> [Queryable handler] Received Query 'demo/example/**'", "     with value 'ask'"]


def test_c11_z_querier_and_z_get_channel_to_z_queryable_channel(run, ep):
    qbl = run(C11 + "z_queryable_channel", "-m", "peer", "-l", ep, "-k", "zm/pico/**")
    qbl.wait_line(r"^Creating Queryable on ")
    qr = run(C11 + "z_querier", "-m", "peer", "-e", ep, "-s", "zm/pico/**", "-n", "1")
    assert qr.wait_exit(20, others=[qbl]) == 0
    assert f">> Received ('zm/pico/**': '{QBL_VALUE}')" in lines(qr), qr.describe()
    get = run(C11 + "z_get_channel", "-m", "peer", "-e", ep, "-k", "zm/pico/a")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert f">> Received ('zm/pico/a': '{QBL_VALUE}')" in lines(get), get.describe()


def test_c11_z_pub_attachment_to_z_sub_attachment(run, ep):
    sub = run(C11 + "z_sub_attachment", "-m", "peer", "-l", ep, "-n", "1")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = run(C11 + "z_pub_attachment", "-m", "peer", "-e", ep, "-n", "1")
    assert sub.wait_exit(20, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    got = lines(sub)[3:]
    assert got[0] == received(PUB_KEY, "[   0] Pub from Pico!"), sub.describe()
    assert got[-3:] == ["    with attachment:", "     0: source, C", "     1: index, 0"], sub.describe()


def test_c11_z_get_attachment_to_z_queryable_attachment(run, ep):
    qbl = run(C11 + "z_queryable_attachment", "-m", "peer", "-l", ep, "-n", "1")
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = run(C11 + "z_get_attachment", "-m", "peer", "-e", ep, "-k", QBL_KEY, "-v", "ask")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert qbl.wait_exit(15) == 0
    assert lines(get)[2:] == [
        f">> Received ('{QBL_KEY}': '{QBL_VALUE}')",
        "    with encoding: zenoh/string;utf8",
        "    with attachment:",
        "     0: reply_key, reply_value",
        ">> Received query final notification",
    ]
    assert f" >> [Queryable handler] Received Query '{QBL_KEY}'" in lines(qbl), qbl.describe()


def test_c11_z_sub_channel_takes_zmote_z_put(run, ep):
    sub = run(C11 + "z_sub_channel", "-m", "peer", "-l", ep)  # runs until stopped, by design
    sub.wait_line(r"^Declaring Subscriber on ")
    put = run(Z + "z_put", "-m", "peer", "-e", ep)
    assert put.wait_exit(15, others=[sub]) == 0
    sub.wait_line(re.escape(received(PUT_KEY, "Pub from Pico!")), others=[put])


def test_c11_liveliness_token_seen_by_z_sub_liveliness_z_get_liveliness_and_z_info(run, ep):
    tok = run(C11 + "z_liveliness", "-m", "peer", "-l", ep)
    tok.wait_line(r"^Press CTRL-C to undeclare liveliness token and quit")
    sub = run(C11 + "z_sub_liveliness", "-m", "peer", "-e", ep, "-h", "-n", "1")
    assert sub.wait_exit(20, others=[tok]) == 0
    assert f">> [LivelinessSubscriber] New alive token ('{TOKEN_KEY}')" in lines(sub), sub.describe()
    get = run(C11 + "z_get_liveliness", "-m", "peer", "-e", ep)
    assert get.wait_exit(20, others=[tok]) == 0
    assert lines(get)[-1] == f">> Alive token ('{TOKEN_KEY}')"
    for info in (run(C11 + "z_info", "-m", "peer", "-e", ep), run(C99 + "z_info", "-m", "peer", "-e", ep)):
        out = harness.z_info_lines(info, 15, others=[tok])
        assert out[2:4] == ["Routers IDs:", "Peers IDs:"] and len(out) == 5, info.describe()
        assert re.fullmatch(r" [0-9a-f]+", out[4]), info.describe()


def test_c11_z_pong_answers_zmote_z_ping(run, ep):
    pong = run(C11 + "z_pong", "-m", "peer", "-l", ep, stdin=True)
    pong.wait_line(r"^Pong app is running, press 'q' to quit")
    ping = run(Z + "z_ping", "-m", "peer", "-e", ep, "-n", "10", "-s", "64", "-w", "100")
    assert ping.wait_exit(30, others=[pong]) == 0
    rtts = lines(ping)
    assert len(rtts) == 10 and all(re.fullmatch(r"\d+", x) for x in rtts), ping.describe()
    pong.send("q")
    assert pong.wait_exit(10) == 0


def test_c99_z_pong_scouts_and_finds_nothing(run):
    # it takes no locator: it scouts (multicast: inside scripts/netns.sh only), nothing answers
    harness.require_netns()
    p = run(C99 + "z_pong")
    assert p.wait_exit(10) == 255
    assert lines(p) == ["Unable to open session!"]


@pytest.mark.parametrize("name", ["c11/z_scout", "c99/z_scout"])
def test_z_scout_finds_a_router(run, name):
    # multicast on the namespace's loopback: inside scripts/netns.sh only
    harness.require_netns()
    r = harness.Router(scout_iface="lo").start()
    try:
        p = run("pico/" + name)
        assert p.wait_exit(20) == 0
        assert lines(p) == ["Scouting...", harness.pico_hello_line(r.zid, "Router", [r.endpoint]),
                            "Dropping scout results."], p.describe()
    finally:
        r.stop()


def test_c11_z_pull_takes_zmote_z_pub_samples(run, ep):
    pull = run(C11 + "z_pull", "-m", "peer", "-l", ep, "-i", "100")  # pulls until stopped, by design
    pull.wait_line(r"^>> \[Subscriber\] Nothing to pull")
    pub = run(Z + "z_pub", "-m", "peer", "-e", ep, "-n", "1")
    assert pub.wait_exit(15, others=[pull]) == 0
    pull.wait_line(re.escape(f">> [Subscriber] Pulled ('{PUB_KEY}': '[   0] Pub from Pico!')"), others=[pub])


def test_c99_z_pull_takes_samples_of_a_listening_zmote_z_pub(run, ep):
    pub = run(Z + "z_pub", "-m", "peer", "-l", ep, "-n", "10")
    pub.wait_line(r"^Press CTRL-C to quit")
    pull = run(C99 + "z_pull", "-e", ep, "-i", "100")  # a client (its only mode); pulls until stopped
    pull.wait_line(rf"^>> \[Subscriber\] Pulled \('{PUB_KEY}': '\[ *\d+\] Pub from Pico!'\)$", others=[pub])


# Examples of features zmote does not have: built, they say so and end (as zenoh-pico's do
# when built without the feature).
@pytest.mark.parametrize("name", ["c11/z_pub_tls", "c11/z_sub_tls"])
def test_examples_of_missing_features_say_so(run, name):
    p = run("pico/" + name)
    assert p.wait_exit(10) == 254  # their return -2
    assert len(lines(p)) == 1 and re.fullmatch(
        r"ERROR: Zenoh pico was compiled without Z_FEATURE_\w+ but this example requires it\.", lines(p)[0])


def test_c11_z_advanced_sub_joins_late_and_gets_the_history_of_z_advanced_pub(run, ep):
    pub = run(C11 + "z_advanced_pub", "-m", "peer", "-l", ep, "-i", "10")
    pub.wait_line(r"^Putting Data \('demo/example/zenoh-pico-pub': '\[   1\] Pub from Pico!'\)\.\.\.$")
    sub = run(C11 + "z_advanced_sub", "-m", "peer", "-e", ep)
    for i in (0, 1, 2):  # #0 and #1 from the publisher's cache, then live
        sub.wait_line(rf"^>> \[Advanced Subscriber\] Received PUT \('demo/example/zenoh-pico-pub': "
                      rf"'\[ *{i}\] Pub from Pico!'\)$", others=[pub])
    received = [l for l in lines(sub) if "Received" in l]
    assert [int(l.split("[")[2].split("]")[0]) for l in received[:3]] == [0, 1, 2], sub.describe()


def test_c11_z_bytes(run):
    p = run(C11 + "z_bytes")
    assert p.wait_exit(10) == 0
    # each appended payload a slice of its own, as zenoh-pico 1.9.0 built on its own prints them
    assert lines(p) == ["slice len: 3, slice data: '0x61 0x62 0x63 '", "slice len: 3, slice data: '0x64 0x65 0x66 '",
                        "slice len: 3, slice data: '0x68 0x69 0x6a '"]


def test_c11_z_pub_st_to_z_sub_st_single_thread(run, ep):
    sub = run(ST11 + "z_sub_st", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = run(ST11 + "z_pub_st", "-m", "peer", "-e", ep, "-n", "2")
    assert sub.wait_exit(20, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert lines(sub)[3:] == [received(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(2)]


def test_c99_z_put_and_z_pub_to_z_sub(run, ep):
    sub = run(C99 + "z_sub", "-m", "peer", "-l", ep)  # runs until stopped, by design
    sub.wait_line(r"^Press CTRL-C to quit")
    put = run(C99 + "z_put", "-m", "peer", "-e", ep)
    assert put.wait_exit(15, others=[sub]) == 0
    sub.wait_line(re.escape(received(PUT_KEY, "Pub from Pico!")), others=[put])
    pub = run(C99 + "z_pub", "-m", "peer", "-e", ep, "-n", "1")
    assert pub.wait_exit(15, others=[sub]) == 0
    sub.wait_line(re.escape(received(PUB_KEY, "[   0] Pub from Pico!")), others=[pub])


def test_c99_z_get_to_z_queryable(run, ep):
    qbl = run(C99 + "z_queryable", "-m", "peer", "-l", ep)  # runs until stopped, by design
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = run(C99 + "z_get", "-m", "peer", "-e", ep)
    assert get.wait_exit(20, others=[qbl]) == 0
    assert lines(get)[-2:] == [f">> Received ('demo/example/**': '{QBL_VALUE}')",
                               ">> Received query final notification"], get.describe()


def test_c99_z_pub_st_to_z_sub_st_single_thread(run, ep):
    sub = run(ST99 + "z_sub_st", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = run(ST99 + "z_pub_st", "-m", "peer", "-e", ep, "-n", "2")
    assert sub.wait_exit(20, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert lines(sub)[3:] == [received(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(2)]
