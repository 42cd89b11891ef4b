//! Trust in repository config: a repository's `.hookjudge.json` counts as written only once the
//! user trusted that exact content (`hookjudge trust`, or `init` writing the file itself).
//!
//! A file that is not trusted, or changed since it was trusted, may only make hookjudge
//! stricter: enable a judge that exists, add triggers to it, raise a gate class (see
//! [`STRICTNESS`]), protect more branches, name more deploy commands. Everything else is
//! ignored, because a cloned repository is someone else's text: `llm.*` runs a program or sends
//! the session to another endpoint, `log.*` moves the decision log, a new judge's prompt and
//! block reason are text the agent receives, bypasses and evidence settings weaken the gate,
//! speech masks and shown headings (`speech.*`) hide text from the triggers. A
//! file that does not parse is ignored whole; the user's own layers still apply.
//!
//! Trust is recorded in the state dir (`trust.json`), keyed by the file's canonical path and
//! the git blob id of its content, so any change makes it untrusted again.

mod store;
mod stricter;

pub use store::{
    Entry, Error, ErrorKind, Store, first_notice, in_place, revoke, store_path, trust,
    trust_content,
};
pub use stricter::{Filtered, STRICTNESS, stricter_only, strictness};

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{ConfigFile, Settings};
use crate::support::hash::content_hash;

pub use crate::support::init_file::{INIT_WRITTEN, is_init_written};

/// Why a repository file was not applied as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Never trusted.
    Untrusted,
    /// Trusted once, and changed since.
    Changed,
    /// Not valid config: ignored whole.
    Unparsable,
}

/// What hookjudge did with an untrusted repository file, for the user.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub path: PathBuf,
    /// The content's id (`git hash-object`), as trust records it.
    pub hash: String,
    pub standing: Standing,
    /// Keys not applied, each with why (`gate.push: weakens `verify` to `allow``).
    pub ignored: Vec<String>,
    /// Keys applied anyway because they only make hookjudge stricter.
    pub applied: Vec<String>,
}

impl Report {
    /// One paragraph for the human: what was ignored and the command that trusts the file.
    pub fn message(&self) -> String {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let state = match self.standing {
            Standing::Untrusted => "is not trusted",
            Standing::Changed => "changed since you trusted it",
            Standing::Unparsable => "is not valid config",
        };
        let what = if self.ignored.is_empty() {
            "nothing in it weakens hookjudge".to_string()
        } else {
            format!("hookjudge ignores {}", self.ignored.join("; "))
        };
        let fix = if self.standing == Standing::Unparsable {
            format!(
                "fix it, then review it and run `hookjudge trust` in `{}`",
                dir.display()
            )
        } else {
            format!(
                "if you wrote it or reviewed it, run `hookjudge trust` in `{}` yourself",
                dir.display()
            )
        };
        format!("`{}` {state}: {what}; {fix}.", self.path.display())
    }
}

/// The repository layer after the trust check: what to apply, and what to tell the user.
pub struct RepoLayer {
    pub file: Option<ConfigFile>,
    pub report: Option<Report>,
}

/// Decides what of the repository file at `path` (content `text`) applies, given the settings
/// of the layers below it.
pub fn repo_layer(path: &Path, text: &str, below: &Settings) -> RepoLayer {
    let hash = content_hash(text.as_bytes());
    let report = |standing, ignored, applied| Report {
        path: path.to_path_buf(),
        hash: hash.clone(),
        standing,
        ignored,
        applied,
    };
    // Trusted or not, a file that does not parse is ignored whole.
    let file = match crate::config::parse(text) {
        Ok(file) => file,
        Err(message) => {
            return RepoLayer {
                file: None,
                report: Some(report(
                    Standing::Unparsable,
                    vec![format!("the whole file ({message})")],
                    Vec::new(),
                )),
            };
        }
    };
    if is_init_written(text) || (in_place(path) && Store::load().is_trusted(path, &hash)) {
        return RepoLayer {
            file: Some(file),
            report: None,
        };
    }
    let standing = if Store::load().knows(path) {
        Standing::Changed
    } else {
        Standing::Untrusted
    };
    let filtered = stricter_only(file, below);
    RepoLayer {
        file: Some(filtered.file),
        report: Some(report(standing, filtered.ignored, filtered.applied)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_written_files_are_recognised_whatever_the_spacing() {
        assert!(is_init_written(
            "{\n  \"llm\": { \"provider\": \"auto\" },\n  \"stop\": { \"max_blocks_per_judge\": 1, \"max_blocks_per_prompt\": 2 },\n  \"gate\": {},\n  \"judges\": {}\n}\n"
        ));
        assert!(!is_init_written(
            r#"{"llm": {"provider": "command"}, "gate": {}, "judges": {}}"#
        ));
        assert!(!is_init_written("not json"));
    }
}
