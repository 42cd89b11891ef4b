//! `git stash -u` and `git stash -a` take untracked (and, with `-a`, ignored) files out of the
//! work tree: an agent's hook settings kept out of git (`.claude/settings.local.json`, ignored
//! or untracked) go with them, and the hooks stop running until a person pops the stash. No
//! word of the line names those files, so the repository is asked which of them would go.

use std::path::Path;
use std::process::{Command, Stdio};

use super::places::settings_files;

/// Why `words` (a `git` command run in `cwd`) would take an agent's hook settings out of the
/// work tree, if it would.
pub(super) fn stash_takes_settings(words: &[&str], cwd: Option<&Path>) -> Option<String> {
    let mut dir = cwd?.to_path_buf();
    let mut rest = words[1..].iter();
    let verb = loop {
        match *rest.next()? {
            "-C" => dir = dir.join(rest.next()?),
            "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                rest.next();
            }
            w if w.starts_with('-') => {}
            verb => break verb,
        }
    };
    if verb != "stash" {
        return None;
    }
    let args: Vec<&str> = rest.copied().collect();
    let (action, options) = match args.first() {
        Some(&("push" | "save")) => (true, &args[1..]),
        Some(first) if first.starts_with('-') => (true, &args[..]),
        None => (true, &args[..]),
        Some(_) => (false, &args[..]),
    };
    // Options, the message `-m` takes, and (after `push`) pathspecs, with or without `--`.
    let (mut flags, mut pathspecs) = (vec![], vec![]);
    let mut words = options.iter();
    let mut after_dashes = false;
    while let Some(word) = words.next() {
        match *word {
            "--" => after_dashes = true,
            "-m" | "--message" if !after_dashes => {
                words.next();
            }
            w if !after_dashes && w.starts_with("--message=") => {}
            w if !after_dashes && w.starts_with('-') => flags.push(w),
            w if after_dashes || args.first() == Some(&"push") => pathspecs.push(w),
            _ => {}
        }
    }
    let short = |letter: char| {
        flags
            .iter()
            .any(|w| !w.starts_with("--") && w[1..].contains(letter))
    };
    let all = short('a') || flags.contains(&"--all");
    let untracked = all || short('u') || flags.contains(&"--include-untracked");
    if !action || !untracked {
        return None;
    }
    let root = git(&dir, &["rev-parse", "--show-toplevel"])?;
    let root = Path::new(root.trim());
    settings_files()
        .iter()
        .filter(|file| !file.starts_with('~') && !file.starts_with('/'))
        .filter(|file| root.join(file).is_file())
        .filter(|file| {
            pathspecs.is_empty()
                || pathspecs.iter().any(|p| {
                    let p = p.trim_start_matches("./").trim_end_matches('/');
                    p.is_empty() || p == "." || file.starts_with(p)
                })
        })
        .find(|file| {
            let tracked = git(root, &["ls-files", "--error-unmatch", "--", file]).is_some();
            let ignored = git(root, &["check-ignore", "-q", "--", file]).is_some();
            !tracked && (all || !ignored)
        })
        .map(|file| {
            format!("command stashes `{file}` away with the untracked files: it takes an agent's hook settings out of the work tree")
        })
}

/// What `git ARGS` prints in `dir` when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}
