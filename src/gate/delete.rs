//! Catastrophic deletes: `rm -r` or `find … -delete` of `/`, the home directory, a repository's
//! root or its `.git`. Every peer stops these; they get a class of their own (`catastrophic`,
//! denied by default).

use std::path::{Path, PathBuf};

use super::find_select::{self, Selection};
use super::shell::{SimpleCommand, Word};
use crate::support::paths::{expand_home, normalize, repo_root};

/// What a delete command would remove, when that is catastrophic.
pub enum Verdict {
    /// Removes this (a short description: "`/`", "the home directory", "the repository at …").
    Catastrophic(String),
    /// The target is computed at run time and could be one of those (`rm -rf "$DIR/"`).
    Unknown(String),
    Fine,
}

/// Checks `rm`, `find`, `rsync`, `mv` and `tar --remove-files` commands.
pub fn check(cmd: &SimpleCommand) -> Verdict {
    match cmd.program() {
        Some("rm") => match git_store(cmd) {
            Verdict::Fine => rm(cmd),
            v => v,
        },
        Some("find") => find(cmd),
        Some("rsync") => rsync(cmd),
        Some("mv") => moved_away(cmd),
        Some("tar") => tar_removes(cmd),
        _ => Verdict::Fine,
    }
}

/// Parts of a git directory whose loss loses the history itself (`rm -rf .git/objects`).
const GIT_STORE: [&str; 3] = ["objects", "refs", "HEAD"];

/// `rm -rf .git/objects`: the object store, every ref, or `HEAD` of a repository.
fn git_store(cmd: &SimpleCommand) -> Verdict {
    for path in operand_paths(cmd, &[]) {
        if let Some(parent) = path.parent()
            && parent.file_name().is_some_and(|n| n == ".git")
            && path
                .file_name()
                .is_some_and(|n| GIT_STORE.iter().any(|s| n == *s))
            && path.exists()
        {
            return Verdict::Catastrophic(format!("`{}` of the repository", path.display()));
        }
    }
    Verdict::Fine
}

/// `mv .git x`, `mv repo /tmp`: moving a git directory or a repository out of the way loses it
/// as surely as deleting it (what runs next in the line works on the moved copy).
fn moved_away(cmd: &SimpleCommand) -> Verdict {
    let paths = operand_paths(cmd, &["-t", "-S", "--target-directory", "--suffix"]);
    let Some((_, sources)) = paths.split_last() else {
        return Verdict::Fine;
    };
    let words: Vec<Word> = sources
        .iter()
        .map(|p| Word::Literal(p.to_string_lossy().into_owned()))
        .collect();
    judge_targets(cmd, &words.iter().collect::<Vec<_>>())
}

/// `tar --remove-files -cf a.tar DIR`: the archived files are deleted.
fn tar_removes(cmd: &SimpleCommand) -> Verdict {
    if !cmd
        .argv
        .iter()
        .any(|w| w.literal() == Some("--remove-files"))
    {
        return Verdict::Fine;
    }
    let paths = operand_paths(cmd, &["-f", "-C", "--file", "--directory"]);
    let words: Vec<Word> = paths
        .iter()
        .skip(usize::from(
            !cmd.argv.iter().any(|w| w.literal() == Some("-f")),
        ))
        .map(|p| Word::Literal(p.to_string_lossy().into_owned()))
        .collect();
    judge_targets(cmd, &words.iter().collect::<Vec<_>>())
}

/// The literal operands of a command as absolute paths, less the values of `valued` options.
pub(super) fn operand_paths(cmd: &SimpleCommand, valued: &[&str]) -> Vec<PathBuf> {
    let Some(cwd) = cmd.cwd.as_deref() else {
        return Vec::new();
    };
    let words: Vec<&str> = cmd.argv[1..].iter().filter_map(Word::literal).collect();
    words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            let value_of_option = *i > 0 && valued.contains(&words[i - 1]);
            !w.starts_with('-') && !value_of_option
        })
        .map(|(_, w)| normalize(&cwd.join(w)))
        .collect()
}

