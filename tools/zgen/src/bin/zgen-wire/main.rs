//! zgen-wire: prints tests/vectors/wire-gen.txt, the golden wire vectors for zmote.
//! Each message is built from the zenoh-protocol 1.10.2 structs, encoded with the
//! real Zenoh080 codec, decoded back and re-encoded before it is printed (see
//! `zgen::Sheet`), so every `ok` row is exactly what Rust writes and every `err` row
//! is something Rust refuses. Output is deterministic: no clocks, no randomness.

// Rows pass messages as `&[m.clone()]`, which reads better than `slice::from_ref`.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod control;
mod edge;
mod make;
mod network;
mod reference;
mod scouting;
mod transport;

use zgen::Sheet;

fn main() {
    let mut s = Sheet::new();
    println!("# wire-gen.txt: golden wire vectors printed by tools/zgen (zgen-wire) with the");
    println!("# Rust zenoh-codec/zenoh-protocol 1.10.2 crates. Do not edit by hand; regenerate.");
    println!("# Rows: ok<TAB>LAYER<TAB>NAME<TAB>HEX   bytes Rust writes; they decode and re-encode identically");
    println!("#       err<TAB>LAYER<TAB>NAME<TAB>HEX  bytes the Rust decoder rejects");
    println!(
        "# LAYER transport = one whole batch (no stream length prefix); network = exactly one"
    );
    println!("# network message; scouting = one SCOUT or HELLO datagram.");
    println!(
        "# Comment rows '#accept<TAB>LAYER<TAB>NAME<TAB>HEX<TAB>REENCODED' are bytes Rust is not"
    );
    println!("# expected to write but accepts anyway; REENCODED is what Rust writes after decoding them.");

    scouting::scouting(&mut s);
    transport::transport_init(&mut s);
    transport::transport_open(&mut s);
    transport::transport_close_keepalive(&mut s);
    transport::transport_frame(&mut s);
    transport::transport_fragment(&mut s);
    transport::transport_join(&mut s);
    transport::transport_oam(&mut s);
    network::network_push(&mut s);
    network::network_request(&mut s);
    network::network_response(&mut s);
    control::network_interest(&mut s);
    control::network_declare(&mut s);
    control::network_oam(&mut s);
    reference::reference_vectors(&mut s);
    edge::rejections(&mut s);
    edge::accepted_oddities(&mut s);

    println!("#");
    println!(
        "# totals: {} ok, {} err, {} accept",
        s.ok_rows, s.err_rows, s.accept_rows
    );
    eprintln!(
        "zgen-wire: {} ok, {} err, {} accept rows",
        s.ok_rows, s.err_rows, s.accept_rows
    );
}
