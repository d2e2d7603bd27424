// Times writing Rprof text and validating (for bench/README.md): medians of
// repeated runs on the profile read from FILE.
//   cargo run --release -p profile-core --example rprof_write_timing FILE [RUNS]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::rprof;
use profile_core::model::validate;
use std::time::{Duration, Instant};

fn median(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    let at = |i: usize| times.get(i).copied().unwrap_or_default();
    (at(runs / 2), at(0))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: rprof_write_timing FILE [RUNS]");
    let runs: usize = args
        .next()
        .map_or(7, |n| n.parse().expect("RUNS is a number"));
    let bytes = std::fs::read(&path).unwrap();
    let p = read_whole(&bytes).unwrap().profile;
    let (med, min) = median(runs, || validate::validate(&p).unwrap());
    println!("validate: median {med:?} (min {min:?})");
    let (med, min) = median(runs, || {
        let mut sink = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
        rprof::write(&p, &mut sink).unwrap();
    });
    println!("write (to a 64 KiB buffer, then nowhere): median {med:?} (min {min:?})");
    let out = rprof::write_to_vec(&p).unwrap();
    println!(
        "{} bytes written, same as the input: {}",
        out.len(),
        out == bytes
    );
}

/// The whole read of an Rprof file (every column written).
fn read_whole(bytes: &[u8]) -> profile_core::Result<rprof::Parsed> {
    let budget = profile_core::resources::budget::Budget::default();
    let options = rprof::ParseOptions::new(&budget);
    rprof::parse(std::borrow::Cow::Borrowed(bytes), &options)?.expand(&budget)
}
