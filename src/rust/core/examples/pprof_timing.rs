// Times the phases of reading and writing a pprof file (for bench/README.md).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::pprof;
use profile_core::resources::limits::Limits;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: pprof_timing FILE");
    let bytes = std::fs::read(&path).unwrap();
    let limits = Limits::default();
    let n = 20;
    let t = Instant::now();
    let mut p = None;
    for _ in 0..n {
        p = Some(pprof::read_bytes(&bytes, None, &limits).unwrap());
    }
    println!("read_bytes: {:?}", t.elapsed() / n);
    let p = p.unwrap();
    let t = Instant::now();
    for _ in 0..n {
        profile_core::model::validate::validate(&p).unwrap();
    }
    println!("validate: {:?}", t.elapsed() / n);
    let opts = pprof::WriteOptions::default();
    let t = Instant::now();
    let mut m = None;
    for _ in 0..n {
        m = Some(pprof::message_from_profile(&p, &opts).unwrap());
    }
    println!(
        "message_from_profile (incl. validate): {:?}",
        t.elapsed() / n
    );
    let m = m.unwrap();
    let t = Instant::now();
    let mut enc = Vec::new();
    for _ in 0..n {
        enc = prost::Message::encode_to_vec(&m);
    }
    println!("prost encode: {:?} ({} bytes)", t.elapsed() / n, enc.len());
    for level in [1, 6] {
        let t = Instant::now();
        let mut size = 0;
        for _ in 0..n {
            use std::io::Write;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            gz.write_all(&enc).unwrap();
            size = gz.finish().unwrap().len();
        }
        println!("gzip level {level}: {:?} ({size} bytes)", t.elapsed() / n);
    }
}
