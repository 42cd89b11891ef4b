//! Telling a person at their own terminal from an agent's tool call, for the commands only a
//! person may run (`approve`, `trust`).
//!
//! Defence in depth behind the gate (which denies agent-run `hookjudge approve|trust`): the
//! agents' own environment markers, then the process ancestry (an agent CLI among the parents),
//! then the controlling terminal, which hooks and agents' tools do not have. An agent that
//! drives the user's own terminal is out of reach for any of this.

use std::io::{BufRead, BufReader, Write};

/// Environment variables the agents set in the commands they run, and which agent each means.
const AGENT_MARKERS: [(&str, &str); 7] = [
    ("CLAUDECODE", "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", "Claude Code"),
    ("CODEX_SANDBOX", "Codex CLI"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex CLI"),
    ("CODEX_THREAD_ID", "Codex CLI"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("GEMINI_SESSION_ID", "Gemini CLI"),
];

/// Program names (or script names run by an interpreter) of the agent CLIs.
const AGENT_PROGRAMS: [(&str, &str); 5] = [
    ("claude", "Claude Code"),
    ("claude-code", "Claude Code"),
    ("codex", "Codex CLI"),
    ("gemini", "Gemini CLI"),
    ("gemini-cli", "Gemini CLI"),
];

/// Why this process looks like it runs inside an agent's tool, if it does.
pub fn inside_agent() -> Option<String> {
    for (var, agent) in AGENT_MARKERS {
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            return Some(format!("`{var}` is set, so this runs inside {agent}"));
        }
    }
    agent_ancestor()
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

fn agent_program(pid: u32) -> Option<&'static str> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let mut names: Vec<String> = vec![comm.trim().to_owned()];
    // The program and, for `node …/claude` style launches, the script it runs.
    for arg in cmdline.split(|b| *b == 0).take(2) {
        let arg = String::from_utf8_lossy(arg);
        names.push(arg.rsplit('/').next().unwrap_or(&arg).to_owned());
    }
    names.iter().find_map(|name| {
        AGENT_PROGRAMS
            .iter()
            .find(|(program, _)| name == program)
            .map(|(_, agent)| *agent)
    })
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
