//! Code the gate can read before it runs, besides the command line: a script file a command
//! runs (`python3 x.py`, `bash x.sh`, `./x.sh`, `node x.js`, `make -f F`), a heredoc fed to an
//! interpreter, and the content the file-writing tools put into a script. Code that writes
//! files and names hookjudge's places (its state and config dirs, the approval and trust
//! stores, the binary, the agents' hook settings) is treated like a direct write there: an
//! agent could otherwise write `x.py` that forges an approval and then run `python3 x.py`.
//!
//! Strings built in code (`'hook' + 'judge'`) cannot be followed here; the stores themselves
//! are only the user's to write, and `doctor` reports hooks switched off.

use std::path::{Path, PathBuf};

use super::places::Protected;
use super::running::WRITE_HINTS;
use crate::gate::shell::{SimpleCommand, Word};

/// The most of a script file read at gate time; a longer file is read up to here.
pub const MAX_SCRIPT_BYTES: u64 = 256 * 1024;

/// Names in code that point at hookjudge's places or at the agents' hook settings. Plain
/// mentions of hookjudge (`hookjudge log`) are not among them: a path is (`hookjudge/`).
const PLACE_NAMES: [&str; 12] = [
    "hookjudge/",
    "approvals.json",
    "trust.json",
    ".claude/settings",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    "disableallhooks",
    "hooksconfig",
    "hookspath",
    "hooks/pre-push",
    "bin/hookjudge",
];

/// Programs that run the script file named by their first argument that is not an option.
const SCRIPT_RUNNERS: [&str; 17] = [
    "python", "python3", "python2", "node", "deno", "bun", "perl", "ruby", "php", "lua", "tclsh",
    "pwsh", "Rscript", "sh", "bash", "zsh", "dash",
];

/// Shells: a script they run is read as shell commands, like the command line.
const SHELLS: [&str; 6] = ["sh", "bash", "zsh", "dash", "ksh", "source"];

/// Why `code` concerns hookjudge, if it does: it writes files (or runs programs) and names one
/// of hookjudge's places, in its text or as an absolute path `protected` knows.
pub fn code_concerns(code: &str, protected: &Protected) -> Option<String> {
    if let Some(what) = super::env_files::text_writes(code) {
        return Some(what);
    }
    let lower = code.to_ascii_lowercase();
    if !WRITE_HINTS.iter().any(|h| lower.contains(h)) {
        return None;
    }
    let named = PLACE_NAMES
        .iter()
        .find(|n| lower.contains(*n))
        .map(|n| (*n).to_owned())
        .or_else(|| {
            protected
                .dirs
                .iter()
                .chain(protected.files.iter())
                .chain(protected.binary.iter())
                .filter_map(|p| p.to_str())
                .find(|p| !p.is_empty() && code.contains(p))
                .map(str::to_owned)
        })?;
    Some(format!("writes files and names `{named}`"))
}

/// A script file `cmd` runs, and whether it is a shell script (read as commands).
pub fn script_file(cmd: &SimpleCommand) -> Option<(PathBuf, bool)> {
    let program = cmd.program()?;
    let words: Vec<&str> = cmd.argv.iter().map(Word::text).collect();
    let dir = cmd.cwd.as_deref().unwrap_or(Path::new("."));
    let at = |name: &str| -> PathBuf {
        let path = Path::new(name);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            dir.join(path)
        }
    };
    let runner = SCRIPT_RUNNERS.iter().any(|r| {
        program
            .strip_prefix(r)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    if runner || program == "source" || program == "." {
        // `python3 -u x.py`, `bash -e x.sh`: the first word that is not an option; `-c CODE`
        // and `-m MODULE` run no file.
        for arg in words.iter().skip(1) {
            if matches!(*arg, "-c" | "-e" | "-m" | "--eval" | "-E" | "-r")
                && !SHELLS.contains(&program)
                || (SHELLS.contains(&program) && *arg == "-c")
            {
                return None;
            }
            if arg.starts_with('-') {
                continue;
            }
            let shell = SHELLS.contains(&program) || program == ".";
            return Some((at(arg), shell));
        }
        return None;
    }
    if program == "make" || program == "gmake" {
        let file = words
            .iter()
            .position(|w| *w == "-f" || *w == "--file" || *w == "--makefile")
            .and_then(|i| words.get(i + 1))
            .map(|f| at(f))
            .or_else(|| {
                ["GNUmakefile", "makefile", "Makefile"]
                    .iter()
                    .map(|f| at(f))
                    .find(|p| p.is_file())
            })?;
        return Some((file, false));
    }
    // `./x.sh`, `bin/tool`: a program named by a path, when it is a script (`#!`).
    let first = words.first()?;
    if first.contains('/') {
        let path = at(first);
        let head = read_head(&path, 128)?;
        let line = head.lines().next().unwrap_or("");
        if let Some(interpreter) = line.strip_prefix("#!") {
            let shell = SHELLS
                .iter()
                .any(|s| interpreter.split_whitespace().any(|w| w.ends_with(s)));
            return Some((path, shell));
        }
    }
    None
}

/// Whether the heredocs of `command` are code: fed to an interpreter or a shell
/// (`python3 - <<EOF`), or written to a script file (`cat > x.py <<EOF`). Read from the line
/// that opens the first heredoc, not from the bodies (a commit message may name `python`).
pub fn heredocs_are_code(command: &str) -> bool {
    let Some(at) = command.find("<<") else {
        return false;
    };
    let line_end = command[at..].find('\n').map_or(command.len(), |e| at + e);
    let head = &command[..line_end];
    let runner = head
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '/'))
        .filter_map(|w| w.rsplit('/').next())
        .any(|w| {
            SCRIPT_RUNNERS.iter().chain(SHELLS.iter()).any(|r| {
                w.strip_prefix(r)
                    .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
            })
        });
    runner
        || super::redirect_targets(head)
            .iter()
            .any(|t| is_script(Path::new(t), ""))
}

