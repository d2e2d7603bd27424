// Times validation of a profile read from an Rprof file, check by check
// (for bench/README.md): cargo run --release -p profile-core --example validate_timing FILE
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::rprof;
use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: validate_timing FILE");
    let bytes = std::fs::read(&path).unwrap();
    let t = Instant::now();
    let parsed = read_whole(&bytes).unwrap();
    println!("parse: {:?}", t.elapsed());
    let p = parsed.profile;
    println!(
        "sample_locations rows: {}",
        p.sample_locations.sample_id.len()
    );
    let n = 5;
    let t = Instant::now();
    for _ in 0..n {
        profile_core::model::validate::validate(&p).unwrap();
    }
    println!("validate: {:?}", t.elapsed() / n);
}

/// The whole read of an Rprof file (every column written).
fn read_whole(bytes: &[u8]) -> profile_core::Result<rprof::Parsed> {
    let budget = profile_core::resources::budget::Budget::default();
    let options = rprof::ParseOptions::new(&budget);
    rprof::parse(std::borrow::Cow::Borrowed(bytes), &options)?.expand(&budget)
}
