//! Telling a person at their own terminal from an agent's tool call, for the commands that
//! weaken hookjudge and so only a person may run (`approve`, `trust`, `uninstall`, an `init`
//! that changes an existing installation).
//!
//! Defence in depth behind the gate (which denies agent-run `hookjudge approve|trust|…`): the
//! agents' own environment markers, then the process ancestry (an agent CLI among the
//! parents), then the controlling terminal, which hooks and agents' tools do not have: it must
//! exist, this process must be its foreground job (a job an agent started in the background,
//! cut from its parents by a double fork, is not), no agent may be in that foreground job, and
//! the answer is read from it. An unset marker and `setsid` (which cuts the ancestry) leave no
//! terminal; a double fork leaves the agent in front. An agent that drives a terminal of its
//! own making (a pseudo-terminal it holds the other end of) or the user's own terminal is out
//! of reach for any of this; the gate denies the forms of that it can see.

use std::io::{BufRead, BufReader, Write};

use crate::agent::Agent;

/// Environment variables the agents set in the commands they run, and which agent each means.
const AGENT_MARKERS: [(&str, Agent); 11] = [
    ("CLAUDECODE", Agent::Claude),
    ("CLAUDE_CODE_ENTRYPOINT", Agent::Claude),
    ("CODEX_SANDBOX", Agent::Codex),
    ("CODEX_SANDBOX_NETWORK_DISABLED", Agent::Codex),
    ("CODEX_THREAD_ID", Agent::Codex),
    ("GEMINI_CLI", Agent::Gemini),
    ("GEMINI_SESSION_ID", Agent::Gemini),
    // Qwen Code 0.15 sets it in every shell command it runs.
    ("QWEN_CODE", Agent::Qwen),
    // OpenCode 1.18 sets `OPENCODE=1` (and `OPENCODE_PID`) in every shell command it runs
    // (seen with the real client, tests/e2e).
    ("OPENCODE", Agent::OpenCode),
    // Crush sets `CRUSH=1` in its `bash` tool and its hooks (docs/hooks/README.md).
    ("CRUSH", Agent::Crush),
    // Copilot CLI 1.0.102 sets `COPILOT_CLI=1` (and `COPILOT_AGENT_SESSION_ID`) in every shell
    // command it runs (seen with the real client, tests/e2e).
    ("COPILOT_CLI", Agent::Copilot),
];

/// Program names (or script names run by an interpreter) of the agent CLIs besides their
/// [`Agent::name`] (`claude`, `codex`, `gemini`, `opencode`, …).
const AGENT_PROGRAM_ALIASES: [(&str, Agent); 3] = [
    ("claude-code", Agent::Claude),
    ("gemini-cli", Agent::Gemini),
    // The npm package `opencode-ai` runs its platform binary under this name on every system.
    ("opencode.exe", Agent::OpenCode),
];

/// Why this process looks like it runs inside an agent's tool, if it does.
pub fn inside_agent() -> Option<String> {
    for (var, agent) in AGENT_MARKERS {
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            return Some(format!(
                "`{var}` is set, so this runs inside {}",
                agent.display_name()
            ));
        }
    }
    // Set by `hookjudge run-confined` for the command it runs. A command can unset it, but
    // inside the boundary the state dir is read-only and the seal key hidden anyway.
    if std::env::var_os("HOOKJUDGE_CONFINED").is_some_and(|v| !v.is_empty()) {
        return Some("it runs inside hookjudge's boundary, where an agent's commands run".into());
    }
    agent_ancestor()
}

/// Why a person cannot be asked here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Environment markers or the process ancestry say an agent runs this.
    InsideAgent(String),
    /// No controlling terminal: an agent's tool, a hook, `setsid`, a cron job.
    NoTerminal,
    /// A terminal, but this process is not what a person at it is running.
    NotInFront(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::InsideAgent(why) => write!(f, "this runs inside an agent ({why})"),
            Refusal::NoTerminal => write!(f, "there is no terminal to ask you on"),
            Refusal::NotInFront(why) => write!(f, "no person runs this at the terminal ({why})"),
        }
    }
}

/// The terminal of the person running this, or why there is none. Only what this returns may
/// ask the questions that weaken hookjudge; the answer must still come from it.
pub fn person() -> Result<Tty, Refusal> {
    if let Some(why) = inside_agent() {
        return Err(Refusal::InsideAgent(why));
    }
    let tty = Tty::open().ok_or(Refusal::NoTerminal)?;
    if let Some(why) = not_in_front() {
        return Err(Refusal::NotInFront(why));
    }
    Ok(tty)
}

/// This process's `(pgrp, tty_nr, tpgid)` from `/proc/PID/stat`.
fn job_of(stat: &str) -> Option<(i64, i64, i64)> {
    // `pid (comm) state ppid pgrp session tty_nr tpgid …`; comm may hold spaces and `)`.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let number = |i: usize| fields.get(i)?.parse::<i64>().ok();
    Some((number(2)?, number(4)?, number(5)?))
}

