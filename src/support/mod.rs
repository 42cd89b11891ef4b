//! Helpers every layer may use and that use nothing of hookjudge's own: one answer to each
//! small question (where hookjudge keeps its files, where a repository's root is, how a path
//! or a command is shortened, how content is hashed), so that no two modules answer it
//! differently.
//!
//! The bottom layer of the crate: nothing here imports anything outside `support`.

pub mod dirs;
pub mod hash;
pub mod init_file;
pub mod jsonc;
pub mod paths;
pub mod seal;
pub mod statefile;
pub mod suggest;
pub mod term;
pub mod text;
pub mod time;
