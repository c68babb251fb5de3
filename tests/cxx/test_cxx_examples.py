"""zmote's example programs built as C++ (g++ -std=c++17, renamed .cpp): each one runs, peer to
peer on loopback against other C++-built examples, and prints what the C build prints. Every
program of examples/ takes part in one test here."""
import re

import harness

Z = "zmote/"
ZST = "zmote-st/"
PUT_KEY = "demo/example/zenoh-pico-put"
PUB_KEY = "demo/example/zenoh-pico-pub"
QBL_KEY = "demo/example/zenoh-pico-queryable"
QBL_VALUE = "Queryable from Pico!"
TOKEN_KEY = "group1/zenoh-pico"


def received(key, value):
    return f">> [Subscriber] Received ('{key}': '{value}')"


def lines(p):
    return p.output().splitlines()


# ---- publication and subscription ----------------------------------------------------------------


def test_z_put_and_z_delete_to_z_sub(run, ep):
    sub = run(Z + "z_sub", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    put = run(Z + "z_put", "-m", "peer", "-e", ep)
    assert put.wait_exit(15, others=[sub]) == 0
    sub.wait_line(re.escape(received(PUT_KEY, "Pub from Pico!")), others=[put])
    dele = run(Z + "z_delete", "-m", "peer", "-e", ep)
    assert dele.wait_exit(15, others=[sub]) == 0
    assert sub.wait_exit(15, others=[dele]) == 0
    assert lines(sub) == [
        "Opening session...",
        "Declaring Subscriber on 'demo/example/**'...",
        "Press CTRL-C to quit...",
        received(PUT_KEY, "Pub from Pico!"),
        received("demo/example/zenoh-pico-delete", ""),
    ]
    assert lines(put)[-1] == f"Putting Data ('{PUT_KEY}': 'Pub from Pico!')..."
    assert lines(dele)[-1] == "Deleting resources matching 'demo/example/zenoh-pico-delete'..."


def test_z_pub_to_z_sub_channel(run, ep):
    sub = run(Z + "z_sub_channel", "-m", "peer", "-l", ep)
    sub.wait_line(r"^Declaring Subscriber on ")
    pub = run(Z + "z_pub", "-m", "peer", "-e", ep, "-n", "2")
    assert pub.wait_exit(20, others=[sub]) == 0
    sub.wait_lines(r"^>> \[Subscriber\] Received", 2, others=[pub])
    assert [x for x in lines(sub) if x.startswith(">>")] == [
        received(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(2)]
    assert lines(pub)[-2:] == [f"Putting Data ('{PUB_KEY}': '[{i:4d}] Pub from Pico!')..." for i in range(2)]


def test_z_pub_attachment_to_z_sub_attachment(run, ep):
    sub = run(Z + "z_sub_attachment", "-m", "peer", "-l", ep, "-n", "1")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = run(Z + "z_pub_attachment", "-m", "peer", "-e", ep, "-n", "1")
    assert sub.wait_exit(20, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    got = lines(sub)[3:]
    assert got[0] == received(PUB_KEY, "[   0] Pub from Pico!")
    assert "    with attachment:" in got, sub.describe()
    assert any(re.fullmatch(r"    with timestamp: \d+", x) for x in got), sub.describe()


def test_z_pub_st_to_z_sub_st_single_thread(run, ep):
    sub = run(ZST + "z_sub_st", "-m", "peer", "-l", ep, "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit")
    pub = run(ZST + "z_pub_st", "-m", "peer", "-e", ep, "-n", "2")
    assert sub.wait_exit(20, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert [x for x in lines(sub) if x.startswith(">>")] == [
        received(PUB_KEY, f"[{i:4d}] Pub from Pico!") for i in range(2)]


def test_z_ping_to_z_pong(run, ep):
    pong = run(Z + "z_pong", "-m", "peer", "-l", ep, stdin=True)
    pong.wait_line(r"^Pong app is running, press 'q' to quit$")
    ping = run(Z + "z_ping", "-m", "peer", "-e", ep, "-n", "10", "-s", "64", "-w", "100")
    assert ping.wait_exit(30, others=[pong]) == 0
    rtts = lines(ping)
    assert len(rtts) == 10 and all(re.fullmatch(r"\d+", x) for x in rtts), ping.describe()
    pong.send("q")
    assert pong.wait_exit(10) == 0


def test_z_pub_thr_to_z_sub_thr(run):
    port = harness.free_port()
    ep = harness.endpoint(port)
    sub = run(Z + "z_sub_thr", "-m", "peer", "-l", ep)
    harness.wait_listening(port, 10, sub)  # z_sub_thr prints nothing until samples flow
    pub = run(Z + "z_pub_thr", "-m", "peer", "-e", ep, "-s", "64")  # runs until stopped, by design
    sub.wait_line(r"^\d+\.\d{3}$", timeout=20, others=[pub])
    pub.wait_line(r"^\d+\.\d{3}$", timeout=10, others=[sub])


# ---- queries -------------------------------------------------------------------------------------


def test_z_get_to_z_queryable(run, ep):
    qbl = run(Z + "z_queryable", "-m", "peer", "-l", ep, "-n", "1")
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = run(Z + "z_get", "-m", "peer", "-e", ep, "-v", "ask")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert qbl.wait_exit(15) == 0
    assert lines(get) == [
        "Opening session...",
        "Sending Query 'demo/example/**'...",
        f">> Received PUT ('demo/example/**': '{QBL_VALUE}')",  # the reply takes the query's key
        ">> Received query final notification",
    ]
    assert lines(qbl)[3:] == [" >> [Queryable handler] Received Query 'demo/example/**'", "     with value 'ask'"]


def test_z_querier_and_z_get_channel_to_z_queryable_channel(run, ep):
    qbl = run(Z + "z_queryable_channel", "-m", "peer", "-l", ep, "-k", "zm/cxx/**")
    qbl.wait_line(r"^Creating Queryable on ")
    qr = run(Z + "z_querier", "-m", "peer", "-e", ep, "-s", "zm/cxx/**", "-v", "v", "-n", "1")
    assert qr.wait_exit(20, others=[qbl]) == 0
    assert f">> Received ('zm/cxx/**': '{QBL_VALUE}')" in lines(qr), qr.describe()
    get = run(Z + "z_get_channel", "-m", "peer", "-e", ep, "-k", "zm/cxx/a")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert f">> Received ('zm/cxx/a': '{QBL_VALUE}')" in lines(get), get.describe()
    qbl.wait_lines(r"^ >> \[Queryable handler\] Received Query", 2, others=[qr, get])


def test_z_get_attachment_to_z_queryable_attachment(run, ep):
    qbl = run(Z + "z_queryable_attachment", "-m", "peer", "-l", ep, "-n", "1", "-v", "pp")
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = run(Z + "z_get_attachment", "-m", "peer", "-e", ep, "-k", QBL_KEY, "-v", "ask")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert qbl.wait_exit(15) == 0
    assert lines(get)[2:] == [
        f">> Received ('{QBL_KEY}': 'pp')",
        "    with encoding: zenoh/string;utf8",
        "    with attachment:",
        "     0: reply_key, reply_value",
        ">> Received query final notification",
    ]


# ---- liveliness, info, bytes ---------------------------------------------------------------------


def test_liveliness_token_seen_by_z_sub_liveliness_z_get_liveliness_and_z_info(run, ep):
    tok = run(Z + "z_liveliness", "-m", "peer", "-l", ep)
    tok.wait_line(r"^Press CTRL-C to undeclare liveliness token and quit")
    sub = run(Z + "z_sub_liveliness", "-m", "peer", "-e", ep, "-h", "-n", "2")
    sub.wait_line(re.escape(f">> [LivelinessSubscriber] New alive token ('{TOKEN_KEY}')"), others=[tok])
    get = run(Z + "z_get_liveliness", "-m", "peer", "-e", ep)
    assert get.wait_exit(20, others=[tok]) == 0
    assert f">> Alive token ('{TOKEN_KEY}')" in lines(get), get.describe()
    info = run(Z + "z_info", "-m", "peer", "-e", ep)
    out = harness.z_info_lines(info, 15, others=[tok])
    assert out[0] == "Opening session..." and re.fullmatch(r"Own ID: [0-9a-f]+", out[1]), info.describe()
    assert out[2:4] == ["Routers IDs:", "Peers IDs:"] and len(out) == 5, info.describe()
    assert re.fullmatch(r" [0-9a-f]+", out[4]), info.describe()
    tok.stop()  # its peer gone, its token goes with it
    assert sub.wait_exit(20) == 0
    assert lines(sub)[-1] == f">> [LivelinessSubscriber] Dropped token ('{TOKEN_KEY}')"


def test_z_scout_finds_a_router(run):
    # multicast on the namespace's loopback: inside scripts/netns.sh only
    harness.require_netns()
    r = harness.Router(scout_iface="lo").start()
    try:
        p = run(Z + "z_scout")
        assert p.wait_exit(20) == 0
        assert lines(p) == ["Scouting...", harness.pico_hello_line(r.zid, "Router", [r.endpoint]),
                            "Dropping scout results."], p.describe()
    finally:
        r.stop()


def test_z_bytes(run):
    p = run(Z + "z_bytes")
    assert p.wait_exit(10) == 0
    assert lines(p) == ["slice len: 3, slice data: '0x61 0x62 0x63 '",
                        "slice len: 3, slice data: '0x64 0x65 0x66 '",
                        "slice len: 3, slice data: '0x68 0x69 0x6a '"]
