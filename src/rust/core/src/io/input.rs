//! Getting bytes in: files read under a size limit, and gzip inflated as a
//! stream that the reader's format looks at while it comes (see [`Content`]),
//! so that data of the wrong kind are refused after their first bytes, and a
//! decompression bomb before it fills memory.

use crate::error::{ProfileError, Result};
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

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

/// The error for memory the system refused for `bytes` of decompressed data.
fn no_memory_for_data(bytes: usize) -> ProfileError {
    ProfileError::limit(format!(
        "the system refused memory for {bytes} bytes of decompressed data"
    ))
}

/// The bytes of the file at `path`, refused before reading when the file is larger
/// than the size limit (a compressed file is never larger than its content, so
/// this check is right for compressed files too) or than the memory budget,
/// which is charged for them.
pub fn read_file(path: &Path, budget: &Budget) -> Result<Vec<u8>> {
    let limit = budget.limits().max_decompressed_bytes;
    let cannot =
        |e: std::io::Error| ProfileError::io(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(ProfileError::io(format!(
            "{} is a directory",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(over_limit(meta.len(), limit));
    }
    budget.charge(meta.len(), || "the file's bytes".to_string())?;
    // Read at most one byte past the limit: the file may have grown since, or be
    // a special file whose size the metadata does not tell.
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut out = Vec::new();
    crate::resources::memory::try_reserve_advised(
        &mut out,
        usize::try_from(meta.len()).unwrap_or(0),
    )
    .map_err(|_| over_limit(meta.len(), limit))?;
    file.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(cannot)?;
    if out.len() as u64 > limit {
        return Err(over_limit(out.len() as u64, limit));
    }
    Ok(out)
}

/// Decompressed data kept in memory while inflating, before the size is known:
/// at least this many bytes, and [`EAGER_RATIO`] times the compressed size.
/// Profiles compress far less than that; a bomb (gzip reaches about 1000:1) is
/// then counted without being kept, so memory stays bounded by the input size.
pub const EAGER_MIN_BYTES: u64 = 64 << 20;
pub const EAGER_RATIO: u64 = 64;

/// The first inflated bytes a format is recognised by (see [`Content`]): what
/// is inflated before anything else is decided.
pub const SNIFF_BYTES: usize = 64 << 10;

/// Most bytes inflated at a time (then shown to the content): a read that is
/// decided by its data stops this soon after the deciding byte.
const PIECE_BYTES: usize = 1 << 20;

/// What a reader's format tells from its data while a compressed file is
/// inflated, without keeping them: whether they can be of the format (from
/// their first bytes: the *sniff*), and the memory a read of them needs at
/// least, so that inflation stops as soon as the data are of the wrong kind or
/// over the memory budget. An implementation sees every byte once, in order,
/// in pieces of any size, and decides the same whatever the pieces.
pub trait Content {
    /// The next piece of the data. An error ends the inflation (the data are
    /// not of the format). `Some(n)`: the read is decided by the first `n`
    /// bytes (it fails within them), and inflation may stop there.
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>>;
    /// The memory a read of the data seen so far needs at least, the data
    /// themselves included.
    fn least_memory(&self) -> u64;
    /// What [`least_memory`](Self::least_memory) is made of, for the message
    /// of a refusal ("1.2 GiB of text in 150000000 lines").
    fn counted(&self) -> String;
    /// Data that were not compressed: all of them, in memory already. The
    /// parser sees them whole; a format checks here what it checks while
    /// inflating, where that is cheap.
    fn whole(&mut self, data: &[u8]) -> Result<()>;
}

/// Content of any kind: nothing to recognise, and a read needs the data only.
#[derive(Debug, Default)]
pub struct AnyContent {
    bytes: u64,
}

impl Content for AnyContent {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        self.bytes += piece.len() as u64;
        Ok(None)
    }

    fn least_memory(&self) -> u64 {
        self.bytes
    }

    fn counted(&self) -> String {
        format!("{} bytes of decompressed data", self.bytes)
    }

    fn whole(&mut self, _data: &[u8]) -> Result<()> {
        Ok(())
    }
}

/// The payload of `bytes` under the default limits and any content: inflated
/// if it is gzip, as is otherwise; see [`decompress_content`].
pub fn decompress<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Cow<'a, [u8]>> {
    decompress_content(bytes, &Budget::new(*limits), &mut AnyContent::default())
}

/// The payload of `bytes`: inflated if it is gzip (several concatenated members
/// are read as one stream, as gunzip does), as is otherwise (`content` checks
/// them then, see [`Content::whole`]). More than `max_decompressed_bytes` is
/// refused.
///
/// Inflation shows each piece to `content`, which may refuse the data (then
/// inflation stops), and checks the memory a read needs at least against the
/// budget. Inflated data are kept as long as their size is plausible for the
/// compressed size (see [`EAGER_RATIO`]); past that the rest is only shown and
/// counted, and data within the limits are then inflated a second time into a
/// buffer of the exact size: a decompression bomb is refused without its data
/// ever being held in memory. The kept data are charged to the budget.
pub fn decompress_content<'a>(
    bytes: &'a [u8],
    budget: &Budget,
    content: &mut impl Content,
) -> Result<Cow<'a, [u8]>> {
    let cap = budget.limits().max_decompressed_bytes;
    if !is_gzip(bytes) {
        if bytes.len() as u64 > cap {
            return Err(over_limit(bytes.len() as u64, cap));
        }
        content.whole(bytes)?;
        return Ok(Cow::Borrowed(bytes));
    }
    Inflation::new(bytes, budget).run(content).map(Cow::Owned)
}

