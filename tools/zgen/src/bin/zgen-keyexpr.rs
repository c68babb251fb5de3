//! zgen-keyexpr: prints tests/vectors/keyexpr-gen.txt, golden key-expression results
//! from zenoh-keyexpr 1.10.2: validity (`keyexpr::new`), autocanonization, and the
//! intersects/includes relation for a few hundred pairs. Random inputs come from a
//! fixed-seed generator written here, so two runs print the same file.

use std::{
    collections::BTreeSet,
    panic::{self, AssertUnwindSafe},
};

use zenoh_keyexpr::{keyexpr, OwnedKeyExpr};

/// splitmix64: tiny, well mixed, and fully determined by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn is_valid(s: &str) -> bool {
    keyexpr::new(s).is_ok()
}

enum Canon {
    Ok(String),
    Err,
    Panic,
}

/// Rust's canonizer indexes out of range on some inputs (e.g. "a/x$*$*y"); such a
/// panic is caught and reported as its own outcome rather than ending the run.
fn canonize(s: &str) -> Canon {
    let input = s.to_string();
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let res = panic::catch_unwind(AssertUnwindSafe(move || OwnedKeyExpr::autocanonize(input)));
    panic::set_hook(hook);
    match res {
        Ok(Ok(k)) => Canon::Ok(k.as_str().to_string()),
        Ok(Err(_)) => Canon::Err,
        Err(_) => Canon::Panic,
    }
}

fn check_field(s: &str) {
    assert!(
        !s.contains('\t') && !s.contains('\n'),
        "{s:?} cannot be printed in a TAB separated row"
    );
}

/// Keeps rows unique and counts them per kind.
#[derive(Default)]
struct Out {
    seen: BTreeSet<String>,
    valid: usize,
    canon: usize,
    pairs: usize,
    intersecting: usize,
    including: usize,
    panics: usize,
}

impl Out {
    fn valid(&mut self, s: &str) {
        check_field(s);
        if self.seen.insert(format!("valid\t{s}")) {
            self.valid += 1;
            println!("valid\t{s}\t{}", is_valid(s));
        }
    }

    fn canon(&mut self, s: &str) {
        check_field(s);
        if !self.seen.insert(format!("canon\t{s}")) {
            return;
        }
        self.canon += 1;
        let result = match canonize(s) {
            Canon::Ok(k) => {
                assert!(
                    is_valid(&k),
                    "autocanonize({s:?}) gave {k:?}, which keyexpr::new refuses"
                );
                k
            }
            Canon::Err => "ERR".to_string(),
            Canon::Panic => {
                self.panics += 1;
                "PANIC".to_string()
            }
        };
        println!("canon\t{s}\t{result}");
    }

    fn pair(&mut self, a: &str, b: &str) {
        check_field(a);
        check_field(b);
        if !self.seen.insert(format!("pair\t{a}\t{b}")) {
            return;
        }
        let ka = keyexpr::new(a)
            .unwrap_or_else(|_| panic!("pair member {a:?} is not a valid key expression"));
        let kb = keyexpr::new(b)
            .unwrap_or_else(|_| panic!("pair member {b:?} is not a valid key expression"));
        let i = ka.intersects(kb);
        let c = ka.includes(kb);
        // Inclusion implies intersection for non-empty sets; catch a mislabelled row.
        assert!(!c || i, "{a} includes {b} but does not intersect it");
        self.pairs += 1;
        self.intersecting += i as usize;
        self.including += c as usize;
        println!("pair\t{a}\t{b}\t{i}\t{c}");
    }
}

