//! Builders shared by the zgen-wire sections: default-valued protocol structs that each
//! vector then adjusts, naming helpers, and byte-editing helpers for the rejection rows.
//! Everything the sections need is re-exported here so they can `use super::make::*`.

pub use std::{num::NonZeroU32, time::Duration};

pub use uhlc::{Timestamp, ID, NTP64};
pub use zenoh_buffers::{ZBuf, ZSlice};
pub use zenoh_protocol::{
    common::{ZExtBody, ZExtUnknown},
    core::{
        CongestionControl, Encoding, EntityGlobalIdProto, Locator, Priority, Reliability,
        Resolution, WhatAmI, WhatAmIMatcher, WireExpr, ZenohIdProto,
    },
    network::{
        self, declare, interest,
        interest::{InterestMode, InterestOptions},
        push, request, response,
        timestamp_stack::{Interception, TimestampStack, TsStackType},
        Declare, DeclareBody, Interest, Mapping, NetworkBody, NetworkMessage, Push, Request,
        Response, ResponseFinal,
    },
    scouting::{HelloProto, Scout, ScoutingMessage},
    transport::{
        self, fragment, frame, init, join, open, Close, Fragment, Frame, InitAck, InitSyn, Join,
        KeepAlive, OpenAck, OpenSyn, PrioritySn, TransportMessage,
    },
    zenoh::{self, ConsolidationMode, Del, PushBody, Put, Query, Reply, RequestBody, ResponseBody},
};
pub use zgen::{encode_network, encode_transport, hex, unhex, Layer, Sheet};

// ---------------------------------------------------------------------------------
// Small builders. They keep the vector list below readable: each row states only the
// fields that differ from the plain default message.
// ---------------------------------------------------------------------------------

pub const ZID16: [u8; 16] = [
    0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
];

pub fn zid(bytes: &[u8]) -> ZenohIdProto {
    ZenohIdProto::try_from(bytes).expect("valid zid")
}

pub fn zbuf(bytes: &[u8]) -> ZBuf {
    ZBuf::from(bytes.to_vec())
}

pub fn zslice(bytes: &[u8]) -> ZSlice {
    ZSlice::from(bytes.to_vec())
}

pub fn stamp(time: u64, id: &[u8]) -> Timestamp {
    Timestamp::new(NTP64(time), ID::try_from(id).expect("valid uhlc id"))
}

pub fn we(scope: u16, suffix: &str, mapping: Mapping) -> WireExpr<'static> {
    WireExpr {
        scope,
        suffix: suffix.to_string().into(),
        mapping,
    }
}

pub fn key(suffix: &str) -> WireExpr<'static> {
    we(0, suffix, Mapping::Receiver)
}

pub fn enc(id: u16, schema: Option<&[u8]>) -> Encoding {
    Encoding {
        id,
        schema: schema.map(zslice),
    }
}

pub fn gid(z: &[u8], eid: u32) -> EntityGlobalIdProto {
    EntityGlobalIdProto { zid: zid(z), eid }
}

pub fn mapping_name(m: Mapping) -> &'static str {
    match m {
        Mapping::Receiver => "receiver",
        Mapping::Sender => "sender",
    }
}

pub fn prio_name(p: Priority) -> &'static str {
    match p {
        Priority::Control => "Control(0)",
        Priority::RealTime => "RealTime(1)",
        Priority::InteractiveHigh => "InteractiveHigh(2)",
        Priority::InteractiveLow => "InteractiveLow(3)",
        Priority::DataHigh => "DataHigh(4)",
        Priority::Data => "Data(5)",
        Priority::DataLow => "DataLow(6)",
        Priority::Background => "Background(7)",
    }
}

pub const PRIORITIES: [Priority; 8] = [
    Priority::Control,
    Priority::RealTime,
    Priority::InteractiveHigh,
    Priority::InteractiveLow,
    Priority::DataHigh,
    Priority::Data,
    Priority::DataLow,
    Priority::Background,
];

pub fn what_name(mask: u8) -> String {
    let mut parts = Vec::new();
    if mask & 1 != 0 {
        parts.push("router");
    }
    if mask & 2 != 0 {
        parts.push("peer");
    }
    if mask & 4 != 0 {
        parts.push("client");
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join("|")
    }
}

pub fn whatami_name(w: WhatAmI) -> &'static str {
    match w {
        WhatAmI::Router => "router",
        WhatAmI::Peer => "peer",
        WhatAmI::Client => "client",
    }
}

pub const WHATAMIS: [WhatAmI; 3] = [WhatAmI::Router, WhatAmI::Peer, WhatAmI::Client];

pub fn init_syn(whatami: WhatAmI, z: &[u8]) -> InitSyn {
    InitSyn {
        version: 0x09,
        whatami,
        zid: zid(z),
        resolution: Resolution::default(),
        batch_size: transport::batch_size::UNICAST,
        ext_qos: None,
        ext_qos_link: None,
        ext_auth: None,
        ext_mlink: None,
        ext_lowlatency: None,
        ext_compression: None,
        ext_patch: init::ext::PatchType::NONE,
        ext_region_name: None,
    }
}

