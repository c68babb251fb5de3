//! Network vectors for the data path: PUSH (PUT/DEL), REQUEST (QUERY) and RESPONSE
//! (REPLY/ERR) plus RESPONSE_FINAL, walking every flag and extension one at a time
//! before combining them.

use super::make::*;

pub fn network_push(s: &mut Sheet) {
    let hi = || PushBody::Put(put(b"hi"));
    s.section("PUSH: key expression forms (N = suffix present, M = sender mapping)");
    s.network(
        "PUSH scope=0 'demo/a' M=receiver PUT 'hi'",
        &n_push(push(key("demo/a"), hi())),
    );
    s.network(
        "PUSH scope=0 'demo/a' M=sender PUT 'hi'",
        &n_push(push(we(0, "demo/a", Mapping::Sender), hi())),
    );
    for m in [Mapping::Receiver, Mapping::Sender] {
        s.network(
            &format!("PUSH scope=5 suffix='/x' M={} PUT 'hi'", mapping_name(m)),
            &n_push(push(we(5, "/x", m), hi())),
        );
        s.network(
            &format!("PUSH scope=5 no suffix M={} PUT 'hi'", mapping_name(m)),
            &n_push(push(we(5, "", m), hi())),
        );
    }
    s.network(
        "PUSH scope=127 no suffix PUT 'hi'",
        &n_push(push(we(127, "", Mapping::Receiver), hi())),
    );
    s.network(
        "PUSH scope=128 no suffix PUT 'hi'",
        &n_push(push(we(128, "", Mapping::Receiver), hi())),
    );
    s.network(
        "PUSH scope=65535 suffix='/z' PUT 'hi'",
        &n_push(push(we(65535, "/z", Mapping::Receiver), hi())),
    );
    s.network(
        "PUSH scope=0 'a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/0/1/2/3/4/5/6/7/8/9/A/B/C/D/E/F/G/H/I/J/K/L/M/N/O/P/Q/R/S/T/U/V/W/X/Y/Z' (130-byte suffix) PUT 'hi'",
        &n_push(push(
            key("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/0/1/2/3/4/5/6/7/8/9/A/B/C/D/E/F/G/H/I/J/K/L/M/N/O/P/Q/R/S/T/U/V/W/X/Y/Z/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/0"),
            hi(),
        )),
    );

    s.section(
        "PUSH PUT: T timestamp, E encoding, exts SourceInfo 0x41, Attachment 0x43, unknown kept",
    );
    let tsv = stamp(0x0000_0001_8000_0000, &[0x01]);
    let ts16 = stamp(0x6500_0000_1234_5678, &ZID16);
    let one = |p: Put| n_push(push(key("demo/a"), PushBody::Put(p)));
    s.network("PUSH 'demo/a' PUT empty payload", &one(put(b"")));
    s.network(
        "PUSH 'demo/a' PUT payload 127 x 55",
        &one(put(&[0x55; 127])),
    );
    s.network(
        "PUSH 'demo/a' PUT payload 128 x 55 (2-byte length)",
        &one(put(&[0x55; 128])),
    );
    s.network(
        "PUSH 'demo/a' PUT ts(time 0x0000000180000000 id 01) 'hi'",
        &one(Put {
            timestamp: Some(tsv),
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT ts(time 0x6500000012345678 16-byte id) 'hi'",
        &one(Put {
            timestamp: Some(ts16),
            ..put(b"hi")
        }),
    );
    for (id, schema, label) in [
        (1u16, None, "enc id=1 (zenoh/string)"),
        (5, None, "enc id=5 (application/json)"),
        (5, Some(&b"abc"[..]), "enc id=5 schema 'abc'"),
        (
            0,
            Some(&b"x"[..]),
            "enc id=0 schema 'x' (E set: not the empty encoding)",
        ),
        (64, None, "enc id=64 (2-byte zint)"),
        (
            0xffff,
            Some(&b"text/x;y"[..]),
            "enc id=0xffff schema 'text/x;y'",
        ),
    ] {
        s.network(
            &format!("PUSH 'demo/a' PUT {label} 'hi'"),
            &one(Put {
                encoding: enc(id, schema),
                ..put(b"hi")
            }),
        );
    }
    s.network(
        "PUSH 'demo/a' PUT SourceInfo(zid 0102, eid 5, sn 9) 'hi'",
        &one(Put {
            ext_sinfo: Some(zenoh::put::ext::SourceInfoType {
                id: gid(&[0x01, 0x02], 5),
                sn: 9,
            }),
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT SourceInfo(16-byte zid, eid 0xffffffff, sn 0x0fffffff) 'hi'",
        &one(Put {
            ext_sinfo: Some(zenoh::put::ext::SourceInfoType {
                id: gid(&ZID16, u32::MAX),
                sn: 0x0fff_ffff,
            }),
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT Attachment(0102) 'hi'",
        &one(Put {
            ext_attachment: Some(zenoh::put::ext::AttachmentType {
                buffer: zbuf(&[0x01, 0x02]),
            }),
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT empty Attachment 'hi'",
        &one(Put {
            ext_attachment: Some(zenoh::put::ext::AttachmentType { buffer: zbuf(&[]) }),
            ..put(b"hi")
        }),
    );
    // Two unknown extensions per message at most: zmote keeps ZM_EXT_UNKNOWN_MAX (2 by
    // default) of them, Rust keeps any number.
    s.network(
        "PUSH 'demo/a' PUT unknown optional exts kept: 0x2e z64 7, 0x0d unit 'hi'",
        &one(Put {
            ext_unknown: vec![
                ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7)),
                ZExtUnknown::new(0x0d, false, ZExtBody::Unit),
            ],
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT unknown optional ext kept: 0x4c zbuf 99 'hi'",
        &one(Put {
            ext_unknown: vec![ZExtUnknown::new(0x0c, false, ZExtBody::ZBuf(zbuf(&[0x99])))],
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT SourceInfo(0102, 5, 9) Attachment(0102) unknown optional 0x2e z64 7 (unknowns go last) 'hi'",
        &one(Put {
            ext_sinfo: Some(zenoh::put::ext::SourceInfoType { id: gid(&[0x01, 0x02], 5), sn: 9 }),
            ext_attachment: Some(zenoh::put::ext::AttachmentType { buffer: zbuf(&[0x01, 0x02]) }),
            ext_unknown: vec![ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7))],
            ..put(b"hi")
        }),
    );
    s.network(
        "PUSH 'demo/a' PUT ts(0x0000000180000000, 01) enc id=5 schema 'abc' SourceInfo(0102, 5, 9) Attachment(0102) 'hi'",
        &one(Put {
            timestamp: Some(tsv),
            encoding: enc(5, Some(b"abc")),
            ext_sinfo: Some(zenoh::put::ext::SourceInfoType { id: gid(&[0x01, 0x02], 5), sn: 9 }),
            ext_attachment: Some(zenoh::put::ext::AttachmentType { buffer: zbuf(&[0x01, 0x02]) }),
            ..put(b"hi")
        }),
    );

    s.section("PUSH DEL: T timestamp; exts SourceInfo 0x41, Attachment 0x42");
    let del = |d: Del| n_push(push(key("demo/a"), PushBody::Del(d)));
    s.network("PUSH 'demo/a' DEL", &del(Del::default()));
    s.network(
        "PUSH scope=7 no suffix M=sender DEL",
        &n_push(push(
            we(7, "", Mapping::Sender),
            PushBody::Del(Del::default()),
        )),
    );
    s.network(
        "PUSH 'demo/a' DEL ts(0x0000000180000000, 01)",
        &del(Del {
            timestamp: Some(tsv),
            ..Del::default()
        }),
    );
    s.network(
        "PUSH 'demo/a' DEL SourceInfo(zid 0102, eid 5, sn 9)",
        &del(Del {
            ext_sinfo: Some(zenoh::del::ext::SourceInfoType {
                id: gid(&[0x01, 0x02], 5),
                sn: 9,
            }),
            ..Del::default()
        }),
    );
    s.network(
        "PUSH 'demo/a' DEL Attachment(0102)",
        &del(Del {
            ext_attachment: Some(zenoh::del::ext::AttachmentType {
                buffer: zbuf(&[0x01, 0x02]),
            }),
            ..Del::default()
        }),
    );
    s.network(
        "PUSH 'demo/a' DEL ts SourceInfo(0102, 5, 9) Attachment(0102) unknown optional 0x2e z64 7",
        &del(Del {
            timestamp: Some(tsv),
            ext_sinfo: Some(zenoh::del::ext::SourceInfoType {
                id: gid(&[0x01, 0x02], 5),
                sn: 9,
            }),
            ext_attachment: Some(zenoh::del::ext::AttachmentType {
                buffer: zbuf(&[0x01, 0x02]),
            }),
            ext_unknown: vec![ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7))],
        }),
    );

    s.section(
        "PUSH QoS ext 0x21 (z64: prio bits 0-2, D=block bit 3, E=express bit 4); omitted when 0x05",
    );
    for p in PRIORITIES {
        for cc in [CongestionControl::Drop, CongestionControl::Block] {
            for express in [false, true] {
                let mut m = push(key("demo/a"), hi());
                m.ext_qos = push_qos(p, cc, express);
                let tail = if m.ext_qos == push::ext::QoSType::DEFAULT {
                    " (default: no ext)"
                } else {
                    ""
                };
                s.network(
                    &format!(
                        "PUSH 'demo/a' QoS prio={} {} express={express}{tail} PUT 'hi'",
                        prio_name(p),
                        cc_name(cc)
                    ),
                    &n_push(m),
                );
            }
        }
    }

    s.section("PUSH network exts: Timestamp 0x42, NodeId 0x33 (M), TsStack 0x47");
    let mut m = push(key("demo/a"), hi());
    m.ext_tstamp = Some(push::ext::TimestampType { timestamp: tsv });
    s.network(
        "PUSH 'demo/a' ext Timestamp(0x0000000180000000, 01) PUT 'hi'",
        &n_push(m),
    );
    for node in [2u16, 300, 65535] {
        let mut m = push(key("demo/a"), hi());
        m.ext_nodeid = push::ext::NodeIdType { node_id: node };
        s.network(&format!("PUSH 'demo/a' NodeId={node} PUT 'hi'"), &n_push(m));
    }
    let mut m = push(key("demo/a"), hi());
    m.ext_ts_stack = Some(ts_stack());
    s.network(
        "PUSH 'demo/a' TsStack(conf 03; [flags 01 ts 11223344], [flags 82 ts empty]) PUT 'hi'",
        &n_push(m),
    );
    let mut m = push(
        we(3, "/x", Mapping::Sender),
        PushBody::Put(Put {
            timestamp: Some(tsv),
            ..put(b"hi")
        }),
    );
    m.ext_qos = push_qos(Priority::RealTime, CongestionControl::Block, true);
    m.ext_tstamp = Some(push::ext::TimestampType { timestamp: tsv });
    m.ext_nodeid = push::ext::NodeIdType { node_id: 2 };
    m.ext_ts_stack = Some(ts_stack());
    s.network(
        "PUSH scope=3 '/x' M=sender QoS(RealTime, block, express) Timestamp NodeId=2 TsStack PUT ts 'hi'",
        &n_push(m),
    );
}

// ---------------------------------------------------------------------------------
// Network: REQUEST
// ---------------------------------------------------------------------------------

pub fn network_request(s: &mut Sheet) {
    let r = |id: u32, q: Query| request(id, key("demo/q"), q);
    let nreq = |m: Request| nm(NetworkBody::Request(m));
    s.section("REQUEST: rid z32, key forms, exts QoS 0x21, Timestamp 0x42, Target 0x34 (M), Budget 0x25, Timeout 0x26, NodeId 0x33, TsStack 0x47");
    s.network(
        "REQUEST id=1 'demo/q' QUERY (no exts)",
        &nreq(r(1, query())),
    );
    s.network("REQUEST id=0 'demo/q' QUERY", &nreq(r(0, query())));
    s.network(
        "REQUEST id=0xffffffff 'demo/q' QUERY",
        &nreq(r(u32::MAX, query())),
    );
    s.network(
        "REQUEST id=1 'demo/q' M=sender QUERY",
        &nreq(request(1, we(0, "demo/q", Mapping::Sender), query())),
    );
    s.network(
        "REQUEST id=1 scope=4 '/q' M=receiver QUERY",
        &nreq(request(1, we(4, "/q", Mapping::Receiver), query())),
    );
    s.network(
        "REQUEST id=1 scope=4 no suffix M=sender QUERY",
        &nreq(request(1, we(4, "", Mapping::Sender), query())),
    );
    for (t, label) in [
        (
            request::ext::QueryTarget::BestMatching,
            "BestMatching(0, default: no ext)",
        ),
        (request::ext::QueryTarget::All, "All(1)"),
        (request::ext::QueryTarget::AllComplete, "AllComplete(2)"),
    ] {
        let mut m = r(1, query());
        m.ext_target = t;
        s.network(
            &format!("REQUEST id=1 'demo/q' target={label} QUERY"),
            &nreq(m),
        );
    }
    for b in [1u32, 3, 300, u32::MAX] {
        let mut m = r(1, query());
        m.ext_budget = NonZeroU32::new(b);
        s.network(&format!("REQUEST id=1 'demo/q' budget={b} QUERY"), &nreq(m));
    }
    for ms in [0u64, 1, 2500, 10000, 3_600_000] {
        let mut m = r(1, query());
        m.ext_timeout = Some(Duration::from_millis(ms));
        s.network(
            &format!("REQUEST id=1 'demo/q' timeout={ms}ms QUERY"),
            &nreq(m),
        );
    }
    for (q, label) in [
        (
            request::ext::QoSType::REQUEST,
            "QoS=0x0d (Data, block: Rust get default)",
        ),
        (
            request::ext::QoSType::new(Priority::InteractiveHigh, CongestionControl::Drop, true),
            "QoS prio=InteractiveHigh(2) drop express",
        ),
        (
            request::ext::QoSType::new(Priority::Data, CongestionControl::Drop, false),
            "QoS prio=Data(5) drop (default: no ext)",
        ),
    ] {
        let mut m = r(1, query());
        m.ext_qos = q;
        s.network(&format!("REQUEST id=1 'demo/q' {label} QUERY"), &nreq(m));
    }
    let mut m = r(1, query());
    m.ext_tstamp = Some(request::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "REQUEST id=1 'demo/q' Timestamp(0x0000000180000000, 01) QUERY",
        &nreq(m),
    );
    let mut m = r(1, query());
    m.ext_nodeid = request::ext::NodeIdType { node_id: 7 };
    s.network("REQUEST id=1 'demo/q' NodeId=7 QUERY", &nreq(m));
    let mut m = r(1, query());
    m.ext_ts_stack = Some(TsStackType {
        ts_stack: ts_stack().ts_stack,
    });
    s.network(
        "REQUEST id=1 'demo/q' TsStack(conf 03; 2 entries) QUERY",
        &nreq(m),
    );

    s.section("REQUEST QUERY body: C consolidation, P parameters; exts SourceInfo 0x41, QueryBody 0x43, Attachment 0x45");
    for c in CONSOLIDATIONS {
        s.network(
            &format!(
                "REQUEST id=1 'demo/q' QUERY consolidation={}",
                consolidation_name(c)
            ),
            &nreq(r(
                1,
                Query {
                    consolidation: c,
                    ..query()
                },
            )),
        );
    }
    for p in ["a=1", "a=1;b=2", "_anyke", "_time=[now(-1h)..]"] {
        s.network(
            &format!("REQUEST id=1 'demo/q' QUERY parameters '{p}'"),
            &nreq(r(
                1,
                Query {
                    parameters: p.to_string(),
                    ..query()
                },
            )),
        );
    }
    s.network(
        "REQUEST id=1 'demo/q' QUERY body(enc id0, 'xy')",
        &nreq(r(
            1,
            Query {
                ext_body: Some(zenoh::query::ext::QueryBodyType {
                    encoding: enc(0, None),
                    payload: zbuf(b"xy"),
                }),
                ..query()
            },
        )),
    );
    s.network(
        "REQUEST id=1 'demo/q' QUERY body(enc id5 schema 'abc', '{}')",
        &nreq(r(
            1,
            Query {
                ext_body: Some(zenoh::query::ext::QueryBodyType {
                    encoding: enc(5, Some(b"abc")),
                    payload: zbuf(b"{}"),
                }),
                ..query()
            },
        )),
    );
    s.network(
        "REQUEST id=1 'demo/q' QUERY body(enc id1, empty payload)",
        &nreq(r(
            1,
            Query {
                ext_body: Some(zenoh::query::ext::QueryBodyType {
                    encoding: enc(1, None),
                    payload: zbuf(b""),
                }),
                ..query()
            },
        )),
    );
    s.network(
        "REQUEST id=1 'demo/q' QUERY SourceInfo(zid 0102, eid 3, sn 4)",
        &nreq(r(
            1,
            Query {
                ext_sinfo: Some(zenoh::query::ext::SourceInfoType {
                    id: gid(&[0x01, 0x02], 3),
                    sn: 4,
                }),
                ..query()
            },
        )),
    );
    s.network(
        "REQUEST id=1 'demo/q' QUERY Attachment(0a0b)",
        &nreq(r(
            1,
            Query {
                ext_attachment: Some(zenoh::query::ext::AttachmentType {
                    buffer: zbuf(&[0x0a, 0x0b]),
                }),
                ..query()
            },
        )),
    );
    s.network(
        "REQUEST id=1 'demo/q' QUERY unknown optional exts kept: 0x2e z64 7",
        &nreq(r(
            1,
            Query {
                ext_unknown: vec![ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7))],
                ..query()
            },
        )),
    );
    let mut m = request(
        0x1234,
        we(2, "/q", Mapping::Sender),
        Query {
            consolidation: ConsolidationMode::Latest,
            parameters: "a=1;b=2".to_string(),
            ext_sinfo: Some(zenoh::query::ext::SourceInfoType {
                id: gid(&ZID16, 3),
                sn: 4,
            }),
            ext_body: Some(zenoh::query::ext::QueryBodyType {
                encoding: enc(5, Some(b"abc")),
                payload: zbuf(b"{}"),
            }),
            ext_attachment: Some(zenoh::query::ext::AttachmentType {
                buffer: zbuf(&[0x0a, 0x0b]),
            }),
            ext_unknown: vec![],
        },
    );
    m.ext_qos = request::ext::QoSType::REQUEST;
    m.ext_tstamp = Some(request::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    m.ext_target = request::ext::QueryTarget::AllComplete;
    m.ext_budget = NonZeroU32::new(5);
    m.ext_timeout = Some(Duration::from_millis(10000));
    m.ext_nodeid = request::ext::NodeIdType { node_id: 2 };
    s.network(
        "REQUEST id=0x1234 scope=2 '/q' M=sender QoS 0x0d Timestamp target=AllComplete budget=5 timeout=10000ms NodeId=2 QUERY Latest 'a=1;b=2' SourceInfo(16-byte zid, 3, 4) body(enc5 'abc', '{}') Attachment(0a0b)",
        &nreq(m),
    );
}

// ---------------------------------------------------------------------------------
// Network: RESPONSE, RESPONSE_FINAL
// ---------------------------------------------------------------------------------

pub fn network_response(s: &mut Sheet) {
    let nresp = |m: Response| nm(NetworkBody::Response(m));
    s.section("RESPONSE: rid z32, key, exts QoS 0x21, Timestamp 0x42, ResponderId 0x43, TsStack 0x47; body REPLY or ERR");
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY PUT 'hi'",
        &nresp(response(1, key("demo/q"), reply(PushBody::Put(put(b"hi"))))),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY DEL",
        &nresp(response(
            1,
            key("demo/q"),
            reply(PushBody::Del(Del::default())),
        )),
    );
    s.network(
        "RESPONSE rid=0xffffffff 'demo/q' M=sender REPLY PUT 'hi'",
        &nresp(response(
            u32::MAX,
            we(0, "demo/q", Mapping::Sender),
            reply(PushBody::Put(put(b"hi"))),
        )),
    );
    s.network(
        "RESPONSE rid=2 scope=6 '/q' M=receiver REPLY PUT 'hi'",
        &nresp(response(
            2,
            we(6, "/q", Mapping::Receiver),
            reply(PushBody::Put(put(b"hi"))),
        )),
    );
    s.network(
        "RESPONSE rid=2 scope=6 no suffix M=sender REPLY PUT 'hi'",
        &nresp(response(
            2,
            we(6, "", Mapping::Sender),
            reply(PushBody::Put(put(b"hi"))),
        )),
    );
    for c in CONSOLIDATIONS {
        s.network(
            &format!(
                "RESPONSE rid=1 'demo/q' REPLY consolidation={} PUT 'hi'",
                consolidation_name(c)
            ),
            &nresp(response(
                1,
                key("demo/q"),
                ResponseBody::Reply(Reply {
                    consolidation: c,
                    ext_unknown: vec![],
                    payload: PushBody::Put(put(b"hi")),
                }),
            )),
        );
    }
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY unknown optional ext 0x2e z64 7 kept, PUT 'hi'",
        &nresp(response(
            1,
            key("demo/q"),
            ResponseBody::Reply(Reply {
                consolidation: ConsolidationMode::DEFAULT,
                ext_unknown: vec![ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7))],
                payload: PushBody::Put(put(b"hi")),
            }),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY PUT ts(0x0000000180000000, 01) enc id=1 SourceInfo(0102, 5, 9) Attachment(0102) 'hi'",
        &nresp(response(
            1,
            key("demo/q"),
            reply(PushBody::Put(Put {
                timestamp: Some(stamp(0x0000_0001_8000_0000, &[0x01])),
                encoding: enc(1, None),
                ext_sinfo: Some(zenoh::put::ext::SourceInfoType { id: gid(&[0x01, 0x02], 5), sn: 9 }),
                ext_attachment: Some(zenoh::put::ext::AttachmentType { buffer: zbuf(&[0x01, 0x02]) }),
                ..put(b"hi")
            })),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' REPLY DEL ts(0x0000000180000000, 01) Attachment(0102)",
        &nresp(response(
            1,
            key("demo/q"),
            reply(PushBody::Del(Del {
                timestamp: Some(stamp(0x0000_0001_8000_0000, &[0x01])),
                ext_attachment: Some(zenoh::del::ext::AttachmentType {
                    buffer: zbuf(&[0x01, 0x02]),
                }),
                ..Del::default()
            })),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' ERR no encoding 'bad'",
        &nresp(response(
            1,
            key("demo/q"),
            ResponseBody::Err(err_body(enc(0, None), b"bad")),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' ERR enc id=1 'bad'",
        &nresp(response(
            1,
            key("demo/q"),
            ResponseBody::Err(err_body(enc(1, None), b"bad")),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' ERR enc id=4 schema 'utf-8' empty payload",
        &nresp(response(
            1,
            key("demo/q"),
            ResponseBody::Err(err_body(enc(4, Some(b"utf-8")), b"")),
        )),
    );
    s.network(
        "RESPONSE rid=1 'demo/q' ERR SourceInfo(0102, 5, 9) unknown optional 0x2e z64 7 'bad'",
        &nresp(response(
            1,
            key("demo/q"),
            ResponseBody::Err(zenoh::Err {
                ext_sinfo: Some(zenoh::err::ext::SourceInfoType {
                    id: gid(&[0x01, 0x02], 5),
                    sn: 9,
                }),
                ext_unknown: vec![ZExtUnknown::new(0x0e, false, ZExtBody::Z64(7))],
                ..err_body(enc(0, None), b"bad")
            }),
        )),
    );
    for (z, label) in [
        (&[0x01u8, 0x02][..], "zid 0102, eid 4"),
        (&ZID16[..], "16-byte zid, eid 0"),
    ] {
        let mut m = response(1, key("demo/q"), reply(PushBody::Put(put(b"hi"))));
        m.ext_respid = Some(response::ext::ResponderIdType {
            zid: zid(z),
            eid: if z.len() == 2 { 4 } else { 0 },
        });
        s.network(
            &format!("RESPONSE rid=1 'demo/q' ResponderId({label}) REPLY PUT 'hi'"),
            &nresp(m),
        );
    }
    let mut m = response(
        1,
        key("demo/q"),
        ResponseBody::Err(err_body(enc(1, None), b"bad")),
    );
    m.ext_respid = Some(response::ext::ResponderIdType {
        zid: zid(&[0x01, 0x02]),
        eid: 4,
    });
    s.network(
        "RESPONSE rid=1 'demo/q' ResponderId(0102, 4) ERR enc id=1 'bad'",
        &nresp(m),
    );
    let mut m = response(1, key("demo/q"), reply(PushBody::Put(put(b"hi"))));
    m.ext_qos = response::ext::QoSType::REQUEST;
    s.network("RESPONSE rid=1 'demo/q' QoS=0x0d REPLY PUT 'hi'", &nresp(m));
    let mut m = response(1, key("demo/q"), reply(PushBody::Put(put(b"hi"))));
    m.ext_tstamp = Some(response::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "RESPONSE rid=1 'demo/q' Timestamp(0x0000000180000000, 01) REPLY PUT 'hi'",
        &nresp(m),
    );
    let mut m = response(1, key("demo/q"), reply(PushBody::Put(put(b"hi"))));
    m.ext_ts_stack = Some(TsStackType {
        ts_stack: ts_stack().ts_stack,
    });
    s.network(
        "RESPONSE rid=1 'demo/q' TsStack(conf 03; 2 entries) REPLY PUT 'hi'",
        &nresp(m),
    );
    let mut m = response(
        9,
        we(6, "/q", Mapping::Sender),
        ResponseBody::Reply(Reply {
            consolidation: ConsolidationMode::Latest,
            ext_unknown: vec![],
            payload: PushBody::Put(Put {
                timestamp: Some(stamp(0x0000_0001_8000_0000, &[0x01])),
                ..put(b"hi")
            }),
        }),
    );
    m.ext_qos = response::ext::QoSType::REQUEST;
    m.ext_tstamp = Some(response::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    m.ext_respid = Some(response::ext::ResponderIdType {
        zid: zid(&ZID16),
        eid: 1,
    });
    m.ext_ts_stack = Some(TsStackType {
        ts_stack: ts_stack().ts_stack,
    });
    s.network(
        "RESPONSE rid=9 scope=6 '/q' M=sender QoS 0x0d Timestamp ResponderId(16-byte zid, 1) TsStack REPLY Latest PUT ts 'hi'",
        &nresp(m),
    );

    s.section("RESPONSE_FINAL: rid z32, exts QoS 0x21, Timestamp 0x42");
    let nfin = |m: ResponseFinal| nm(NetworkBody::ResponseFinal(m));
    for rid in [0u32, 1, 128, u32::MAX] {
        s.network(
            &format!("RESPONSE_FINAL rid={rid} no exts"),
            &nfin(response_final(rid)),
        );
    }
    let mut m = response_final(1);
    m.ext_qos = response::ext::QoSType::REQUEST;
    s.network("RESPONSE_FINAL rid=1 QoS=0x0d", &nfin(m));
    let mut m = response_final(1);
    m.ext_qos = response::ext::QoSType::new(Priority::Control, CongestionControl::Block, true);
    s.network(
        "RESPONSE_FINAL rid=1 QoS prio=Control(0) block express",
        &nfin(m),
    );
    let mut m = response_final(1);
    m.ext_tstamp = Some(response::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "RESPONSE_FINAL rid=1 Timestamp(0x0000000180000000, 01)",
        &nfin(m),
    );
    let mut m = response_final(1);
    m.ext_qos = response::ext::QoSType::REQUEST;
    m.ext_tstamp = Some(response::ext::TimestampType {
        timestamp: stamp(0x0000_0001_8000_0000, &[0x01]),
    });
    s.network(
        "RESPONSE_FINAL rid=1 QoS=0x0d Timestamp(0x0000000180000000, 01)",
        &nfin(m),
    );
}

// ---------------------------------------------------------------------------------
// Network: INTEREST
// ---------------------------------------------------------------------------------
