use super::*;

#[test]
fn writes_and_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    fs::write(&target, b"old").unwrap();
    write_atomic(&target, |w| Ok(w.write_all(b"new")?)).unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"new");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn failure_keeps_old_bytes_and_leaves_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    fs::write(&target, b"old").unwrap();
    let err = write_atomic(&target, |w| {
        w.write_all(b"partial")?;
        Err(ProfileError::invalid("t", "c", None, "boom"))
    })
    .unwrap_err();
    assert_eq!(err.kind(), "invalid");
    assert_eq!(fs::read(&target).unwrap(), b"old");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn panic_while_writing_leaves_no_temp() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    fs::write(&target, b"old").unwrap();
    let outcome = std::panic::catch_unwind(|| {
        write_atomic(&target, |w| {
            w.write_all(&[b'x'; 100_000])?;
            panic!("boom")
        })
    });
    assert!(outcome.is_err());
    assert_eq!(fs::read(&target).unwrap(), b"old");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn replaced_target_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    fs::write(&target, b"old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&target, |w| Ok(w.write_all(b"new")?)).unwrap();
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn missing_directory_is_an_io_error() {
    let err = write_atomic(Path::new("/nonexistent-dir-xyz/out"), |_| Ok(())).unwrap_err();
    assert_eq!(err.kind(), "io");
}