/// The pairs of protocol/vectors-keyexpr.txt, repeated so this file is a superset.
const REFERENCE_PAIRS: &[(&str, &str)] = &[
    ("a", "a"),
    ("a/b", "a/b"),
    ("*", "abc"),
    ("*", "x/abc"),
    ("x/*", "x/abc"),
    ("x/*", "abc"),
    ("ab/*", "ab"),
    ("ab/**", "ab"),
    ("**", "a/b/c"),
    ("**/xyz", "a/b/xyz/d/e/f/xyz"),
    ("a/*/c/*/e", "a/b/c/d/e"),
    ("a/*/c/*/e", "a/c/e"),
    ("a/*/c/*/e", "a/b/c/d/x/e"),
    ("a/**/c/**/e", "a/c/e"),
    ("a/**/c/*/e/*", "a/b/b/b/c/d/d/c/d/e/f"),
    ("a/**/c/*/e/*", "a/b/b/b/c/d/d/c/d/d/e/f"),
    ("ab$*", "ab"),
    ("ab$*", "abcd"),
    ("ab$*cd", "abxxcxxd"),
    ("ab$*cd", "abxxcxxcd"),
    ("ab$*c$*d", "abxxcxxd"),
    ("x/abc$*", "x/a$*"),
    ("x/a$*", "x/abc$*"),
    ("x/$*abc", "x/abc$*"),
    ("x/a$*d$*e", "x/a$*e"),
    ("x/a$*e", "x/a$*d$*e"),
    ("x/$*d", "x/$*e"),
    ("a/*", "a/**"),
    ("a/**", "a/*"),
    ("a/*/b", "a/**/b"),
    ("a/**/b", "a/*/b"),
    ("*/b", "a/*"),
    ("@a", "@a/**"),
    ("@a/**", "@a"),
    ("@a/*", "@a/@b"),
    ("@a/**/@b", "@a/@b"),
    ("**", "@a"),
    ("*", "@a"),
    ("a/**", "a/@b/c"),
    ("a/**/@b", "a/@b"),
];

/// Pairs chosen by hand for the corners of the matching rules.
const TRICKY_PAIRS: &[(&str, &str)] = &[
    // verbatim chunks (@...) only match themselves, never * or **
    ("@a", "@a"),
    ("@a", "@b"),
    ("@a", "a"),
    ("a/@b", "a/*"),
    ("a/*", "a/@b"),
    ("a/**/b", "a/@x/b"),
    ("**/@a", "@a"),
    ("@a/**", "@a/b/c"),
    ("@a/**", "@a/@b"),
    ("@a/*/**", "@a/b"),
    ("@/zid/**", "@/zid/a"),
    ("a/@b/**", "a/@b/c/d"),
    ("*/@b", "a/@b"),
    ("@a$*", "@ab"),
    // $* inside a chunk, at the start, middle, end, and more than once
    ("$*a", "a"),
    ("$*a", "ba"),
    ("$*a", "ab"),
    ("a$*", "a"),
    ("a$*b", "ab"),
    ("a$*b", "axxb"),
    ("a$*b", "axxbxxb"),
    ("$*a$*", "xax"),
    ("$*a$*", "b"),
    ("a$*b$*c", "abc"),
    ("a$*b$*c", "acb"),
    ("a$*", "$*a"),
    ("$*a", "a$*"),
    ("a$*b", "$*b"),
    ("$*b", "a$*b"),
    ("a$*b", "a$*"),
    ("a$*", "a$*b"),
    ("a$*", "*"),
    ("*", "a$*"),
    ("$*a", "**"),
    ("**", "$*a"),
    ("x/a$*/y", "x/abc/y"),
    ("x/a$*/y", "x/*/y"),
    ("x/*/y", "x/a$*/y"),
    // ** at the start, in the middle, at the end, several times
    ("**", "a"),
    ("**", "a/b"),
    ("**/a", "a"),
    ("**/a", "b/a"),
    ("**/a", "a/b"),
    ("a/**", "a"),
    ("a/**", "a/b/c"),
    ("a/**", "b/a"),
    ("a/**/b", "a/b"),
    ("a/**/b", "a/x/y/z/b"),
    ("a/**/b", "a/b/c"),
    ("**/a/**", "x/a/y"),
    ("**/a/**", "x/y"),
    ("**/a/**/b/**", "a/b"),
    ("**/a/**/b/**", "b/a"),
    ("a/**/b/**/c", "a/b/c"),
    ("a/**/b/**/c", "a/c/b"),
    ("**/b", "**/a"),
    ("**/a", "a/**"),
    ("a/**", "**/a"),
    ("**", "**"),
    ("*", "*"),
    ("*", "**"),
    ("**", "*"),
    ("*/**", "**"),
    ("**", "*/**"),
    ("*/*", "**"),
    ("**", "*/*"),
    ("*/*/**", "a"),
    ("*/*/**", "a/b"),
    // repeated chunks and long chains
    ("a/a/a", "a/a/a"),
    ("a/a/a", "a/a"),
    ("a/*/a", "a/a/a"),
    ("**/a/a", "a/a/a/a"),
    ("a/**/a/a", "a/a"),
    ("a/**/a/a", "a/a/a"),
    ("a/*/a/*/a", "a/a/a/a/a"),
    ("a/*/a/*/a", "a/a/a/a"),
    ("a/b/c/d/e/f/g/h/i/j/k/l", "a/b/c/d/e/f/g/h/i/j/k/l"),
    ("a/b/c/d/e/f/g/h/i/j/k/l", "a/b/c/d/e/f/g/h/i/j/k/m"),
    ("a/**/l", "a/b/c/d/e/f/g/h/i/j/k/l"),
    ("a/*/*/*/*/*/*/*/*/*/*/l", "a/b/c/d/e/f/g/h/i/j/k/l"),
    ("a/*/*/*/*/*/*/*/*/*/*/l", "a/b/c/d/e/f/g/h/i/j/l"),
    ("**/k/**", "a/b/c/d/e/f/g/h/i/j/k/l"),
    ("**/x/**", "a/b/c/d/e/f/g/h/i/j/k/l"),
    ("a/**/c/**/e/**/g", "a/b/c/d/e/f/g"),
    ("a/**/c/**/e/**/g", "a/b/e/d/c/f/g"),
    ("**/a/*/**", "x/a/y"),
    ("**/a/*/**", "a"),
    // prefix relations between plain keys
    ("a", "a/b"),
    ("a/b", "a"),
    ("ab", "a"),
    ("a", "ab"),
    ("demo/example/**", "demo/example"),
    ("demo/example/**", "demo/example/a/b"),
    ("demo/*/x", "demo/example/x"),
];