/// `rsync --delete SRC… DEST`: DEST ends up holding only what the sources hold.
fn rsync(cmd: &SimpleCommand) -> Verdict {
    let words = &cmd.argv[1..];
    if !words.iter().any(|w| {
        w.literal()
            .is_some_and(|a| a.starts_with("--delete") || a == "--del")
    }) {
        return Verdict::Fine;
    }
    match words.iter().rfind(|w| !w.text().starts_with('-')) {
        Some(dest) => judge_targets(cmd, &[dest]),
        None => Verdict::Fine,
    }
}

/// Programs that remove or truncate the files named in their operands. What `cp`, `mv` and
/// other writers put over a file is read by [`super::overwrite`], which knows their
/// destination directories.
const FILE_LOSERS: [&str; 4] = ["rm", "unlink", "shred", "truncate"];

/// Files a plain file tool would remove or overwrite: absolute paths (directories cover what
/// is below them) and, for `find`, the `-name` patterns that select among them. Whether
/// uncommitted work is there is for the repository's facts to say.
pub struct FileLoss {
    pub paths: Vec<PathBuf>,
    pub names: Vec<String>,
    /// What a `find` selects below `paths` (its start points, placed as absolute paths), when
    /// its expression is read: then `names` is not needed.
    pub select: Option<Selection>,
}

pub fn file_loss(cmd: &SimpleCommand) -> Option<FileLoss> {
    let cwd = cmd.cwd.as_ref()?;
    let program = cmd.program()?;
    let absolute = |t: &str| normalize(&cwd.join(t));
    if program == "find" {
        let words = &cmd.argv[1..];
        let deletes = words.iter().any(|w| w.literal() == Some("-delete"))
            || words.windows(2).any(|p| {
                matches!(p[0].literal(), Some("-exec" | "-execdir"))
                    && p[1].literal().is_some_and(|r| {
                        FILE_LOSERS.iter().any(|l| r.rsplit('/').next() == Some(l))
                    })
            });
        if !deletes {
            return None;
        }
        if let Some(select) = find_select::removed_by(words) {
            return Some(placed(select, cwd));
        }
        let mut starts: Vec<PathBuf> = words
            .iter()
            .take_while(|w| {
                w.literal()
                    .is_some_and(|a| !(a.starts_with('-') || a == "(" || a == "!"))
            })
            .filter_map(|w| w.literal().map(absolute))
            .collect();
        if starts.is_empty() {
            starts.push(normalize(cwd));
        }
        let names = words
            .windows(2)
            .filter(|p| matches!(p[0].literal(), Some("-name" | "-iname")))
            .filter_map(|p| p[1].literal().map(str::to_owned))
            .collect();
        return Some(FileLoss {
            paths: starts,
            names,
            select: None,
        });
    }
    if let Some(paths) = super::archived::archived_away(cmd) {
        return Some(FileLoss {
            paths: paths.iter().map(|t| absolute(t)).collect(),
            names: Vec::new(),
            select: None,
        });
    }
    if !FILE_LOSERS.contains(&program) {
        return None;
    }
    // `find … | xargs rm`, `rm $(find …)`: the files that find prints, when that is all.
    let mut computed = cmd.argv[1..]
        .iter()
        .filter(|w| w.literal().is_none_or(|t| !t.starts_with('-')));
    if let (Some(Word::Dynamic(src)), None) = (computed.next(), computed.next())
        && let Some(select) = find_select::printed_by_find(src)
    {
        return Some(placed(select, cwd));
    }
    let mut operands: Vec<String> = Vec::new();
    let mut only = false;
    for w in &cmd.argv[1..] {
        let t = match w {
            Word::Literal(t) => t.as_str(),
            // `… | xargs rm`, `rm $(git ls-files -m)`: names another program prints, which
            // may be any file below the working directory.
            Word::Dynamic(src) if src.contains("$(") || src.contains('`') => ".",
            Word::Dynamic(_) => return None,
        };
        match t {
            "--" if !only => only = true,
            a if !only && a.starts_with('-') && a.len() > 1 => {}
            a => operands.extend(expand_glob(a, cwd)),
        }
    }
    let paths: Vec<PathBuf> = operands.iter().map(|t| absolute(t)).collect();
    (!paths.is_empty()).then_some(FileLoss {
        paths,
        names: Vec::new(),
        select: None,
    })
}