/// [`decompress_content`] of bytes it owns, charged to the budget (by
/// [`read_file`]): plain bytes are returned as they are (no copy), gzip data
/// inflated and the compressed bytes freed (and released). For readers that
/// free their input early (the Rprof reader, `formats::rprof::parse()`, with
/// owned bytes).
pub fn decompress_owned(
    bytes: Vec<u8>,
    budget: &Budget,
    content: &mut impl Content,
) -> Result<Vec<u8>> {
    if is_gzip(&bytes) {
        let data = decompress_content(&bytes, budget, content)?.into_owned();
        budget.release(bytes.len() as u64);
        Ok(data)
    } else {
        // Refuses plain bytes over the limit, and shows them to `content`.
        decompress_content(&bytes, budget, content)?;
        Ok(bytes)
    }
}

/// The data of a file, inflated while their format's [`Content`] looked at
/// them: the first step of a read (bytes, content, profile), the same for
/// every format.
pub struct Inflated<'a> {
    /// The data: inflated, or the bytes as they were.
    pub data: Cow<'a, [u8]>,
    /// Whether the bytes were gzip data (a position in a message is then one
    /// "of the decompressed data").
    pub compressed: bool,
}

/// The data of `bytes` (see [`decompress_content`]).
pub fn inflate_bytes<'a>(
    bytes: &'a [u8],
    budget: &Budget,
    content: &mut impl Content,
) -> Result<Inflated<'a>> {
    let data = decompress_content(bytes, budget, content)?;
    Ok(Inflated {
        data,
        compressed: is_gzip(bytes),
    })
}

/// The data of the file at `path`, read under the budget (see [`read_file`]
/// and [`decompress_owned`]).
pub fn inflate_file(
    path: &Path,
    budget: &Budget,
    content: &mut impl Content,
) -> Result<Inflated<'static>> {
    let bytes = read_file(path, budget)?;
    let compressed = is_gzip(&bytes);
    let data = decompress_owned(bytes, budget, content)?;
    Ok(Inflated {
        data: Cow::Owned(data),
        compressed,
    })
}

/// Shows `piece`, the next piece of decompressed data (which have `total`
/// bytes with it), to `content` and checks the limits: the size limit, the
/// content's verdict, the memory the content says a read needs, of which
/// `kept` bytes are charged to `budget` already. Returns where the data may
/// end (see [`Content::take`]). What inflation does with each piece, and what a
/// caller that decompresses by other means (R, for bzip2 and xz) asks of each.
pub fn take_piece(
    budget: &Budget,
    content: &mut impl Content,
    piece: &[u8],
    total: u64,
    kept: u64,
) -> Result<Option<u64>> {
    let cap = budget.limits().max_decompressed_bytes;
    if total > cap {
        return Err(bomb(cap));
    }
    let stop = content.take(piece)?;
    let more = content.least_memory().saturating_sub(kept);
    budget.check(more, || format!("{} so far", content.counted()))?;
    Ok(stop)
}

/// The inflation of one gzip stream (see [`decompress_content`]).
struct Inflation<'a> {
    compressed: &'a [u8],
    budget: &'a Budget,
    /// The size limit.
    cap: u64,
    /// Data kept while inflating, at most (see [`EAGER_RATIO`]).
    eager: u64,
}

/// How far the first pass got.
enum FirstPass {
    /// All the data, kept.
    Kept(Vec<u8>),
    /// The data were too many to keep: their size (or the size the content
    /// needs), counted.
    Counted(u64),
}

impl<'a> Inflation<'a> {
    fn new(compressed: &'a [u8], budget: &'a Budget) -> Self {
        let cap = budget.limits().max_decompressed_bytes;
        let eager =
            cap.min(EAGER_MIN_BYTES.max((compressed.len() as u64).saturating_mul(EAGER_RATIO)));
        Inflation {
            compressed,
            budget,
            cap,
            eager,
        }
    }

    fn run(&self, content: &mut impl Content) -> Result<Vec<u8>> {
        match self.first_pass(content)? {
            FirstPass::Kept(data) => Ok(data),
            FirstPass::Counted(size) => self.second_pass(size),
        }
    }

