//! Approvals a person gives, on their own terminal, to a command the gate held back.
//!
//! Codex cannot ask the user from a hook, and Gemini CLI's ask hangs headless runs, so for them
//! the gate denies and tells the agent to stop and ask the user; it records the command here as
//! a request. `hookjudge approve`, run by the user on their terminal, turns one request into an
//! approval: bound to that exact command line and repository, good for one run, and only for
//! [`APPROVAL_TTL_MS`]. Agents cannot approve: the gate denies agent-run `hookjudge approve` and
//! writes to this file, and `approve` itself refuses without a terminal or inside an agent.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::support::dirs;

/// How long a held-back command waits for the user.
pub const REQUEST_TTL_MS: i64 = 60 * 60 * 1000;
/// How long an approval stays good (it is also used up by one run).
pub const APPROVAL_TTL_MS: i64 = 10 * 60 * 1000;

/// Where requests and approvals are kept.
pub fn store_path() -> PathBuf {
    dirs::state_dir().join("approvals.json")
}

/// A command the gate held back, and whether the user approved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// A short id to name it by in `hookjudge approve ID`.
    pub id: String,
    /// The command line for display, with secrets redacted (the file never holds them).
    pub command: String,
    /// The hash of the exact command line, which the approval is bound to.
    #[serde(default)]
    pub command_hash: String,
    /// The repository (or directory) it runs in.
    pub repo: PathBuf,
    pub agent: String,
    /// Why the gate held it back.
    pub reason: String,
    /// When it was held back (ms since the epoch).
    pub requested_ms: i64,
    /// When the user approved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_ms: Option<i64>,
    /// The approval's seal ([`crate::support::seal`]): an approval without a good one counts for nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub seal: String,
}

impl Request {
    fn matches(&self, command: &str, repo: &Path) -> bool {
        !self.command_hash.is_empty()
            && self.command_hash == command_hash(command)
            && self.repo == repo
    }

    /// What the seal covers: the command, where it runs, and when it was approved.
    fn sealed_parts(&self, approved_ms: i64) -> [String; 5] {
        [
            "approve".to_owned(),
            self.id.clone(),
            self.command_hash.clone(),
            self.repo.display().to_string(),
            approved_ms.to_string(),
        ]
    }

    /// Approved by a person's `hookjudge approve`: a time written into the file by anything
    /// else carries no good seal.
    fn approved(&self) -> bool {
        self.approved_ms.is_some_and(|at| {
            let parts = self.sealed_parts(at);
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            crate::support::seal::verify(&parts, &self.seal)
        })
    }

    fn live(&self, now: i64) -> bool {
        match self.approved_ms {
            Some(at) => now - at <= APPROVAL_TTL_MS && now >= at,
            None => now - self.requested_ms <= REQUEST_TTL_MS,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    #[serde(default)]
    requests: Vec<Request>,
}

/// What went wrong approving a command.
#[derive(Debug)]
pub enum Error {
    /// No live request has this id.
    NoSuchRequest(String),
    /// The store cannot be written.
    Store(crate::support::statefile::Error),
    /// The seal key cannot be made or read.
    Seal(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoSuchRequest(id) => {
                write!(f, "no command waits for approval under the id `{id}`")
            }
            Error::Store(e) => write!(f, "cannot record the approval: {e}"),
            Error::Seal(e) => write!(
                f,
                "cannot seal the approval with the key in `{}`: {e}",
                crate::support::seal::key_dir().display()
            ),
        }
    }
}

impl std::error::Error for Error {}

fn parse(text: Option<String>) -> Store {
    text.and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn load() -> Store {
    parse(std::fs::read_to_string(store_path()).ok())
}

/// Changes the store under its lock: read, `change`, write back when it says it changed
/// something. Every read-modify-write goes through here, so that an approval is used up
/// exactly once however many hooks run at the same time.
fn update<T>(
    change: impl FnOnce(&mut Store) -> (bool, T),
) -> Result<T, crate::support::statefile::Error> {
    crate::support::statefile::update(&store_path(), |text| {
        let mut store = parse(text);
        let (changed, value) = change(&mut store);
        let text =
            changed.then(|| serde_json::to_string_pretty(&store).expect("serialisable") + "\n");
        (text, value)
    })
}

/// What binds an approval to the exact command line, without keeping the line (or a secret
/// in it) in the file.
fn command_hash(command: &str) -> String {
    crate::support::hash::content_hash(command.as_bytes())
}

/// Records that `command` in `repo` waits for the user. A request already there is refreshed;
/// an approval already given is kept.
pub fn request(
    command: &str,
    repo: &Path,
    agent: &str,
    reason: &str,
    now: i64,
) -> Result<(), crate::support::statefile::Error> {
    update(|store| {
        store.requests.retain(|r| r.live(now));
        if store
            .requests
            .iter()
            .any(|r| r.matches(command, repo) && r.approved())
        {
            return (true, ());
        }
        store.requests.retain(|r| !r.matches(command, repo));
        let id = format!(
            "{:06x}",
            crate::support::hash::fnv1a(format!("{command}\0{}\0{now}", repo.display()).as_bytes())
                & 0xff_ffff
        );
        store.requests.push(Request {
            id,
            command: crate::redact::redact(command).text,
            command_hash: command_hash(command),
            repo: repo.to_path_buf(),
            agent: agent.to_owned(),
            reason: crate::redact::redact(reason).text,
            requested_ms: now,
            approved_ms: None,
            seal: String::new(),
        });
        (true, ())
    })
}

/// Whether the user approved `command` in `repo` and the approval is still good.
pub fn is_approved(command: &str, repo: &Path, now: i64) -> bool {
    load()
        .requests
        .iter()
        .any(|r| r.matches(command, repo) && r.approved() && r.live(now))
}

/// Uses up the approval of `command` in `repo`. Returns whether there was a good one: of
/// processes taking the same approval at once, exactly one gets `true`.
pub fn take(command: &str, repo: &Path, now: i64) -> bool {
    update(|store| {
        let before = store.requests.len();
        let found = store
            .requests
            .iter()
            .any(|r| r.matches(command, repo) && r.approved() && r.live(now));
        store
            .requests
            .retain(|r| r.live(now) && !(r.matches(command, repo) && r.approved()));
        (found || store.requests.len() != before, found)
    })
    // A store that cannot be locked or written cannot prove the approval is used up once.
    .unwrap_or(false)
}

/// Requests still waiting for the user, oldest first.
pub fn pending(now: i64) -> Vec<Request> {
    load()
        .requests
        .into_iter()
        .filter(|r| r.approved_ms.is_none() && r.live(now))
        .collect()
}

/// Approves the waiting request `id`.
pub fn approve(id: &str, now: i64) -> Result<Request, Error> {
    update(|store| {
        store.requests.retain(|r| r.live(now));
        match store
            .requests
            .iter_mut()
            .find(|r| r.id == id && r.approved_ms.is_none())
        {
            Some(request) => {
                let parts = request.sealed_parts(now);
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                match crate::support::seal::seal_or_make_key(&parts) {
                    Ok(seal) => {
                        request.approved_ms = Some(now);
                        request.seal = seal;
                        (true, Ok(request.clone()))
                    }
                    Err(e) => (false, Err(Error::Seal(e))),
                }
            }
            None => (false, Err(Error::NoSuchRequest(id.to_owned()))),
        }
    })
    .map_err(Error::Store)?
}

/// The repository an approval is bound to for a command run in `cwd`.
pub fn repo_of(cwd: &Path) -> PathBuf {
    let root = crate::support::paths::repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
    root.canonicalize().unwrap_or(root)
}
