//! One decision log line as a type: [`Record`] is what every writer (the Stop hook, the gate,
//! `hookjudge check`) builds and appends, and what `log`, `stats`, `replay` and `check` read
//! back, with serde. The line is described once, here.
//!
//! Compatibility rules, so that every line any version wrote still reads and a record read and
//! written again (`hookjudge log --json`) loses nothing:
//! - fields this version does not know are kept in a flattened `rest` map, at every level;
//! - a field the writers always write is always written (`null` when unknown, as the writers
//!   always did); a hand-written line that lacks one reads it as empty and is written back
//!   with it;
//! - a field the writers write only sometimes is left out when it is absent.

use serde::{Deserialize, Serialize};

use crate::support::time::Timestamp;

mod gate;
mod stop;
#[cfg(test)]
mod tests;

pub use gate::{CheckDecider, CheckRecord, GateRecord, RulingEntry};
pub use stop::{JudgeEntry, Layer2Entry, StopAction, StopRecord, Timings, TranscriptInfo};

/// One line of the decision log, by its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
// Most lines are Stop records, so boxing the largest variant would allocate for most records
// read to save space on the few others.
#[allow(clippy::large_enum_variant)]
pub enum Record {
    /// A judged response (the Stop hook).
    Stop(StopRecord),
    /// A gated command (the PreToolUse hook).
    Gate(GateRecord),
    /// `hookjudge check` or the pre-push hook.
    Check(CheckRecord),
}

/// When, by which version and in which directory a record was written: the header every
/// record has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    pub ts: String,
    /// The hookjudge version that wrote the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
}

impl Origin {
    /// Written now, by this version, in `cwd`.
    pub fn now(cwd: Option<String>) -> Origin {
        Origin {
            ts: Timestamp::now().rfc3339(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            cwd,
        }
    }
}

/// Which agent's hook event a record answers (the hooks' records; `check` has none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    #[serde(default)]
    pub agent: Option<String>,
    /// The hook event's name (`Stop`, `PreToolUse`, `AfterAgent`, …).
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
}

impl Record {
    /// The logged `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Stop(_) => "stop",
            Record::Gate(_) => "gate",
            Record::Check(_) => "check",
        }
    }

    /// When and where it was written.
    pub fn origin(&self) -> &Origin {
        match self {
            Record::Stop(r) => &r.origin,
            Record::Gate(r) => &r.origin,
            Record::Check(r) => &r.origin,
        }
    }

    /// The agent session it answers (none for `check`).
    pub fn session(&self) -> Option<&Session> {
        match self {
            Record::Stop(r) => Some(&r.session),
            Record::Gate(r) => Some(&r.session),
            Record::Check(_) => None,
        }
    }

    pub fn ts(&self) -> &str {
        &self.origin().ts
    }

    /// The logged action (see [`crate::log::outcome::word`] for the word shown).
    pub fn action(&self) -> &'static str {
        match self {
            Record::Stop(r) => r.action.name(),
            Record::Gate(r) => r.action.name(),
            Record::Check(r) => r.action.name(),
        }
    }

    pub fn agent(&self) -> Option<&str> {
        self.session().and_then(|s| s.agent.as_deref())
    }

    pub fn cwd(&self) -> Option<&str> {
        self.origin().cwd.as_deref()
    }

    /// The judged text, or the gated command.
    pub fn subject(&self) -> &str {
        match self {
            Record::Stop(r) => r.text.as_deref().unwrap_or(""),
            Record::Gate(r) => &r.command,
            Record::Check(r) => &r.command,
        }
    }

    /// The judges of a Stop record (none for the others).
    pub fn judges(&self) -> &[JudgeEntry] {
        match self {
            Record::Stop(r) => &r.judges,
            _ => &[],
        }
    }

    /// The rulings of a gate or check record (none for Stop).
    pub fn rulings(&self) -> &[RulingEntry] {
        match self {
            Record::Gate(r) => &r.rulings,
            Record::Check(r) => &r.rulings,
            Record::Stop(_) => &[],
        }
    }

    /// The errors logged (`check` logs none).
    pub fn errors(&self) -> &[String] {
        match self {
            Record::Stop(r) => &r.errors,
            Record::Gate(r) => &r.errors,
            Record::Check(_) => &[],
        }
    }
}
