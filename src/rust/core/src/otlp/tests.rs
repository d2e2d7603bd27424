//! Tests of reading and writing OTLP: real files, round trips, drafts, damage.

use super::*;
use crate::testing::shared_otlp;

fn read(bytes: &[u8]) -> Result<Profile> {
    read_bytes(bytes, Some("test"), &Limits::default())
}

#[test]
fn reads_the_real_files() {
    for f in [
        "pyroscope/otel-ebpf-profile.pb.bin",
        "pyroscope/otel-ebpf-profile.pb.json",
        "async-profiler-generated/burn.otlp.pb",
        "async-profiler-generated/burn.otlp.derived.json",
        "otel-collector-contrib/golden-profiles-roundtrip-expected.derived.json",
        "otel-collector-contrib/golden-profiles-roundtrip-expected.derived.pb",
    ] {
        let Some(bytes) = shared_otlp(f) else {
            eprintln!("skipped: {f} is absent");
            continue;
        };
        let p = read(&bytes).unwrap_or_else(|e| panic!("{f}: {e}"));
        crate::validate::validate(&p).unwrap_or_else(|e| panic!("{f}: {e}"));
        eprintln!(
            "{f}: {} sources, {} samples, {} locations, {} resources",
            p.sources.nrow(),
            p.samples.nrow(),
            p.locations.nrow(),
            p.resources.nrow()
        );
    }
}

#[test]
fn refuses_the_drafts() {
    for f in [
        "pyroscope/history/async-profiler-corrupted-function-idx.otlp-v1.7.0.pb.bin.gz",
        "pyroscope/history/otel-ebpf-profile-corrupted.otlp-v1.8.0.pb.bin.gz",
        "pyroscope/history/otel-ebpf-profile.otlp-v1.8.0.pb.bin.gz",
        "pyroscope/history/otel-ebpf-profiler-pyrosymbolized.otlp-v1.5.0.pb.bin.gz",
        "pyroscope/history/otel-ebpf-profiler-unsymbolized.otlp-v1.7.0.pb.bin.gz",
    ] {
        let Some(bytes) = shared_otlp(f) else {
            continue;
        };
        let e = read(&bytes).unwrap_err();
        eprintln!("{f}: {} {e}", e.kind());
    }
}
