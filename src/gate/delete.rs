//! Catastrophic deletes: `rm -r` or `find … -delete` of `/`, the home directory, a repository's
//! root or its `.git`. Every peer stops these; they get a class of their own (`catastrophic`,
//! denied by default).

use std::path::{Component, Path, PathBuf};

use super::shell::{SimpleCommand, Word};

/// What a delete command would remove, when that is catastrophic.
pub enum Verdict {
    /// Removes this (a short description: "`/`", "the home directory", "the repository at …").
    Catastrophic(String),
    /// The target is computed at run time and could be one of those (`rm -rf "$DIR/"`).
    Unknown(String),
    Fine,
}

/// Checks `rm` and `find` commands.
pub fn check(cmd: &SimpleCommand) -> Verdict {
    match cmd.program() {
        Some("rm") => rm(cmd),
        Some("find") => find(cmd),
        _ => Verdict::Fine,
    }
}

fn rm(cmd: &SimpleCommand) -> Verdict {
    let mut recursive = false;
    let mut targets: Vec<&Word> = Vec::new();
    let mut operands_only = false;
    for word in &cmd.argv[1..] {
        match word.literal() {
            Some("--") if !operands_only => operands_only = true,
            Some(a) if !operands_only && a.starts_with("--") => {
                recursive |= "--recursive".starts_with(a) && a.len() > 3;
            }
            Some(a) if !operands_only && a.starts_with('-') && a.len() > 1 => {
                recursive |= a.contains(['r', 'R']);
            }
            _ => targets.push(word),
        }
    }
    if !recursive {
        return Verdict::Fine;
    }
    judge_targets(cmd, &targets)
}

fn find(cmd: &SimpleCommand) -> Verdict {
    let words = &cmd.argv[1..];
    let deletes = words.iter().any(|w| matches!(w.literal(), Some("-delete")))
        || words.windows(2).any(|p| {
            matches!(
                p[0].literal(),
                Some("-exec" | "-execdir" | "-ok" | "-okdir")
            ) && matches!(p[1].literal(), Some("rm" | "/bin/rm" | "/usr/bin/rm"))
        });
    // A test that selects files (`-name '*.pyc'`) makes it a cleanup, not a wipe.
    let selective = words
        .iter()
        .take_while(|w| !matches!(w.literal(), Some("-exec" | "-execdir" | "-ok" | "-okdir")))
        .any(|w| {
            w.literal().is_some_and(|a| {
                a.starts_with('-')
                    && !matches!(
                        a,
                        "-delete"
                            | "-type"
                            | "-maxdepth"
                            | "-mindepth"
                            | "-depth"
                            | "-xdev"
                            | "-mount"
                            | "-print"
                            | "-print0"
                            | "-exec"
                            | "-execdir"
                            | "-ok"
                            | "-okdir"
                            | "-H"
                            | "-L"
                            | "-P"
                            | "-ignore_readdir_race"
                            | "-noleaf"
                    )
            })
        });
    if !deletes || selective {
        return Verdict::Fine;
    }
    // The start points come before the first expression word.
    let starts: Vec<&Word> = words
        .iter()
        .skip_while(|w| {
            w.literal().is_some_and(|a| {
                matches!(a, "-H" | "-L" | "-P") || a.starts_with("-O") || a.starts_with("-D")
            })
        })
        .take_while(|w| {
            w.literal()
                .is_none_or(|a| !(a.starts_with('-') || a == "(" || a == "!"))
        })
        .collect();
    if starts.is_empty() {
        return judge_targets(cmd, &[&Word::Literal(".".into())]);
    }
    judge_targets(cmd, &starts)
}

fn judge_targets(cmd: &SimpleCommand, targets: &[&Word]) -> Verdict {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for target in targets {
        let text = match target {
            Word::Literal(t) => t.as_str(),
            Word::Dynamic(src) => {
                // `"$DIR/"`, `$X/*`, `${HOME}`: empty or home would be a disaster.
                let rest = src
                    .trim_matches('"')
                    .trim_start_matches('$')
                    .trim_start_matches('{')
                    .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    .trim_start_matches('}');
                let home_var = src.contains("HOME");
                if rest.is_empty()
                    || rest == "/"
                    || rest == "/*"
                    || home_var && matches!(rest, "" | "/" | "/*" | "/.")
                {
                    return Verdict::Unknown(format!(
                        "`{src}` is computed at run time and could be `/` or the home directory"
                    ));
                }
                continue;
            }
        };
        let path = expand_home(text, home.as_deref());
        let Some(path) = path else { continue };
        let absolute = match &cmd.cwd {
            _ if path.is_absolute() => path.clone(),
            Some(cwd) => cwd.join(&path),
            None => {
                if text.starts_with('.') || text == "*" {
                    return Verdict::Unknown(format!(
                        "`{text}` in a directory hookjudge cannot tell"
                    ));
                }
                continue;
            }
        };
        let glob = absolute.file_name().is_some_and(|n| n == "*" || n == ".*");
        let dir = if glob {
            absolute.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            absolute
        };
        let dir = normalize(&dir);
        if dir == Path::new("/") {
            return Verdict::Catastrophic("`/`".into());
        }
        if home.as_deref().is_some_and(|h| normalize(h) == dir) {
            return Verdict::Catastrophic("the home directory".into());
        }
        if dir.file_name().is_some_and(|n| n == ".git") && dir.is_dir() {
            return Verdict::Catastrophic(format!("the git directory `{}`", dir.display()));
        }
        if dir.join(".git").exists() {
            return Verdict::Catastrophic(format!("the repository at `{}`", dir.display()));
        }
        // An ancestor of a repository the command runs in holds it.
        if let Some(cwd) = &cmd.cwd
            && normalize(cwd).starts_with(&dir)
            && repo_root(cwd).is_some_and(|r| r.starts_with(&dir))
        {
            return Verdict::Catastrophic(format!(
                "`{}`, which holds the repository",
                dir.display()
            ));
        }
    }
    Verdict::Fine
}

fn expand_home(text: &str, home: Option<&Path>) -> Option<PathBuf> {
    if text == "~" || text.starts_with("~/") {
        return home.map(|h| h.join(text.trim_start_matches('~').trim_start_matches('/')));
    }
    Some(PathBuf::from(text))
}

fn repo_root(dir: &Path) -> Option<PathBuf> {
    let mut d = normalize(dir);
    loop {
        if d.join(".git").exists() {
            return Some(d);
        }
        if !d.pop() {
            return None;
        }
    }
}

/// `a/./b/../c` → `a/c`, without touching the filesystem.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}
