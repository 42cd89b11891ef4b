//! Layered configuration: built-in defaults < user file < repository file < `--config` file.
//!
//! Every file is JSON with the same keys, each declared once in [`keys`] (name, type, shape,
//! merge rule, default, description); the file structs, the merge, `config show` and
//! `config schema` are expanded from that list ([`declare`]). Unknown keys are errors that name
//! the key's path, because a typo must never silently disable a guard. Layers merge key by key;
//! judges merge per judge (see [`JudgeSpec::overlay`](crate::judge::JudgeSpec::overlay)).
//! The repository file applies in full only when the user trusted its content; otherwise only
//! what makes hookjudge stricter applies (see [`crate::config::trust`]).
//!
//! The files read in the ladder's order: [`file`] (one file parsed), [`layers`] (which files,
//! and who set what), [`settings`] (the result), [`trust`] (the repository file's filter),
//! [`load`] (the ladder climbed), [`show`] and [`schema`] (what the commands print); [`patterns`]
//! and [`check`] check what loading does not.

#[macro_use]
mod declare;
pub mod check;
pub mod error;
pub mod file;
pub mod keys;
pub mod layers;
pub mod load;
pub mod patterns;
pub mod schema;
pub mod settings;
pub mod show;
pub mod trust;

pub use crate::config::error::{Error, ErrorKind, ParseError};
pub use crate::config::file::parse;
pub use crate::config::keys::{
    BoundaryFile, ConfigFile, GateFile, LlmFile, LogFile, SpeechFile, StopFile, TranscriptFile,
};
pub use crate::config::layers::{Layer, LayerKind, Sources};
pub use crate::config::settings::{Settings, SpeechSettings, default_log_dir};
pub use crate::gate::settings::{GateSettings, Policy};

/// The repository config file's name, at the repository root.
pub use crate::support::init_file::REPO_FILE;