/// Candidate strings for the valid/canon rows, beyond the random ones.
const FIXED_STRINGS: &[&str] = &[
    // the reference file's valid? and canon inputs
    "a//b",
    "/a",
    "a/",
    "a/**/**",
    "a/**/*",
    "a/*b",
    "a/$*",
    "a/b$*$*",
    "a?b",
    "a#b",
    "a/$b",
    "a/*/**",
    "$*/a",
    "a/$*$*/b",
    "a/x$*$*",
    "a/**/**/b",
    "a/$*/b",
    "a/b/",
    // more corners
    "",
    "a",
    "/",
    "//",
    "*",
    "**",
    "$*",
    "$*$*",
    "**/**",
    "**/*",
    "*/**",
    "**/**/**",
    "*/*",
    "a/**/**/**",
    "a/**/*/**",
    "a/*/**/*",
    "@a",
    "@a/b",
    "a/@b",
    "@a/**",
    "@",
    "a/@",
    "@a$*",
    "a$*b",
    "$*a",
    "a$*",
    "a$*$*b",
    "a$*b$*c",
    "a$*/b",
    "$",
    "a$",
    "a$b",
    "$a",
    "a/$*a",
    "a/*a",
    "a*",
    "*a",
    "a**",
    "**a",
    "a/**b",
    "?",
    "#",
    "a/?",
    "a/#",
    "a b",
    "a/b/c",
    "a/b//c",
    "///",
    "a/./b",
    "a/../b",
    "ab/cd/ef",
    "a/x$*$*y",
    "x$*$*",
    "$*$*a",
    "a/$*$*",
    "**/$*",
    "$*/**",
    "a/**/$*/b",
    "a/$*/**",
];

/// Token alphabet for random strings: includes the pieces that make strings invalid
/// or non-canonical, so both outcomes are common.
const STRING_TOKENS: &[&str] = &[
    "a", "b", "ab", "/", "/", "/", "*", "**", "$*", "$", "#", "?", "@", "@x", "//", "$*$*",
    "**/**", "**/*", "c",
];

/// Chunk alphabet for random key expressions (joined by '/').
const CHUNKS: &[&str] = &[
    "a", "b", "ab", "ba", "c", "*", "**", "a$*", "$*b", "a$*b", "$*a$*", "b$*", "@x", "@y", "*",
    "**",
];

fn random_string(rng: &mut Rng) -> String {
    let n = rng.below(6);
    (0..n).map(|_| *rng.pick(STRING_TOKENS)).collect()
}