pub fn init_ack(whatami: WhatAmI, z: &[u8], cookie: &[u8]) -> InitAck {
    InitAck {
        version: 0x09,
        whatami,
        zid: zid(z),
        resolution: Resolution::default(),
        batch_size: transport::batch_size::UNICAST,
        cookie: zslice(cookie),
        ext_qos: None,
        ext_qos_link: None,
        ext_auth: None,
        ext_mlink: None,
        ext_lowlatency: None,
        ext_compression: None,
        ext_patch: init::ext::PatchType::NONE,
        ext_region_name: None,
    }
}

pub fn open_syn(lease: Duration, sn: u32, cookie: &[u8]) -> OpenSyn {
    OpenSyn {
        lease,
        initial_sn: sn,
        cookie: zslice(cookie),
        ext_qos: None,
        ext_auth: None,
        ext_mlink: None,
        ext_lowlatency: None,
        ext_compression: None,
        ext_remote_bound: None,
    }
}

pub fn open_ack(lease: Duration, sn: u32) -> OpenAck {
    OpenAck {
        lease,
        initial_sn: sn,
        ext_qos: None,
        ext_auth: None,
        ext_mlink: None,
        ext_lowlatency: None,
        ext_compression: None,
        ext_remote_bound: None,
    }
}

pub fn join(whatami: WhatAmI, z: &[u8], lease: Duration) -> Join {
    Join {
        version: 0x09,
        whatami,
        zid: zid(z),
        resolution: Resolution::default(),
        batch_size: transport::batch_size::MULTICAST,
        lease,
        next_sn: PrioritySn {
            reliable: 0,
            best_effort: 0,
        },
        ext_qos: None,
        ext_shm: None,
        ext_patch: join::ext::PatchType::NONE,
    }
}

pub fn fragment(rel: Reliability, more: bool, sn: u32, payload: &[u8]) -> Fragment {
    Fragment {
        reliability: rel,
        more,
        sn,
        payload: zslice(payload),
        ext_qos: fragment::ext::QoSType::DEFAULT,
        ext_first: None,
        ext_drop: None,
    }
}

/// A FRAME whose network messages carry the frame's reliability, as a decoder
/// reconstructs them.
pub fn frame(
    rel: Reliability,
    sn: u32,
    prio: Priority,
    msgs: &[NetworkMessage],
) -> TransportMessage {
    let payload = msgs
        .iter()
        .cloned()
        .map(|mut m| {
            m.reliability = rel;
            m
        })
        .collect();
    TransportMessage::from(Frame {
        reliability: rel,
        sn,
        ext_qos: frame::ext::QoSType::new(prio),
        payload,
    })
}

pub fn put(payload: &[u8]) -> Put {
    Put {
        payload: zbuf(payload),
        ..Put::default()
    }
}

pub fn push(wire_expr: WireExpr<'static>, body: PushBody) -> Push {
    Push {
        wire_expr,
        ext_qos: push::ext::QoSType::DEFAULT,
        ext_tstamp: None,
        ext_nodeid: push::ext::NodeIdType::DEFAULT,
        ext_ts_stack: None,
        payload: body,
    }
}

pub fn query() -> Query {
    Query::default()
}

pub fn request(id: u32, wire_expr: WireExpr<'static>, q: Query) -> Request {
    Request {
        id,
        wire_expr,
        ext_qos: request::ext::QoSType::DEFAULT,
        ext_tstamp: None,
        ext_nodeid: request::ext::NodeIdType::DEFAULT,
        ext_target: request::ext::QueryTarget::DEFAULT,
        ext_budget: None,
        ext_timeout: None,
        ext_ts_stack: None,
        payload: RequestBody::Query(q),
    }
}

pub fn reply(body: PushBody) -> ResponseBody {
    ResponseBody::Reply(Reply {
        consolidation: ConsolidationMode::DEFAULT,
        ext_unknown: vec![],
        payload: body,
    })
}

pub fn err_body(encoding: Encoding, payload: &[u8]) -> zenoh::Err {
    zenoh::Err {
        encoding,
        ext_sinfo: None,
        ext_unknown: vec![],
        payload: zbuf(payload),
    }
}

pub fn response(rid: u32, wire_expr: WireExpr<'static>, body: ResponseBody) -> Response {
    Response {
        rid,
        wire_expr,
        payload: body,
        ext_qos: response::ext::QoSType::DEFAULT,
        ext_tstamp: None,
        ext_respid: None,
        ext_ts_stack: None,
    }
}

pub fn response_final(rid: u32) -> ResponseFinal {
    ResponseFinal {
        rid,
        ext_qos: response::ext::QoSType::DEFAULT,
        ext_tstamp: None,
    }
}

