//! Shared plumbing for the zgen binaries: hex formatting, encoding and decoding
//! through the published Zenoh 1.10.2 codec, and a `Sheet` that prints vector rows
//! only after the real codec has confirmed them. Every row is checked before it is
//! printed, so a wrong expectation stops the run instead of landing in a test file.

use std::collections::BTreeSet;

use zenoh_buffers::{
    reader::{HasReader, Reader},
    writer::HasWriter,
};
use zenoh_codec::{RCodec, WCodec, Zenoh080};
use zenoh_protocol::{
    network::NetworkMessage, scouting::ScoutingMessage, transport::TransportMessage,
};

/// Lowercase hex, one space between bytes.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{:02x}", b));
    }
    s
}

/// Parses "ab cd ef" (any whitespace, no prefixes) into bytes; panics on bad input
/// because every caller passes a literal written in this repository.
pub fn unhex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap_or_else(|_| panic!("bad hex byte {b:?}")))
        .collect()
}

/// A bare zint as the codec writes it, for hand-assembled byte strings.
pub fn encode_zint(value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    Zenoh080::new()
        .write(&mut out.writer(), value)
        .expect("a zint always encodes");
    out
}

pub fn encode_transport(msgs: &[TransportMessage]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = out.writer();
        for m in msgs {
            Zenoh080::new()
                .write(&mut w, m)
                .unwrap_or_else(|_| panic!("Rust refused to encode {m:?}"));
        }
    }
    out
}

pub fn encode_network(msg: &NetworkMessage) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = out.writer();
        Zenoh080::new()
            .write(&mut w, msg)
            .unwrap_or_else(|_| panic!("Rust refused to encode {msg:?}"));
    }
    out
}

pub fn encode_scouting(msg: &ScoutingMessage) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = out.writer();
        Zenoh080::new()
            .write(&mut w, msg)
            .unwrap_or_else(|_| panic!("Rust refused to encode {msg:?}"));
    }
    out
}

/// Where a batch stopped decoding: how many transport messages decoded before the
/// failure, and the byte offset at which the failing message starts.
#[derive(Debug, Clone, Copy)]
pub struct BatchFailure {
    pub decoded: usize,
    pub offset: usize,
}

/// Decodes a whole batch the way a Rust link does: transport messages back to back
/// until the bytes run out. Ok only if every byte was consumed by a message.
pub fn decode_batch(bytes: &[u8]) -> Result<Vec<TransportMessage>, BatchFailure> {
    let mut reader = bytes.reader();
    let mut msgs = Vec::new();
    while reader.can_read() {
        let offset = bytes.len() - reader.remaining();
        let res: Result<TransportMessage, _> = Zenoh080::new().read(&mut reader);
        match res {
            Ok(m) => msgs.push(m),
            Err(_) => {
                return Err(BatchFailure {
                    decoded: msgs.len(),
                    offset,
                })
            }
        }
    }
    Ok(msgs)
}

/// Decodes one network message: the message and the count of bytes left, or None.
pub fn decode_network(bytes: &[u8]) -> Option<(NetworkMessage, usize)> {
    let mut reader = bytes.reader();
    let res: Result<NetworkMessage, _> = Zenoh080::new().read(&mut reader);
    res.ok().map(|m| (m, reader.remaining()))
}

/// Decodes one scouting message: the message and the count of bytes left, or None.
pub fn decode_scouting(bytes: &[u8]) -> Option<(ScoutingMessage, usize)> {
    let mut reader = bytes.reader();
    let res: Result<ScoutingMessage, _> = Zenoh080::new().read(&mut reader);
    res.ok().map(|m| (m, reader.remaining()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    Scouting,
    Transport,
    Network,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Scouting => "scouting",
            Layer::Transport => "transport",
            Layer::Network => "network",
        }
    }
}

/// Collects the output of zgen-wire. Names must be unique within a layer so a
/// failing C test can point at exactly one row.
#[derive(Default)]
pub struct Sheet {
    names: BTreeSet<(Layer, String)>,
    pub ok_rows: usize,
    pub err_rows: usize,
    pub accept_rows: usize,
}

fn check_name(name: &str) {
    assert!(
        !name.is_empty() && !name.contains('\t') && !name.contains('\n'),
        "vector name {name:?} is empty or holds a TAB/newline"
    );
}

impl Sheet {
    pub fn new() -> Self {
        Self::default()
    }

    fn claim(&mut self, layer: Layer, name: &str) {
        check_name(name);
        assert!(
            self.names.insert((layer, name.to_string())),
            "duplicate {} vector name {name:?}",
            layer.as_str()
        );
    }

    pub fn section(&self, title: &str) {
        println!("#");
        println!("# {title}");
    }

    pub fn note(&self, text: &str) {
        println!("# {text}");
    }

    /// One batch of transport messages. Checked: it decodes to the same messages,
    /// consumes every byte, and re-encodes to the same bytes.
    pub fn transport(&mut self, name: &str, msgs: &[TransportMessage]) -> Vec<u8> {
        self.claim(Layer::Transport, name);
        let bytes = encode_transport(msgs);
        let back = decode_batch(&bytes)
            .unwrap_or_else(|f| panic!("{name}: Rust cannot decode its own batch: {f:?}"));
        assert_eq!(
            back.len(),
            msgs.len(),
            "{name}: message count changed on decode"
        );
        for (a, b) in msgs.iter().zip(back.iter()) {
            // Frames are built with their network messages already carrying the
            // frame's reliability, which is what the decoder reconstructs.
            assert!(a == b, "{name}: decode differs\n  sent {a:?}\n  got  {b:?}");
        }
        assert_eq!(
            encode_transport(&back),
            bytes,
            "{name}: re-encoding differs"
        );
        self.ok_rows += 1;
        println!("ok\ttransport\t{name}\t{}", hex(&bytes));
        bytes
    }

