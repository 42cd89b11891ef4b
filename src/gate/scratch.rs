//! The session's own scratch: untracked files and directories this session created, which
//! deleting loses nothing that existed outside the session's making (`rm scratch.txt` after
//! `echo … > scratch.txt`, `rm -rf out` after `mkdir out`, `rm src/new_module.py` after a
//! `Write` of it, `rm app.py.orig` after a `patch` or `cp` made it).
//!
//! How it is decided, from the session file read backwards (the same events the evidence
//! reads) and git's status:
//! - the path is untracked and not ignored now (a file the session created and then committed,
//!   or a tracked file it changed, is ordinary work: deleting it still needs the usual facts);
//! - a tool call of the session created it: the `Write` tool (never `Edit`, which changes a
//!   file that was there), or a shell command that makes new files (the table [`CREATORS`],
//!   a `>` redirection (not `>>`, which keeps what the file held), `patch`'s `.orig`/`.rej` backups); a directory the
//!   session made covers what was put in it since; an untracked directory counts when every
//!   file below it is the session's;
//! - the user did not ask to keep it: a prompt of the user's in the session that names the
//!   file (`keep scratch.txt`, "don't touch out/") makes it theirs again.
//!
//! Relative paths in past commands are read from the directory the gate runs in: a command
//! that ran elsewhere names other paths, which then simply do not match (the delete is judged
//! as before).

use std::path::{Path, PathBuf};

use crate::gate::evidence::Session;
use crate::gate::glob;
use crate::gate::shell::{self, Word};
use crate::support::paths::normalize;
use crate::transcript::Event;

/// Programs that create the files they are given: all operands, or only the last (the
/// destination).
const CREATORS: [(&str, Operands); 7] = [
    ("mkdir", Operands::All),
    ("touch", Operands::All),
    ("tee", Operands::All),
    ("cp", Operands::Last),
    ("mv", Operands::Last),
    ("install", Operands::Last),
    ("ln", Operands::Last),
];

/// Backups `patch` leaves next to the files it patches.
const PATCH_BACKUPS: [&str; 2] = ["*.orig", "*.rej"];

#[derive(Clone, Copy)]
enum Operands {
    All,
    Last,
}

/// What the session made, as absolute paths and name patterns.
#[derive(Debug, Default)]
pub struct SessionMade {
    paths: Vec<PathBuf>,
    patterns: Vec<String>,
    /// What the user wrote in the session: a file they name is theirs.
    user_text: String,
}

impl SessionMade {
    /// Reads the session file of this gate call.
    pub fn read(session: &Session, cwd: &Path) -> SessionMade {
        let mut made = SessionMade::default();
        // Read backwards, a call's result comes before the call: a call with none has not run
        // yet (the call being gated is already in the file), and made nothing.
        let mut ran: Vec<String> = Vec::new();
        session.visit_backwards(|event| {
            match event {
                Event::ToolResult { id, .. } => ran.push(id.clone()),
                Event::ToolCall { id, .. } if !ran.contains(id) => {}
                Event::ToolCall { tool, files, .. } if tool == "Write" => {
                    made.paths.extend(files.iter().map(|f| cwd.join(f)));
                }
                Event::ToolCall {
                    command: Some(command),
                    ..
                } => made.add_command(command, cwd),
                Event::UserTurn { text } => {
                    made.user_text.push_str(text);
                    made.user_text.push('\n');
                }
                _ => {}
            }
            true
        });
        made
    }

    fn add_command(&mut self, command: &str, cwd: &Path) {
        let script = shell::parse(command, cwd);
        for cmd in &script.commands {
            let dir = cmd.cwd.clone().unwrap_or_else(|| cwd.to_path_buf());
            let appended = appended_targets(command);
            for target in cmd.writes.iter().filter_map(Word::literal) {
                if !appended.iter().any(|a| a == target) && !target.starts_with("/dev/") {
                    self.paths.push(dir.join(target));
                }
            }
            let Some(program) = cmd.program() else {
                continue;
            };
            if program == "patch" {
                self.patterns.extend(
                    PATCH_BACKUPS
                        .iter()
                        .map(|p| dir.join(p).to_string_lossy().into_owned()),
                );
                continue;
            }
            let Some((_, operands)) = CREATORS.iter().find(|(p, _)| *p == program) else {
                continue;
            };
            let words: Vec<&str> = cmd.argv[1..]
                .iter()
                .filter_map(Word::literal)
                .filter(|w| !w.starts_with('-'))
                .collect();
            let chosen: Vec<&str> = match operands {
                Operands::All => words,
                Operands::Last if words.len() >= 2 => words.last().copied().into_iter().collect(),
                Operands::Last => Vec::new(),
            };
            self.paths.extend(chosen.into_iter().map(|w| dir.join(w)));
        }
    }