/// Quick test before parsing: could `command` run a script file?
pub fn may_run_script(command: &str) -> bool {
    // A program named by a path (`./x.sh`, `bin/tool`): the first word of a statement.
    let path_program = command
        .split([';', '&', '|', '(', ')', '\n', '`'])
        .filter_map(|statement| {
            statement
                .split_whitespace()
                .find(|w| !w.contains('=') || w.starts_with(['/', '.']))
        })
        .any(|program| program.contains('/'));
    path_program
        || command.contains("make")
        || command.contains("source")
        || command.contains(". ")
        || command
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            .any(|w| {
                SCRIPT_RUNNERS.iter().any(|r| {
                    w.strip_prefix(r)
                        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
                })
            })
}

/// The first `max` bytes of a file, as text.
fn read_head(path: &Path, max: u64) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A file's first bytes, enough for its `#!` line.
pub fn read_script_head(path: &Path) -> Option<String> {
    read_head(path, 128)
}

/// The script's text, up to [`MAX_SCRIPT_BYTES`].
pub fn read_script(path: &Path) -> Option<String> {
    read_head(path, MAX_SCRIPT_BYTES)
}

/// Whether a file is a script: by its extension, its name, or a `#!` first line.
pub fn is_script(path: &Path, text: &str) -> bool {
    const EXTENSIONS: [&str; 16] = [
        "py", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "pl", "rb", "php", "lua", "ps1",
        "tcl", "r", "mk",
    ];
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    text.starts_with("#!")
        || matches!(name, "Makefile" | "makefile" | "GNUmakefile" | "justfile")
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The bodies of the heredocs in a command line (`<<EOF`, `<<-'EOF'`, `<<"EOF"`).
pub fn heredoc_bodies(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = command;
    while let Some(at) = rest.find("<<") {
        let after = &rest[at + 2..];
        if let Some(here_string) = after.strip_prefix('<') {
            rest = here_string; // a here-string `<<<`: its word is on the command line
            continue;
        }
        let after = after.strip_prefix('-').unwrap_or(after).trim_start();
        let end = after
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '>' | '<' | ')'))
            .unwrap_or(after.len());
        let delimiter = after[..end].trim_matches(['\'', '"']).replace('\\', "");
        rest = &after[end..];
        if delimiter.is_empty() {
            continue;
        }
        let Some(newline) = rest.find('\n') else {
            break;
        };
        let body_start = &rest[newline + 1..];
        let mut body = String::new();
        let mut consumed = body_start.len();
        let mut offset = 0;
        for line in body_start.split_inclusive('\n') {
            if line.trim_start_matches('\t').trim_end() == delimiter {
                consumed = offset + line.len();
                break;
            }
            body.push_str(line);
            offset += line.len();
        }
        out.push(body);
        rest = &body_start[consumed.min(body_start.len())..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heredoc_bodies_are_found_whatever_the_quoting() {
        assert_eq!(
            heredoc_bodies("cat > x.py <<'EOF'\nopen('a','w')\nEOF\npython3 x.py"),
            ["open('a','w')\n"]
        );
        assert_eq!(
            heredoc_bodies("python3 - <<-\"PY\"\n\tprint(1)\n\tPY\n"),
            ["\tprint(1)\n"]
        );
        assert_eq!(heredoc_bodies("bash <<< 'x'"), Vec::<String>::new());
    }

    #[test]
    fn code_that_writes_and_names_a_place_concerns_hookjudge() {
        let protected = Protected {
            dirs: vec![PathBuf::from("/s/state/hj")],
            files: Vec::new(),
            binary: None,
            home: None,
        };
        let forge =
            "import json\np='~/.local/state/hookjudge/approvals.json'\njson.dump({}, open(p,'w'))";
        assert!(code_concerns(forge, &protected).is_some());
        assert!(code_concerns("open('/s/state/hj/x','w')", &protected).is_some());
        // Naming without writing, or writing elsewhere, is not.
        assert!(code_concerns("print(open('approvals.json').read())", &protected).is_none());
        assert!(code_concerns("open('out.txt','w').write('hi')", &protected).is_none());
        assert!(code_concerns("# run `hookjudge log`\nopen('o','w')", &protected).is_none());
    }

    #[test]
    fn only_commands_that_may_run_a_script_file_are_parsed_for_one() {
        for runs in [
            "./x.sh",
            "A=1 bin/tool",
            "true && ../x",
            "python3 x.py",
            "make",
        ] {
            assert!(may_run_script(runs), "{runs}");
        }
        for not in ["rm -rf /", "ls /tmp", "git log -- a/b"] {
            assert!(!may_run_script(not), "{not}");
        }
    }

    #[test]
    fn scripts_are_told_by_extension_name_or_shebang() {
        assert!(is_script(Path::new("x.py"), ""));
        assert!(is_script(Path::new("tool"), "#!/bin/sh\n"));
        assert!(is_script(Path::new("Makefile"), ""));
        assert!(!is_script(Path::new("README.md"), "approvals.json"));
    }
}
