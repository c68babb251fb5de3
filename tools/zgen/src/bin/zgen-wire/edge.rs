//! Rows at the edge of the codec: byte strings Rust rejects (`err`) and byte strings
//! it accepts although it never writes them (`#accept` comments). Most are one small
//! edit of a checked encoding, so the edit is the whole reason for the verdict.

use super::make::*;
use zgen::encode_zint;

pub fn rejections(s: &mut Sheet) {
    s.section("REJECTED by the Rust decoder (each row verified)");

    // Baselines, all checked as ok rows above or by construction here.
    let push_hi = encode_network(&push_put("demo/a", b"hi")); // 3d 00 06 'demo/a' 01 02 68 69
    assert_eq!(hex(&push_hi), "3d 00 06 64 65 6d 6f 2f 61 01 02 68 69");
    let mut q = push(key("demo/a"), PushBody::Put(put(b"hi")));
    q.ext_qos = push_qos(Priority::DataHigh, CongestionControl::Block, false);
    let push_qos_bytes = encode_network(&n_push(q)); // bd 00 06 'demo/a' 21 0c 01 02 68 69
    assert_eq!(push_qos_bytes[9], 0x21);
    let frame_of = |net: &[u8]| {
        let mut v = encode_transport(&[frame(Reliability::Reliable, 5, Priority::Data, &[])]);
        v.extend_from_slice(net);
        v
    };

    s.note("extension M bit: a known id with M=1 is not the known extension, so it is an unknown mandatory one");
    let bad = with_byte(&push_qos_bytes, 9, 0x31);
    s.reject_vs(
        Layer::Network,
        "PUSH 'demo/a' with QoS ext header 0x31 (M set; must be 0x21) PUT 'hi'",
        &bad,
        &push_qos_bytes,
    );
    s.reject_vs(
        Layer::Transport,
        "FRAME reliable sn=5 [PUSH 'demo/a' with QoS ext header 0x31 (M set)]",
        &frame_of(&bad),
        &frame_of(&push_qos_bytes),
    );
    let mut nid = push(key("demo/a"), PushBody::Put(put(b"hi")));
    nid.ext_nodeid = push::ext::NodeIdType { node_id: 2 };
    let nid_bytes = encode_network(&n_push(nid));
    assert_eq!(nid_bytes[9], 0x33);
    s.note("(the reverse, NodeId sent as 0x23 without M, is skipped as unknown optional: see #accept rows)");

    s.note(
        "unknown mandatory extension 0x3e (id 0xE, M=1, ENC z64) value 07, in each message type",
    );
    let um = &EXT_UNKNOWN_MANDATORY;
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' + unknown mandatory ext 0x3e PUT 'hi'",
        &with_ext(&push_hi, 0, 9, um),
    );
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 [PUSH 'demo/a' + unknown mandatory ext 0x3e PUT 'hi']",
        &frame_of(&with_ext(&push_hi, 0, 9, um)),
    );
    let req = encode_network(&nm(NetworkBody::Request(request(
        1,
        key("demo/q"),
        query(),
    )))); // 3c 01 00 06 'demo/q' 03
    assert_eq!(hex(&req), "3c 01 00 06 64 65 6d 6f 2f 71 03");
    s.reject(
        Layer::Network,
        "REQUEST id=1 'demo/q' + unknown mandatory ext 0x3e QUERY",
        &with_ext(&req, 0, 10, um),
    );
    let resp = encode_network(&nm(NetworkBody::Response(response(
        1,
        key("demo/q"),
        reply(PushBody::Put(put(b"hi"))),
    ))));
    assert_eq!(hex(&resp), "3b 01 00 06 64 65 6d 6f 2f 71 04 01 02 68 69");
    s.reject(
        Layer::Network,
        "RESPONSE rid=1 'demo/q' + unknown mandatory ext 0x3e REPLY PUT 'hi'",
        &with_ext(&resp, 0, 10, um),
    );
    let fin = encode_network(&nm(NetworkBody::ResponseFinal(response_final(1))));
    s.reject(
        Layer::Network,
        "RESPONSE_FINAL rid=1 + unknown mandatory ext 0x3e",
        &with_ext(&fin, 0, 2, um),
    );
    let int = encode_network(&nm(NetworkBody::Interest(interest(
        2,
        InterestMode::Future,
        opts(0x03),
        None,
    ))));
    assert_eq!(hex(&int), "59 02 03");
    s.reject(
        Layer::Network,
        "INTEREST id=2 Future K+S + unknown mandatory ext 0x3e",
        &with_ext(&int, 0, 3, um),
    );
    let dfin = encode_network(&n_decl(declare(
        None,
        DeclareBody::DeclareFinal(declare::DeclareFinal),
    )));
    assert_eq!(hex(&dfin), "1e 1a");
    s.reject(
        Layer::Network,
        "DECLARE + unknown mandatory ext 0x3e D_FINAL",
        &with_ext(&dfin, 0, 1, um),
    );
    s.reject(
        Layer::Network,
        "DECLARE D_FINAL + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&dfin, 1, 2, um),
    );
    let dsub = encode_network(&n_decl(declare(
        None,
        DeclareBody::DeclareSubscriber(declare::DeclareSubscriber {
            id: 1,
            wire_expr: key("demo/**"),
        }),
    )));
    assert_eq!(hex(&dsub), "1e 22 01 00 07 64 65 6d 6f 2f 2a 2a");
    s.reject(
        Layer::Network,
        "DECLARE D_SUBSCRIBER id=1 'demo/**' + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&dsub, 1, 12, um),
    );
    let dkey = encode_network(&n_decl(declare(
        None,
        DeclareBody::DeclareKeyExpr(declare::DeclareKeyExpr {
            id: 1,
            wire_expr: key("demo"),
        }),
    )));
    assert_eq!(hex(&dkey), "1e 20 01 00 04 64 65 6d 6f");
    s.reject(
        Layer::Network,
        "DECLARE D_KEYEXPR id=1 'demo' + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&dkey, 1, 9, um),
    );
    let dtok = encode_network(&n_decl(declare(
        None,
        DeclareBody::DeclareToken(declare::DeclareToken {
            id: 3,
            wire_expr: key("demo/tok"),
        }),
    )));
    s.reject(
        Layer::Network,
        "DECLARE D_TOKEN id=3 'demo/tok' + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&dtok, 1, dtok.len(), um),
    );
    let dqbl = encode_network(&n_decl(declare(
        None,
        DeclareBody::DeclareQueryable(declare::DeclareQueryable {
            id: 2,
            wire_expr: key("demo/q"),
            ext_info: declare::queryable::ext::QueryableInfoType::DEFAULT,
        }),
    )));
    s.reject(
        Layer::Network,
        "DECLARE D_QUERYABLE id=2 'demo/q' + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&dqbl, 1, dqbl.len(), um),
    );
    let usub = encode_network(&n_decl(declare(
        None,
        DeclareBody::UndeclareSubscriber(declare::UndeclareSubscriber {
            id: 1,
            ext_wire_expr: declare::common::ext::WireExprType::null(),
        }),
    )));
    assert_eq!(hex(&usub), "1e 03 01");
    s.reject(
        Layer::Network,
        "DECLARE U_SUBSCRIBER id=1 + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&usub, 1, 3, um),
    );
    let ukey = encode_network(&n_decl(declare(
        None,
        DeclareBody::UndeclareKeyExpr(declare::UndeclareKeyExpr { id: 1 }),
    )));
    assert_eq!(hex(&ukey), "1e 01 01");
    s.reject(
        Layer::Network,
        "DECLARE U_KEYEXPR id=1 + unknown mandatory ext 0x3e on the declaration",
        &with_ext(&ukey, 1, 3, um),
    );
    let oam = encode_network(&nm(NetworkBody::OAM(net_oam(1, ZExtBody::Unit))));
    assert_eq!(hex(&oam), "1f 01");
    s.reject(
        Layer::Network,
        "network OAM id=1 unit + unknown mandatory ext 0x3e",
        &with_ext(&oam, 0, 2, um),
    );
    let mand = || vec![ZExtUnknown::new(0x0e, true, ZExtBody::Z64(7))];
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' PUT with unknown mandatory ext 0x3e 'hi'",
        &encode_network(&n_push(push(
            key("demo/a"),
            PushBody::Put(Put {
                ext_unknown: mand(),
                ..put(b"hi")
            }),
        ))),
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' DEL with unknown mandatory ext 0x3e",
        &encode_network(&n_push(push(
            key("demo/a"),
            PushBody::Del(Del {
                ext_unknown: mand(),
                ..Del::default()
            }),
        ))),
    );
    s.reject(
        Layer::Network,
        "REQUEST id=1 'demo/q' QUERY with unknown mandatory ext 0x3e",
        &encode_network(&nm(NetworkBody::Request(request(
            1,
            key("demo/q"),
            Query {
                ext_unknown: mand(),
                ..query()
            },
        )))),
    );
    s.reject(
        Layer::Network,
        "RESPONSE rid=1 'demo/q' REPLY with unknown mandatory ext 0x3e PUT 'hi'",
        &encode_network(&nm(NetworkBody::Response(response(
            1,
            key("demo/q"),
            ResponseBody::Reply(Reply {
                consolidation: ConsolidationMode::DEFAULT,
                ext_unknown: mand(),
                payload: PushBody::Put(put(b"hi")),
            }),
        )))),
    );
    s.reject(
        Layer::Network,
        "RESPONSE rid=1 'demo/q' ERR with unknown mandatory ext 0x3e 'bad'",
        &encode_network(&nm(NetworkBody::Response(response(
            1,
            key("demo/q"),
            ResponseBody::Err(zenoh::Err {
                ext_unknown: mand(),
                ..err_body(enc(0, None), b"bad")
            }),
        )))),
    );
    let isyn = encode_transport(&[TransportMessage::from(init_syn(
        WhatAmI::Client,
        &[0x01, 0x02],
    ))]);
    assert_eq!(hex(&isyn), "01 09 12 01 02");
    s.reject(
        Layer::Transport,
        "INIT Syn client zid=0102 + unknown mandatory ext 0x3e",
        &with_ext(&isyn, 0, 5, um),
    );
    let iack = encode_transport(&[TransportMessage::from(init_ack(
        WhatAmI::Router,
        &[0x0a, 0x0b],
        &[0xc0],
    ))]);
    s.reject(
        Layer::Transport,
        "INIT Ack router zid=0a0b cookie=c0 + unknown mandatory ext 0x3e",
        &with_ext(&iack, 0, iack.len(), um),
    );
    let osyn = encode_transport(&[TransportMessage::from(open_syn(
        Duration::from_secs(10),
        0x1234,
        &[0xc0],
    ))]);
    s.reject(
        Layer::Transport,
        "OPEN Syn lease=10s sn=0x1234 cookie=c0 + unknown mandatory ext 0x3e",
        &with_ext(&osyn, 0, osyn.len(), um),
    );
    let oack = encode_transport(&[TransportMessage::from(open_ack(
        Duration::from_secs(10),
        0x1234,
    ))]);
    s.reject(
        Layer::Transport,
        "OPEN Ack lease=10s sn=0x1234 + unknown mandatory ext 0x3e",
        &with_ext(&oack, 0, oack.len(), um),
    );
    s.reject(
        Layer::Transport,
        "CLOSE session GENERIC + unknown mandatory ext 0x3e",
        &with_ext(&unhex("23 00"), 0, 2, um),
    );
    s.reject(
        Layer::Transport,
        "KEEP_ALIVE + unknown mandatory ext 0x3e",
        &with_ext(&unhex("04"), 0, 1, um),
    );
    let fr = encode_transport(&[frame(
        Reliability::Reliable,
        5,
        Priority::Data,
        &[push_put("demo/a", b"hi")],
    )]);
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 + unknown mandatory ext 0x3e [PUSH 'demo/a' PUT 'hi']",
        &with_ext(&fr, 0, 2, um),
    );
    let fg = encode_transport(&[TransportMessage::from(fragment(
        Reliability::Reliable,
        false,
        11,
        &[0xaa],
    ))]);
    assert_eq!(hex(&fg), "26 0b aa");
    s.reject(
        Layer::Transport,
        "FRAGMENT reliable last sn=11 + unknown mandatory ext 0x3e payload aa",
        &with_ext(&fg, 0, 2, um),
    );
    let jn = encode_transport(&[TransportMessage::from(join(
        WhatAmI::Peer,
        &[0x01, 0x02],
        Duration::from_secs(10),
    ))]);
    s.reject(
        Layer::Transport,
        "JOIN peer zid=0102 lease=10s + unknown mandatory ext 0x3e",
        &with_ext(&jn, 0, jn.len(), um),
    );
    let toam = encode_transport(&[TransportMessage::from(transport::TransportBody::OAM(
        transport::Oam {
            id: 1,
            body: ZExtBody::Unit,
            ext_qos: transport::oam::ext::QoSType::DEFAULT,
        },
    ))]);
    assert_eq!(hex(&toam), "00 01");
    s.reject(
        Layer::Transport,
        "transport OAM id=1 unit + unknown mandatory ext 0x3e",
        &with_ext(&toam, 0, 2, um),
    );

    s.note("WhatAmI 2-bit code 0b11 is invalid");
    s.reject_vs(
        Layer::Transport,
        "INIT Syn whatami=0b11 zid=0102",
        &unhex("01 09 13 01 02"),
        &unhex("01 09 12 01 02"),
    );
    s.reject(
        Layer::Transport,
        "INIT Ack whatami=0b11 zid=0a0b cookie=c0",
        &with_byte(&iack, 2, iack[2] | 0x03),
    );
    s.reject(
        Layer::Transport,
        "JOIN whatami=0b11 zid=0102 lease=10s",
        &with_byte(&jn, 2, jn[2] | 0x03),
    );
    let hello = crate_hello();
    s.reject(
        Layer::Scouting,
        "HELLO whatami=0b11 zid=0a0b no locators",
        &with_byte(&hello, 2, hello[2] | 0x03),
    );

    s.note("extension ENC 0b11 is undefined: an error even when M=0");
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' + ext header 0x6e (ENC=0b11, M=0) PUT 'hi'",
        &with_ext(&push_hi, 0, 9, &[0x6e, 0x07]),
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' PUT + ext header 0x6e (ENC=0b11, M=0) 'hi'",
        &with_ext(&push_hi, 9, 10, &[0x6e, 0x07]),
    );
    s.reject(
        Layer::Transport,
        "INIT Syn client zid=0102 + ext header 0x6e (ENC=0b11, M=0)",
        &with_ext(&isyn, 0, 5, &[0x6e]),
    );
    s.reject(
        Layer::Transport,
        "KEEP_ALIVE + ext header 0x6e (ENC=0b11, M=0)",
        &with_ext(&unhex("04"), 0, 1, &[0x6e]),
    );
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 + ext header 0x6e (ENC=0b11, M=0) [PUSH 'demo/a' PUT 'hi']",
        &with_ext(&fr, 0, 2, &[0x6e]),
    );
    s.reject(
        Layer::Network,
        "DECLARE + ext header 0x6e (ENC=0b11, M=0) D_FINAL",
        &with_ext(&dfin, 0, 1, &[0x6e]),
    );

    s.note("unknown message ids");
    s.reject(
        Layer::Network,
        "network message id 0x18 (unknown)",
        &unhex("18 00"),
    );
    s.reject(
        Layer::Network,
        "network message id 0x05 (a transport id, not a network one)",
        &unhex("05 00"),
    );
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 [network id 0x18 (unknown)]",
        &frame_of(&unhex("18 00")),
    );
    s.reject(
        Layer::Transport,
        "transport message id 0x08 (unknown)",
        &unhex("08"),
    );
    s.reject(
        Layer::Transport,
        "transport message id 0x1f (unknown)",
        &unhex("1f 00"),
    );
    s.reject(
        Layer::Transport,
        "bare PUSH 'demo/a' PUT 'hi' with no FRAME around it",
        &push_hi,
    );
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 [] + transport id 0x08 (unknown)",
        &frame_of(&unhex("08")),
    );
    s.reject(
        Layer::Scouting,
        "scouting message id 0x03 (unknown)",
        &unhex("03 09 03"),
    );
    s.reject(
        Layer::Scouting,
        "scouting message id 0x00 (unknown)",
        &unhex("00 09 03"),
    );
    s.reject(
        Layer::Network,
        "DECLARE with declaration id 0x08 (unknown)",
        &unhex("1e 08 01"),
    );
    s.reject(
        Layer::Network,
        "DECLARE with declaration id 0x1b (unknown)",
        &unhex("1e 1b"),
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' with body id 0x03 (QUERY is not a PUSH body)",
        &unhex("3d 00 06 64 65 6d 6f 2f 61 03"),
    );
    s.reject(
        Layer::Network,
        "REQUEST id=1 'demo/q' with body id 0x01 (PUT is not a REQUEST body)",
        &unhex("3c 01 00 06 64 65 6d 6f 2f 71 01 02 68 69"),
    );
    s.reject(
        Layer::Network,
        "RESPONSE rid=1 'demo/q' with body id 0x01 (PUT directly, no REPLY)",
        &unhex("3b 01 00 06 64 65 6d 6f 2f 71 01 02 68 69"),
    );

    s.note("bounded integers: z16 and z32 fields one past their maximum");
    s.reject_vs(
        Layer::Network,
        "PUSH scope=65536 (z16 overflow: 80 80 04) no suffix PUT 'hi'",
        &unhex("1d 80 80 04 01 02 68 69"),
        &unhex("1d ff ff 03 01 02 68 69"),
    );
    s.reject_vs(
        Layer::Transport,
        "FRAME reliable sn=5 [PUSH scope=65536 (z16 overflow) PUT 'hi']",
        &frame_of(&unhex("1d 80 80 04 01 02 68 69")),
        &frame_of(&unhex("1d ff ff 03 01 02 68 69")),
    );
    s.reject_vs(
        Layer::Network,
        "DECLARE D_SUBSCRIBER id=1 scope=65536 (z16 overflow) no suffix",
        &unhex("1e 02 01 80 80 04"),
        &unhex("1e 02 01 ff ff 03"),
    );
    s.reject_vs(
        Layer::Network,
        "REQUEST id=2^32 (z32 overflow: 80 80 80 80 10) 'demo/q' QUERY",
        &unhex("3c 80 80 80 80 10 00 06 64 65 6d 6f 2f 71 03"),
        &unhex("3c ff ff ff ff 0f 00 06 64 65 6d 6f 2f 71 03"),
    );
    s.reject_vs(
        Layer::Network,
        "RESPONSE rid=2^32 (z32 overflow) 'demo/q' REPLY PUT 'hi'",
        &unhex("3b 80 80 80 80 10 00 06 64 65 6d 6f 2f 71 04 01 02 68 69"),
        &unhex("3b ff ff ff ff 0f 00 06 64 65 6d 6f 2f 71 04 01 02 68 69"),
    );
    s.reject_vs(
        Layer::Network,
        "RESPONSE_FINAL rid=2^32 (z32 overflow)",
        &unhex("1a 80 80 80 80 10"),
        &unhex("1a ff ff ff ff 0f"),
    );
    s.reject_vs(
        Layer::Network,
        "PUSH 'demo/a' PUT encoding zint 2^32 (z32 overflow)",
        &unhex("3d 00 06 64 65 6d 6f 2f 61 41 80 80 80 80 10 02 68 69"),
        &unhex("3d 00 06 64 65 6d 6f 2f 61 41 fe ff ff ff 0f 02 68 69"),
    );
    let schema = |n: usize| {
        let mut v = unhex("3d 00 06 64 65 6d 6f 2f 61 41 0b");
        v.extend_from_slice(&encode_zint(n as u64));
        v.extend(std::iter::repeat_n(0x61, n));
        v.extend_from_slice(&unhex("02 68 69"));
        v
    };
    s.reject_vs(
        Layer::Network,
        "PUSH 'demo/a' PUT enc id=5 schema of 256 x 'a' (z8 overflow) 'hi'",
        &schema(256),
        &schema(255),
    );

    s.note("bad values inside fields");
    let mut t = request(1, key("demo/q"), query());
    t.ext_target = request::ext::QueryTarget::AllComplete;
    let tb = encode_network(&nm(NetworkBody::Request(t)));
    assert_eq!(hex(&tb), "bc 01 00 06 64 65 6d 6f 2f 71 34 02 03");
    s.reject_vs(
        Layer::Network,
        "REQUEST id=1 'demo/q' target ext value 3 (only 0..2 exist) QUERY",
        &with_byte(&tb, 11, 0x03),
        &tb,
    );
    s.reject_vs(
        Layer::Network,
        "PUSH suffix 'de\\xff' (invalid UTF-8) PUT 'hi'",
        &unhex("3d 00 03 64 65 ff 01 02 68 69"),
        &unhex("3d 00 03 64 65 66 01 02 68 69"),
    );
    s.reject_vs(
        Layer::Network,
        "DECLARE U_SUBSCRIBER id=1 ext 0x5F suffix bytes ff (invalid UTF-8)",
        &unhex("1e 83 01 5f 03 01 00 ff"),
        &unhex("1e 83 01 5f 03 01 00 61"),
    );
    s.reject_vs(
        Layer::Transport,
        "INIT Syn client zid all zero (00)",
        &unhex("01 09 02 00"),
        &unhex("01 09 02 01"),
    );
    s.reject_vs(
        Layer::Scouting,
        "SCOUT v9 what=3 with zid all zero (0000)",
        &unhex("01 09 1b 00 00"),
        &unhex("01 09 1b 01 00"),
    );
    s.reject_vs(
        Layer::Scouting,
        "HELLO v9 router zid=0a0b locator 'tcp/10.0.0.1:7447#iface=eth0' (# config part)",
        &hello_with_locator(b"tcp/10.0.0.1:7447#iface=eth0"),
        &hello_with_locator(b"tcp/10.0.0.1:7447"),
    );
    s.reject_vs(
        Layer::Scouting,
        "HELLO v9 router zid=0a0b locator 'hello' (no protocol/address separator)",
        &hello_with_locator(b"hello"),
        &hello_with_locator(b"tcp/hello"),
    );
    s.reject_vs(
        Layer::Network,
        "PUSH 'demo/a' PUT SourceInfo zid all zero",
        &unhex("3d 00 06 64 65 6d 6f 2f 61 81 41 04 00 00 05 09 02 68 69"),
        &unhex("3d 00 06 64 65 6d 6f 2f 61 81 41 04 00 01 05 09 02 68 69"),
    );

    s.note("truncated messages");
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' PUT 'hi' cut after 5 bytes (inside the suffix)",
        &push_hi[..5],
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' PUT 'hi' cut before the body",
        &push_hi[..9],
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' PUT 'hi' cut inside the payload",
        &push_hi[..push_hi.len() - 1],
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' with Z set but no extension byte and no body",
        &with_byte(&push_hi[..9], 0, 0xbd),
    );
    s.reject(
        Layer::Network,
        "PUSH 'demo/a' ext QoS header with Z (more follow) but no next ext",
        &unhex("bd 00 06 64 65 6d 6f 2f 61 a1 0c"),
    );
    s.reject(
        Layer::Network,
        "REQUEST cut inside a 2-byte zint id",
        &unhex("1c 80"),
    );
    s.reject(
        Layer::Network,
        "D_SUBSCRIBER inside DECLARE cut before the key",
        &unhex("1e 22 01"),
    );
    s.reject(Layer::Network, "DECLARE with no declaration", &unhex("1e"));
    s.reject(Layer::Transport, "INIT Syn cut inside the zid", &isyn[..4]);
    s.reject(
        Layer::Transport,
        "INIT Syn (S) cut inside the 2-byte batch size",
        &unhex("41 09 12 01 02 0a 00"),
    );
    s.reject(
        Layer::Transport,
        "OPEN Syn cookie length 4 but 2 bytes",
        &unhex("42 0a b4 24 04 de ad"),
    );
    s.reject(
        Layer::Transport,
        "FRAME reliable sn=5 [PUSH 'demo/a' PUT 'hi' cut inside the payload]",
        &frame_of(&push_hi[..push_hi.len() - 1]),
    );
    s.reject(Layer::Transport, "FRAME with no sn", &unhex("25"));
    s.reject(Layer::Transport, "CLOSE with no reason byte", &unhex("23"));
    s.reject(
        Layer::Transport,
        "JOIN cut before next_sn",
        &jn[..jn.len() - 2],
    );
    s.reject_vs(
        Layer::Transport,
        "JOIN peer zid=0102 lease=10s QoS ext 0x51 holding 1 of the 8 priority sn pairs",
        &unhex("a7 09 11 01 02 0a 00 00 51 02 01 02"),
        &unhex("a7 09 11 01 02 0a 00 00 51 10 01 02 01 02 01 02 01 02 01 02 01 02 01 02 01 02"),
    );
    s.reject(Layer::Scouting, "SCOUT with no flags byte", &unhex("01 09"));
    s.reject(
        Layer::Scouting,
        "HELLO with 2 locators announced, 1 present",
        &unhex("22 09 10 0a 0b 02 05 74 63 70 2f 61"),
    );
}