/// A selection's start points placed in `cwd`: the loss of what it selects below them.
fn placed(mut select: Selection, cwd: &Path) -> FileLoss {
    for start in &mut select.starts {
        start.path = normalize(&cwd.join(&start.written))
            .to_string_lossy()
            .into_owned();
    }
    FileLoss {
        paths: select
            .starts
            .iter()
            .map(|s| PathBuf::from(&s.path))
            .collect(),
        names: Vec::new(),
        select: Some(select),
    }
}

/// A word as the shell passes it: a pattern in its last part (`s[r]c`, `*.py`) becomes the
/// names it matches now; anything else, or a pattern matching nothing, stays as written.
fn expand_glob(word: &str, cwd: &Path) -> Vec<String> {
    let (parent, last) = match word.rsplit_once('/') {
        Some((p, l)) => (Some(p), l),
        None => (None, word),
    };
    if !last.contains(['*', '?', '[']) || parent.is_some_and(|p| p.contains(['*', '?', '['])) {
        return vec![word.to_owned()];
    }
    let dir = match parent {
        Some("") => PathBuf::from("/"),
        Some(p) => cwd.join(p),
        None => cwd.to_path_buf(),
    };
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| (last.starts_with('.') || !n.starts_with('.')) && super::glob::matches(last, n))
        .take(4096)
        .map(|n| match parent {
            Some(p) => format!("{p}/{n}"),
            None => n,
        })
        .collect();
    if found.is_empty() {
        found.push(word.to_owned());
    }
    found
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
    // `find . -name .git -exec rm -rf {} +`: the selection is the git directory itself.
    if deletes
        && words.windows(2).any(|p| {
            matches!(p[0].literal(), Some("-name" | "-iname"))
                && p[1]
                    .literal()
                    .is_some_and(|n| super::glob::matches(n, ".git"))
        })
    {
        return Verdict::Catastrophic("every `.git` directory below the start point".into());
    }
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
            // `{}` of `find -exec rm -rf {} +`: the files find selects (judged with the find).
            Word::Dynamic(src) if src == "{}" => continue,
            Word::Dynamic(src) if src.contains("$(") || src.contains('`') => {
                return Verdict::Unknown(format!(
                    "`{src}` is computed at run time and could be the repository or its `.git`"
                ));
            }
            Word::Dynamic(src) => {
                // `"$DIR/"`, `$X/*`, `${HOME}`: empty or home would be a disaster.
                let unquoted: String = src.chars().filter(|c| *c != '"').collect();
                let rest = unquoted
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
        // `.gi?`, `[.]git`: a pattern the shell expands to what exists now.
        let last = text.rsplit('/').next().unwrap_or(text);
        if last.contains(['?', '[']) || (last.contains('*') && last != "*" && last != ".*") {
            let parent = match text.rsplit_once('/') {
                Some((p, _)) => PathBuf::from(if p.is_empty() { "/" } else { p }),
                None => PathBuf::from("."),
            };
            let base = match &cmd.cwd {
                _ if parent.is_absolute() => parent,
                Some(cwd) => cwd.join(parent),
                None => continue,
            };
            let matched: Vec<String> = std::fs::read_dir(&base)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| super::glob::matches(last, n))
                .map(|n| base.join(n).to_string_lossy().into_owned())
                .collect();
            let words: Vec<Word> = matched.into_iter().map(Word::Literal).collect();
            let refs: Vec<&Word> = words.iter().collect();
            match judge_targets(cmd, &refs) {
                Verdict::Fine => continue,
                v => return v,
            }
        }
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
