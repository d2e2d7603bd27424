//! Tests of reading and writing OTLP: real files, round trips, drafts, damage.

use super::*;
use crate::formats::other_format_than_otlp;
use crate::model::NA_INT;
use crate::testing::shared_otlp;
use prost::Message;

fn read(bytes: &[u8]) -> Result<Profile> {
    read_bytes(
        bytes,
        Some("test"),
        &Limits::default(),
        &other_format_than_otlp,
    )
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
        crate::model::validate::validate(&p).unwrap_or_else(|e| panic!("{f}: {e}"));
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

/// Seed files of the damage tests: the OTEP example, the real files that are
/// present, and the package's sample profiles written by this writer.
fn seed_files(format: Format) -> &'static [Vec<u8>] {
    static BINARY: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    static JSON: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    let make = || {
        let samples =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../inst/samples/otlp");
        let ext = if format == Format::Json { "json" } else { "pb" };
        let mut files = vec![std::fs::read(samples.join(format!("otep-0239.{ext}"))).unwrap()];
        let real = match format {
            Format::Protobuf => [
                "async-profiler-generated/burn.otlp.pb",
                "otel-collector-contrib/golden-profiles-roundtrip-expected.derived.pb",
            ],
            Format::Json => [
                "async-profiler-generated/burn.otlp.derived.json",
                "otel-collector-contrib/golden-profiles-roundtrip-expected.derived.json",
            ],
        };
        files.extend(real.iter().filter_map(|f| shared_otlp(f)));
        for rprof in crate::testing::rprof_files().iter().take(3) {
            let p = crate::testing::read_rprof(rprof, Some("r"))
                .unwrap()
                .profile;
            files.push(encode(&p, format).unwrap());
        }
        for pprof in crate::testing::pprof_messages().iter().take(3) {
            let p = crate::testing::read_pprof(pprof, Some("p")).unwrap();
            files.push(encode(&p, format).unwrap());
        }
        files
    };
    match format {
        Format::Protobuf => BINARY.get_or_init(make),
        Format::Json => JSON.get_or_init(make),
    }
}

/// Read: a valid profile or an error, never a panic.
fn read_or_refuse(data: &[u8]) -> std::result::Result<(), String> {
    match read(data) {
        Ok(p) => {
            crate::model::validate::validate(&p).map_err(|e| format!("read, but invalid: {e}"))
        }
        Err(e) if e.kind() == "internal" => Err(format!("internal error: {e}")),
        Err(_) => Ok(()),
    }
}