pub fn crate_hello() -> Vec<u8> {
    zgen::encode_scouting(&ScoutingMessage::from(HelloProto {
        version: 0x09,
        whatami: WhatAmI::Router,
        zid: zid(&[0x0a, 0x0b]),
        locators: vec![],
    }))
}

pub fn hello_with_locator(loc: &[u8]) -> Vec<u8> {
    let mut v = unhex("22 09 10 0a 0b 01");
    v.push(loc.len() as u8);
    v.extend_from_slice(loc);
    v
}

// ---------------------------------------------------------------------------------
// Lenient decoding: Rust accepts these although it would never write them.
// ---------------------------------------------------------------------------------

pub fn accepted_oddities(s: &mut Sheet) {
    s.section("ACCEPTED by the Rust decoder but not canonical (comment rows: #accept LAYER NAME HEX REENCODED)");
    let push_hi = encode_network(&push_put("demo/a", b"hi"));
    let uo = &EXT_UNKNOWN_OPTIONAL;
    s.accept(
        Layer::Network,
        "PUSH 'demo/a' + unknown optional ext 0x2e (skipped) PUT 'hi'",
        &with_ext(&push_hi, 0, 9, uo),
    );
    s.accept(
        Layer::Network,
        "PUSH 'demo/a' NodeId sent as 0x23 (M clear: unknown optional, skipped) PUT 'hi'",
        &with_ext(&push_hi, 0, 9, &[0x23, 0x02]),
    );
    s.accept(Layer::Transport, "FRAME reliable sn=5 QoS ext sent as 0x21 (M clear: unknown optional, skipped) [PUSH 'demo/a' PUT 'hi']", &{
        let mut v = unhex("a5 05 21 01");
        v.extend_from_slice(&push_hi);
        v
    });
    s.accept(
        Layer::Transport,
        "FRAME reliable sn=5 + unknown optional ext 0x2e [PUSH 'demo/a' PUT 'hi']",
        &{
            let mut v = unhex("a5 05 2e 07");
            v.extend_from_slice(&push_hi);
            v
        },
    );
    s.accept(
        Layer::Transport,
        "INIT Syn client zid=0102 + unknown optional ext 0x2e",
        &unhex("81 09 12 01 02 2e 07"),
    );
    s.accept(
        Layer::Transport,
        "KEEP_ALIVE + unknown optional ext 0x2e",
        &unhex("84 2e 07"),
    );
    s.accept(
        Layer::Transport,
        "CLOSE session GENERIC + unknown optional zbuf ext 0x4e len 2",
        &unhex("a3 00 4e 02 aa bb"),
    );
    s.accept(
        Layer::Network,
        "DECLARE D_FINAL with Z and unknown optional ext 0x2e",
        &unhex("1e 9a 2e 07"),
    );
    s.accept(
        Layer::Scouting,
        "SCOUT v9 what=3 + unknown MANDATORY ext 0x3e (SCOUT ignores M)",
        &unhex("81 09 03 3e 07"),
    );
    s.accept(
        Layer::Scouting,
        "HELLO v9 router zid=0a0b + unknown MANDATORY ext 0x3e (HELLO ignores M)",
        &unhex("82 09 10 0a 0b 3e 07"),
    );
    s.accept(
        Layer::Scouting,
        "SCOUT v9 what=3 flags with zid_len nibble set but I clear (nibble ignored)",
        &unhex("01 09 f3"),
    );
    // Things Rust decodes and re-encodes unchanged although it would not produce
    // them itself: not rows (they are codec-valid), but worth a line for implementers.
    for (layer, text, why) in [
        (Layer::Scouting, "01 08 03", "SCOUT version 0x08"),
        (Layer::Transport, "01 08 12 01 02", "INIT Syn version 0x08"),
        (
            Layer::Network,
            "59 02 63",
            "INTEREST Future K+S with option bits N and M but no R",
        ),
        (
            Layer::Network,
            "bd 00 06 64 65 6d 6f 2f 61 21 25 01 02 68 69",
            "PUSH QoS ext value 0x25 (F bit, BlockFirst is unstable)",
        ),
    ] {
        assert!(
            round_trips(layer, &unhex(text)),
            "{why}: expected an unchanged round trip"
        );
        s.note(&format!(
            "round-trips unchanged in the codec ({}): {why}: {text}",
            layer.as_str()
        ));
    }
    s.accept(
        Layer::Transport,
        "INIT Syn (S) resolution byte 0xca: upper 2 bits masked off -> 0x0a",
        &unhex("41 09 12 01 02 ca ff ff"),
    );
    s.accept(
        Layer::Transport,
        "INIT Syn flags byte with bits 2-3 set (ignored)",
        &unhex("01 09 1e 01 02"),
    );
    s.accept(
        Layer::Network,
        "PUSH scope=5 N=1 with empty suffix (re-encoded without N)",
        &unhex("3d 05 00 01 02 68 69"),
    );
    s.accept(
        Layer::Network,
        "PUSH 'demo/a' non-minimal zints (scope 80 00, suffix length 86 00)",
        &unhex("3d 80 00 86 00 64 65 6d 6f 2f 61 01 02 68 69"),
    );
    s.accept(
        Layer::Transport,
        "FRAME reliable sn=5 as non-minimal zint 85 80 00 [PUSH 'demo/a' PUT 'hi']",
        &{
            let mut v = unhex("25 85 80 00");
            v.extend_from_slice(&push_hi);
            v
        },
    );
    s.accept(
        Layer::Transport,
        "FRAME sn=2^32 (zint 80 80 80 80 10): sn is not bounded, truncated to 0",
        &unhex("25 80 80 80 80 10"),
    );
    s.accept(
        Layer::Transport,
        "OPEN Syn sn=2^32+5: sn truncated to 5",
        &unhex("42 0a 85 80 80 80 10 01 c0"),
    );
    s.accept(
        Layer::Network,
        "DECLARE D_SUBSCRIBER id=2^32+1: entity id truncated to 1",
        &unhex("1e 22 81 80 80 80 10 00 07 64 65 6d 6f 2f 2a 2a"),
    );
    s.accept(
        Layer::Network,
        "DECLARE D_KEYEXPR id=65537: expr id truncated to 1",
        &unhex("1e 20 81 80 04 00 04 64 65 6d 6f"),
    );
    s.accept(
        Layer::Network,
        "DECLARE U_SUBSCRIBER ext 0x5F scope 65537: ext scope truncated to 1",
        &unhex("1e 83 01 5f 05 03 81 80 04 61"),
    );
    s.accept(
        Layer::Network,
        "INTEREST id=2^32+2: interest id truncated to 2",
        &unhex("59 82 80 80 80 10 03"),
    );
    s.accept(
        Layer::Network,
        "DECLARE I interest_id=2^32: truncated to 0, D_FINAL",
        &unhex("3e 80 80 80 80 10 1a"),
    );
    s.accept(
        Layer::Network,
        "network OAM id=65537: OAM id truncated to 1",
        &unhex("1f 81 80 04"),
    );
    s.accept(
        Layer::Network,
        "PUSH 'demo/a' PUT encoding id 0x10001 (zint 0x20002): id truncated to u16 1",
        &unhex("3d 00 06 64 65 6d 6f 2f 61 41 82 80 08 02 68 69"),
    );
    s.accept(
        Layer::Network,
        "PUSH 'demo/a' QoS ext value 0x105 (only the low byte is kept)",
        &unhex("bd 00 06 64 65 6d 6f 2f 61 21 85 02 01 02 68 69"),
    );
    s.accept(
        Layer::Network,
        "REQUEST id=1 'demo/q' budget ext 0 (NonZero: dropped)",
        &unhex("bc 01 00 06 64 65 6d 6f 2f 71 25 00 03"),
    );
    s.accept(
        Layer::Network,
        "REQUEST id=1 'demo/q' QUERY consolidation 7 (unknown -> Auto)",
        &unhex("3c 01 00 06 64 65 6d 6f 2f 71 23 07"),
    );
    s.accept(
        Layer::Network,
        "REQUEST id=1 'demo/q' QUERY C set with consolidation 0 (Auto, re-encoded without C)",
        &unhex("3c 01 00 06 64 65 6d 6f 2f 71 23 00"),
    );
    s.accept(
        Layer::Network,
        "INTEREST id=1 Final with Z and unknown optional ext 0x2e",
        &unhex("99 01 2e 07"),
    );
    s.accept(
        Layer::Network,
        "DECLARE U_QUERYABLE id=2 without the 0x5F ext (Rust writes it, reads it as optional)",
        &unhex("1e 05 02"),
    );
    s.accept(
        Layer::Network,
        "DECLARE U_SUBSCRIBER id=1 with explicit null 0x5F ext (re-encoded without it)",
        &unhex("1e 83 01 5f 02 00 00"),
    );
    s.accept(Layer::Network, "DECLARE D_QUERYABLE id=2 'demo/q' explicit info ext 0x21 00 (default, re-encoded without it)", &unhex("1e a4 02 00 06 64 65 6d 6f 2f 71 21 00"));
    s.accept(
        Layer::Network,
        "DECLARE D_KEYEXPR id=1 'demo' with M bit 0x40 set (no M flag: ignored)",
        &unhex("1e 60 01 00 04 64 65 6d 6f"),
    );
}

fn round_trips(layer: Layer, bytes: &[u8]) -> bool {
    match layer {
        Layer::Transport => zgen::decode_batch(bytes)
            .map(|m| encode_transport(&m) == bytes)
            .unwrap_or(false),
        Layer::Network => {
            matches!(zgen::decode_network(bytes), Some((m, 0)) if encode_network(&m) == bytes)
        }
        Layer::Scouting => {
            matches!(zgen::decode_scouting(bytes), Some((m, 0)) if zgen::encode_scouting(&m) == bytes)
        }
    }
}