fn random_chunks(rng: &mut Rng) -> Vec<&'static str> {
    let n = 1 + rng.below(5);
    (0..n).map(|_| *rng.pick(CHUNKS)).collect()
}

/// Turns random chunks into a valid canonical key expression: as written if Rust
/// accepts it, otherwise its autocanonized form; None if neither works.
fn to_keyexpr(chunks: &[&str]) -> Option<String> {
    let s = chunks.join("/");
    if is_valid(&s) {
        return Some(s);
    }
    match canonize(&s) {
        Canon::Ok(k) => Some(k),
        _ => None,
    }
}

/// A key expression near `base`: one chunk replaced, inserted or removed. Random
/// pairs rarely intersect; these neighbours make both answers frequent.
fn neighbour(rng: &mut Rng, base: &[&'static str]) -> Vec<&'static str> {
    let mut v = base.to_vec();
    match rng.below(3) {
        0 => {
            let i = rng.below(v.len());
            v[i] = *rng.pick(CHUNKS);
        }
        1 => {
            let i = rng.below(v.len() + 1);
            v.insert(i, *rng.pick(CHUNKS));
        }
        _ => {
            if v.len() > 1 {
                let i = rng.below(v.len());
                v.remove(i);
            }
        }
    }
    v
}

fn main() {
    println!(
        "# keyexpr-gen.txt: golden key-expression results printed by tools/zgen (zgen-keyexpr)"
    );
    println!("# with the Rust zenoh-keyexpr 1.10.2 crate. Do not edit by hand; regenerate.");
    println!("# valid<TAB>STR<TAB>true|false        keyexpr::new(STR).is_ok() (STR may be empty)");
    println!("# canon<TAB>STR<TAB>RESULT            OwnedKeyExpr::autocanonize(STR): the canonical form, ERR,");
    println!("#                                     or PANIC where the Rust canonizer panics on the input");
    println!("# pair<TAB>A<TAB>B<TAB>I<TAB>C        I = A.intersects(B), C = A.includes(B)");
    let mut out = Out::default();
    let mut rng = Rng(0x7a6d_6f74_6520_6b65); // fixed seed: same file on every run

    println!("#");
    println!("# validity");
    for s in FIXED_STRINGS {
        out.valid(s);
    }
    let mut tries = 0;
    while out.valid < 110 && tries < 10_000 {
        tries += 1;
        let s = random_string(&mut rng);
        out.valid(&s);
    }

    println!("#");
    println!("# autocanonize");
    for s in FIXED_STRINGS {
        out.canon(s);
    }
    let fixed_canon = out.canon;
    let mut tries = 0;
    while out.canon < fixed_canon + 40 && tries < 10_000 {
        tries += 1;
        let s = random_string(&mut rng);
        out.canon(&s);
    }

    println!("#");
    println!("# pairs from the reference file");
    for (a, b) in REFERENCE_PAIRS {
        out.pair(a, b);
    }
    println!("#");
    println!("# hand-picked pairs");
    for (a, b) in TRICKY_PAIRS {
        out.pair(a, b);
        out.pair(b, a);
    }

    println!("#");
    println!("# random pairs (fixed seed)");
    let before = out.pairs;
    let mut tries = 0;
    while out.pairs < before + 320 && tries < 100_000 {
        tries += 1;
        let ca = random_chunks(&mut rng);
        let cb = if rng.below(2) == 0 {
            random_chunks(&mut rng)
        } else {
            neighbour(&mut rng, &ca)
        };
        if let (Some(a), Some(b)) = (to_keyexpr(&ca), to_keyexpr(&cb)) {
            out.pair(&a, &b);
        }
    }
    assert!(
        out.pairs >= before + 300,
        "the random generator produced too few pairs"
    );

    println!("#");
    println!(
        "# totals: {} valid, {} canon ({} PANIC), {} pairs ({} intersect, {} include)",
        out.valid, out.canon, out.panics, out.pairs, out.intersecting, out.including
    );
    eprintln!(
        "zgen-keyexpr: {} valid, {} canon ({} PANIC), {} pairs ({} intersect, {} include)",
        out.valid, out.canon, out.panics, out.pairs, out.intersecting, out.including
    );
}
