//! Scouting vectors: SCOUT for every `what` mask with and without a zid, HELLO for
//! every whatami with 0, 1 and 3 locators.

use super::make::*;

pub fn scouting(s: &mut Sheet) {
    s.section("SCOUT (what = bitmask router 1 | peer 2 | client 4)");
    for mask in 0u8..=7 {
        let what = WhatAmIMatcher::try_from(mask).unwrap();
        s.scouting(
            &format!("SCOUT v9 what={mask} ({}) no zid", what_name(mask)),
            &ScoutingMessage::from(Scout {
                version: 0x09,
                what,
                zid: None,
            }),
        );
        s.scouting(
            &format!("SCOUT v9 what={mask} ({}) zid=0102", what_name(mask)),
            &ScoutingMessage::from(Scout {
                version: 0x09,
                what,
                zid: Some(zid(&[0x01, 0x02])),
            }),
        );
    }
    s.scouting(
        "SCOUT v9 what=3 (router|peer) 1-byte zid=7f",
        &ScoutingMessage::from(Scout {
            version: 0x09,
            what: WhatAmIMatcher::try_from(3).unwrap(),
            zid: Some(zid(&[0x7f])),
        }),
    );
    s.scouting(
        "SCOUT v9 what=7 (all) 16-byte zid=1032547698badcfe1032547698badcfe",
        &ScoutingMessage::from(Scout {
            version: 0x09,
            what: WhatAmIMatcher::try_from(7).unwrap(),
            zid: Some(zid(&ZID16)),
        }),
    );

    s.section("HELLO (whatami 2-bit code router 0 / peer 1 / client 2; L flag = locator list)");
    let locs = [
        "tcp/10.0.0.1:7447",
        "udp/192.168.1.20:7447",
        "tcp/[fe80::1]:7447",
    ];
    for w in WHATAMIS {
        for n in [0usize, 1, 3] {
            let locators: Vec<Locator> = locs[..n]
                .iter()
                .map(|l| Locator::try_from(l.to_string()).unwrap())
                .collect();
            let label = if n == 0 {
                "no locators".to_string()
            } else {
                format!("[{}]", locs[..n].join(", "))
            };
            s.scouting(
                &format!("HELLO v9 {} zid=0a0b {label}", whatami_name(w)),
                &ScoutingMessage::from(HelloProto {
                    version: 0x09,
                    whatami: w,
                    zid: zid(&[0x0a, 0x0b]),
                    locators,
                }),
            );
        }
    }
    s.scouting(
        "HELLO v9 router 16-byte zid [tcp/10.0.0.1:7447]",
        &ScoutingMessage::from(HelloProto {
            version: 0x09,
            whatami: WhatAmI::Router,
            zid: zid(&ZID16),
            locators: vec![Locator::try_from("tcp/10.0.0.1:7447".to_string()).unwrap()],
        }),
    );
    s.scouting(
        "HELLO v9 peer zid=01 [tcp/10.0.0.1:7447?iface=eth0] (locator metadata)",
        &ScoutingMessage::from(HelloProto {
            version: 0x09,
            whatami: WhatAmI::Peer,
            zid: zid(&[0x01]),
            locators: vec![Locator::try_from("tcp/10.0.0.1:7447?iface=eth0".to_string()).unwrap()],
        }),
    );
}

// ---------------------------------------------------------------------------------
// Transport: INIT
// ---------------------------------------------------------------------------------
