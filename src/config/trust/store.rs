//! The trust records in the state dir (`trust.json`): which file content the user trusted,
//! which reports a hook already showed, and trusting or revoking a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::support::dirs;

use super::Report;
use crate::support::hash::content_hash;

/// Where trust is recorded.
pub fn store_path() -> PathBuf {
    dirs::state_dir().join("trust.json")
}

/// One trusted file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The file's canonical path.
    pub path: PathBuf,
    /// [`content_hash`] of the trusted content.
    pub hash: String,
    /// When it was trusted (RFC 3339).
    pub trusted_at: String,
    /// The record's seal ([`crate::support::seal`]): a record without a good one trusts nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub seal: String,
}

impl Entry {
    fn sealed_parts(&self) -> [&str; 3] {
        ["trust", self.path.to_str().unwrap_or(""), &self.hash]
    }

    /// Whether a person's `trust` (or `init`) made this record, not a copied-in file.
    pub fn is_sealed(&self) -> bool {
        crate::support::seal::verify(&self.sealed_parts(), &self.seal)
    }
}

/// The trust records, as stored in `trust.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Store {
    #[serde(default)]
    pub files: Vec<Entry>,
    /// `path hash` pairs whose report the user was already shown by a hook.
    #[serde(default)]
    pub notified: BTreeSet<String>,
}

/// What went wrong trusting or revoking a file.
#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub kind: ErrorKind,
}

#[derive(Debug)]
pub enum ErrorKind {
    /// The file is a symlink, which would borrow another file's trust.
    Symlink,
    /// The file cannot be read.
    Read(std::io::Error),
    /// The trust records cannot be written.
    Store(crate::support::statefile::Error),
    /// The seal key cannot be made or read.
    Seal(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.kind {
            ErrorKind::Symlink => write!(
                f,
                "`{path}` is a symlink; a symlinked config is never trusted (replace it with the file itself)"
            ),
            ErrorKind::Read(e) => write!(f, "cannot read `{path}`: {e}"),
            ErrorKind::Store(e) => write!(f, "cannot record trust: {e}"),
            ErrorKind::Seal(e) => write!(
                f,
                "cannot seal the trust record with the key in `{}`: {e}",
                crate::support::seal::key_dir().display()
            ),
        }
    }
}

impl std::error::Error for Error {}

impl Store {
    /// The records; an unreadable store trusts nothing.
    pub fn load() -> Store {
        std::fs::read_to_string(store_path())
            .map(|t| Store::parse(Some(t)))
            .unwrap_or_default()
    }

    fn parse(text: Option<String>) -> Store {
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("serialisable") + "\n"
    }

    /// Changes the records under the store's lock (see [`crate::support::statefile::update`]); `change`
    /// returns whether it changed anything, and the store is written only then.
    fn update<T>(
        change: impl FnOnce(&mut Store) -> (bool, T),
    ) -> Result<T, crate::support::statefile::Error> {
        crate::support::statefile::update(&store_path(), |text| {
            let mut store = Store::parse(text);
            let (changed, value) = change(&mut store);
            (changed.then(|| store.text()), value)
        })
    }

    pub fn is_trusted(&self, path: &Path, hash: &str) -> bool {
        let path = canonical(path);
        self.files
            .iter()
            .any(|e| e.path == path && e.hash == hash && e.is_sealed())
    }

    /// Whether `path` was trusted with any content.
    pub fn knows(&self, path: &Path) -> bool {
        let path = canonical(path);
        self.files.iter().any(|e| e.path == path)
    }
}

/// Whether `path` is the file itself, not a symlink to a file elsewhere: a symlinked
/// `.hookjudge.json` would borrow the trust given to the file it points to (another
/// repository's), so it is never trusted.
pub fn in_place(path: &Path) -> bool {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    !is_link && canonical(path) == canonical(parent).join(name)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Trusts the current content of `path`. Returns the entry recorded.
pub fn trust(path: &Path) -> Result<Entry, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Read(e),
    })?;
    trust_content(path, &bytes)
}

/// Trusts `content` as the content of `path`: what the user was shown, or what `init` wrote,
/// rather than whatever the file holds by the time the record is written (a file changed in
/// between stays untrusted).
pub fn trust_content(path: &Path, content: &[u8]) -> Result<Entry, Error> {
    if !in_place(path) {
        return Err(Error {
            path: path.to_path_buf(),
            kind: ErrorKind::Symlink,
        });
    }
    let mut entry = Entry {
        path: canonical(path),
        hash: content_hash(content),
        trusted_at: crate::support::time::Timestamp::now().rfc3339(),
        seal: String::new(),
    };
    entry.seal =
        crate::support::seal::seal_or_make_key(&entry.sealed_parts()).map_err(|e| Error {
            path: path.to_path_buf(),
            kind: ErrorKind::Seal(e),
        })?;
    Store::update(|store| {
        store.files.retain(|e| e.path != entry.path);
        store.files.push(entry.clone());
        (true, ())
    })
    .map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Store(e),
    })?;
    Ok(entry)
}

/// Forgets `path`. Returns whether it was trusted.
pub fn revoke(path: &Path) -> Result<bool, Error> {
    let canonical_path = canonical(path);
    Store::update(|store| {
        let before = store.files.len();
        store.files.retain(|e| e.path != canonical_path);
        let was = store.files.len() != before;
        (was, was)
    })
    .map_err(|e| Error {
        path: path.to_path_buf(),
        kind: ErrorKind::Store(e),
    })
}

/// Whether a hook should show `report` now: true the first time for this path and content.
pub fn first_notice(report: &Report) -> bool {
    let key = format!("{} {}", report.path.display(), report.hash);
    // A store that cannot be written would repeat the notice: better than hiding it.
    Store::update(|store| {
        let first = store.notified.insert(key);
        (first, first)
    })
    .unwrap_or(true)
}