pub fn interest(
    id: u32,
    mode: InterestMode,
    options: InterestOptions,
    wire_expr: Option<WireExpr<'static>>,
) -> Interest {
    Interest {
        id,
        mode,
        options,
        wire_expr,
        ext_qos: interest::ext::QoSType::DEFAULT,
        ext_tstamp: None,
        ext_nodeid: interest::ext::NodeIdType::DEFAULT,
    }
}

pub fn declare(interest_id: Option<u32>, body: DeclareBody) -> Declare {
    Declare {
        interest_id,
        ext_qos: declare::ext::QoSType::DEFAULT,
        ext_tstamp: None,
        ext_nodeid: declare::ext::NodeIdType::DEFAULT,
        body,
    }
}

pub fn net_oam(id: u16, body: ZExtBody) -> network::Oam {
    network::Oam {
        id,
        body,
        ext_qos: network::oam::ext::QoSType::DEFAULT,
        ext_tstamp: None,
    }
}

pub fn nm(body: NetworkBody) -> NetworkMessage {
    NetworkMessage::from(body)
}

pub fn n_push(p: Push) -> NetworkMessage {
    nm(NetworkBody::Push(p))
}

pub fn n_decl(d: Declare) -> NetworkMessage {
    nm(NetworkBody::Declare(d))
}

pub fn ts_stack() -> TsStackType<{ push::ext::TsStack::ID }> {
    TsStackType {
        ts_stack: TimestampStack {
            conf_flags: 0x03,
            stack: vec![
                Interception {
                    flags: 0x01,
                    timestamp: vec![0x11, 0x22, 0x33, 0x44],
                },
                Interception {
                    flags: 0x82,
                    timestamp: vec![],
                },
            ],
        },
    }
}

/// Copies `bytes`, sets the Z flag (0x80) of the header at `header_at`, and inserts
/// `ext` at `ext_at`: the way to hand-build "this message plus one extension" for
/// messages whose structs cannot carry arbitrary extensions.
pub fn with_ext(bytes: &[u8], header_at: usize, ext_at: usize, ext: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    assert_eq!(v[header_at] & 0x80, 0, "header already has Z set");
    v[header_at] |= 0x80;
    v.splice(ext_at..ext_at, ext.iter().copied());
    v
}

pub fn with_byte(bytes: &[u8], at: usize, value: u8) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[at] = value;
    v
}

/// Unknown mandatory extension: id 0xE, M=1, ENC=Z64 (header 0x3e), value 7.
pub const EXT_UNKNOWN_MANDATORY: [u8; 2] = [0x3e, 0x07];
/// Unknown optional extension: id 0xE, M=0, ENC=Z64 (header 0x2e), value 7.
pub const EXT_UNKNOWN_OPTIONAL: [u8; 2] = [0x2e, 0x07];

pub fn push_put(suffix: &str, payload: &[u8]) -> NetworkMessage {
    n_push(push(key(suffix), PushBody::Put(put(payload))))
}

pub fn push_qos(p: Priority, cc: CongestionControl, express: bool) -> push::ext::QoSType {
    push::ext::QoSType::new(p, cc, express)
}

pub fn cc_name(cc: CongestionControl) -> &'static str {
    match cc {
        CongestionControl::Drop => "drop",
        CongestionControl::Block => "block",
    }
}

pub fn opts(mask: u8) -> InterestOptions {
    let mut o = InterestOptions::empty();
    if mask & 1 != 0 {
        o += InterestOptions::KEYEXPRS;
    }
    if mask & 2 != 0 {
        o += InterestOptions::SUBSCRIBERS;
    }
    if mask & 4 != 0 {
        o += InterestOptions::QUERYABLES;
    }
    if mask & 8 != 0 {
        o += InterestOptions::TOKENS;
    }
    if mask & 0x80 != 0 {
        o += InterestOptions::AGGREGATE;
    }
    o
}

pub fn opts_name(mask: u8) -> String {
    let mut parts = Vec::new();
    for (bit, n) in [(1u8, "K"), (2, "S"), (4, "Q"), (8, "T"), (0x80, "A")] {
        if mask & bit != 0 {
            parts.push(n);
        }
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join("+")
    }
}

pub fn mode_name(m: InterestMode) -> &'static str {
    match m {
        InterestMode::Final => "Final",
        InterestMode::Current => "Current",
        InterestMode::Future => "Future",
        InterestMode::CurrentFuture => "CurrentFuture",
    }
}

pub fn consolidation_name(c: ConsolidationMode) -> &'static str {
    match c {
        ConsolidationMode::Auto => "Auto(0)",
        ConsolidationMode::None => "None(1)",
        ConsolidationMode::Monotonic => "Monotonic(2)",
        ConsolidationMode::Latest => "Latest(3)",
    }
}

pub const CONSOLIDATIONS: [ConsolidationMode; 4] = [
    ConsolidationMode::Auto,
    ConsolidationMode::None,
    ConsolidationMode::Monotonic,
    ConsolidationMode::Latest,
];
