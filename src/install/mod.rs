//! Installing hookjudge into agents' settings and git hooks, and removing it again.

pub mod files;
pub mod githook;
pub mod ignore;
pub mod jsonedit;
pub mod record;
pub mod settings;
