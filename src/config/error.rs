//! Why a config cannot be used, as a type: the file at fault and what is wrong with it, with
//! the key when there is one, so callers can point at `key` in `file` (see
//! `commands::config_fix`) without parsing a message.

use std::fmt;
use std::path::PathBuf;

use crate::judge;

/// A config that cannot be used.
#[derive(Debug)]
pub struct Error {
    /// The file at fault, when one is.
    pub path: Option<PathBuf>,
    pub kind: ErrorKind,
}

/// What is wrong with the config.
#[derive(Debug)]
pub enum ErrorKind {
    /// The file is not the JSON hookjudge reads.
    Parse(ParseError),
    /// The file exists (or was named explicitly) and cannot be read.
    Read(std::io::Error),
    /// A value parses but cannot be used (a regex that is not one).
    Invalid { key: String, message: String },
    /// A judge named on the command line does not exist.
    UnknownJudge {
        name: String,
        known: Vec<String>,
        /// It names the gate's judge, which reads session activity, not a response.
        gate: bool,
    },
    /// A judge's definition does not build; `files` are the files it was merged from.
    Judge {
        error: Box<judge::Error>,
        files: Vec<PathBuf>,
    },
}

/// Why one config file does not parse: the key path, when the parser names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "at `{key}`: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ParseError {}

impl Error {
    /// The key at fault, when one is known.
    pub fn key(&self) -> Option<&str> {
        match &self.kind {
            ErrorKind::Parse(e) => e.key.as_deref(),
            ErrorKind::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }

    /// What is wrong, without the file.
    pub fn detail(&self) -> String {
        match &self.kind {
            ErrorKind::Parse(e) => e.to_string(),
            ErrorKind::Read(e) => format!("cannot read it: {e}"),
            ErrorKind::Invalid { key, message } => format!("at `{key}`: {message}"),
            ErrorKind::UnknownJudge { name, known, gate } => {
                let gate = if *gate {
                    " (`gate-verification` judges session activity for the gate, not a response)"
                } else {
                    ""
                };
                format!(
                    "there is no judge `{name}`{gate} (judges: {})",
                    known.join(", ")
                )
            }
            ErrorKind::Judge { error, files } => {
                let mut message = error.to_string();
                if files.len() > 1 {
                    let files: Vec<String> =
                        files.iter().map(|f| format!("`{}`", f.display())).collect();
                    message.push_str(&format!(" (merged from {})", files.join(", ")));
                }
                message
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "invalid config `{}`: {}", path.display(), self.detail()),
            None => write!(f, "{}", self.detail()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Parse(e) => Some(e),
            ErrorKind::Read(e) => Some(e),
            ErrorKind::Judge { error, .. } => Some(error.as_ref()),
            _ => None,
        }
    }
}
