//! The plumbing every hook entry shares (`hookjudge stop`, `hookjudge gate`): stdin read with
//! one cap and an oversize outcome, the recursion guard, panics captured with their message,
//! the direction a failure goes, and one writer of the decision log.
//!
//! What each hook does with a failure is its own ([`Failure`]): the Stop hook lets the turn end,
//! the gate leaves the command to a human. The plumbing is the same, so both entries treat an
//! oversized input and a panic alike.

use std::fmt;
use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use crate::agent::Agent;

use crate::support::time::Timestamp;

pub mod cursor;
pub mod event;
pub mod gate;
pub mod gate_record;
pub mod stop;
pub mod stop_record;

use crate::agent::ParseError;
pub use crate::agent::{GateOutcome, StopOutcome};
pub use event::Event;

/// Hook stdin larger than this is not read whole: the hook fails its own way.
pub const MAX_STDIN_BYTES: u64 = 64 << 20;
/// Set to a hook's name (`stop`, `gate`) to make that hook panic (tests of the panic path).
pub const DEBUG_PANIC_ENV: &str = "HOOKJUDGE_DEBUG_PANIC";
/// Environment variables that mark a process started by a judge (ours, or the article's).
pub const RECURSION_GUARDS: [&str; 2] = ["HOOKJUDGE_ACTIVE", "STOP_HOOK_LLM_JUDGE_ACTIVE"];

/// Where a hook goes when it cannot do its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Allow, log, and tell the human (the Stop hook: a broken judge must not wedge a session).
    Open,
    /// A human decides (the gate: a broken check must not let a push through).
    Safe,
}

/// One hook entry: its name (as `HOOKJUDGE_DEBUG_PANIC` names it) and its failure direction.
#[derive(Debug, Clone, Copy)]
pub struct Hook {
    pub name: &'static str,
    pub failure: Failure,
}

/// The Stop hook.
pub const STOP: Hook = Hook {
    name: "stop",
    failure: Failure::Open,
};
/// The PreToolUse / BeforeTool gate.
pub const GATE: Hook = Hook {
    name: "gate",
    failure: Failure::Safe,
};

/// Why the hook input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// More than [`MAX_STDIN_BYTES`] arrived.
    TooLarge { limit: u64 },
    /// Reading stdin failed.
    Read(io::Error),
    /// What arrived is not an agent's hook input.
    Parse(ParseError),
    /// No `--agent`, and the event is none an agent sends to a Stop hook.
    UnknownAgent(Box<event::Origin>),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::TooLarge { limit } => write!(f, "hook input is larger than {limit} bytes"),
            InputError::Read(e) => write!(f, "cannot read stdin: {e}"),
            InputError::Parse(ParseError::Empty) => {
                write!(f, "no hook input on stdin (expected the agent's hook JSON)")
            }
            InputError::Parse(ParseError::NotJson(e)) => {
                write!(f, "hook input is not the JSON object an agent sends: {e}")
            }
            InputError::UnknownAgent(origin) => write!(
                f,
                "cannot tell which agent sent hook event `{}`; pass `--agent`",
                origin.name.as_deref().unwrap_or("none")
            ),
        }
    }
}

impl From<ParseError> for InputError {
    fn from(e: ParseError) -> InputError {
        InputError::Parse(e)
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Read(e) => Some(e),
            InputError::Parse(ParseError::NotJson(e)) => Some(e),
            _ => None,
        }
    }
}

/// A panic caught in a hook, with its message and location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panic {
    pub message: String,
}

impl fmt::Display for Panic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "internal error: {}", self.message)
    }
}

/// Reads the hook input, at most `limit` bytes. What was read is kept even when it is too
/// large (the gate still looks at it to decide whether anything was gated).
pub fn read_input(mut reader: impl Read, limit: u64) -> (Vec<u8>, Result<(), InputError>) {
    let mut bytes = Vec::new();
    let read = reader.by_ref().take(limit + 1).read_to_end(&mut bytes);
    let result = match read {
        Err(e) => Err(InputError::Read(e)),
        Ok(_) if bytes.len() as u64 > limit => {
            bytes.truncate(limit as usize);
            Err(InputError::TooLarge { limit })
        }
        Ok(_) => Ok(()),
    };
    (bytes, result)
}

