"""User/password authentication between zmote and Rust Zenoh 1.10.2 (transport/auth/usrpwd): a
zmote client with the right credentials gets into a Rust router that requires them and samples
cross it both ways; wrong ones, or none, are refused with the reason printed. A Rust client with
the right credentials gets into a listening zmote peer; wrong ones or none do not, and the peer
stays up for the next good one, over tcp and over udp. A zmote client or peer against a listening
zmote peer, both ways. The dictionaries are files of `user:password` lines, as Rust reads them; zm_probe -D
passes one's content to zmote's dictionary key."""
import json

import pytest

import harness
from harness import free_port, pattern

KEY = "zm/usrpwd/data"
SYNC = "zm/usrpwd/sync"
USERS = {"alice": "secret1", "bob": "pa:ss word"}  # a colon and a blank inside a password are kept


@pytest.fixture
def dictionary(tmp_path):
    path = tmp_path / "users.txt"
    # blank lines and blanks around each side are skipped, as Rust reads its dictionary file
    path.write_text("\n".join(f"  {u} : {p}  " for u, p in USERS.items()) + "\n\n")
    return str(path)


def rust_conf(mode, connect=(), listen=(), user=None, password=None, dictionary=None):
    conf = {
        "mode": mode,
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
    }
    if connect:
        conf["connect"] = {"endpoints": list(connect)}
    if listen:
        conf["listen"] = {"endpoints": list(listen)}
    usrpwd = {}
    if user is not None:
        usrpwd.update(user=user, password=password)
    if dictionary is not None:
        usrpwd["dictionary_file"] = dictionary
    if usrpwd:
        conf["transport"] = {"auth": {"usrpwd": usrpwd}}
    return harness.zenoh.Config.from_json5(json.dumps(conf))


def rust_open(rust, conf):
    s = harness.zenoh.open(conf)
    rust.sessions.append(s)
    return s


@pytest.fixture
def auth_router(rust, dictionary):
    """A Rust router in this process that requires the dictionary's credentials."""
    ep = harness.endpoint(free_port())
    rust_open(rust, rust_conf("router", listen=[ep], dictionary=dictionary))
    return ep


def refused(p, reason):
    """zm_probe's open failed, saying so as the examples do, with reason."""
    assert p.wait_exit(20) == 1, p.describe()
    p.wait_line(r"^Unable to open session!$", timeout=1)
    p.wait_line(rf"^error open rc=-\d+: {reason}$", timeout=1)


def pubsub_through(p_pub, rust_sub, count=3, size=64):
    """zm_probe pub (with -S SYNC -W) reaches rust_sub: count samples, every byte checked."""
    got = harness.Received()
    rust_sub.declare_subscriber(KEY, got)
    synced = harness.Received()
    rust_sub.declare_subscriber(SYNC, synced)
    synced.wait(1, timeout=30, others=[p_pub])
    p_pub.send("go")
    samples = got.wait(count, timeout=30, others=[p_pub])
    for q, x in enumerate(samples[:count]):
        assert x["payload"] == pattern(q, size)
    p_pub.send("stop")
    assert p_pub.wait_exit(20) == 0, p_pub.describe()


def test_zmote_client_in_rust_router(auth_router, children, rust):
    """The right credentials get in: samples go zmote -> Rust and Rust -> zmote through the router."""
    sub = rust_open(rust, rust_conf("client", connect=[auth_router], user="bob", password=USERS["bob"]))
    p = children.probe("pub", "-k", KEY, "-n", "3", "-s", "64", "-S", SYNC, "-W", "-i", "50", "-e", auth_router,
                       "-A", f"alice:{USERS['alice']}")
    pubsub_through(p, sub)

    p = children.probe("sub", "-k", KEY, "-n", "2", "-e", auth_router, "-A", f"bob:{USERS['bob']}")
    p.wait_line(r"^ready")
    # a session of its own, whose publisher matches zmote's subscriber alone (not a local one)
    s = rust_open(rust, rust_conf("client", connect=[auth_router], user="alice", password=USERS["alice"]))
    pub = s.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    for q in range(2):
        pub.put(pattern(q, 100))
    lines = harness.probe_samples(p, 2)
    assert [x["check"] for x in lines] == ["ok", "ok"], p.describe()
    assert p.wait_exit(20) == 0, p.describe()


@pytest.mark.parametrize("creds,reason", [
    (["-A", "alice:wrong"], "refused by the peer's authentication: bad user or password"),
    (["-A", "mallory:secret1"], "refused by the peer's authentication: bad user or password"),
    ([], "credentials required, none presented"),
], ids=["wrong-password", "unknown-user", "none"])
def test_zmote_client_refused_by_rust_router(auth_router, children, creds, reason):
    p = children.probe("pub", "-e", auth_router, *creds)
    refused(p, reason)


def test_zmote_client_with_credentials_to_router_without_auth(children, router):
    """A router that does not authenticate answers no challenge: as Rust's client, zmote's gives up
    rather than go on unauthenticated."""
    p = children.probe("pub", "-e", router.endpoint, "-A", "alice:secret1")
    refused(p, "the peer does not authenticate by user and password")


def zmote_listener(children, dictionary, *args, proto="tcp"):
    ep = f"{proto}/127.0.0.1:{free_port()}"
    p = children.probe("sub", "-k", KEY, "-t", "60000", "-m", "peer", "-l", ep, "-D", dictionary, *args)
    p.wait_line(r"^ready")
    return ep, p


@pytest.mark.parametrize("proto", ["tcp", "udp"])
def test_rust_client_into_zmote_peer(children, rust, dictionary, proto):
    """Wrong credentials and none are refused (Rust's open fails), the zmote peer logs why and stays
    up; then the right ones get in and a sample arrives, every byte checked. Over udp the listener
    keeps no state between InitSyn and OpenSyn: the challenge is its stateless cookie's MAC."""
    ep, p = zmote_listener(children, dictionary, "-n", "1", proto=proto)
    for user, password in [("alice", "nope"), ("eve", "secret1"), (None, None)]:
        with pytest.raises(harness.zenoh.ZError):
            harness.zenoh.open(rust_conf("client", connect=[ep], user=user, password=password))
    p.wait_line(r"handshake with an accepted peer failed: bad user or password \(close: generic\)")
    p.wait_line(r"handshake with an accepted peer failed: credentials required, none presented")
    s = rust_open(rust, rust_conf("client", connect=[ep], user="bob", password=USERS["bob"]))
    pub = s.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    pub.put(pattern(0, 1000))
    lines = harness.probe_samples(p, 1)
    assert lines[0]["check"] == "ok", p.describe()
    assert p.wait_exit(20) == 0, p.describe()


@pytest.mark.parametrize("mode", ["client", "peer"])
def test_zmote_into_zmote_peer(children, dictionary, mode):
    ep, sub = zmote_listener(children, dictionary, "-n", "2")
    for creds, reason in [(["-A", "bob:pa:ss"], "refused by the peer's authentication: bad user or password"),
                          ([], "credentials required, none presented")]:
        refused(children.probe("pub", "-m", mode, "-e", ep, *creds), reason)
    # a peer puts only once our subscriber's declaration reached it: enough puts for two to land
    p = children.probe("pub", "-m", mode, "-e", ep, "-A", f"bob:{USERS['bob']}", "-k", KEY, "-n", "100", "-s", "32",
                       "-i", "20", "-t", "30000")
    lines = harness.probe_samples(sub, 2, others=[p])
    assert [x["check"] for x in lines] == ["ok", "ok"], sub.describe()
    assert p.wait_exit(20) == 0, p.describe()
