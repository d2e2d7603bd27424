//! Getting bytes in: gzip detection and inflation under a size limit, so a
//! decompression bomb is refused after reading at most the limit.

use crate::error::{ProfileError, Result};
use std::borrow::Cow;
use std::io::Read;

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
    fn truncated_gzip_is_an_error() {
        let g = gz(&vec![7u8; 10000]);
        let err = decompress(&g[..g.len() / 2], &Limits::default()).unwrap_err();
        assert_eq!(err.kind(), "format");
    }
}
