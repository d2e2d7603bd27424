//! Getting bytes in: gzip detection and inflation under a size limit, so a
//! decompression bomb is refused after reading at most the limit.

use crate::error::{ProfileError, Result};
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// Limits that protect memory while reading.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest decompressed size accepted, in bytes.
    pub max_decompressed_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_decompressed_bytes: 4 << 30 }
    }
}

pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// The bytes of the file at `path`, refused before reading when the file is larger
/// than the limit (a compressed file is never larger than its content, so this
/// check is right for compressed files too).
pub fn read_file(path: &Path, limits: &Limits) -> Result<Vec<u8>> {
    let cannot = |e: std::io::Error| ProfileError::io(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(ProfileError::io(format!("{} is a directory", path.display())));
    }
    if meta.len() > limits.max_decompressed_bytes {
        return Err(ProfileError::limit(format!(
            "the file has {} bytes, more than the limit of {} bytes; raise `max_size` to read it",
            meta.len(),
            limits.max_decompressed_bytes
        )));
    }
    std::fs::read(path).map_err(cannot)
}

/// The payload of `bytes`: inflated if it is gzip (several concatenated members are
/// read as one stream, as gunzip does), as is otherwise.
pub fn decompress<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Cow<'a, [u8]>> {
    if !is_gzip(bytes) {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
    let cap = limits.max_decompressed_bytes;
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4).min(cap as usize).min(1 << 28));
    // Read one byte past the limit to tell "exactly at the limit" from "over it".
    let mut limited = (&mut decoder).take(cap.saturating_add(1));
    limited
        .read_to_end(&mut out)
        .map_err(|e| ProfileError::format(None, format!("corrupt gzip data: {e}")))?;
    if out.len() as u64 > cap {
        return Err(ProfileError::limit(format!(
            "decompressed data exceeds the limit of {cap} bytes (a decompression bomb?); \
             raise `max_size` to read larger files"
        )));
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_bytes_pass_through() {
        let out = decompress(b"hello", &Limits::default()).unwrap();
        assert_eq!(&*out, b"hello");
    }

    #[test]
    fn gzip_is_inflated() {
        let g = gz(b"hello");
        let out = decompress(&g, &Limits::default()).unwrap();
        assert_eq!(&*out, b"hello");
    }

    #[test]
    fn bomb_is_refused() {
        let data = vec![0u8; 1 << 20];
        let err = decompress(&gz(&data), &Limits { max_decompressed_bytes: 1000 }).unwrap_err();
        assert_eq!(err.kind(), "limit");
    }

    #[test]
    fn files_over_the_limit_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_file(&path, &Limits { max_decompressed_bytes: 10 }).unwrap(), b"0123456789");
        let err = read_file(&path, &Limits { max_decompressed_bytes: 9 }).unwrap_err();
        assert_eq!(err.kind(), "limit");
        assert_eq!(read_file(dir.path(), &Limits::default()).unwrap_err().kind(), "io");
        assert_eq!(read_file(&dir.path().join("missing"), &Limits::default()).unwrap_err().kind(), "io");
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let g = gz(&vec![7u8; 10000]);
        let err = decompress(&g[..g.len() / 2], &Limits::default()).unwrap_err();
        assert_eq!(err.kind(), "format");
    }
}