/// Why this process is not the foreground job a person runs at its terminal, if it is not
/// (Linux: `/proc`; elsewhere the terminal alone decides).
fn not_in_front() -> Option<String> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (pgrp, tty, front) = job_of(&stat)?;
    if tty == 0 {
        return Some("the process has no controlling terminal".into());
    }
    if front != pgrp {
        return Some(
            "it runs in the background of the terminal, not as the job in front of the person"
                .into(),
        );
    }
    let entries = std::fs::read_dir("/proc").ok()?;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if job_of(&stat).is_some_and(|(g, _, _)| g == front)
            && let Some(agent) = agent_program(pid)
        {
            return Some(format!(
                "the terminal's foreground job holds {agent} (pid {pid}), so it is the agent's terminal"
            ));
        }
    }
    None
}

/// An agent CLI among this process's parents (Linux: `/proc`).
fn agent_ancestor() -> Option<String> {
    let mut pid = std::process::id();
    for _ in 0..64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let after = stat.rsplit_once(')')?.1;
        let ppid: u32 = after.split_whitespace().nth(1)?.parse().ok()?;
        if ppid <= 1 {
            return None;
        }
        if let Some(agent) = agent_program(ppid) {
            return Some(format!(
                "a parent process (pid {ppid}) is {agent}, so this runs inside it"
            ));
        }
        pid = ppid;
    }
    None
}

/// The agent CLI that process `pid` runs, by its product name.
fn agent_program(pid: u32) -> Option<&'static str> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    agent_of(comm.trim(), &cmdline)
}

/// The agent CLI a process runs, from its `comm` and its NUL-separated command line: the
/// program, and for a script started through its `#!` line (`node /usr/local/bin/claude`) the
/// script, which the kernel passes as a path. A plain word in that place is an argument
/// (`cargo test droid`, `make codex`), not the program.
fn agent_of(comm: &str, cmdline: &[u8]) -> Option<&'static str> {
    let mut names: Vec<String> = vec![comm.to_owned()];
    for (at, arg) in cmdline.split(|b| *b == 0).take(2).enumerate() {
        let arg = String::from_utf8_lossy(arg);
        if at == 1 && !arg.contains('/') {
            break;
        }
        names.push(arg.rsplit('/').next().unwrap_or(&arg).to_owned());
    }
    names
        .iter()
        .find_map(|name| {
            Agent::from_name(name).or_else(|| {
                AGENT_PROGRAM_ALIASES
                    .iter()
                    .find(|(program, _)| name == program)
                    .map(|(_, agent)| *agent)
            })
        })
        .map(Agent::display_name)
}

/// The controlling terminal, for questions only a person can answer.
pub struct Tty {
    reader: BufReader<std::fs::File>,
    writer: std::fs::File,
}

impl Tty {
    /// Opens `/dev/tty`; `None` when there is no controlling terminal.
    pub fn open() -> Option<Tty> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        Some(Tty {
            writer: file.try_clone().ok()?,
            reader: BufReader::new(file),
        })
    }

    pub fn say(&mut self, text: &str) {
        let _ = self.writer.write_all(text.as_bytes());
        let _ = self.writer.flush();
    }

    /// Asks a question; the answer line, trimmed (`None` at end of input).
    pub fn ask(&mut self, question: &str) -> Option<String> {
        self.say(question);
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    }

    /// A yes/no question; only `y` or `yes` is yes.
    pub fn confirm(&mut self, question: &str) -> bool {
        self.ask(&format!("{question} [y/N] "))
            .is_some_and(|a| matches!(a.to_ascii_lowercase().as_str(), "y" | "yes"))
    }
}

#[cfg(test)]
mod tests {
    use super::agent_of;

    #[test]
    fn an_agent_is_its_program_or_the_script_its_interpreter_runs() {
        for (comm, cmdline, agent) in [
            ("claude", &b"claude\0-p\0hi"[..], Some("Claude Code")),
            (
                "node",
                b"node\0/usr/local/bin/gemini\0-p",
                Some("Gemini CLI"),
            ),
            (
                "node",
                b"/usr/bin/node\0/opt/x/claude-code\0",
                Some("Claude Code"),
            ),
            (
                "droid",
                b"/home/u/.local/bin/droid\0exec",
                Some("Factory Droid"),
            ),
            // An agent's name as a plain argument is not the agent.
            (
                "integration-1f",
                b"target/debug/deps/integration-1f\0droid\0",
                None,
            ),
            ("make", b"make\0codex", None),
            ("bash", b"bash\0-c\0claude -p hi", None),
        ] {
            assert_eq!(agent_of(comm, cmdline), agent, "{comm} {cmdline:?}");
        }
    }
}
