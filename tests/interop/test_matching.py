"""Matching status of zmote publishers and queriers against Rust Zenoh 1.10.2: z_pub -a says when
a first subscriber matches its key and when the last one goes, whether the subscriber is a Rust
client behind the router or a Rust peer, and whether it leaves by undeclaring or by closing; a
querier's listener follows Rust queryables (complete ones only for target ALL_COMPLETE)."""
import pytest

import harness
from harness import endpoint, free_port

MATCH = r"^Publisher has matching subscribers\.$"
NO_MORE = r"^Publisher has NO MORE matching subscribers\.$"


def z_pub(children, *args):
    pub = children.zm("z_pub", "-a", "-n", "1000", *args)
    pub.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    return pub


def flips(pub, rust_session, key, leave, round_=1):
    """A subscriber on key makes the round_-th "matching" line, its leave the round_-th "NO MORE"."""
    sub = rust_session.declare_subscriber(key, lambda s: None)
    pub.wait_lines(MATCH, round_)
    assert len(pub.matches(NO_MORE)) == round_ - 1
    leave(sub)
    pub.wait_lines(NO_MORE, round_)


def test_matching_through_the_router(router, rust, children):
    pub = z_pub(children, "-m", "client", "-e", router.endpoint)
    s = rust.client(router.endpoint)
    flips(pub, s, "demo/example/**", lambda sub: sub.undeclare())
    # again, and a subscriber on another key changes nothing
    other = s.declare_subscriber("other/**", lambda x: None)
    flips(pub, s, "demo/**", lambda sub: sub.undeclare(), round_=2)
    other.undeclare()
    assert len(pub.matches(MATCH)) == 2 and len(pub.matches(NO_MORE)) == 2


def test_matching_ends_when_the_subscriber_session_closes(router, rust, children):
    pub = z_pub(children, "-m", "client", "-e", router.endpoint)
    s = rust.client(router.endpoint)
    flips(pub, s, "demo/example/zenoh-pico-pub", lambda sub: s.close())


def test_matching_between_peers(rust, children):
    port = free_port()
    pub = z_pub(children, "-m", "peer", "-l", endpoint(port))
    s = rust.peer(connect=[endpoint(port)])
    flips(pub, s, "demo/example/**", lambda sub: sub.undeclare())


def test_matching_between_peers_ends_when_the_peer_leaves(rust, children):
    port = free_port()
    pub = z_pub(children, "-m", "peer", "-l", endpoint(port))
    s = rust.peer(connect=[endpoint(port)])
    flips(pub, s, "demo/**", lambda sub: s.close())


# ---- queriers ----------------------------------------------------------------------------------


def querier(children, *args):
    q = children.zm("zm_query", "querier", "-k", "zm/qm/a", *args)
    q.wait_line("^ready$")
    return q


@pytest.mark.parametrize("mode", ["client", "peer"])
def test_querier_matching_flips_with_a_rust_queryable(router, rust, children, mode):
    if mode == "client":
        q = querier(children, "-m", "client", "-e", router.endpoint)
        s = rust.client(router.endpoint)
    else:
        port = free_port()
        q = querier(children, "-m", "peer", "-l", endpoint(port))
        s = rust.peer(connect=[endpoint(port)])
    assert q.matches(r"^querier status 0$")
    qbl = s.declare_queryable("zm/qm/**", lambda query: None)
    q.wait_line(r"^querier matching 1$")
    qbl.undeclare()
    q.wait_line(r"^querier matching 0$")


def test_querier_matching_all_complete_counts_complete_queryables_only(router, rust, children):
    q = querier(children, "-m", "client", "-e", router.endpoint, "-T", "complete")
    s = rust.client(router.endpoint)
    partial = s.declare_queryable("zm/qm/a", lambda query: None, complete=False)
    complete = s.declare_queryable("zm/qm/**", lambda query: None, complete=True)
    q.wait_line(r"^querier matching 1$")
    complete.undeclare()
    q.wait_line(r"^querier matching 0$")
    partial.undeclare()