/// Reads the whole hook input from stdin (see [`read_input`]).
pub fn read_stdin() -> (Vec<u8>, Result<(), InputError>) {
    read_input(io::stdin().lock(), MAX_STDIN_BYTES)
}

/// Whether this process was started by a judge's own LLM call.
pub fn recursion_guard_active() -> bool {
    RECURSION_GUARDS
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty() && x != "0"))
}

impl Hook {
    /// Runs `body`, catching a panic with its message (the default panic report on stderr is
    /// replaced by it). `HOOKJUDGE_DEBUG_PANIC` set to this hook's name panics first.
    pub fn catch<T>(&self, body: impl FnOnce() -> T) -> Result<T, Panic> {
        let message = capture_panics();
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            if std::env::var(DEBUG_PANIC_ENV).as_deref() == Ok(self.name) {
                panic!("{DEBUG_PANIC_ENV}={} was set", self.name);
            }
            body()
        }));
        // Panics after this one (none in a hook) report on stderr as usual.
        drop(panic::take_hook());
        result.map_err(|_| Panic {
            message: message
                .lock()
                .ok()
                .and_then(|m| m.clone())
                .unwrap_or_else(|| "unknown panic".into()),
        })
    }

    /// Whether the hook does nothing at all in a judge's own process: a hook that fails open
    /// stays out of the way; one that fails safe still runs (and asks a human).
    pub fn skips_for_recursion(&self) -> bool {
        self.failure == Failure::Open && recursion_guard_active()
    }
}

/// Replaces the panic hook's stderr report with a captured message.
fn capture_panics() -> &'static Mutex<Option<String>> {
    static MESSAGE: Mutex<Option<String>> = Mutex::new(None);
    panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut m) = MESSAGE.lock() {
            *m = Some(format!("{payload}{location}"));
        }
    }));
    &MESSAGE
}

/// Why a hook's work did not end in a decision of its own.
#[derive(Debug)]
pub enum Failed {
    /// The input could not be read or parsed.
    Input(InputError),
    /// The config does not load.
    Config(crate::config::Error),
    /// The hook panicked.
    Panic(Panic),
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Input(e) => e.fmt(f),
            Failed::Config(e) => e.fmt(f),
            Failed::Panic(p) => p.fmt(f),
        }
    }
}

impl Failed {
    /// Why the Stop hook fails open on this failure, as logged and counted.
    pub fn cause(&self) -> crate::log::cause::Cause {
        use crate::log::cause::Cause;
        match self {
            Failed::Input(_) => Cause::BadInput,
            Failed::Config(_) => Cause::Config,
            Failed::Panic(_) => Cause::Internal,
        }
    }
}

impl std::error::Error for Failed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failed::Input(e) => Some(e),
            Failed::Config(e) => Some(e),
            Failed::Panic(_) => None,
        }
    }
}

impl From<crate::config::Error> for Failed {
    fn from(e: crate::config::Error) -> Failed {
        Failed::Config(e)
    }
}

/// What one hook call ends with: its outcome, the agent whose shape it is rendered in, and the
/// record to log with its log directory (none for a call that logs nothing).
pub struct Ran<O, R> {
    pub agent: Agent,
    pub outcome: O,
    pub log: Option<(R, PathBuf)>,
}

/// A decision log record a hook writes.
pub trait LogRecord: Sized {
    /// Sets the whole call's duration, just before writing.
    fn set_total_us(&mut self, total: u64);
    /// Appends the record to the log in `dir` (see [`write_log`]).
    fn write(self, dir: &Path);
}

/// One hook entry's work, which [`run`] wraps in the shared plumbing.
pub trait Entry {
    type Outcome;
    type Record: LogRecord;
    /// The hook's name and failure direction.
    const HOOK: Hook;

