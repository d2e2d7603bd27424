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
    /// Most frames one sample may have. R cannot nest calls deeper than 500 000
    /// (its `expressions` option), and Go records at most a few hundred, so a
    /// deeper stack is damaged or hostile data.
    pub max_stack_depth: usize,
}

/// Default of [`Limits::max_decompressed_bytes`]: 4 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;
/// Default of [`Limits::max_stack_depth`].
pub const DEFAULT_MAX_STACK_DEPTH: usize = 1_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_decompressed_bytes: DEFAULT_MAX_BYTES, max_stack_depth: DEFAULT_MAX_STACK_DEPTH }
    }
}

impl Limits {
    /// The default limits with another size limit.
    pub fn with_max_bytes(max_decompressed_bytes: u64) -> Self {
        Limits { max_decompressed_bytes, ..Limits::default() }
    }

    /// An error unless a stack of `depth` frames is within the limit; `place` says
    /// where the stack is ("line 12", "sample 3").
    pub fn check_stack_depth(&self, depth: usize, place: impl FnOnce() -> String) -> Result<()> {
        if depth > self.max_stack_depth.min(i32::MAX as usize) {
            return Err(ProfileError::limit(format!(
                "{}: the stack has more than {} frames, over the limit (damaged or hostile data?)",
                place(),
                self.max_stack_depth
            )));
        }
        Ok(())
    }
}

pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

fn over_limit(size: u64, cap: u64) -> ProfileError {
    ProfileError::limit(format!(
        "the file has {size} bytes, more than the limit of {cap} bytes; raise `max_size` to read it"
    ))
}

fn bomb(cap: u64) -> ProfileError {
    ProfileError::limit(format!(
        "the data decompress to more than the limit of {cap} bytes (a decompression bomb?); \
         raise `max_size` to read larger files"
    ))
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
        return Err(over_limit(meta.len(), limits.max_decompressed_bytes));
    }
    // Read at most one byte past the limit: the file may have grown since, or be
    // a special file whose size the metadata does not tell.
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut out = Vec::new();
    crate::memory::try_reserve_advised(&mut out, usize::try_from(meta.len()).unwrap_or(0))
        .map_err(|_| over_limit(meta.len(), limits.max_decompressed_bytes))?;
    file.take(limits.max_decompressed_bytes.saturating_add(1)).read_to_end(&mut out).map_err(cannot)?;
    if out.len() as u64 > limits.max_decompressed_bytes {
        return Err(over_limit(out.len() as u64, limits.max_decompressed_bytes));
    }
    Ok(out)
}

/// Decompressed data kept in memory while inflating, before the size is known:
/// at least this many bytes, and [`EAGER_RATIO`] times the compressed size.
/// Profiles compress far less than that; a bomb (gzip reaches about 1000:1) is
/// then counted without being kept, so memory stays bounded by the input size.
pub const EAGER_MIN_BYTES: u64 = 64 << 20;
pub const EAGER_RATIO: u64 = 64;

/// The payload of `bytes`: inflated if it is gzip (several concatenated members are
/// read as one stream, as gunzip does), as is otherwise. More than
/// `max_decompressed_bytes` is refused.
///
/// Inflated data is kept as long as its size is plausible for the compressed size
/// (see [`EAGER_RATIO`]). Past that, the rest is only counted; data within the
/// limit is then inflated a second time into a buffer of the exact size, and a
/// decompression bomb is refused without its data ever being held in memory.
pub fn decompress<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Cow<'a, [u8]>> {
    let cap = limits.max_decompressed_bytes;
    if !is_gzip(bytes) {
        if bytes.len() as u64 > cap {
            return Err(over_limit(bytes.len() as u64, cap));
        }
        return Ok(Cow::Borrowed(bytes));
    }
    let corrupt = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::OutOfMemory {
            bomb(cap)
        } else {
            ProfileError::format(None, format!("corrupt gzip data: {e}"))
        }
    };
    let eager = cap.min(EAGER_MIN_BYTES.max((bytes.len() as u64).saturating_mul(EAGER_RATIO)));
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
    let mut out = Vec::new();
    // One byte past `eager` tells "all of it" from "there is more".
    let keep = usize::try_from(eager.saturating_add(1)).unwrap_or(usize::MAX);
    read_capped(&mut decoder, keep, &mut out).map_err(corrupt)?;
    let kept = out.len() as u64;
    if kept <= eager {
        return Ok(Cow::Owned(out));
    }
    if eager >= cap {
        return Err(bomb(cap));
    }
    drop(out);
    let mut total = kept;
    let mut scratch = vec![0u8; 1 << 18];
    loop {
        let n = match decoder.read(&mut scratch) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(corrupt(e)),
        };
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > cap {
            return Err(bomb(cap));
        }
    }
    drop(scratch);
    let size = usize::try_from(total).map_err(|_| bomb(cap))?;
    let mut out = Vec::new();
    crate::memory::try_reserve_advised(&mut out, size).map_err(|_| bomb(cap))?;
    read_capped(&mut flate2::read::MultiGzDecoder::new(bytes), size, &mut out).map_err(corrupt)?;
    Ok(Cow::Owned(out))
}

