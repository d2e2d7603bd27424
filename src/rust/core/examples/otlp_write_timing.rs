// Times writing OTLP against writing pprof, phase by phase (for bench/README.md
// and `perf record`): medians of repeated runs on the profile read from FILE
// (a pprof file, e.g. the one `bench/otlp.R` writes); CPU time of this process.
//   cargo run --release -p profile-core --example otlp_write_timing FILE [RUNS] [only]
// With `only` = otlp or pprof, only that writer's message is built (for perf);
// with `only` = read, FILE (an OTLP file, binary or JSON) is only read.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::{other_format_than_otlp, otlp, pprof};
use profile_core::model::validate;
use profile_core::resources::limits::Limits;
use prost::Message;
use std::io::Write;
use std::time::Duration;

/// CPU time (user + system) of this process so far, from /proc/self/stat
/// (Linux; in clock ticks of 10 ms): on a shared machine the wall time is
/// mostly waiting.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = cpu_time();
            f();
            cpu_time() - t
        })
        .collect();
    times.sort();
    times.get(runs / 2).copied().unwrap_or_default()
}

fn gzip(bytes: &[u8]) -> usize {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap().len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: otlp_write_timing FILE [RUNS] [only]");
    let runs: usize = args
        .next()
        .map_or(5, |n| n.parse().expect("RUNS is a number"));
    let only = args.next();
    let bytes = std::fs::read(&path).unwrap();
    if only.as_deref() == Some("read") {
        let t = median(runs, || {
            std::hint::black_box(
                otlp::read_bytes(&bytes, None, &Limits::default(), &other_format_than_otlp)
                    .unwrap(),
            );
        });
        println!("otlp read_bytes: {t:?}");
        return;
    }
    let p = pprof::read_bytes(&bytes, None, &Limits::default()).unwrap();
    let opts = pprof::WriteOptions::default();
    if let Some(which) = only.as_deref() {
        for _ in 0..runs {
            if which == "otlp" {
                std::hint::black_box(otlp::message_from_profile(&p).unwrap());
            } else {
                std::hint::black_box(pprof::message_from_profile(&p, &opts).unwrap());
            }
        }
        return;
    }
    let t = median(runs, || validate::validate(&p).unwrap());
    println!("validate: {t:?}");
    let t = median(runs, || {
        std::hint::black_box(pprof::message_from_profile(&p, &opts).unwrap());
    });
    println!("pprof message_from_profile: {t:?}");
    let m = pprof::message_from_profile(&p, &opts).unwrap();
    let mut enc = Vec::new();
    let t = median(runs, || enc = m.encode_to_vec());
    println!("pprof encode: {t:?} ({} bytes)", enc.len());
    let mut size = 0;
    let t = median(runs, || size = gzip(&enc));
    println!("pprof gzip (fast): {t:?} ({size} bytes)");
    let t = median(runs, || {
        std::hint::black_box(otlp::message_from_profile(&p).unwrap());
    });
    println!("otlp message_from_profile: {t:?}");
    let m = otlp::message_from_profile(&p).unwrap();
    let t = median(runs, || enc = m.encode_to_vec());
    println!(
        "otlp encode (prost encode_to_vec): {t:?} ({} bytes)",
        enc.len()
    );
    let t = median(runs, || enc = otlp::encode_message(&m).unwrap());
    println!("otlp encode (encode_message): {t:?} ({} bytes)", enc.len());
    let t = median(runs, || size = gzip(&enc));
    println!("otlp gzip (fast): {t:?} ({size} bytes)");
    let mut text = Vec::new();
    let t = median(runs, || {
        text = otlp::encode(&p, otlp::Format::Json).unwrap();
    });
    println!("otlp/json encode (whole): {t:?} ({} bytes)", text.len());
}