    fn decoder(&self) -> flate2::read::MultiGzDecoder<&'a [u8]> {
        flate2::read::MultiGzDecoder::new(self.compressed)
    }

    fn corrupt(&self, e: std::io::Error) -> ProfileError {
        if e.kind() == std::io::ErrorKind::OutOfMemory {
            bomb(self.cap)
        } else {
            ProfileError::format(None, format!("corrupt gzip data: {e}"))
        }
    }

    fn take(
        &self,
        content: &mut impl Content,
        piece: &[u8],
        total: u64,
        kept: u64,
    ) -> Result<Option<u64>> {
        take_piece(self.budget, content, piece, total, kept)
    }

    /// Inflates, keeping the data until they pass `eager` bytes, then counting
    /// them.
    fn first_pass(&self, content: &mut impl Content) -> Result<FirstPass> {
        let mut decoder = self.decoder();
        let mut kept = Kept::default();
        let mut filled = 0usize;
        // The data end here at the latest (see `Content::take`).
        let mut end = u64::MAX;
        loop {
            if filled as u64 >= end {
                kept.data.truncate(usize::try_from(end).unwrap_or(filled));
                return Ok(FirstPass::Kept(kept.finish(self.budget)));
            }
            if filled == kept.data.len() {
                if filled as u64 > self.eager {
                    break;
                }
                kept.grow(self.eager, self.budget)?;
            }
            let room = kept.data.get_mut(filled..).unwrap_or_default();
            let piece_room = room.len().min(PIECE_BYTES);
            let n = read_some(&mut decoder, room.get_mut(..piece_room).unwrap_or_default())
                .map_err(|e| self.corrupt(e))?;
            if n == 0 {
                kept.data.truncate(filled);
                return Ok(FirstPass::Kept(kept.finish(self.budget)));
            }
            let piece = kept.data.get(filled..filled + n).unwrap_or_default();
            filled += n;
            if let Some(stop) = self.take(content, piece, filled as u64, kept.charged)? {
                end = end.min(stop);
            }
        }
        // Too many to keep: count the rest.
        let mut total = filled as u64;
        kept.free(self.budget);
        let mut scratch = vec![0u8; PIECE_BYTES];
        while total < end {
            let n = read_some(&mut decoder, &mut scratch).map_err(|e| self.corrupt(e))?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if let Some(stop) =
                self.take(content, scratch.get(..n).unwrap_or_default(), total, 0)?
            {
                end = end.min(stop);
            }
        }
        Ok(FirstPass::Counted(total.min(end)))
    }

    /// Inflates the first `size` bytes again, into a buffer of that size
    /// (charged to the budget).
    fn second_pass(&self, size: u64) -> Result<Vec<u8>> {
        let len = usize::try_from(size).map_err(|_| bomb(self.cap))?;
        self.budget
            .charge(size, || "the decompressed data".to_string())?;
        let mut out = Vec::new();
        crate::resources::memory::try_reserve_advised(&mut out, len)
            .map_err(|_| no_memory_for_data(len))?;
        out.resize(len, 0);
        let mut decoder = self.decoder();
        let mut filled = 0;
        while filled < len {
            let n = read_some(&mut decoder, out.get_mut(filled..).unwrap_or_default())
                .map_err(|e| self.corrupt(e))?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        out.truncate(filled);
        Ok(out)
    }
}

/// The data kept by the first pass, and what the budget was charged for them.
#[derive(Default)]
struct Kept {
    data: Vec<u8>,
    charged: u64,
}

impl Kept {
    /// Makes room for more data: the buffer doubles (from [`SNIFF_BYTES`], so
    /// that data of the wrong kind are refused after inflating little), but
    /// never past `eager` + 1 bytes (one byte past tells "all of it" from
    /// "there is more").
    fn grow(&mut self, eager: u64, budget: &Budget) -> Result<()> {
        let len = self.data.len();
        let limit = usize::try_from(eager.saturating_add(1)).unwrap_or(usize::MAX);
        let rest = limit.saturating_sub(len);
        // The last step goes straight to the limit, so that no block is copied
        // only to add a few bytes; no step takes more than the budget has left
        // (the data may fit in that).
        let grow = if len.saturating_mul(3) >= limit {
            rest
        } else {
            len.max(SNIFF_BYTES).min(rest)
        };
        let left = usize::try_from(budget.available()).unwrap_or(usize::MAX);
        let grow = if grow > left && left >= SNIFF_BYTES {
            left
        } else {
            grow
        };
        budget.charge(grow as u64, || "the decompressed data".to_string())?;
        self.charged += grow as u64;
        crate::resources::memory::try_reserve_advised(&mut self.data, grow)
            .map_err(|_| no_memory_for_data(len + grow))?;
        self.data.resize(len + grow, 0);
        Ok(())
    }

    /// The data, with the budget charged for their size only.
    fn finish(mut self, budget: &Budget) -> Vec<u8> {
        self.data.shrink_to_fit();
        budget.release(self.charged.saturating_sub(self.data.len() as u64));
        std::mem::take(&mut self.data)
    }

    /// Frees the data and releases their charge.
    fn free(&mut self, budget: &Budget) {
        budget.release(self.charged);
        self.charged = 0;
        self.data = Vec::new();
    }
}

/// One read from `r` into `buf` (retried when interrupted); 0 at the end.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests;
