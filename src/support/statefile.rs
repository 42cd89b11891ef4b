//! Small files in hookjudge's state dir (trust records, approvals): read whole, written whole
//! through a temporary file renamed into place, so a reader never sees half a file, and
//! changed under an exclusive lock, so two processes changing one (two hooks at once, or
//! `hookjudge approve` while the gate uses the approval up) never lose each other's change or
//! both use up one single-use approval.
//!
//! The lock is taken on a lock file beside the data file (`.NAME.lock`), not on the data file
//! itself: the rename that makes a write atomic replaces the data file's inode, so a lock on
//! it would be a lock on a file nobody reads any more.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong with a state file.
#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub kind: ErrorKind,
}

#[derive(Debug)]
pub enum ErrorKind {
    CreateDir(io::Error),
    Lock(io::Error),
    Read(io::Error),
    Write(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ErrorKind::CreateDir(e) => write!(f, "cannot create `{path}`: {e}"),
            ErrorKind::Lock(e) => write!(f, "cannot lock `{path}`: {e}"),
            ErrorKind::Read(e) => write!(f, "cannot read `{path}`: {e}"),
            ErrorKind::Write(e) => write!(f, "cannot write `{path}`: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// Writes `text` to `path` atomically, creating the directory (private to the user).
pub fn write(path: &Path, text: &str) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let tmp = dir.join(format!(".{}.{}.tmp", file_name(path), std::process::id()));
    // Private to the user: approvals and trust records say what ran where.
    let result = private_options()
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error {
            path: path.to_path_buf(),
            kind: ErrorKind::Write(e),
        });
    }
    Ok(())
}

/// Changes the file at `path` under its exclusive lock: `change` gets its text (`None` when it
/// does not exist) and returns the text to write (`None`: leave the file as it is) and a value
/// for the caller. The lock is held from before the read until after the rename, so no other
/// process's change falls between them.
pub fn update<T>(
    path: &Path,
    change: impl FnOnce(Option<String>) -> (Option<String>, T),
) -> Result<T, Error> {
    let _lock = lock(path)?;
    let current = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        // Unreadable as text (not UTF-8): rewritten from nothing, as a broken store reads.
        Err(e) if e.kind() == io::ErrorKind::InvalidData => None,
        Err(e) => {
            return Err(Error {
                path: path.to_path_buf(),
                kind: ErrorKind::Read(e),
            });
        }
    };
    let (new, value) = change(current);
    if let Some(new) = new {
        write(path, &new)?;
    }
    Ok(value)
}

/// The exclusive lock of the state file `path`, held until the returned file is dropped.
fn lock(path: &Path) -> Result<File, Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let lock_path = dir.join(format!(".{}.lock", file_name(path)));
    let file = private_options()
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| Error {
            path: lock_path.clone(),
            kind: ErrorKind::Lock(e),
        })?;
    file.lock().map_err(|e| Error {
        path: lock_path,
        kind: ErrorKind::Lock(e),
    })?;
    Ok(file)
}

fn file_name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("state")
}

fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

fn create_private_dir(dir: &Path) -> Result<(), Error> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| Error {
        path: dir.to_path_buf(),
        kind: ErrorKind::CreateDir(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_updates_lose_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counter");
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        update(&path, |text| {
                            let n: u32 = text.as_deref().unwrap_or("0").trim().parse().unwrap();
                            (Some(format!("{}\n", n + 1)), ())
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "200\n");
    }
}
