//! Writing files so that a failure never leaves a damaged target: the content goes
//! to a temporary file in the target's directory (same file system, so the final
//! rename is atomic) and replaces the target only once it is complete.

use crate::error::{ProfileError, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_path_for(target: &Path) -> Result<PathBuf> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(ProfileError::io(format!(
            "directory {} does not exist",
            dir.display()
        )));
    }
    let name = target
        .file_name()
        .ok_or_else(|| ProfileError::io("the path does not name a file"))?
        .to_string_lossy()
        .into_owned();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!(".{name}.tmp-{}-{n}", std::process::id())))
}

/// Removes the temporary file when dropped, unless the write went through: on an
/// error, and also when `fill` panics (the binding catches panics, so the session
/// goes on and must not be left with a stray file).
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Writes a file atomically. `fill` writes the content; if it or anything after it
/// fails (or panics), the temporary file is removed and the target keeps its old
/// bytes. A target that exists keeps its permissions.
pub fn write_atomic<F>(target: &Path, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> Result<()>,
{
    if target.is_dir() {
        return Err(ProfileError::io(format!(
            "{} is a directory",
            target.display()
        )));
    }
    let tmp = temp_path_for(target)?;
    let file: File = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| {
            ProfileError::io(format!("cannot create a file in the target directory: {e}"))
        })?;
    let mut guard = TempFile {
        path: tmp,
        keep: false,
    };
    let mut w = BufWriter::with_capacity(1 << 16, file);
    fill(&mut w)?;
    let file = w
        .into_inner()
        .map_err(|e| ProfileError::io(e.error().to_string()))?;
    if let Ok(old) = fs::metadata(target) {
        // Best effort: a file system without permissions still gets the file.
        let _ = file.set_permissions(old.permissions());
    }
    file.sync_all()?;
    drop(file);
    fs::rename(&guard.path, target)
        .map_err(|e| ProfileError::io(format!("cannot replace {}: {e}", target.display())))?;
    guard.keep = true;
    Ok(())
}

#[cfg(test)]
mod tests;
