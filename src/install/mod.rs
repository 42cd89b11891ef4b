//! Installing hookjudge into agents' settings and git hooks, and removing it again.

pub mod apply;
pub mod codex_boundary;
mod error;
pub mod files;
pub mod githook;
pub mod ignore;
pub mod plan;
pub mod record;
pub mod settings;
pub mod target;
pub mod undo;

pub use error::{Error, ErrorKind};
