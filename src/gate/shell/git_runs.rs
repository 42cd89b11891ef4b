//! Programs a git command runs that its words only carry as text: `rebase --exec CMD` (and
//! `-x`) runs a shell line after each commit, read like the command line; a configuration key
//! set to a program (`git config filter.x.clean CMD`) makes later git commands run it, which
//! is asked about, naming the key (a `-c key=CMD` of the command itself is read by `git`). The keys of that kind already
//! in the repository's own configuration (`.git/config`) are read as shell lines each git
//! command may run, so a filter that pushes is judged as the push it is, when `git add` runs
//! it.

use std::path::{Path, PathBuf};

use super::{Script, SimpleCommand, Word};
use crate::gate::git::program_keys::{runs_program, setting_runs_program};

/// Configuration files larger than this are not read.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// Git's own options that take the next word as their value.
const GIT_VALUE_OPTIONS: [&str; 6] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

/// `git config` options that take the next word as their value.
const CONFIG_VALUE_OPTIONS: [&str; 6] =
    ["-f", "--file", "--blob", "--type", "--default", "--comment"];

/// Shell lines `cmd` (a git command) runs, and notes of keys it sets to programs.
pub(super) fn git_bodies(cmd: &SimpleCommand, bodies: &mut Vec<String>, script: &mut Script) {
    if cmd.program() != Some("git") {
        return;
    }
    let words: Vec<Option<&str>> = cmd.argv[1..].iter().map(Word::literal).collect();
    let mut i = 0;
    while let Some(Some(w)) = words.get(i) {
        if GIT_VALUE_OPTIONS.contains(w) {
            i += 2;
        } else if w.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let rest = words.get(i + 1..).unwrap_or_default();
    if let Some(config) = cmd.cwd.as_deref().and_then(local_config) {
        bodies.extend(program_settings(&config).into_iter().map(|(_, v)| v));
    }
    match words.get(i).copied().flatten() {
        Some("rebase") => {
            let mut args = rest.iter();
            while let Some(arg) = args.next() {
                match arg {
                    Some("--exec" | "-x") => match args.next() {
                        Some(Some(line)) => bodies.push((*line).to_owned()),
                        Some(None) => script
                            .unknowable
                            .push("`git rebase --exec` runs a command computed at run time".into()),
                        None => {}
                    },
                    Some(a) if a.starts_with("--exec=") => bodies.push(a[7..].to_owned()),
                    _ => {}
                }
            }
        }
        Some("config") => {
            let mut operands: Vec<&str> = Vec::new();
            let mut args = rest.iter();
            while let Some(arg) = args.next() {
                let Some(a) = arg else {
                    operands.push("");
                    continue;
                };
                if CONFIG_VALUE_OPTIONS.contains(a) {
                    args.next();
                } else if matches!(
                    *a,
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "--list"
                        | "-l"
                        | "--unset"
                        | "--unset-all"
                        | "get"
                        | "list"
                        | "unset"
                ) {
                    return;
                } else if !a.starts_with('-') {
                    operands.push(a);
                }
            }
            if operands.first() == Some(&"set") {
                operands.remove(0);
            }
            if let [key, value, ..] = operands.as_slice() {
                note(key, value, script);
            }
        }
        _ => {}
    }
}

/// The repository's own configuration file, found from `dir` upward.
fn local_config(dir: &Path) -> Option<String> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let dot_git = d.join(".git");
        let git_dir: Option<PathBuf> = if dot_git.is_dir() {
            Some(dot_git)
        } else if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let path = text.trim().strip_prefix("gitdir:")?.trim().to_owned();
            Some(d.join(path))
        } else {
            None
        };
        if let Some(git_dir) = git_dir {
            let file = git_dir.join("config");
            let meta = std::fs::metadata(&file).ok()?;
            return (meta.len() <= MAX_CONFIG_BYTES)
                .then(|| std::fs::read_to_string(file).ok())
                .flatten();
        }
        at = d.parent();
    }
    None
}

/// The settings of `config` (git's ini format) whose value git runs as a program, as
/// (key, value); git-lfs's own filters are left out.
fn program_settings(config: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in config.lines() {
        let line = line.trim();
        if let Some(head) = line.strip_prefix('[').and_then(|l| l.split(']').next()) {
            section = match head.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{}.{}", name, sub.trim().trim_matches('"')),
                None => head.to_owned(),
            };
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let key = format!("{section}.{}", name.trim());
        let mut value = value.trim();
        if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
            value = &value[1..value.len() - 1];
        }
        let value = value.replace("\\\"", "\"").replace("\\\\", "\\");
        if runs_program(&key)
            && !value.starts_with("git-lfs ")
            && setting_runs_program(&key, &value).is_some()
        {
            out.push((key, value));
        }
    }
    out
}

fn note(key: &str, value: &str, script: &mut Script) {
    if let Some(why) = setting_runs_program(key, value) {
        script.unknowable.push(why);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::shell::parse;
    use crate::gate::shell::test_support::case;

    #[test]
    fn rebase_exec_lines_are_read() {
        case(
            "git -c rebase.autoStash=true rebase -q --exec 'git push -q origin HEAD:main' HEAD~1",
            &[
                "git push -q origin HEAD:main",
                "git -c rebase.autoStash=true rebase -q --exec git push -q origin HEAD:main HEAD~1",
            ],
        );
        case(
            "git rebase -x 'make test' main",
            &["make test", "git rebase -x make test main"],
        );
    }

    #[test]
    fn program_settings_of_the_repository_are_read() {
        let config = "[core]\n\tbare = false\n\tpager = less\n[filter \"rt\"]\n\tclean = \"sh -c 'git push -q origin main; cat'\"\n[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n";
        assert_eq!(
            super::program_settings(config),
            [(
                "filter.rt.clean".to_owned(),
                "sh -c 'git push -q origin main; cat'".to_owned()
            )]
        );
    }

    #[test]
    fn keys_set_to_programs_are_unknowable() {
        let notes = |line: &str| parse(line, Path::new("/w")).unknowable;
        assert_eq!(
            notes("git config filter.rt.clean \"sh -c 'git push -q origin main; cat'\"").len(),
            1
        );
        assert_eq!(notes("git config --global core.editor vim").len(), 0);
        assert_eq!(notes("git config user.name me").len(), 0);
        assert_eq!(notes("git config --get filter.rt.clean").len(), 0);
    }
}
