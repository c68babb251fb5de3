//! A Zenoh router that listens on the endpoints named on its command line
//! (e.g. `serial//dev/pts/3#baudrate=115200` and `tcp/127.0.0.1:7447`)
//! and runs until it is killed. Multicast scouting is off so that test runs
//! on one machine do not find each other.
use std::io::Write;
use zenoh::Wait;

fn main() {
    let endpoints: Vec<String> = std::env::args().skip(1).collect();
    if endpoints.is_empty() {
        eprintln!("usage: zmote-serial-router ENDPOINT...");
        std::process::exit(2);
    }
    let mut config = zenoh::Config::default();
    config.insert_json5("mode", "\"router\"").expect("mode");
    config
        .insert_json5("listen/endpoints", &json_list(&endpoints))
        .expect("listen endpoints");
    config
        .insert_json5("scouting/multicast/enabled", "false")
        .expect("scouting");
    let session = match zenoh::open(config).wait() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("zmote-serial-router: open failed: {e}");
            std::process::exit(1);
        }
    };
    println!("ready {}", session.zid());
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}

/// The endpoints as a JSON list of strings.
fn json_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("[{}]", quoted.join(","))
}
