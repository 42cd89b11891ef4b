//! A `PATH` the line changes (`PATH=$PWD/bin:$PATH make`, `export PATH=tools:$PATH`) that puts
//! a directory holding a program named like a gated one (`bin/git`) ahead of the system's:
//! every later `git` of the command, its scripts and recipes runs that file instead, which no
//! word of the line shows. It is asked about, naming the file; a directory named at run time
//! is asked about too. Directories outside the project and scratch space hold installed tools
//! (`/usr/local/bin`) and are not looked into.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{Script, SimpleCommand};

/// Programs besides the gated ones whose shadowing changes what a recipe runs.
const SHADOWED: [&str; 8] = [
    "sh", "bash", "env", "make", "python", "python3", "node", "ssh",
];

pub(super) fn note_shadowing(cmd: &SimpleCommand, script: &mut Script) {
    let Some(path) = cmd.env_var("PATH") else {
        return;
    };
    let cwd = cmd.cwd.clone().unwrap_or_default();
    // An exported computed value keeps its whole assignment (`PATH=bin:$PATH`).
    let text = path.text().strip_prefix("PATH=").unwrap_or(path.text());
    for dir in text.split(':') {
        if matches!(dir, "$PATH" | "${PATH}" | "") {
            break; // the system's directories from here on
        }
        let resolved = match dir {
            "." | "$PWD" | "${PWD}" | "$(pwd)" | "`pwd`" => Some(cwd.clone()),
            d if d.starts_with("$PWD/") || d.starts_with("${PWD}/") || d.starts_with("$(pwd)/") => {
                d.split_once('/').map(|(_, rest)| cwd.join(rest))
            }
            d if d.starts_with("$HOME") || d.starts_with('~') => None,
            d if d.contains('$') || d.contains('`') => {
                script.unknowable.push(format!(
                    "runs `{}` with `PATH` starting at `{d}`, a directory named at run time",
                    short(&cmd.source)
                ));
                return;
            }
            d => Some(if d.starts_with('/') {
                PathBuf::from(d)
            } else {
                cwd.join(d)
            }),
        };
        // Installed tools' directories (`/usr/local/bin`) are the user's; a directory of the
        // project or a scratch one is where a session puts a look-alike.
        let writable_here = |d: &PathBuf| {
            d.starts_with(&cwd)
                || ["/tmp", "/var/tmp", "/dev/shm"]
                    .iter()
                    .any(|t| d.starts_with(t))
        };
        if let Some(file) = resolved
            .filter(writable_here)
            .and_then(|d| shadowing_program(&d))
        {
            script.unknowable.push(format!(
                "runs `{}` with `PATH` finding `{}` before the system's program",
                short(&cmd.source),
                file.display()
            ));
            return;
        }
    }
}

/// An executable file in `dir` named like a gated program or one recipes run.
fn shadowing_program(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries.flatten().take(4096).map(|e| e.path()).find(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        (crate::gate::tools::is_gated_program(name) || SHADOWED.contains(&name))
            && std::fs::metadata(p)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

fn short(text: &str) -> String {
    crate::support::text::short(text, 80)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use crate::gate::shell::parse;

    #[test]
    fn a_program_shadowed_on_the_path_is_unknowable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        let git = dir.path().join("bin/git");
        std::fs::write(&git, "#!/bin/sh\nexec /usr/bin/git push\n").unwrap();
        std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
        let notes = |line: &str| parse(line, dir.path()).unknowable;
        assert_eq!(notes("PATH=$PWD/bin:$PATH make test").len(), 1);
        assert_eq!(notes("export PATH=bin:$PATH; npm test").len(), 1);
        assert_eq!(notes("PATH=$(mktemp -d):$PATH make").len(), 1);
        assert!(
            notes("PATH=$PATH:$PWD/bin make").is_empty(),
            "after the system's"
        );
        assert!(notes("PATH=/usr/local/bin:$PATH make").is_empty());
        assert!(notes("make test").is_empty());
    }
}
