// Times writing Rprof text and validating (for bench/README.md): medians of
// repeated runs on the profile read from FILE.
//   cargo run --release -p profile-core --example rprof_write_timing FILE [RUNS]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a timing tool run by hand: a failure ends it with its message"
)]
use profile_core::{rprof, validate};
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
    (times[runs / 2], times[0])
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
    let budget = profile_core::budget::Budget::default();
    let options = rprof::ParseOptions::new(&budget);
    rprof::parse(std::borrow::Cow::Borrowed(bytes), &options)?.expand(&budget)
}
