// Times the Rprof reader (for bench/README.md): medians of repeated parses in one
// pass and in 2 … 4 chunks on as many threads, which must all give the same tables.
//   cargo run --release -p profile-core --example rprof_timing FILE [RUNS [CHUNKS...]]
use profile_core::input::Limits;
use profile_core::rprof;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: rprof_timing FILE [RUNS]");
    let runs: usize = args.next().map_or(7, |n| n.parse().expect("RUNS is a number"));
    let mut counts: Vec<usize> = args.map(|n| n.parse().expect("CHUNKS is a number")).collect();
    if counts.is_empty() {
        counts = vec![1, 2, 3, 4];
    }
    let bytes = std::fs::read(&path).unwrap();
    let limits = Limits::default();
    let mut reference = None;
    for chunks in counts {
        let mut times: Vec<Duration> = Vec::new();
        for run in 0..runs {
            let t = Instant::now();
            let parsed = rprof::parse_in_chunks(&bytes, None, &limits, chunks).unwrap();
            times.push(t.elapsed());
            if run == 0 {
                let all = format!("{:?}", (parsed.profile.tables(), parsed.profile.strings.as_slice(), &parsed.warnings));
                assert!(reference.get_or_insert_with(|| all.clone()) == &all, "{chunks} chunks: another result");
            }
        }
        times.sort();
        println!("{chunks} chunk(s): median {:?} (min {:?})", times[runs / 2], times[0]);
    }
}