    /// Exactly one network message, checked like `transport`.
    pub fn network(&mut self, name: &str, msg: &NetworkMessage) -> Vec<u8> {
        self.claim(Layer::Network, name);
        let bytes = encode_network(msg);
        let (back, left) = decode_network(&bytes)
            .unwrap_or_else(|| panic!("{name}: Rust cannot decode its own network message"));
        assert_eq!(left, 0, "{name}: {left} bytes left after decoding");
        assert_eq!(&back, msg, "{name}: decode differs");
        assert_eq!(encode_network(&back), bytes, "{name}: re-encoding differs");
        self.ok_rows += 1;
        println!("ok\tnetwork\t{name}\t{}", hex(&bytes));
        bytes
    }

    /// Exactly one scouting message, checked like `transport`.
    pub fn scouting(&mut self, name: &str, msg: &ScoutingMessage) -> Vec<u8> {
        self.claim(Layer::Scouting, name);
        let bytes = encode_scouting(msg);
        let (back, left) = decode_scouting(&bytes)
            .unwrap_or_else(|| panic!("{name}: Rust cannot decode its own scouting message"));
        assert_eq!(left, 0, "{name}: {left} bytes left after decoding");
        assert_eq!(&back, msg, "{name}: decode differs");
        assert_eq!(encode_scouting(&back), bytes, "{name}: re-encoding differs");
        self.ok_rows += 1;
        println!("ok\tscouting\t{name}\t{}", hex(&bytes));
        bytes
    }

    /// Bytes the Rust decoder must reject. Panics if Rust accepts them, so the
    /// file never claims a rejection that the reference does not perform.
    pub fn reject(&mut self, layer: Layer, name: &str, bytes: &[u8]) {
        let detail = match layer {
            Layer::Transport => match decode_batch(bytes) {
                Ok(msgs) => {
                    panic!("{name}: expected a rejection but Rust decoded the batch: {msgs:?}")
                }
                Err(f) => format!(
                    "Rust: {} transport message(s) decode, then error at byte {}",
                    f.decoded, f.offset
                ),
            },
            Layer::Network => match decode_network(bytes) {
                Some((m, left)) => panic!(
                    "{name}: expected a rejection but Rust decoded {m:?} ({left} bytes left)"
                ),
                None => "Rust: decode error".to_string(),
            },
            Layer::Scouting => match decode_scouting(bytes) {
                Some((m, left)) => panic!(
                    "{name}: expected a rejection but Rust decoded {m:?} ({left} bytes left)"
                ),
                None => "Rust: decode error".to_string(),
            },
        };
        let full = format!("{name} [{detail}]");
        self.claim(layer, &full);
        self.err_rows += 1;
        println!("err\t{}\t{full}\t{}", layer.as_str(), hex(bytes));
    }

    /// Like `reject`, with a control: `good` differs from `bad` only in the detail the
    /// row is about and must decode completely. This proves the rejection comes from
    /// that detail and not from something else wrong in the bytes.
    pub fn reject_vs(&mut self, layer: Layer, name: &str, bad: &[u8], good: &[u8]) {
        let fine = match layer {
            Layer::Transport => decode_batch(good).is_ok(),
            Layer::Network => matches!(decode_network(good), Some((_, 0))),
            Layer::Scouting => matches!(decode_scouting(good), Some((_, 0))),
        };
        assert!(
            fine,
            "{name}: the control bytes {} do not decode either",
            hex(good)
        );
        self.reject(layer, name, bad);
    }

    /// Bytes that are not what Rust writes but that Rust nonetheless accepts (for
    /// instance an unknown optional extension it skips). They cannot be `ok` rows,
    /// because re-encoding gives different bytes, so they go out as comments:
    /// `#accept<TAB>LAYER<TAB>NAME<TAB>HEX<TAB>HEX-as-Rust-re-encodes-it`.
    /// Panics if Rust rejects them.
    pub fn accept(&mut self, layer: Layer, name: &str, bytes: &[u8]) {
        let again = match layer {
            Layer::Transport => {
                let msgs = decode_batch(bytes)
                    .unwrap_or_else(|f| panic!("{name}: expected Rust to accept, got {f:?}"));
                encode_transport(&msgs)
            }
            Layer::Network => {
                let (m, left) = decode_network(bytes)
                    .unwrap_or_else(|| panic!("{name}: expected Rust to accept"));
                assert_eq!(left, 0, "{name}: {left} bytes left after decoding");
                encode_network(&m)
            }
            Layer::Scouting => {
                let (m, left) = decode_scouting(bytes)
                    .unwrap_or_else(|| panic!("{name}: expected Rust to accept"));
                assert_eq!(left, 0, "{name}: {left} bytes left after decoding");
                encode_scouting(&m)
            }
        };
        assert_ne!(
            again, bytes,
            "{name}: Rust re-encodes these bytes unchanged; make it an ok row"
        );
        let full = format!("accept: {name}");
        self.claim(layer, &full);
        self.accept_rows += 1;
        println!(
            "#accept\t{}\t{name}\t{}\t{}",
            layer.as_str(),
            hex(bytes),
            hex(&again)
        );
    }
}
