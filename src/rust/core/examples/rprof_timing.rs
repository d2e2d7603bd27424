// Times the Rprof reader (for bench/README.md): medians of repeated parses in one
// pass and in 2 … 4 chunks on as many threads, with the CPU time they took (Linux:
// from /proc/self/stat), and checks that every chunk count gives the same result.
//   cargo run --release -p profile-core --example rprof_timing FILE [RUNS [CHUNKS...]]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::rprof;
use profile_core::resources::budget::Budget;
use profile_core::resources::limits::Limits;
use std::borrow::Cow;
use std::time::{Duration, Instant};

/// User + system CPU time of this process so far, if /proc tells it (in clock
/// ticks of 1/100 s, Linux's USER_HZ).
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (in parentheses): utime and stime are the
    // 12th and 13th.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: rprof_timing FILE [RUNS [CHUNKS...]]");
    let runs: usize = args
        .next()
        .map_or(7, |n| n.parse().expect("RUNS is a number"));
    let mut counts: Vec<usize> = args
        .map(|n| n.parse().expect("CHUNKS is a number"))
        .collect();
    if counts.is_empty() {
        counts = vec![1, 2, 3, 4];
    }
    let bytes = std::fs::read(&path).unwrap();
    let limits = Limits::default();
    let mut reference = None;
    for chunks in counts {
        let all = |p: &rprof::Parsed| {
            format!(
                "{:?}",
                (
                    p.profile.tables(),
                    p.profile.strings.as_slice(),
                    &p.warnings,
                    &p.sample_lines
                )
            )
        };
        let first = read(&bytes, &limits, chunks);
        assert!(
            reference.get_or_insert_with(|| all(&first)) == &all(&first),
            "{chunks} chunks: another result"
        );
        drop(first);
        let mut times: Vec<Duration> = Vec::new();
        let cpu_before = cpu_time();
        for _ in 0..runs {
            let t = Instant::now();
            let parsed = read(&bytes, &limits, chunks);
            times.push(t.elapsed());
            drop(parsed);
        }
        let cpu = cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        let wall: Duration = times.iter().sum();
        times.sort();
        print!(
            "{chunks} chunk(s): median {:?} (min {:?})",
            times.get(runs / 2).copied().unwrap_or_default(),
            times.first().copied().unwrap_or_default()
        );
        match cpu {
            Some(cpu) => println!(", CPU/wall {:.2}", cpu.as_secs_f64() / wall.as_secs_f64()),
            None => println!(),
        }
    }
}

/// The whole read of `bytes` (every column written) in `chunks` chunks.
fn read(bytes: &[u8], limits: &Limits, chunks: usize) -> rprof::Parsed {
    let budget = Budget::new(*limits);
    let options = rprof::ParseOptions::new(&budget).chunks(chunks);
    rprof::parse(Cow::Borrowed(bytes), &options)
        .and_then(|read| read.expand(&budget))
        .unwrap()
}