/// The samples of a profile as (source row, stack length, sum of values),
/// by source, in order within each.
fn sample_shapes(p: &Profile) -> Vec<(usize, usize, i64)> {
    let sources: Vec<i32> = p.sources.source_id.clone();
    p.samples
        .sample_id
        .iter()
        .zip(&p.samples.source_id)
        .map(|(&id, &src)| {
            let depth = p
                .sample_locations
                .sample_id
                .iter()
                .filter(|&&s| s == id)
                .count();
            let sum: f64 = p
                .sample_values
                .sample_id
                .iter()
                .zip(&p.sample_values.value)
                .filter(|(&s, _)| s == id)
                .map(|(_, &v)| v)
                .sum();
            let row = sources.iter().position(|&s| s == src).unwrap();
            (row, depth, sum as i64)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(Vec::new(), |mut out, x| {
            out.push(x);
            out.sort_by_key(|&(row, _, _)| row);
            out
        })
}

/// A random profile whose frames in chains of inlined frames all have a
/// function (a frame without one is a location without lines, which OTLP,
/// as pprof, cannot have in the middle of a chain).
fn random_profile(seed: u64) -> Profile {
    let mut p = crate::testing::random_profile(seed);
    let l = &mut p.locations;
    let targets: Vec<i32> = l.inlined_into.clone();
    let first = p.functions.function_id.first().copied();
    for r in 0..l.nrow() {
        let in_chain = l.inlined_into[r] != NA_INT || targets.contains(&l.location_id[r]);
        if in_chain && l.function_id[r] == NA_INT {
            match first {
                Some(f) => l.function_id[r] = f,
                None => l.inlined_into[r] = NA_INT,
            }
        }
    }
    p
}

/// Asserts that the content's count of `data` shown in `pieces` is within
/// what the decoder charges for them, when they decode.
fn assert_count_within_charge(pieces: &[&[u8]], data: &[u8]) {
    use crate::io::input::Content;
    let mut c = OtlpContent::new(&Limits::default());
    for piece in pieces {
        if c.take(piece).is_err() {
            return;
        }
    }
    let budget = Budget::default();
    let mut decoder = decode::Decoder::new(&budget);
    if decoder.decode(data).is_ok() {
        let counted = c.least_memory() - data.len() as u64;
        assert!(
            counted <= decoder.charged,
            "counted {counted} bytes, the decoder charged {}",
            decoder.charged
        );
    }
}

#[test]
fn the_count_of_real_files_is_within_the_charge() {
    for data in seed_files(Format::Protobuf)
        .iter()
        .cloned()
        .chain(shared_otlp("pyroscope/otel-ebpf-profile.pb.bin"))
    {
        let pieces: Vec<&[u8]> = data.chunks(1000).collect();
        assert_count_within_charge(&pieces, &data);
        assert_count_within_charge(&[&data], &data);
    }
}

proptest::proptest! {
    #![proptest_config(crate::testing::config(2000))]

    /// Damaged binary files: read (and valid) or refused, never a panic.
    #[test]
    fn damaged_files_are_read_or_refused(data in crate::testing::damaged_file(seed_files(Format::Protobuf))) {
        proptest::prop_assert_eq!(read_or_refuse(&data), Ok(()));
    }

    /// The same for OTLP/JSON.
    #[test]
    fn damaged_json_is_read_or_refused(data in crate::testing::damaged_file(seed_files(Format::Json))) {
        proptest::prop_assert_eq!(read_or_refuse(&data), Ok(()));
    }

    /// The same gzip-compressed: inflation and its sniff in between.
    #[test]
    fn damaged_gzip_files_are_read_or_refused(data in crate::testing::damaged_file(seed_files(Format::Protobuf))) {
        proptest::prop_assert_eq!(read_or_refuse(&crate::testing::gzip(&data)), Ok(()));
    }

    /// Whatever the pieces inflation shows it, the content decides alike.
    #[test]
    fn pieces_do_not_matter(data in crate::testing::damaged_file(seed_files(Format::Protobuf)), cuts in crate::testing::cuts()) {
        use crate::io::input::Content;
        let verdict = |pieces: &[&[u8]]| {
            let mut c = OtlpContent::new(&Limits::default());
            for piece in pieces {
                if let Err(e) = c.take(piece) {
                    return format!("{e}");
                }
            }
            format!("{:?} {} {}", c.kind, c.other_fields, c.least_memory())
        };
        proptest::prop_assert_eq!(verdict(&crate::testing::pieces(&data, &cuts)), verdict(&[&data]));
    }

    /// What the content counts while data are inflated is never more than
    /// what the decoder charges for them (else a file the budget allows
    /// would be refused): damaged files, in pieces, that decode.
    #[test]
    fn the_streamed_count_is_a_lower_bound(data in crate::testing::damaged_file(seed_files(Format::Protobuf)), cuts in crate::testing::cuts()) {
        assert_count_within_charge(&crate::testing::pieces(&data, &cuts), &data);
    }

    /// A random valid profile writes, and reads back with its samples (in
    /// order, each with its stack and the sum of its values; a value a
    /// sample lacks is written as 0), in both formats.
    #[test]
    fn random_profiles_write_and_read_back(seed in proptest::prelude::any::<u64>()) {
        let p = random_profile(seed);
        for format in [Format::Protobuf, Format::Json] {
            let bytes = encode(&p, format).unwrap();
            let q = read(&bytes).unwrap();
            crate::model::validate::validate(&q).unwrap();
            proptest::prop_assert_eq!(sample_shapes(&q), sample_shapes(&p));
            proptest::prop_assert_eq!(q.sources.nrow(), p.sources.nrow());
            // ... and writes again to the same message.
            let again = encode(&q, format).unwrap();
            if format == Format::Protobuf {
                let m = message_from_profile(&p).unwrap();
                proptest::prop_assert_eq!(encode_message(&m).unwrap(), m.encode_to_vec());
            }
            proptest::prop_assert_eq!(read(&again).map(|r| sample_shapes(&r)).unwrap(), sample_shapes(&p));
        }
    }
}

/// The writer's encoding is prost's, byte for byte: for the messages of the
/// real files and of profiles read from Rprof and pprof files, and for a
/// message with two resources, scopes and schema URLs in every place.
#[test]
fn encode_message_is_prosts_encoding() {
    let mut messages: Vec<proto::ProfilesData> = seed_files(Format::Protobuf)
        .iter()
        .map(|bytes| message_from_profile(&read(bytes).unwrap()).unwrap())
        .collect();
    let mut m = messages[0].clone();
    let mut rp = m.resource_profiles[0].clone();
    rp.schema_url = b"https://resource".to_vec();
    let mut sp = rp.scope_profiles[0].clone();
    sp.schema_url = b"https://scope".to_vec();
    sp.scope = None;
    rp.scope_profiles.push(sp.clone());
    rp.scope_profiles.push(proto::ScopeProfiles::default());
    rp.resource = None;
    m.resource_profiles.push(rp);
    m.resource_profiles.push(proto::ResourceProfiles::default());
    messages.push(m);
    messages.push(proto::ProfilesData::default());
    assert!(messages.len() > 5);
    for m in &messages {
        assert_eq!(encode_message(m).unwrap(), m.encode_to_vec());
    }
}

#[test]
fn drafts_are_named() {
    let expected = [
        (
            "async-profiler-corrupted-function-idx.otlp-v1.7.0.pb.bin.gz",
            "v1.7",
        ),
        (
            "otel-ebpf-profile-corrupted.otlp-v1.8.0.pb.bin.gz",
            "v1.8/v1.9",
        ),
        ("otel-ebpf-profile.otlp-v1.8.0.pb.bin.gz", "v1.8/v1.9"),
        (
            "otel-ebpf-profiler-pyrosymbolized.otlp-v1.5.0.pb.bin.gz",
            "v1.4/v1.5",
        ),
        (
            "otel-ebpf-profiler-unsymbolized.otlp-v1.7.0.pb.bin.gz",
            "v1.7",
        ),
    ];
    for (file, draft) in expected {
        let Some(bytes) = shared_otlp(&format!("pyroscope/history/{file}")) else {
            continue;
        };
        let e = read(&bytes).unwrap_err();
        assert_eq!(e.kind(), "unsupported", "{file}: {e}");
        assert!(
            e.to_string().contains(&format!("the {draft} ")),
            "{file}: {e}"
        );
    }
}

#[test]
fn a_pprof_file_is_named() {
    let e = read(&crate::testing::pprof_gz_files()[0]).unwrap_err();
    assert!(e.to_string().contains("it is a pprof file"), "{e}");
}

#[test]
fn hostile_counts_are_refused_by_the_budget() {
    // A sample with 2^20 one-byte values claims 8 MiB of values from 1 MiB
    // of input, within any budget; a budget of 1 MiB refuses it.
    let mut sample = vec![0x22]; // Sample.values, packed
    let n = 1usize << 20;
    let mut len = Vec::new();
    let mut v = n as u64;
    while v >= 0x80 {
        len.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    len.push(v as u8);
    sample.extend(&len);
    sample.extend(std::iter::repeat_n(1u8, n));
    let wrap = |field: u8, inner: &[u8]| {
        let mut out = vec![field];
        let mut v = inner.len() as u64;
        while v >= 0x80 {
            out.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out.extend_from_slice(inner);
        out
    };
    let profile = wrap(0x12, &sample); // Profile.samples
    let scope = wrap(0x12, &profile); // ScopeProfiles.profiles
    let resource = wrap(0x12, &scope); // ResourceProfiles.scope_profiles
    let data = wrap(0x0a, &resource); // ProfilesData.resource_profiles
    let small = Limits {
        max_memory: 1 << 20,
        ..Limits::default()
    };
    let e = read_bytes(&data, None, &small, &other_format_than_otlp).unwrap_err();
    assert_eq!(e.kind(), "limit", "{e}");
    // With room, it reads: 2^20 observations of value 1.
    let p = read(&data).unwrap();
    assert_eq!(p.samples.nrow(), n);
}

/// Sources alike in every field, one after the other, each with a type of its
/// own: the reader would take them for one source with three types, so the
/// writer marks the second and the third, and the reader drops the marks.
#[test]
fn sources_alike_stay_apart() {
    use crate::testing::{row, s, Val::I};
    let mut p = Profile::new();
    for (id, ty, unit) in [
        (1, "cpu", "nanoseconds"),
        (2, "alloc", "bytes"),
        (3, "wall", "nanoseconds"),
    ] {
        row!(&mut p, sources, "source_id" => I(id), "source_type" => s("pprof"), "source_uri" => s("x.pb.gz"));
        row!(&mut p, sample_types, "source_id" => I(id), "type" => s(ty), "unit" => s(unit));
    }
    crate::model::validate::validate(&p).unwrap();
    for format in [Format::Protobuf, Format::Json] {
        let bytes = encode(&p, format).unwrap();
        let q = read(&bytes).unwrap();
        assert_eq!(q.sources.nrow(), 3, "{format:?}");
        let types: Vec<(i32, &str)> = (0..q.sample_types.nrow())
            .map(|r| {
                (
                    q.sample_types.source_id[r],
                    q.str(q.sample_types.value_type[r]),
                )
            })
            .collect();
        let ids = &q.sources.source_id;
        assert_eq!(
            types,
            vec![(ids[0], "cpu"), (ids[1], "alloc"), (ids[2], "wall")]
        );
        assert_eq!(
            q.source_attributes.nrow(),
            0,
            "the marks are not attributes"
        );
        assert_eq!(
            encode(&q, format).unwrap(),
            bytes,
            "{format:?} writes again alike"
        );
    }
    // One source of three types is still one source, without marks.
    let mut one = Profile::new();
    row!(&mut one, sources, "source_id" => I(1), "source_type" => s("pprof"));
    for (ty, unit) in [("cpu", "nanoseconds"), ("alloc", "bytes")] {
        row!(&mut one, sample_types, "source_id" => I(1), "type" => s(ty), "unit" => s(unit));
    }
    let q = read(&encode(&one, Format::Protobuf).unwrap()).unwrap();
    assert_eq!((q.sources.nrow(), q.sample_types.nrow()), (1, 2));
}

/// The sources of a recording of parallel code, one per R process, each a
/// resource of its own with `process.pid`, `host.name` and the role, which
/// the reader puts back into the process columns; a source without a
/// process stays in the default resource.
#[test]
fn processes_are_resources_and_read_back() {
    use crate::testing::{row, s, Val::I};
    let mut p = Profile::new();
    for (id, pid, role) in [(1, 4242, "main"), (2, 4243, "worker"), (3, 4244, "worker")] {
        // (a source_uri of their own: else the reader's, "test", would be
        // written the second time)
        row!(&mut p, sources, "source_id" => I(id), "source_type" => s("rprof"),
            "source_uri" => s("run.out"), "process_id" => I(pid), "host_name" => s("node-1"),
            "process_role" => s(role));
        row!(&mut p, sample_types, "source_id" => I(id), "type" => s("samples"), "unit" => s("count"));
    }
    row!(&mut p, sources, "source_id" => I(4), "source_type" => s("rprof"), "source_uri" => s("run.out"));
    row!(&mut p, sample_types, "source_id" => I(4), "type" => s("samples"), "unit" => s("count"));
    crate::model::validate::validate(&p).unwrap();
    for format in [Format::Protobuf, Format::Json] {
        let bytes = encode(&p, format).unwrap();
        let q = read(&bytes).unwrap();
        assert_eq!(
            q.resources.nrow(),
            4,
            "{format:?}: one resource per process, one default"
        );
        let process = |r: usize| {
            (
                q.sources.process_id[r],
                q.strings.get(q.sources.host_name[r]),
                q.strings.get(q.sources.process_role[r]),
            )
        };
        let got: Vec<_> = (0..q.sources.nrow()).map(process).collect();
        assert_eq!(
            got,
            vec![
                (4242, Some("node-1"), Some("main")),
                (4243, Some("node-1"), Some("worker")),
                (4244, Some("node-1"), Some("worker")),
                (NA_INT, None, None),
            ],
            "{format:?}"
        );
        let keys: Vec<&str> = (0..q.resource_attributes.nrow())
            .filter(|&r| q.resource_attributes.resource_id[r] == q.resources.resource_id[0])
            .map(|r| q.str(q.resource_attributes.key[r]))
            .collect();
        assert_eq!(keys, ["process.pid", "host.name", "r.profile.process_role"]);
        assert_eq!(
            encode(&q, format).unwrap(),
            bytes,
            "{format:?} writes again alike"
        );
    }
}