    /// Decides on the event.
    fn decide(
        &self,
        event: &Event,
        started: Instant,
    ) -> Result<Ran<Self::Outcome, Self::Record>, Failed>;

    /// The hook's failure direction for `failed` (`event` is `None` when the input is what
    /// failed).
    fn fail(&self, event: Option<&Event>, failed: Failed) -> Ran<Self::Outcome, Self::Record>;

    /// The outcome in `agent`'s shape; `None` prints nothing.
    fn render(agent: Agent, outcome: &Self::Outcome) -> Option<serde_json::Value>;
}

/// Runs one hook call: the recursion guard, stdin with its cap, the event parsed once, the
/// hook's decision with panics caught, the answer, and the log line.
pub fn run<E: Entry>(entry: &E, agent: Option<Agent>) {
    if E::HOOK.skips_for_recursion() {
        return;
    }
    let started = Instant::now();
    let (stdin, read) = read_stdin();
    let event = read.and_then(|()| Event::parse(&stdin, agent, E::HOOK.failure == Failure::Open));
    let ran = match event {
        Err(e) => entry.fail(None, Failed::Input(e)),
        Ok(event) => match E::HOOK.catch(|| entry.decide(&event, started)) {
            Ok(Ok(ran)) => ran,
            Ok(Err(failed)) => entry.fail(Some(&event), failed),
            Err(panic) => entry.fail(Some(&event), Failed::Panic(panic)),
        },
    };
    finish::<E>(ran, started);
}

/// Answers the agent and logs the record.
pub fn finish<E: Entry>(ran: Ran<E::Outcome, E::Record>, started: Instant) {
    answer(E::render(ran.agent, &ran.outcome).as_ref());
    if let Some((mut record, dir)) = ran.log {
        record.set_total_us(crate::support::time::micros(started.elapsed()));
        record.write(&dir);
    }
}

/// The first line of a clap usage error, without its `error: ` prefix.
pub fn usage_line(clap_message: &str) -> &str {
    clap_message
        .lines()
        .next()
        .unwrap_or(clap_message)
        .trim_start_matches("error: ")
}

/// Prints the hook's answer to the agent, if it has one.
pub fn answer(output: Option<&serde_json::Value>) {
    if let Some(output) = output {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{output}");
        let _ = out.flush();
    }
}

/// Which agent's session `event` is from, as both hooks' records log it.
pub fn log_session(event: &Event) -> crate::log::Session {
    crate::log::Session {
        agent: Some(event.agent.name().to_owned()),
        event: event.origin.name.clone(),
        session: event.origin.session.clone(),
    }
}

/// Appends `record` to the decision log in `dir`; a failure is told on stderr (the hook's
/// answer stands: the log is for tuning, not for deciding).
pub fn write_log(dir: &Path, record: &crate::log::Record) {
    if let Err(e) = crate::log::append(dir, Timestamp::now(), record) {
        let _ = writeln!(
            io::stderr(),
            "hookjudge: cannot write the decision log in `{}`: {e}",
            dir.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cap_with_an_oversize_outcome() {
        let (bytes, result) = read_input(&b"12345"[..], 5);
        assert_eq!((bytes.len(), result.is_ok()), (5, true));
        let (bytes, result) = read_input(&b"123456"[..], 5);
        assert_eq!(bytes.len(), 5, "what was read within the cap is kept");
        let err = result.unwrap_err();
        assert!(matches!(err, InputError::TooLarge { limit: 5 }));
        assert_eq!(err.to_string(), "hook input is larger than 5 bytes");
    }

    #[test]
    fn a_panic_is_caught_with_its_message() {
        let caught = STOP.catch(|| -> u8 { panic!("boom {}", 7) }).unwrap_err();
        assert!(
            caught.message.starts_with("boom 7 at src/hook/mod.rs:"),
            "{caught}"
        );
        assert!(caught.to_string().starts_with("internal error: boom 7"));
        assert_eq!(GATE.catch(|| 3), Ok(3));
    }
}
