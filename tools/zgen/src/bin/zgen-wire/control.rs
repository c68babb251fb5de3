//! Network vectors for the control path: INTEREST (modes, options, restriction),
//! DECLARE (every declaration kind, with and without I) and network OAM.

use super::make::*;

pub fn network_interest(s: &mut Sheet) {
    let nint = |m: Interest| nm(NetworkBody::Interest(m));
    s.section("INTEREST: mode in header bits 5-6; options |A|M|N|R|T|Q|S|K| then WireExpr if R; exts QoS 0x21, Timestamp 0x42, NodeId 0x33");
    s.network(
        "INTEREST id=8 Final",
        &nint(interest(
            8,
            InterestMode::Final,
            InterestOptions::empty(),
            None,
        )),
    );
    s.network(
        "INTEREST id=0xffffffff Final",
        &nint(interest(
            u32::MAX,
            InterestMode::Final,
            InterestOptions::empty(),
            None,
        )),
    );
    for mask in 0u8..16 {
        s.network(
            &format!(
                "INTEREST id=2 CurrentFuture {} unrestricted",
                opts_name(mask)
            ),
            &nint(interest(2, InterestMode::CurrentFuture, opts(mask), None)),
        );
    }
    for mask in [0x81u8, 0x83, 0x85, 0x8f] {
        s.network(
            &format!(
                "INTEREST id=2 CurrentFuture {} unrestricted",
                opts_name(mask)
            ),
            &nint(interest(2, InterestMode::CurrentFuture, opts(mask), None)),
        );
    }
    for mode in [InterestMode::Current, InterestMode::Future] {
        for mask in [0x01u8, 0x03, 0x05, 0x08, 0x09, 0x0f, 0x83] {
            s.network(
                &format!(
                    "INTEREST id=3 {} {} unrestricted",
                    mode_name(mode),
                    opts_name(mask)
                ),
                &nint(interest(3, mode, opts(mask), None)),
            );
        }
    }
    s.section("INTEREST restricted (R): suffix only, scope only, scope+suffix, each mapping");
    for mode in [
        InterestMode::Current,
        InterestMode::Future,
        InterestMode::CurrentFuture,
    ] {
        for mask in [0x03u8, 0x05, 0x09, 0x0f, 0x83] {
            s.network(
                &format!(
                    "INTEREST id=4 {} {} restricted 'demo/**' M=receiver",
                    mode_name(mode),
                    opts_name(mask)
                ),
                &nint(interest(4, mode, opts(mask), Some(key("demo/**")))),
            );
        }
    }
    for m in [Mapping::Receiver, Mapping::Sender] {
        s.network(
            &format!(
                "INTEREST id=5 CurrentFuture K+S restricted 'demo/**' M={}",
                mapping_name(m)
            ),
            &nint(interest(
                5,
                InterestMode::CurrentFuture,
                opts(0x03),
                Some(we(0, "demo/**", m)),
            )),
        );
        s.network(
            &format!(
                "INTEREST id=5 CurrentFuture K+S restricted scope=3 no suffix M={}",
                mapping_name(m)
            ),
            &nint(interest(
                5,
                InterestMode::CurrentFuture,
                opts(0x03),
                Some(we(3, "", m)),
            )),
        );
        s.network(
            &format!(
                "INTEREST id=5 CurrentFuture K+S restricted scope=3 '/**' M={}",
                mapping_name(m)
            ),
            &nint(interest(
                5,
                InterestMode::CurrentFuture,
                opts(0x03),
                Some(we(3, "/**", m)),
            )),
        );
    }
    s.network(
        "INTEREST id=6 Current K+T restricted 'group/**' (liveliness get)",
        &nint(interest(
            6,
            InterestMode::Current,
            opts(0x09),
            Some(key("group/**")),
        )),
    );
    s.section("INTEREST extensions");
    let mut m = interest(7, InterestMode::CurrentFuture, opts(0x0f), None);
    m.ext_qos = interest::ext::QoSType::INTEREST;
    s.network(
        "INTEREST id=7 CurrentFuture K+S+Q+T QoS=0x08 (Control, block)",
        &nint(m),
    );
    let mut m = interest(
        7,
        InterestMode::CurrentFuture,
        opts(0x03),
        Some(key("demo/**")),
    );
    m.ext_qos = interest::ext::QoSType::INTEREST;
    s.network(
        "INTEREST id=7 CurrentFuture K+S restricted 'demo/**' QoS=0x08 (ext after the key)",
        &nint(m),
    );
    let mut m = interest(7, InterestMode::Final, InterestOptions::empty(), None);
    m.ext_qos = interest::ext::QoSType::INTEREST;
    s.network("INTEREST id=7 Final QoS=0x08", &nint(m));
    let mut m = interest(7, InterestMode::Future, opts(0x02), None);
    m.ext_tstamp = Some(interest::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "INTEREST id=7 Future S Timestamp(0x0000000180000000, 01)",
        &nint(m),
    );
    let mut m = interest(7, InterestMode::Future, opts(0x02), None);
    m.ext_nodeid = interest::ext::NodeIdType { node_id: 3 };
    s.network("INTEREST id=7 Future S NodeId=3", &nint(m));
    let mut m = interest(
        7,
        InterestMode::CurrentFuture,
        opts(0x0f),
        Some(we(3, "/**", Mapping::Sender)),
    );
    m.ext_qos = interest::ext::QoSType::INTEREST;
    m.ext_tstamp = Some(interest::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    m.ext_nodeid = interest::ext::NodeIdType { node_id: 3 };
    s.network(
        "INTEREST id=7 CurrentFuture K+S+Q+T restricted scope=3 '/**' M=sender QoS=0x08 Timestamp NodeId=3",
        &nint(m),
    );
}

// ---------------------------------------------------------------------------------
// Network: DECLARE
// ---------------------------------------------------------------------------------

pub fn network_declare(s: &mut Sheet) {
    use declare::{
        common::ext::WireExprType, queryable::ext::QueryableInfoType, DeclareFinal, DeclareKeyExpr,
        DeclareQueryable, DeclareSubscriber, DeclareToken, UndeclareKeyExpr, UndeclareQueryable,
        UndeclareSubscriber, UndeclareToken,
    };
    let d = |iid: Option<u32>, body: DeclareBody| n_decl(declare(iid, body));

    s.section("DECLARE D_KEYEXPR / U_KEYEXPR (id z16, no M flag)");
    s.network(
        "DECLARE D_KEYEXPR id=1 'demo'",
        &d(
            None,
            DeclareBody::DeclareKeyExpr(DeclareKeyExpr {
                id: 1,
                wire_expr: key("demo"),
            }),
        ),
    );
    s.network(
        "DECLARE D_KEYEXPR id=2 scope=1 '/sub'",
        &d(
            None,
            DeclareBody::DeclareKeyExpr(DeclareKeyExpr {
                id: 2,
                wire_expr: we(1, "/sub", Mapping::Receiver),
            }),
        ),
    );
    s.network(
        "DECLARE D_KEYEXPR id=65535 'demo/long'",
        &d(
            None,
            DeclareBody::DeclareKeyExpr(DeclareKeyExpr {
                id: 65535,
                wire_expr: key("demo/long"),
            }),
        ),
    );
    s.network(
        "DECLARE U_KEYEXPR id=1",
        &d(
            None,
            DeclareBody::UndeclareKeyExpr(UndeclareKeyExpr { id: 1 }),
        ),
    );
    s.network(
        "DECLARE U_KEYEXPR id=300",
        &d(
            None,
            DeclareBody::UndeclareKeyExpr(UndeclareKeyExpr { id: 300 }),
        ),
    );

    s.section("DECLARE D_SUBSCRIBER / U_SUBSCRIBER (U_SUBSCRIBER writes 0x5F only when non-null)");
    for m in [Mapping::Receiver, Mapping::Sender] {
        s.network(
            &format!("DECLARE D_SUBSCRIBER id=1 'demo/**' M={}", mapping_name(m)),
            &d(
                None,
                DeclareBody::DeclareSubscriber(DeclareSubscriber {
                    id: 1,
                    wire_expr: we(0, "demo/**", m),
                }),
            ),
        );
        s.network(
            &format!(
                "DECLARE D_SUBSCRIBER id=2 scope=1 '/**' M={}",
                mapping_name(m)
            ),
            &d(
                None,
                DeclareBody::DeclareSubscriber(DeclareSubscriber {
                    id: 2,
                    wire_expr: we(1, "/**", m),
                }),
            ),
        );
        s.network(
            &format!(
                "DECLARE D_SUBSCRIBER id=3 scope=1 no suffix M={}",
                mapping_name(m)
            ),
            &d(
                None,
                DeclareBody::DeclareSubscriber(DeclareSubscriber {
                    id: 3,
                    wire_expr: we(1, "", m),
                }),
            ),
        );
    }
    s.network(
        "DECLARE D_SUBSCRIBER id=0xffffffff 'demo/**'",
        &d(
            None,
            DeclareBody::DeclareSubscriber(DeclareSubscriber {
                id: u32::MAX,
                wire_expr: key("demo/**"),
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=1 null ext (omitted)",
        &d(
            None,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=1 ext 0x5F 'demo/**' M=receiver",
        &d(
            None,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType {
                    wire_expr: key("demo/**"),
                },
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=1 ext 0x5F scope=1 '/**' M=sender",
        &d(
            None,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType {
                    wire_expr: we(1, "/**", Mapping::Sender),
                },
            }),
        ),
    );
    s.network(
        "DECLARE U_SUBSCRIBER id=0 ext 0x5F scope=1 no suffix M=receiver",
        &d(
            None,
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 0,
                ext_wire_expr: WireExprType {
                    wire_expr: we(1, "", Mapping::Receiver),
                },
            }),
        ),
    );

    s.section("DECLARE D_QUERYABLE (info ext 0x21: bit0 complete, distance << 8; omitted when 0) / U_QUERYABLE (0x5F always written)");
    for (complete, distance) in [
        (false, 0u16),
        (true, 0),
        (false, 1),
        (true, 3),
        (false, 65535),
    ] {
        let tail = if !complete && distance == 0 {
            " (default: no ext)"
        } else {
            ""
        };
        s.network(
            &format!("DECLARE D_QUERYABLE id=2 'demo/q' M=receiver complete={} distance={distance}{tail}", complete as u8),
            &d(None, DeclareBody::DeclareQueryable(DeclareQueryable {
                id: 2,
                wire_expr: key("demo/q"),
                ext_info: QueryableInfoType { complete, distance },
            })),
        );
    }
    s.network(
        "DECLARE D_QUERYABLE id=2 scope=1 '/q' M=sender complete=1 distance=0",
        &d(
            None,
            DeclareBody::DeclareQueryable(DeclareQueryable {
                id: 2,
                wire_expr: we(1, "/q", Mapping::Sender),
                ext_info: QueryableInfoType {
                    complete: true,
                    distance: 0,
                },
            }),
        ),
    );
    s.network(
        "DECLARE U_QUERYABLE id=2 null ext (still written)",
        &d(
            None,
            DeclareBody::UndeclareQueryable(UndeclareQueryable {
                id: 2,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE U_QUERYABLE id=2 ext 0x5F 'demo/q' M=sender",
        &d(
            None,
            DeclareBody::UndeclareQueryable(UndeclareQueryable {
                id: 2,
                ext_wire_expr: WireExprType {
                    wire_expr: we(0, "demo/q", Mapping::Sender),
                },
            }),
        ),
    );

    s.section("DECLARE D_TOKEN / U_TOKEN (0x5F always written)");
    for m in [Mapping::Receiver, Mapping::Sender] {
        s.network(
            &format!("DECLARE D_TOKEN id=3 'demo/tok' M={}", mapping_name(m)),
            &d(
                None,
                DeclareBody::DeclareToken(DeclareToken {
                    id: 3,
                    wire_expr: we(0, "demo/tok", m),
                }),
            ),
        );
    }
    s.network(
        "DECLARE D_TOKEN id=3 scope=1 '/tok'",
        &d(
            None,
            DeclareBody::DeclareToken(DeclareToken {
                id: 3,
                wire_expr: we(1, "/tok", Mapping::Receiver),
            }),
        ),
    );
    s.network(
        "DECLARE U_TOKEN id=3 null ext (still written)",
        &d(
            None,
            DeclareBody::UndeclareToken(UndeclareToken {
                id: 3,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );
    s.network(
        "DECLARE U_TOKEN id=0 ext 0x5F 'demo/tok' M=receiver (router style: undeclare by key)",
        &d(
            None,
            DeclareBody::UndeclareToken(UndeclareToken {
                id: 0,
                ext_wire_expr: WireExprType {
                    wire_expr: key("demo/tok"),
                },
            }),
        ),
    );

    s.section("DECLARE with I (interest_id z32) and D_FINAL");
    s.network(
        "DECLARE D_FINAL (no I)",
        &d(None, DeclareBody::DeclareFinal(DeclareFinal)),
    );
    for iid in [0u32, 7, 128, u32::MAX] {
        s.network(
            &format!("DECLARE I interest_id={iid} D_FINAL"),
            &d(Some(iid), DeclareBody::DeclareFinal(DeclareFinal)),
        );
    }
    s.network(
        "DECLARE I interest_id=7 D_SUBSCRIBER id=0 'demo/a'",
        &d(
            Some(7),
            DeclareBody::DeclareSubscriber(DeclareSubscriber {
                id: 0,
                wire_expr: key("demo/a"),
            }),
        ),
    );
    s.network(
        "DECLARE I interest_id=7 D_QUERYABLE id=0 'demo/q' complete=1",
        &d(
            Some(7),
            DeclareBody::DeclareQueryable(DeclareQueryable {
                id: 0,
                wire_expr: key("demo/q"),
                ext_info: QueryableInfoType {
                    complete: true,
                    distance: 0,
                },
            }),
        ),
    );
    s.network(
        "DECLARE I interest_id=7 D_TOKEN id=0 'demo/tok'",
        &d(
            Some(7),
            DeclareBody::DeclareToken(DeclareToken {
                id: 0,
                wire_expr: key("demo/tok"),
            }),
        ),
    );
    s.network(
        "DECLARE I interest_id=7 D_KEYEXPR id=1 'demo'",
        &d(
            Some(7),
            DeclareBody::DeclareKeyExpr(DeclareKeyExpr {
                id: 1,
                wire_expr: key("demo"),
            }),
        ),
    );
    s.network(
        "DECLARE I interest_id=0 U_SUBSCRIBER id=1 null ext",
        &d(
            Some(0),
            DeclareBody::UndeclareSubscriber(UndeclareSubscriber {
                id: 1,
                ext_wire_expr: WireExprType::null(),
            }),
        ),
    );

    s.section("DECLARE extensions: QoS 0x21, Timestamp 0x42, NodeId 0x33");
    let mut m = declare(
        None,
        DeclareBody::DeclareSubscriber(DeclareSubscriber {
            id: 1,
            wire_expr: key("demo/**"),
        }),
    );
    m.ext_qos = declare::ext::QoSType::DECLARE;
    s.network(
        "DECLARE QoS=0x08 (Control, block) D_SUBSCRIBER id=1 'demo/**'",
        &n_decl(m),
    );
    let mut m = declare(Some(7), DeclareBody::DeclareFinal(DeclareFinal));
    m.ext_qos = declare::ext::QoSType::DECLARE;
    s.network("DECLARE I interest_id=7 QoS=0x08 D_FINAL", &n_decl(m));
    let mut m = declare(
        None,
        DeclareBody::DeclareToken(DeclareToken {
            id: 3,
            wire_expr: key("demo/tok"),
        }),
    );
    m.ext_tstamp = Some(declare::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "DECLARE Timestamp(0x0000000180000000, 01) D_TOKEN id=3 'demo/tok'",
        &n_decl(m),
    );
    let mut m = declare(
        None,
        DeclareBody::DeclareToken(DeclareToken {
            id: 3,
            wire_expr: key("demo/tok"),
        }),
    );
    m.ext_nodeid = declare::ext::NodeIdType { node_id: 4 };
    s.network("DECLARE NodeId=4 D_TOKEN id=3 'demo/tok'", &n_decl(m));
    let mut m = declare(
        Some(9),
        DeclareBody::UndeclareToken(UndeclareToken {
            id: 3,
            ext_wire_expr: WireExprType::null(),
        }),
    );
    m.ext_qos = declare::ext::QoSType::DECLARE;
    m.ext_tstamp = Some(declare::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    m.ext_nodeid = declare::ext::NodeIdType { node_id: 4 };
    s.network(
        "DECLARE I interest_id=9 QoS=0x08 Timestamp NodeId=4 U_TOKEN id=3 null ext",
        &n_decl(m),
    );
}

// ---------------------------------------------------------------------------------
// Network: OAM
// ---------------------------------------------------------------------------------

pub fn network_oam(s: &mut Sheet) {
    s.section(
        "network OAM (0x1F): header bits 5-6 = body ENC; id z16; exts QoS 0x21, Timestamp 0x42",
    );
    let n = |m: network::Oam| nm(NetworkBody::OAM(m));
    s.network("network OAM id=1 unit body", &n(net_oam(1, ZExtBody::Unit)));
    s.network(
        "network OAM id=1 z64 body 0",
        &n(net_oam(1, ZExtBody::Z64(0))),
    );
    s.network(
        "network OAM id=1 z64 body 2^64-1",
        &n(net_oam(1, ZExtBody::Z64(u64::MAX))),
    );
    s.network(
        "network OAM id=1 zbuf body aabb",
        &n(net_oam(1, ZExtBody::ZBuf(zbuf(&[0xaa, 0xbb])))),
    );
    s.network(
        "network OAM id=1 zbuf empty body",
        &n(net_oam(1, ZExtBody::ZBuf(zbuf(&[])))),
    );
    s.network(
        "network OAM id=0xffff unit body",
        &n(net_oam(0xffff, ZExtBody::Unit)),
    );
    let mut m = net_oam(1, ZExtBody::ZBuf(zbuf(&[0xaa, 0xbb])));
    m.ext_qos = network::oam::ext::QoSType::OAM;
    s.network(
        "network OAM id=1 (linkstate) QoS=0x08 zbuf body aabb",
        &n(m),
    );
    let mut m = net_oam(1, ZExtBody::Z64(5));
    m.ext_qos = network::oam::ext::QoSType::OAM;
    m.ext_tstamp = Some(network::oam::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "network OAM id=1 QoS=0x08 Timestamp(0x0000000180000000, 01) z64 body 5",
        &n(m),
    );
}

// ---------------------------------------------------------------------------------
// The message rows of the reference file produced by the earlier generator
// (protocol/vectors-wire.txt), rebuilt field by field so both files agree.
// The TCP length-prefixed lines there are reproduced here as their bare batches.
// ---------------------------------------------------------------------------------
