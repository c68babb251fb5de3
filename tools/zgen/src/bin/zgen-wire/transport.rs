//! Transport vectors: INIT, OPEN, CLOSE, KEEP_ALIVE, FRAME, FRAGMENT, JOIN and
//! transport OAM. Each row is one whole batch, so several rows put more than one
//! transport message back to back, as a link would.

use super::make::*;

pub fn res_name(r: u8) -> String {
    let bits = |b: u8| match b & 3 {
        0 => "8",
        1 => "16",
        2 => "32",
        _ => "64",
    };
    format!("res=0x{r:02x}(fsn {}bit, rid {}bit)", bits(r), bits(r >> 2))
}

pub fn transport_init(s: &mut Sheet) {
    s.section("INIT Syn: whatami x zid length, no extensions (S=0: res 0x0a, batch 65535)");
    for w in WHATAMIS {
        for (label, z) in [
            ("zid=01", &[0x01u8][..]),
            ("zid=0102", &[0x01, 0x02][..]),
            ("16-byte zid", &ZID16[..]),
        ] {
            s.transport(
                &format!("INIT Syn {} {label} no exts", whatami_name(w)),
                &[TransportMessage::from(init_syn(w, z))],
            );
        }
    }

    s.section("INIT Syn: batch size and resolution (S=1 whenever either differs from default)");
    for batch in [2048u16, 8192, 49152, 65480, 65534, 1] {
        let mut m = init_syn(WhatAmI::Client, &[0x01, 0x02]);
        m.batch_size = batch;
        s.transport(
            &format!("INIT Syn client zid=0102 batch={batch} (S) no exts"),
            &[TransportMessage::from(m)],
        );
    }
    for r in 0u8..16 {
        let mut m = init_syn(WhatAmI::Peer, &[0x01, 0x02]);
        m.resolution = Resolution::from(r);
        let s_flag = if r == 0x0a { "no S" } else { "S" };
        s.transport(
            &format!(
                "INIT Syn peer zid=0102 {} batch=65535 ({s_flag})",
                res_name(r)
            ),
            &[TransportMessage::from(m)],
        );
    }
    {
        let mut m = init_syn(WhatAmI::Client, &[0x01, 0x02]);
        m.resolution = Resolution::from(0x05);
        m.batch_size = 2048;
        s.transport(
            &format!("INIT Syn client zid=0102 {} batch=2048 (S)", res_name(0x05)),
            &[TransportMessage::from(m)],
        );
    }

    s.section("INIT Syn: each extension alone, then all together");
    let base = || init_syn(WhatAmI::Client, &[0x01, 0x02]);
    let mut m = base();
    m.ext_qos = Some(init::ext::QoS::new());
    s.transport(
        "INIT Syn client zid=0102 QoS(0x01 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_qos_link = Some(init::ext::QoSLink::new(0x280a));
    s.transport(
        "INIT Syn client zid=0102 QoSLink(0x21 z64 0x280a)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_auth = Some(init::ext::Auth::new(zbuf(&[0xa1, 0xa2, 0xa3])));
    s.transport(
        "INIT Syn client zid=0102 Auth(0x43 zbuf a1a2a3)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_mlink = Some(init::ext::MultiLink::new(zbuf(&[0x01, 0x02, 0x03, 0x04])));
    s.transport(
        "INIT Syn client zid=0102 MultiLink(0x44 zbuf 01020304)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_lowlatency = Some(init::ext::LowLatency::new());
    s.transport(
        "INIT Syn client zid=0102 LowLatency(0x05 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_compression = Some(init::ext::Compression::new());
    s.transport(
        "INIT Syn client zid=0102 Compression(0x06 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn client zid=0102 Patch(0x27 z64 1)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_patch = init::ext::PatchType::new(2);
    s.transport(
        "INIT Syn client zid=0102 Patch(0x27 z64 2, a future patch level)",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_region_name = Some(init::ext::RegionName::new(zbuf(b"region-a")));
    s.transport(
        "INIT Syn client zid=0102 RegionName(0x48 zbuf 'region-a')",
        &[TransportMessage::from(m)],
    );
    let mut m = base();
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_qos_link = Some(init::ext::QoSLink::new(0x280a));
    m.ext_auth = Some(init::ext::Auth::new(zbuf(&[0xa1, 0xa2, 0xa3])));
    m.ext_mlink = Some(init::ext::MultiLink::new(zbuf(&[0x01, 0x02, 0x03, 0x04])));
    m.ext_lowlatency = Some(init::ext::LowLatency::new());
    m.ext_compression = Some(init::ext::Compression::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    m.ext_region_name = Some(init::ext::RegionName::new(zbuf(b"region-a")));
    m.batch_size = 2048;
    s.transport(
        "INIT Syn client zid=0102 batch=2048 all exts: QoS, QoSLink 0x280a, Auth a1a2a3, MultiLink 01020304, LowLatency, Compression, Patch 1, RegionName 'region-a'",
        &[TransportMessage::from(m)],
    );

    s.section("INIT Syn: what Rust and C nodes actually send");
    let mut m = init_syn(WhatAmI::Peer, &ZID16);
    m.batch_size = 65480;
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn peer 16-byte zid batch=65480 (Linux TCP) QoS Patch 1",
        &[TransportMessage::from(m)],
    );
    let mut m = init_syn(WhatAmI::Client, &ZID16);
    m.batch_size = 65480;
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn client 16-byte zid batch=65480 (Linux TCP) QoS Patch 1",
        &[TransportMessage::from(m)],
    );
    let mut m = init_syn(WhatAmI::Router, &ZID16);
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn router 16-byte zid batch=65535 (no S) QoS Patch 1",
        &[TransportMessage::from(m)],
    );
    let mut m = init_syn(WhatAmI::Client, &[0x01, 0x02]);
    m.batch_size = 2048;
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn client zid=0102 batch=2048 QoS Patch 1",
        &[TransportMessage::from(m)],
    );

    s.section("INIT Ack (A): cookie is <u8;z16>");
    for w in WHATAMIS {
        s.transport(
            &format!("INIT Ack {} zid=0a0b empty cookie no exts", whatami_name(w)),
            &[TransportMessage::from(init_ack(w, &[0x0a, 0x0b], &[]))],
        );
        s.transport(
            &format!(
                "INIT Ack {} zid=0a0b cookie=deadbeef no exts",
                whatami_name(w)
            ),
            &[TransportMessage::from(init_ack(
                w,
                &[0x0a, 0x0b],
                &[0xde, 0xad, 0xbe, 0xef],
            ))],
        );
    }
    let long_cookie: Vec<u8> = (0u8..130).collect();
    s.transport(
        "INIT Ack router zid=0a0b cookie=130 bytes 00..81 (2-byte length zint)",
        &[TransportMessage::from(init_ack(
            WhatAmI::Router,
            &[0x0a, 0x0b],
            &long_cookie,
        ))],
    );
    for batch in [2048u16, 8192, 49152, 65480] {
        let mut m = init_ack(WhatAmI::Router, &ZID16, &[0xc0, 0x0c, 0x1e]);
        m.batch_size = batch;
        m.ext_qos = Some(init::ext::QoS::new());
        m.ext_patch = init::ext::PatchType::CURRENT;
        s.transport(
            &format!("INIT Ack router 16-byte zid batch={batch} (S) cookie=c00c1e QoS Patch 1"),
            &[TransportMessage::from(m)],
        );
    }
    for r in [0x00u8, 0x05, 0x09, 0x0f] {
        let mut m = init_ack(WhatAmI::Peer, &[0x0a, 0x0b], &[0xc0]);
        m.resolution = Resolution::from(r);
        s.transport(
            &format!(
                "INIT Ack peer zid=0a0b {} batch=65535 (S) cookie=c0",
                res_name(r)
            ),
            &[TransportMessage::from(m)],
        );
    }
    let ack_base = || init_ack(WhatAmI::Router, &[0x0a, 0x0b], &[0xc0, 0x0c, 0x1e]);
    let mut m = ack_base();
    m.ext_qos = Some(init::ext::QoS::new());
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e QoS",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_qos_link = Some(init::ext::QoSLink::new(1));
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e QoSLink(z64 1)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_auth = Some(init::ext::Auth::new(zbuf(&[0xb1, 0xb2])));
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e Auth(zbuf b1b2)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_mlink = Some(init::ext::MultiLink::new(zbuf(&[0x05])));
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e MultiLink(zbuf 05)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_lowlatency = Some(init::ext::LowLatency::new());
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e LowLatency",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_compression = Some(init::ext::Compression::new());
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e Compression",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e Patch 1",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.ext_region_name = Some(init::ext::RegionName::new(zbuf(b"south")));
    s.transport(
        "INIT Ack router zid=0a0b cookie=c00c1e RegionName(zbuf 'south')",
        &[TransportMessage::from(m)],
    );
    let mut m = ack_base();
    m.batch_size = 49152;
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_qos_link = Some(init::ext::QoSLink::new(1));
    m.ext_auth = Some(init::ext::Auth::new(zbuf(&[0xb1, 0xb2])));
    m.ext_mlink = Some(init::ext::MultiLink::new(zbuf(&[0x05])));
    m.ext_lowlatency = Some(init::ext::LowLatency::new());
    m.ext_compression = Some(init::ext::Compression::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    m.ext_region_name = Some(init::ext::RegionName::new(zbuf(b"south")));
    s.transport(
        "INIT Ack router zid=0a0b batch=49152 cookie=c00c1e all exts: QoS, QoSLink 1, Auth b1b2, MultiLink 05, LowLatency, Compression, Patch 1, RegionName 'south'",
        &[TransportMessage::from(m)],
    );
}

// ---------------------------------------------------------------------------------
// Transport: OPEN
// ---------------------------------------------------------------------------------

pub fn lease_name(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("lease={}s (T)", d.as_secs())
    } else {
        format!("lease={}ms (no T)", d.as_millis())
    }
}

pub fn transport_open(s: &mut Sheet) {
    s.section("OPEN Syn: lease (T=seconds when whole), initial sn, cookie <u8;usize>");
    s.note("initial sn stays within the default 32-bit resolution mask 0x0fffffff: the Rust codec");
    s.note("would round-trip any u32, but the handshake refuses an sn outside the negotiated mask");
    let leases = [
        Duration::from_secs(10),
        Duration::from_millis(2500),
        Duration::from_millis(1),
        Duration::from_secs(1),
        Duration::from_millis(10001),
        Duration::from_secs(3600),
    ];
    for lease in leases {
        s.transport(
            &format!("OPEN Syn {} sn=0x1234 cookie=c00c1e", lease_name(lease)),
            &[TransportMessage::from(open_syn(
                lease,
                0x1234,
                &[0xc0, 0x0c, 0x1e],
            ))],
        );
    }
    for sn in [
        0u32,
        1,
        127,
        128,
        16383,
        16384,
        0x001f_ffff,
        0x0020_0000,
        0x0fff_ffff,
    ] {
        s.transport(
            &format!("OPEN Syn lease=10s (T) sn=0x{sn:x} cookie=c00c1e"),
            &[TransportMessage::from(open_syn(
                Duration::from_secs(10),
                sn,
                &[0xc0, 0x0c, 0x1e],
            ))],
        );
    }
    s.transport(
        "OPEN Syn lease=10s (T) sn=0 empty cookie",
        &[TransportMessage::from(open_syn(
            Duration::from_secs(10),
            0,
            &[],
        ))],
    );
    let long_cookie: Vec<u8> = (0u8..200).map(|i| i ^ 0x5a).collect();
    s.transport(
        "OPEN Syn lease=10s (T) sn=7 cookie=200 bytes (i xor 5a)",
        &[TransportMessage::from(open_syn(
            Duration::from_secs(10),
            7,
            &long_cookie,
        ))],
    );
    let syn = || open_syn(Duration::from_secs(10), 0x1234, &[0xc0, 0x0c, 0x1e]);
    let mut m = syn();
    m.ext_qos = Some(open::ext::QoS::new());
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e QoS(0x01 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = syn();
    m.ext_auth = Some(open::ext::Auth::new(zbuf(&[0xa1, 0xa2])));
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e Auth(0x43 zbuf a1a2)",
        &[TransportMessage::from(m)],
    );
    let mut m = syn();
    m.ext_mlink = Some(open::ext::MultiLinkSyn::new(zbuf(&[0x01, 0x02, 0x03])));
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e MultiLinkSyn(0x44 zbuf 010203)",
        &[TransportMessage::from(m)],
    );
    let mut m = syn();
    m.ext_lowlatency = Some(open::ext::LowLatency::new());
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e LowLatency(0x05 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = syn();
    m.ext_compression = Some(open::ext::Compression::new());
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e Compression(0x06 unit)",
        &[TransportMessage::from(m)],
    );
    for bound in [0u64, 1] {
        let mut m = syn();
        m.ext_remote_bound = Some(open::ext::RemoteBound::new(bound));
        s.transport(
            &format!("OPEN Syn lease=10s sn=0x1234 cookie=c00c1e RemoteBound(0x27 z64 {bound})"),
            &[TransportMessage::from(m)],
        );
    }
    let mut m = syn();
    m.ext_qos = Some(open::ext::QoS::new());
    m.ext_auth = Some(open::ext::Auth::new(zbuf(&[0xa1, 0xa2])));
    m.ext_mlink = Some(open::ext::MultiLinkSyn::new(zbuf(&[0x01, 0x02, 0x03])));
    m.ext_lowlatency = Some(open::ext::LowLatency::new());
    m.ext_compression = Some(open::ext::Compression::new());
    m.ext_remote_bound = Some(open::ext::RemoteBound::new(1));
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=c00c1e all exts: QoS, Auth a1a2, MultiLinkSyn 010203, LowLatency, Compression, RemoteBound 1",
        &[TransportMessage::from(m)],
    );

    s.section("OPEN Ack (A): no cookie");
    for lease in leases {
        s.transport(
            &format!("OPEN Ack {} sn=0x0fffffff", lease_name(lease)),
            &[TransportMessage::from(open_ack(lease, 0x0fff_ffff))],
        );
    }
    for sn in [0u32, 127, 128, 0x0fff_ffff] {
        s.transport(
            &format!("OPEN Ack lease=10s (T) sn=0x{sn:x}"),
            &[TransportMessage::from(open_ack(
                Duration::from_secs(10),
                sn,
            ))],
        );
    }
    let ack = || open_ack(Duration::from_secs(10), 0x55);
    let mut m = ack();
    m.ext_qos = Some(open::ext::QoS::new());
    s.transport(
        "OPEN Ack lease=10s sn=0x55 QoS",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_auth = Some(open::ext::Auth::new(zbuf(&[0xb1])));
    s.transport(
        "OPEN Ack lease=10s sn=0x55 Auth(zbuf b1)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_mlink = Some(open::ext::MultiLinkAck::new());
    s.transport(
        "OPEN Ack lease=10s sn=0x55 MultiLinkAck(0x04 unit)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_lowlatency = Some(open::ext::LowLatency::new());
    s.transport(
        "OPEN Ack lease=10s sn=0x55 LowLatency",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_compression = Some(open::ext::Compression::new());
    s.transport(
        "OPEN Ack lease=10s sn=0x55 Compression",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_remote_bound = Some(open::ext::RemoteBound::new(0));
    s.transport(
        "OPEN Ack lease=10s sn=0x55 RemoteBound(z64 0)",
        &[TransportMessage::from(m)],
    );
    let mut m = ack();
    m.ext_qos = Some(open::ext::QoS::new());
    m.ext_auth = Some(open::ext::Auth::new(zbuf(&[0xb1])));
    m.ext_mlink = Some(open::ext::MultiLinkAck::new());
    m.ext_lowlatency = Some(open::ext::LowLatency::new());
    m.ext_compression = Some(open::ext::Compression::new());
    m.ext_remote_bound = Some(open::ext::RemoteBound::new(0));
    s.transport(
        "OPEN Ack lease=10s sn=0x55 all exts: QoS, Auth b1, MultiLinkAck, LowLatency, Compression, RemoteBound 0",
        &[TransportMessage::from(m)],
    );
}

// ---------------------------------------------------------------------------------
// Transport: CLOSE, KEEP_ALIVE
// ---------------------------------------------------------------------------------

pub fn transport_close_keepalive(s: &mut Sheet) {
    s.section("CLOSE: S = whole session; reason byte");
    let reasons = [
        (0x00u8, "GENERIC"),
        (0x01, "UNSUPPORTED"),
        (0x02, "INVALID"),
        (0x03, "MAX_SESSIONS"),
        (0x04, "MAX_LINKS"),
        (0x05, "EXPIRED"),
        (0x06, "UNRESPONSIVE"),
        (0x07, "CONNECTION_TO_SELF"),
        (0x08, "unassigned 0x08"),
        (0xff, "unassigned 0xff"),
    ];
    for session in [true, false] {
        for (reason, rname) in reasons {
            let scope = if session {
                "session (S)"
            } else {
                "link only (no S)"
            };
            s.transport(
                &format!("CLOSE {scope} reason={rname}"),
                &[TransportMessage::from(Close { reason, session })],
            );
        }
    }

    s.section("KEEP_ALIVE");
    s.transport("KEEP_ALIVE alone", &[TransportMessage::from(KeepAlive)]);
    s.transport(
        "KEEP_ALIVE x2 in one batch",
        &[
            TransportMessage::from(KeepAlive),
            TransportMessage::from(KeepAlive),
        ],
    );
    s.transport(
        "KEEP_ALIVE then CLOSE session GENERIC in one batch",
        &[
            TransportMessage::from(KeepAlive),
            TransportMessage::from(Close {
                reason: 0,
                session: true,
            }),
        ],
    );
}

// ---------------------------------------------------------------------------------
// Transport: FRAME
// ---------------------------------------------------------------------------------

pub fn transport_frame(s: &mut Sheet) {
    let p1 = push_put("demo/a", b"1");
    let p2 = push_put("demo/b", b"2");
    s.section("FRAME: R = reliable; QoS ext 0x31 (z64, M) = priority, omitted for Data(5)");
    s.transport(
        "FRAME reliable sn=0 no messages",
        &[frame(Reliability::Reliable, 0, Priority::Data, &[])],
    );
    s.transport(
        "FRAME best-effort sn=0 no messages",
        &[frame(Reliability::BestEffort, 0, Priority::Data, &[])],
    );
    s.transport(
        "FRAME reliable sn=1 [PUSH 'demo/a' PUT '1']",
        &[frame(
            Reliability::Reliable,
            1,
            Priority::Data,
            &[p1.clone()],
        )],
    );
    s.transport(
        "FRAME best-effort sn=1 [PUSH 'demo/a' PUT '1']",
        &[frame(
            Reliability::BestEffort,
            1,
            Priority::Data,
            &[p1.clone()],
        )],
    );
    for sn in [127u32, 128, 0x0fff_ffff] {
        s.transport(
            &format!("FRAME reliable sn=0x{sn:x} [PUSH 'demo/a' PUT '1']"),
            &[frame(
                Reliability::Reliable,
                sn,
                Priority::Data,
                &[p1.clone()],
            )],
        );
    }
    for p in PRIORITIES {
        if p == Priority::Data {
            continue;
        }
        for rel in [Reliability::Reliable, Reliability::BestEffort] {
            let rname = if rel == Reliability::Reliable {
                "reliable"
            } else {
                "best-effort"
            };
            s.transport(
                &format!(
                    "FRAME {rname} sn=2 QoS prio={} [PUSH 'demo/a' PUT '1']",
                    prio_name(p)
                ),
                &[frame(rel, 2, p, &[p1.clone()])],
            );
        }
    }

    s.section("FRAME: several network messages, and several transport messages per batch");
    s.transport(
        "FRAME reliable sn=3 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2']",
        &[frame(
            Reliability::Reliable,
            3,
            Priority::Data,
            &[p1.clone(), p2.clone()],
        )],
    );
    let dsub = n_decl(declare(
        None,
        DeclareBody::DeclareSubscriber(declare::DeclareSubscriber {
            id: 1,
            wire_expr: key("demo/**"),
        }),
    ));
    let req = nm(NetworkBody::Request(request(4, key("demo/q"), query())));
    let resp = nm(NetworkBody::Response(response(
        4,
        key("demo/q"),
        reply(PushBody::Put(put(b"v"))),
    )));
    let rfin = nm(NetworkBody::ResponseFinal(response_final(4)));
    let intr = nm(NetworkBody::Interest(interest(
        9,
        InterestMode::CurrentFuture,
        InterestOptions::KEYEXPRS + InterestOptions::SUBSCRIBERS,
        None,
    )));
    let oam = nm(NetworkBody::OAM(net_oam(1, ZExtBody::ZBuf(zbuf(&[0xaa])))));
    s.transport(
        "FRAME reliable sn=4 [DECLARE D_SUBSCRIBER id=1 'demo/**', PUSH 'demo/a' PUT '1', REQUEST id=4 'demo/q', RESPONSE rid=4 'demo/q' REPLY PUT 'v', RESPONSE_FINAL rid=4, INTEREST id=9 CurrentFuture K+S, OAM id=1 zbuf aa]",
        &[frame(
            Reliability::Reliable,
            4,
            Priority::Data,
            &[dsub.clone(), p1.clone(), req, resp, rfin, intr, oam],
        )],
    );
    s.transport(
        "FRAME reliable sn=5 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2'] + KEEP_ALIVE",
        &[
            frame(
                Reliability::Reliable,
                5,
                Priority::Data,
                &[p1.clone(), p2.clone()],
            ),
            TransportMessage::from(KeepAlive),
        ],
    );
    s.transport(
        "KEEP_ALIVE + FRAME reliable sn=6 [PUSH 'demo/a' PUT '1']",
        &[
            TransportMessage::from(KeepAlive),
            frame(Reliability::Reliable, 6, Priority::Data, &[p1.clone()]),
        ],
    );
    s.transport(
        "FRAME reliable sn=7 QoS prio=Control(0) [DECLARE D_SUBSCRIBER id=1 'demo/**'] + FRAME reliable sn=7 [PUSH 'demo/a' PUT '1']",
        &[
            frame(Reliability::Reliable, 7, Priority::Control, &[dsub.clone()]),
            frame(Reliability::Reliable, 7, Priority::Data, &[p1.clone()]),
        ],
    );
    s.transport(
        "FRAME reliable sn=8 [PUSH 'demo/a' PUT '1'] + FRAME best-effort sn=8 [PUSH 'demo/b' PUT '2']",
        &[
            frame(Reliability::Reliable, 8, Priority::Data, &[p1.clone()]),
            frame(Reliability::BestEffort, 8, Priority::Data, &[p2.clone()]),
        ],
    );
    s.transport(
        "FRAME reliable sn=9 [PUSH 'demo/a' PUT '1'] + CLOSE session GENERIC",
        &[
            frame(Reliability::Reliable, 9, Priority::Data, &[p1.clone()]),
            TransportMessage::from(Close {
                reason: 0,
                session: true,
            }),
        ],
    );
    let big = encode_network(&push_put("demo/big", &[0x42; 40]));
    let mut f = fragment(Reliability::Reliable, false, 11, &big[20..]);
    f.ext_qos = fragment::ext::QoSType::DEFAULT;
    s.transport(
        "FRAME reliable sn=10 [PUSH 'demo/a' PUT '1'] + FRAGMENT reliable last sn=11 (tail of a PUSH)",
        &[
            frame(Reliability::Reliable, 10, Priority::Data, &[p1.clone()]),
            TransportMessage::from(f),
        ],
    );
}

// ---------------------------------------------------------------------------------
// Transport: FRAGMENT
// ---------------------------------------------------------------------------------

pub fn transport_fragment(s: &mut Sheet) {
    s.section("FRAGMENT: R reliable, M more; exts QoS 0x31, First 0x02, Drop 0x03; payload = rest of batch");
    let whole = encode_network(&push_put("demo/big", &[0x42; 40]));
    let (head, tail) = whole.split_at(20);
    for rel in [Reliability::Reliable, Reliability::BestEffort] {
        let rname = if rel == Reliability::Reliable {
            "reliable"
        } else {
            "best-effort"
        };
        s.transport(
            &format!("FRAGMENT {rname} more sn=20 payload=first 20 bytes of a PUSH"),
            &[TransportMessage::from(fragment(rel, true, 20, head))],
        );
        s.transport(
            &format!("FRAGMENT {rname} last sn=21 payload=rest of the PUSH"),
            &[TransportMessage::from(fragment(rel, false, 21, tail))],
        );
    }
    let mut f = fragment(Reliability::Reliable, true, 20, head);
    f.ext_first = Some(fragment::ext::First::new());
    s.transport(
        "FRAGMENT reliable more sn=20 First(0x02) payload=first 20 bytes of a PUSH",
        &[TransportMessage::from(f)],
    );
    let mut f = fragment(Reliability::Reliable, false, 22, &[]);
    f.ext_drop = Some(fragment::ext::Drop::new());
    s.transport(
        "FRAGMENT reliable last sn=22 Drop(0x03) empty payload",
        &[TransportMessage::from(f)],
    );
    let mut f = fragment(Reliability::BestEffort, true, 23, &[0x01, 0x02]);
    f.ext_first = Some(fragment::ext::First::new());
    f.ext_drop = Some(fragment::ext::Drop::new());
    s.transport(
        "FRAGMENT best-effort more sn=23 First+Drop payload=0102",
        &[TransportMessage::from(f)],
    );
    for p in [
        Priority::Control,
        Priority::RealTime,
        Priority::DataLow,
        Priority::Background,
    ] {
        let mut f = fragment(Reliability::Reliable, true, 24, &[0xaa, 0xbb]);
        f.ext_qos = fragment::ext::QoSType::new(p);
        f.ext_first = Some(fragment::ext::First::new());
        s.transport(
            &format!(
                "FRAGMENT reliable more sn=24 QoS prio={} First payload=aabb",
                prio_name(p)
            ),
            &[TransportMessage::from(f)],
        );
    }
    let mut f = fragment(Reliability::Reliable, false, 25, &[0xcc]);
    f.ext_qos = fragment::ext::QoSType::new(Priority::Background);
    f.ext_drop = Some(fragment::ext::Drop::new());
    s.transport(
        "FRAGMENT reliable last sn=25 QoS prio=Background(7) Drop payload=cc",
        &[TransportMessage::from(f)],
    );
    s.transport(
        "FRAGMENT reliable last sn=11 payload aa 04 04 (the payload runs to the end of the batch, 04 is not a KEEP_ALIVE here)",
        &[TransportMessage::from(fragment(Reliability::Reliable, false, 11, &[0xaa, 0x04, 0x04]))],
    );
    s.transport(
        "FRAGMENT reliable last sn=0x0fffffff empty payload",
        &[TransportMessage::from(fragment(
            Reliability::Reliable,
            false,
            0x0fff_ffff,
            &[],
        ))],
    );
}

// ---------------------------------------------------------------------------------
// Transport: JOIN
// ---------------------------------------------------------------------------------

pub fn transport_join(s: &mut Sheet) {
    s.section("JOIN (multicast): T lease in s, S when res != 0x0a or batch != 8192; exts QoS 0x51, Shm 0x52, Patch 0x27");
    for w in WHATAMIS {
        s.transport(
            &format!(
                "JOIN {} zid=0102 lease=10s (T) batch=8192 (no S) next_sn 0/0",
                whatami_name(w)
            ),
            &[TransportMessage::from(join(
                w,
                &[0x01, 0x02],
                Duration::from_secs(10),
            ))],
        );
    }
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_millis(2500));
    m.next_sn = PrioritySn {
        reliable: 1,
        best_effort: 2,
    };
    s.transport(
        "JOIN peer zid=0102 lease=2500ms (no T) next_sn rel=1 be=2",
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Peer, &ZID16, Duration::from_secs(10));
    m.next_sn = PrioritySn {
        reliable: 0x0fff_ffff,
        best_effort: 128,
    };
    s.transport(
        "JOIN peer 16-byte zid lease=10s next_sn rel=0x0fffffff be=128",
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    m.batch_size = 2048;
    s.transport(
        "JOIN peer zid=0102 lease=10s batch=2048 (S) res=0x0a",
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    m.resolution = Resolution::from(0x05);
    s.transport(
        &format!(
            "JOIN peer zid=0102 lease=10s batch=8192 {} (S)",
            res_name(0x05)
        ),
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    m.ext_patch = join::ext::PatchType::CURRENT;
    s.transport(
        "JOIN peer zid=0102 lease=10s Patch 1",
        &[TransportMessage::from(m)],
    );
    let per_prio: [PrioritySn; Priority::NUM] = core::array::from_fn(|i| PrioritySn {
        reliable: 10 * i as u32,
        best_effort: 10 * i as u32 + 1,
    });
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    m.ext_qos = Some(Box::new(per_prio));
    s.transport(
        "JOIN peer zid=0102 lease=10s QoS(0x51 zbuf, 8 x rel/be sn: prio i -> 10i/10i+1)",
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    m.ext_shm = Some(join::ext::Shm::new(zbuf(&[0x51, 0x52])));
    s.transport(
        "JOIN peer zid=0102 lease=10s Shm(0x52 zbuf 5152)",
        &[TransportMessage::from(m)],
    );
    let mut m = join(WhatAmI::Router, &ZID16, Duration::from_millis(3500));
    m.batch_size = 2048;
    m.next_sn = PrioritySn {
        reliable: 5,
        best_effort: 6,
    };
    m.ext_qos = Some(Box::new(per_prio));
    m.ext_shm = Some(join::ext::Shm::new(zbuf(&[0x51, 0x52])));
    m.ext_patch = join::ext::PatchType::CURRENT;
    s.transport(
        "JOIN router 16-byte zid lease=3500ms batch=2048 (S) next_sn 5/6 QoS(10i/10i+1) Shm 5152 Patch 1",
        &[TransportMessage::from(m)],
    );
}

// ---------------------------------------------------------------------------------
// Transport: OAM
// ---------------------------------------------------------------------------------

pub fn transport_oam(s: &mut Sheet) {
    s.section("transport OAM (0x00): header bits 5-6 = body ENC; QoS ext 0x31");
    let t_oam = |id: u16, body: ZExtBody, p: Priority| {
        TransportMessage::from(transport::TransportBody::OAM(transport::Oam {
            id,
            body,
            ext_qos: transport::oam::ext::QoSType::new(p),
        }))
    };
    s.transport(
        "transport OAM id=1 unit body",
        &[t_oam(1, ZExtBody::Unit, Priority::Data)],
    );
    s.transport(
        "transport OAM id=2 z64 body 300",
        &[t_oam(2, ZExtBody::Z64(300), Priority::Data)],
    );
    s.transport(
        "transport OAM id=3 zbuf body 010203",
        &[t_oam(3, ZExtBody::ZBuf(zbuf(&[1, 2, 3])), Priority::Data)],
    );
    s.transport(
        "transport OAM id=0xffff zbuf body aa QoS prio=Control(0)",
        &[t_oam(
            0xffff,
            ZExtBody::ZBuf(zbuf(&[0xaa])),
            Priority::Control,
        )],
    );
}

// ---------------------------------------------------------------------------------
// Network: PUSH
// ---------------------------------------------------------------------------------
