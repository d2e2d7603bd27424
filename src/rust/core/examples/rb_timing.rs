fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    for _ in 0..3 {
    let t = std::time::Instant::now();
    for _ in 0..200 { std::hint::black_box(profile_core::pprof::read_bytes(&bytes, None, &Default::default()).unwrap()); }
    println!("read_bytes: {:?} each", t.elapsed() / 200);
    }
}
