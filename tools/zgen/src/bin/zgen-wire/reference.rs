//! The message rows of protocol/vectors-wire.txt, rebuilt from the same field values
//! under the same names, so wire-gen.txt is a superset of that reference file.

use super::make::*;

pub fn reference_vectors(s: &mut Sheet) {
    s.section("reference vectors (same names and bytes as protocol/vectors-wire.txt)");
    let z2 = zid(&[0x01, 0x02]);
    s.scouting(
        "SCOUT v9 what=router|peer no zid",
        &ScoutingMessage::from(Scout {
            version: 0x09,
            what: WhatAmIMatcher::empty().router().peer(),
            zid: None,
        }),
    );
    s.scouting(
        "SCOUT v9 what=all zid=0102",
        &ScoutingMessage::from(Scout {
            version: 0x09,
            what: WhatAmIMatcher::empty().router().peer().client(),
            zid: Some(z2),
        }),
    );
    s.scouting(
        "HELLO v9 router zid=0102 [tcp/10.0.0.1:7447]",
        &ScoutingMessage::from(HelloProto {
            version: 0x09,
            whatami: WhatAmI::Router,
            zid: z2,
            locators: vec![Locator::try_from("tcp/10.0.0.1:7447".to_string()).unwrap()],
        }),
    );
    s.scouting(
        "HELLO v9 peer zid=0102 no locators",
        &ScoutingMessage::from(HelloProto {
            version: 0x09,
            whatami: WhatAmI::Peer,
            zid: z2,
            locators: vec![],
        }),
    );

    let mut m = init_syn(WhatAmI::Client, &[0x01, 0x02]);
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn client zid=0102 defaults, QoS, Patch=1",
        &[TransportMessage::from(m)],
    );
    let mut m = init_syn(WhatAmI::Client, &[0x01, 0x02]);
    m.batch_size = 2048;
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Syn client zid=0102 batch=2048 (pico-like), Patch=1, no QoS",
        &[TransportMessage::from(m)],
    );
    s.transport(
        "INIT Syn client minimal (no exts)",
        &[TransportMessage::from(init_syn(
            WhatAmI::Client,
            &[0x01, 0x02],
        ))],
    );
    let mut m = init_ack(WhatAmI::Router, &[0x0a, 0x0b], &[0xde, 0xad, 0xbe, 0xef]);
    m.batch_size = 2048;
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Ack router zid=0a0b batch=2048 cookie=deadbeef Patch=1",
        &[TransportMessage::from(m)],
    );
    s.transport(
        "OPEN Syn lease=10s sn=0x1234 cookie=deadbeef",
        &[TransportMessage::from(open_syn(
            Duration::from_secs(10),
            0x1234,
            &[0xde, 0xad, 0xbe, 0xef],
        ))],
    );
    s.transport(
        "OPEN Ack lease=2500ms sn=0",
        &[TransportMessage::from(open_ack(
            Duration::from_millis(2500),
            0,
        ))],
    );
    s.transport(
        "OPEN Ack lease=10s sn=0x0fffffff",
        &[TransportMessage::from(open_ack(
            Duration::from_secs(10),
            0x0fff_ffff,
        ))],
    );
    s.transport(
        "CLOSE session GENERIC",
        &[TransportMessage::from(Close {
            reason: 0,
            session: true,
        })],
    );
    s.transport(
        "CLOSE link-only EXPIRED",
        &[TransportMessage::from(Close {
            reason: 5,
            session: false,
        })],
    );
    s.transport("KEEP_ALIVE", &[TransportMessage::from(KeepAlive)]);

    let hi = put(b"hi");
    // The earlier generator built its wire expressions with `From<&str>` (sender
    // mapping) except where it spelled out the fields; keep those choices.
    let push_demo_example = push(
        we(0, "demo/example", Mapping::Receiver),
        PushBody::Put(hi.clone()),
    );
    s.network(
        "PUSH 'demo/example' PUT 'hi' (defaults)",
        &n_push(push_demo_example.clone()),
    );
    s.transport(
        "FRAME reliable sn=5 [PUSH 'demo/example' PUT 'hi']",
        &[frame(
            Reliability::Reliable,
            5,
            Priority::Data,
            &[n_push(push_demo_example.clone())],
        )],
    );
    s.transport(
        "FRAME best-effort sn=0 QoS prio=RealTime(1) [PUSH ...]",
        &[frame(
            Reliability::BestEffort,
            0,
            Priority::RealTime,
            &[n_push(push_demo_example.clone())],
        )],
    );
    let mut m = push(
        we(3, "/x", Mapping::Sender),
        PushBody::Put(Put {
            timestamp: Some(stamp(0x0000_0001_8000_0000, &[0x01])),
            encoding: enc(1, None),
            ext_attachment: Some(zenoh::put::ext::AttachmentType {
                buffer: zbuf(&[0x01, 0x02]),
            }),
            ..hi.clone()
        }),
    );
    m.ext_qos = push_qos(Priority::DataHigh, CongestionControl::Block, true);
    s.network(
        "PUSH scope=3 suffix='/x' M=sender QoS(prio4,block,express) PUT ts+enc!(1)+attachment(01 02) 'hi'",
        &n_push(m),
    );
    let mut m = push(
        we(7, "", Mapping::Receiver),
        PushBody::Del(Del {
            ext_sinfo: Some(zenoh::del::ext::SourceInfoType {
                id: gid(&[0x01, 0x02], 5),
                sn: 9,
            }),
            ..Del::default()
        }),
    );
    m.ext_nodeid = push::ext::NodeIdType { node_id: 2 };
    s.network(
        "PUSH scope=7 (no suffix, receiver mapping) nodeid=2 DEL with SourceInfo(zid 0102, eid 5, sn 9)",
        &n_push(m),
    );

    use declare::{
        common::ext::WireExprType, queryable::ext::QueryableInfoType, DeclareFinal, DeclareKeyExpr,
        DeclareQueryable, DeclareSubscriber, DeclareToken, UndeclareQueryable, UndeclareSubscriber,
        UndeclareToken,
    };
    let dq = |iid: Option<u32>, qos: declare::ext::QoSType, body: DeclareBody| {
        let mut m = declare(iid, body);
        m.ext_qos = qos;
        n_decl(m)
    };
    let dflt = declare::ext::QoSType::DEFAULT;
    let decl_q = declare::ext::QoSType::DECLARE;
    let snd = |k: &str| we(0, k, Mapping::Sender);
    s.network(
        "DECLARE D_KEYEXPR id=1 'demo' (default QoS)",
        &dq(
            None,
            dflt,
            DeclareBody::DeclareKeyExpr(DeclareKeyExpr {
                id: 1,
                wire_expr: key("demo"),
            }),
        ),
    );
    s.network(
        "DECLARE(QoS=DECLARE) D_SUBSCRIBER id=1 'demo/**'",
        &dq(
            None,
            decl_q,
            DeclareBody::DeclareSubscriber(DeclareSubscriber {
                id: 1,
                wire_expr: snd("demo/**"),
            }),
        ),
    );
    s.network(
        "DECLARE D_SUBSCRIBER id=1 'demo/**' (default QoS, as a C client might send)",
        &dq(
            None,
            dflt,
            DeclareBody::DeclareSubscriber(DeclareSubscriber {
                id: 1,
                wire_expr: snd("demo/**"),
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=1 (null ext)",
        &dq(
            None,
            dflt,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=1 ext wire 'demo/**'",
        &dq(
            None,
            dflt,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType {
                    wire_expr: snd("demo/**"),
                },
            }),
        ),
    );
    s.network(
        "DECLARE D_QUERYABLE id=2 'demo/q' complete=1 distance=0",
        &dq(
            None,
            dflt,
            DeclareBody::DeclareQueryable(DeclareQueryable {
                id: 2,
                wire_expr: snd("demo/q"),
                ext_info: QueryableInfoType {
                    complete: true,
                    distance: 0,
                },
            }),
        ),
    );
    s.network(
        "DECLARE D_QUERYABLE id=2 'demo/q' complete=0 distance=1",
        &dq(
            None,
            dflt,
            DeclareBody::DeclareQueryable(DeclareQueryable {
                id: 2,
                wire_expr: snd("demo/q"),
                ext_info: QueryableInfoType {
                    complete: false,
                    distance: 1,
                },
            }),
        ),
    );
    s.network(
        "DECLARE U_QUERYABLE id=2 (null ext)",
        &dq(
            None,
            dflt,
            DeclareBody::UndeclareQueryable(UndeclareQueryable {
                id: 2,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE D_TOKEN id=3 'demo/tok'",
        &dq(
            None,
            dflt,
            DeclareBody::DeclareToken(DeclareToken {
                id: 3,
                wire_expr: snd("demo/tok"),
            }),
        ),
    );
    s.network(
        "DECLARE U_TOKEN id=3 (null ext)",
        &dq(
            None,
            dflt,
            DeclareBody::UndeclareToken(UndeclareToken {
                id: 3,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE(I, interest_id=7, QoS=DECLARE) D_SUBSCRIBER id=0 'demo/a'",
        &dq(
            Some(7),
            decl_q,
            DeclareBody::DeclareSubscriber(DeclareSubscriber {
                id: 0,
                wire_expr: snd("demo/a"),
            }),
        ),
    );
    s.network(
        "DECLARE(I, interest_id=7, QoS=DECLARE) D_FINAL",
        &dq(Some(7), decl_q, DeclareBody::DeclareFinal(DeclareFinal)),
    );
    s.network(
        "DECLARE(I, interest_id=0) D_FINAL default QoS",
        &dq(Some(0), dflt, DeclareBody::DeclareFinal(DeclareFinal)),
    );

    let ni = |id: u32,
              mode: InterestMode,
              o: InterestOptions,
              w: Option<WireExpr<'static>>,
              q: interest::ext::QoSType| {
        let mut m = interest(id, mode, o, w);
        m.ext_qos = q;
        nm(NetworkBody::Interest(m))
    };
    s.network(
        "INTEREST id=1 CurrentFuture K+S restricted 'demo/**'",
        &ni(
            1,
            InterestMode::CurrentFuture,
            opts(0x03),
            Some(snd("demo/**")),
            interest::ext::QoSType::DEFAULT,
        ),
    );
    s.network(
        "INTEREST id=2 Future K+S+Q+T unrestricted (QoS=INTEREST)",
        &ni(
            2,
            InterestMode::Future,
            InterestOptions::ALL,
            None,
            interest::ext::QoSType::INTEREST,
        ),
    );
    s.network(
        "INTEREST id=3 Current T restricted 'group/**'",
        &ni(
            3,
            InterestMode::Current,
            opts(0x08),
            Some(snd("group/**")),
            interest::ext::QoSType::DEFAULT,
        ),
    );
    s.network(
        "INTEREST id=1 Final",
        &ni(
            1,
            InterestMode::Final,
            InterestOptions::empty(),
            None,
            interest::ext::QoSType::DEFAULT,
        ),
    );

    let mut m = request(
        1,
        snd("demo/q"),
        Query {
            consolidation: ConsolidationMode::None,
            parameters: "a=1".to_string(),
            ..query()
        },
    );
    m.ext_qos = request::ext::QoSType::REQUEST;
    m.ext_target = request::ext::QueryTarget::All;
    m.ext_timeout = Some(Duration::from_millis(10000));
    s.network(
        "REQUEST id=1 'demo/q' QoS=REQUEST(0x0d) target=All timeout=10000ms QUERY consolidation=None params 'a=1'",
        &nm(NetworkBody::Request(m)),
    );
    let mut m = request(
        2,
        snd("demo/q"),
        Query {
            ext_body: Some(zenoh::query::ext::QueryBodyType {
                encoding: enc(0, None),
                payload: zbuf(b"xy"),
            }),
            ..query()
        },
    );
    m.ext_budget = NonZeroU32::new(3);
    s.network(
        "REQUEST id=2 'demo/q' budget=3 QUERY (auto) with body ext enc0 'xy'",
        &nm(NetworkBody::Request(m)),
    );
    let mut m = response(1, snd("demo/q"), reply(PushBody::Put(hi.clone())));
    m.ext_respid = Some(response::ext::ResponderIdType { zid: z2, eid: 4 });
    s.network(
        "RESPONSE rid=1 'demo/q' responder(zid 0102, eid 4) REPLY PUT 'hi'",
        &nm(NetworkBody::Response(m)),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY PUT 'hi' (no exts)",
        &nm(NetworkBody::Response(response(
            1,
            snd("demo/q"),
            reply(PushBody::Put(hi.clone())),
        ))),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' ERR enc=1 'bad'",
        &nm(NetworkBody::Response(response(
            1,
            snd("demo/q"),
            ResponseBody::Err(err_body(enc(1, None), b"bad")),
        ))),
    );
    s.network(
        "RESPONSE_FINAL rid=1",
        &nm(NetworkBody::ResponseFinal(response_final(1))),
    );
    let mut m = response_final(1);
    m.ext_qos = response::ext::QoSType::REQUEST;
    s.network(
        "RESPONSE_FINAL rid=1 QoS(0x0d)",
        &nm(NetworkBody::ResponseFinal(m)),
    );

    let mut f = fragment(Reliability::Reliable, true, 10, &[0x1d, 0x00]);
    f.ext_first = Some(fragment::ext::First::new());
    s.transport(
        "FRAGMENT reliable more sn=10 First-ext payload(1d 00...)",
        &[TransportMessage::from(f)],
    );
    s.transport(
        "FRAGMENT reliable last sn=11 payload(aa)",
        &[TransportMessage::from(fragment(
            Reliability::Reliable,
            false,
            11,
            &[0xaa],
        ))],
    );
    let mut j = join(WhatAmI::Peer, &[0x01, 0x02], Duration::from_secs(10));
    j.next_sn = PrioritySn {
        reliable: 1,
        best_effort: 2,
    };
    j.ext_patch = join::ext::PatchType::CURRENT;
    s.transport(
        "JOIN peer zid=0102 batch=8192 lease=10s next_sn rel=1 be=2 Patch=1",
        &[TransportMessage::from(j)],
    );

    let dsub = n_decl(declare(
        None,
        DeclareBody::DeclareSubscriber(DeclareSubscriber {
            id: 1,
            wire_expr: key("demo/**"),
        }),
    ));
    s.transport(
        "FRAME reliable sn=0x1234 [DECLARE D_SUBSCRIBER id=1 'demo/**' (M=0)]",
        &[frame(
            Reliability::Reliable,
            0x1234,
            Priority::Data,
            &[dsub],
        )],
    );
    let pa = n_push(push(key("demo/a"), PushBody::Put(put(&[0x31]))));
    let pb = n_push(push(key("demo/b"), PushBody::Put(put(&[0x32]))));
    s.transport(
        "FRAME reliable sn=0x1235 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2']",
        &[frame(
            Reliability::Reliable,
            0x1235,
            Priority::Data,
            &[pa.clone(), pb.clone()],
        )],
    );
    s.transport(
        "FRAME reliable sn=0x1235 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2'] +KEEP_ALIVE appended in same batch (the tcp batch, without its 1c 00 prefix)",
        &[
            frame(Reliability::Reliable, 0x1235, Priority::Data, &[pa, pb]),
            TransportMessage::from(KeepAlive),
        ],
    );
    let mut m = init_ack(WhatAmI::Router, &ZID16, &[0xc0, 0x0c, 0x1e]);
    m.batch_size = 2048;
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Ack router 16-byte zid batch=2048 cookie=c00c1e Patch=1",
        &[TransportMessage::from(m)],
    );
    let mut m = init_ack(WhatAmI::Router, &ZID16, &[0xc0, 0x0c, 0x1e]);
    m.ext_qos = Some(init::ext::QoS::new());
    m.ext_patch = init::ext::PatchType::CURRENT;
    s.transport(
        "INIT Ack router 16-byte zid batch=65535 (no S) QoS Patch=1",
        &[TransportMessage::from(m)],
    );
    let mut m = net_oam(1, ZExtBody::ZBuf(zbuf(&[0xaa, 0xbb])));
    m.ext_qos = network::oam::ext::QoSType::OAM;
    s.network(
        "network OAM id=1 (linkstate) zbuf aabb QoS=OAM",
        &nm(NetworkBody::OAM(m)),
    );
}

// ---------------------------------------------------------------------------------
// Rejections: byte strings the Rust decoder refuses. Each is derived from a
// checked `ok` encoding by a small, named edit so the reason is the edit alone.
// ---------------------------------------------------------------------------------