/// [`decompress`] of bytes it owns: plain bytes are returned as they are (no
/// copy), gzip data inflated and the compressed bytes freed. For readers that free
/// their input early (see [`crate::rprof::parse_owned_compact`]).
pub fn decompress_owned(bytes: Vec<u8>, limits: &Limits) -> Result<Vec<u8>> {
    if is_gzip(&bytes) {
        Ok(decompress(&bytes, limits)?.into_owned())
    } else {
        // `decompress` refuses plain bytes over the limit; so does this.
        decompress(&bytes, limits)?;
        Ok(bytes)
    }
}

/// Reads from `r` until its end or until `out` holds `limit` bytes. `out` grows by
/// doubling, but never past `limit` (a plain `read_to_end` may reserve up to twice
/// what it reads).
fn read_capped(r: &mut impl Read, limit: usize, out: &mut Vec<u8>) -> std::io::Result<()> {
    loop {
        let len = out.len();
        if len >= limit {
            return Ok(());
        }
        // Doubling, except that the last step goes straight to the limit, so that
        // no block is copied only to add a few bytes.
        let rest = limit - len;
        let grow = if len.saturating_mul(3) >= limit { rest } else { len.max(1 << 16).min(rest) };
        crate::memory::try_reserve_advised(out, grow).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        out.resize(len + grow, 0);
        let mut filled = len;
        while filled < out.len() {
            match r.read(out.get_mut(filled..).unwrap_or_default()) {
                Ok(0) => {
                    out.truncate(filled);
                    return Ok(());
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    out.truncate(filled);
                    return Err(e);
                }
            }
        }
    }
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
    fn owned_bytes_are_kept_or_inflated_under_the_same_limit() {
        let plain = b"hello".to_vec();
        let at = plain.as_ptr();
        let out = decompress_owned(plain, &Limits::default()).unwrap();
        assert_eq!((out.as_slice(), out.as_ptr()), (&b"hello"[..], at));
        assert_eq!(decompress_owned(gz(b"hello"), &Limits::default()).unwrap(), b"hello");
        assert_eq!(decompress_owned(b"hello".to_vec(), &Limits::with_max_bytes(4)).unwrap_err().kind(), "limit");
        assert_eq!(decompress_owned(gz(b"hello"), &Limits::with_max_bytes(4)).unwrap_err().kind(), "limit");
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
        let err = decompress(&gz(&data), &Limits::with_max_bytes(1000)).unwrap_err();
        assert_eq!(err.kind(), "limit");
    }

    #[test]
    fn files_over_the_limit_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_file(&path, &Limits::with_max_bytes(10)).unwrap(), b"0123456789");
        let err = read_file(&path, &Limits::with_max_bytes(9)).unwrap_err();
        assert_eq!(err.kind(), "limit");
        assert_eq!(read_file(dir.path(), &Limits::default()).unwrap_err().kind(), "io");
        assert_eq!(read_file(&dir.path().join("missing"), &Limits::default()).unwrap_err().kind(), "io");
    }

    #[test]
    fn plain_bytes_over_the_limit_are_refused() {
        let err = decompress(b"0123456789", &Limits::with_max_bytes(9)).unwrap_err();
        assert_eq!(err.kind(), "limit");
        assert!(decompress(b"0123456789", &Limits::with_max_bytes(10)).is_ok());
    }

    /// Data that compress better than `EAGER_RATIO` and are larger than
    /// `EAGER_MIN_BYTES` are counted first, then inflated again: the result is the
    /// same, and a size just over the limit is still refused.
    #[test]
    fn highly_compressed_data_are_counted_then_inflated() {
        // Concatenated members: quicker to make than one large one.
        let block = gz(&[0u8; 1 << 20]);
        let blocks = (EAGER_MIN_BYTES as usize >> 20) + 8;
        let mut g: Vec<u8> = block.iter().copied().cycle().take(block.len() * blocks).collect();
        g.extend(gz(b"end"));
        let n = (blocks << 20) + 3;
        assert!((g.len() as u64) * EAGER_RATIO < n as u64, "the test needs a high ratio");
        let out = decompress(&g, &Limits::with_max_bytes(n as u64)).unwrap();
        assert_eq!(out.len(), n);
        assert_eq!(&out[n - 3..], b"end");
        let err = decompress(&g, &Limits::with_max_bytes(n as u64 - 1)).unwrap_err();
        assert_eq!(err.kind(), "limit");
    }

    #[test]
    fn concatenated_members_are_one_stream() {
        let mut g = gz(b"hello ");
        g.extend(gz(b"world"));
        assert_eq!(&*decompress(&g, &Limits::default()).unwrap(), b"hello world");
    }

    #[test]
    fn garbage_after_the_gzip_magic_is_a_format_error() {
        for bad in [&b"\x1f\x8b"[..], b"\x1f\x8b\x08\x00garbage garbage garbage"] {
            assert_eq!(decompress(bad, &Limits::default()).unwrap_err().kind(), "format");
        }
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let g = gz(&vec![7u8; 10000]);
        let err = decompress(&g[..g.len() / 2], &Limits::default()).unwrap_err();
        assert_eq!(err.kind(), "format");
    }
}