    /// Whether `path` (absolute) is the session's scratch: made by it, or below a directory
    /// it made, and not named by the user. A directory counts when every file below it does.
    pub fn is_scratch(&self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| self.user_text.contains(n.as_str())) {
            return false;
        }
        if self.made(path) {
            return true;
        }
        if !path.is_dir() {
            return false;
        }
        let mut stack = vec![path.to_path_buf()];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return false;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > 1000 {
                    return false;
                }
                let p = entry.path();
                if self.made(&p) {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else {
                    return false;
                }
            }
        }
        true
    }

    fn made(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.paths
            .iter()
            .any(|made| path.starts_with(normalize(made)))
            || self
                .patterns
                .iter()
                .any(|p| glob::matches(p, &path.to_string_lossy()))
    }
}

/// The targets of `>>` in a command line: appending keeps what the file held (it may be the
/// user's), so it does not make the file the session's.
fn appended_targets(line: &str) -> Vec<String> {
    line.match_indices(">>")
        .map(|(at, _)| {
            line[at + 2..]
                .trim_start()
                .chars()
                .take_while(|c| !c.is_whitespace() && !";&|)<>".contains(*c))
                .filter(|c| !matches!(c, '"' | '\''))
                .collect::<String>()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(commands: &[&str]) -> SessionMade {
        let mut made = SessionMade::default();
        for c in commands {
            made.add_command(c, Path::new("/w"));
        }
        made
    }

    #[test]
    fn shell_commands_that_create_files_make_them_the_sessions() {
        let m = made(&[
            "echo hi > scratch.txt",
            "mkdir -p out",
            "cp app.py app.py.bak",
            "cd sub && patch -p1 < fix.diff",
        ]);
        for p in [
            "/w/scratch.txt",
            "/w/out",
            "/w/out/x/y.json",
            "/w/app.py.bak",
            "/w/sub/app.py.orig",
        ] {
            assert!(m.made(Path::new(p)), "{p}");
        }
        for p in ["/w/app.py", "/w/notes.txt", "/w/fix.diff", "/w/app.py.orig"] {
            assert!(!m.made(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn appending_or_editing_does_not_make_a_file_the_sessions() {
        let m = made(&["echo more >> notes.txt", "cmd 2>&1", "sed -i s/a/b/ x.txt"]);
        assert!(!m.made(Path::new("/w/notes.txt")));
        assert!(!m.made(Path::new("/w/1")));
        assert!(!m.made(Path::new("/w/x.txt")));
    }

    #[test]
    fn a_file_the_user_named_is_theirs() {
        let mut m = made(&["echo hi > scratch.txt"]);
        m.user_text = "please keep scratch.txt around".into();
        assert!(!m.is_scratch(Path::new("/w/scratch.txt")));
    }

    #[test]
    fn the_call_being_gated_has_made_nothing_yet() {
        // The call under judgment is already in the session file, without a result: its
        // `>` would otherwise make the user's file look like the session's.
        let call = |id: &str, command: &str| {
            serde_json::json!({"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}})
        };
        let result = |id: &str| {
            serde_json::json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": id, "content": "", "is_error": false}]}})
        };
        let lines = [
            serde_json::json!({"type": "user", "message": {"role": "user", "content": "tidy up"}}),
            call("1", "echo x > out.txt"),
            result("1"),
            call("2", "cat /dev/null > notes.txt"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("session.jsonl");
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        std::fs::write(&file, text.join("\n") + "\n").unwrap();
        let session = Session::open(&file, Default::default()).unwrap();
        let made = SessionMade::read(&session, Path::new("/w"));
        assert!(made.made(Path::new("/w/out.txt")));
        assert!(!made.made(Path::new("/w/notes.txt")));
    }
}
