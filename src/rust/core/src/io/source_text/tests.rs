use super::*;
use pretty_assertions::assert_eq;

const LIMITS: SourceTextLimits = SourceTextLimits {
    max_file_bytes: 100,
    max_total_bytes: 140,
};

#[test]
fn lines_of_source_files_within_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let a = write("a.R", b"f <- function() {\r\n  1\n}\n");
    let b = write("b.go", b"package main\n\xff no newline");
    let binary = write("c.c", b"int\0main");
    let big = write("big.py", &[b'x'; 101]);
    let secret = write("id_rsa", b"KEY\n");
    let c = write("d.rs", &[b'y'; 100]);
    let missing = dir.path().join("gone.R");
    let paths: Vec<&Path> = vec![
        a.as_path(),
        b.as_path(),
        binary.as_path(),
        big.as_path(),
        secret.as_path(),
        missing.as_path(),
        dir.path(),
        c.as_path(),
    ];
    let text = read_source_files(&paths, LIMITS);
    // d.rs does not fit the total after a.R and b.go (25 + 25 + 100 > 140)
    assert_eq!(text.file, vec![0, 0, 0, 1, 1]);
    assert_eq!(text.line, vec![1, 2, 3, 1, 2]);
    assert_eq!(
        text.text,
        vec![
            "f <- function() {",
            "  1",
            "}",
            "package main",
            "<ff> no newline"
        ]
    );
    let alone = read_source_files(&[c.as_path()], LIMITS);
    assert_eq!(alone.line, vec![1]);
}

#[test]
fn empty_files_and_blank_lines() {
    assert_eq!(split_lines(b"").count(), 0);
    assert_eq!(split_lines(b"\n").collect::<Vec<_>>(), vec![b"" as &[u8]]);
    assert_eq!(split_lines(b"a\n\nb").count(), 3);
    assert!(is_source_file_name(Path::new("x/Y.R")));
    assert!(!is_source_file_name(Path::new("<expr>")));
    assert!(!is_source_file_name(Path::new(".Renviron")));
}
