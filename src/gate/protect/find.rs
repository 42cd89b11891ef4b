//! Whether `find` or `git` can remove what they name: `find .` only lists, and `git fetch .`
//! only reads, so the directory holding an agent's hook settings is safe from them. `find`
//! removes with `-delete` or a program it runs on what it found (`-exec rm -rf {} +`), and then
//! only what its `-name` tests select; git removes paths through a handful of verbs.

use super::places::{Protected, settings_files};

/// Programs that `find -exec` may run without removing anything it found.
const EXEC_READ_ONLY: [&str; 16] = [
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "wc",
    "cat",
    "head",
    "tail",
    "ls",
    "stat",
    "file",
    "echo",
    "printf",
    "du",
    "sha256sum",
    "md5sum",
];

/// Tests that do not narrow what a `find` expression selects (or only by type and depth, or
/// by not descending into what it matched: `-prune`).
const NOT_SELECTING: [&str; 17] = [
    "-prune",
    "-type",
    "-maxdepth",
    "-mindepth",
    "-depth",
    "-xdev",
    "-mount",
    "-print",
    "-print0",
    "-delete",
    "-H",
    "-L",
    "-P",
    "-noleaf",
    "-ignore_readdir_race",
    "-name",
    "-iname",
];

/// Git verbs that never delete or move the paths they are given.
const GIT_KEEPS_PATHS: [&str; 34] = [
    "fetch",
    "pull",
    "push",
    "log",
    "show",
    "diff",
    "status",
    "add",
    "commit",
    "branch",
    "tag",
    "remote",
    "ls-files",
    "ls-tree",
    "grep",
    "blame",
    "describe",
    "rev-parse",
    "rev-list",
    "merge-base",
    "cat-file",
    "check-ignore",
    "shortlog",
    "for-each-ref",
    "show-ref",
    "reflog",
    "config",
    "clone",
    "init",
    "fsck",
    "count-objects",
    "archive",
    "bundle",
    "whatchanged",
];

/// Whether `find WORDS…` can remove a protected path below its start points.
pub(super) fn find_may_remove(words: &[&str], protected: &Protected) -> bool {
    let mut deletes = words.contains(&"-delete");
    for pair in words.windows(2) {
        if matches!(pair[0], "-exec" | "-execdir" | "-ok" | "-okdir") {
            let program = pair[1].rsplit('/').next().unwrap_or(pair[1]);
            deletes |= !EXEC_READ_ONLY.contains(&program);
        }
    }
    if !deletes {
        return false;
    }
    // Only `-name` patterns joined by "and" narrow it in a way read here: then it removes
    // what has a selected name, or lies below a selected directory.
    let expression = words
        .iter()
        .take_while(|w| !matches!(**w, "-exec" | "-execdir" | "-ok" | "-okdir"));
    let mut names = Vec::new();
    let mut words_iter = expression.skip_while(|w| !w.starts_with('-') && **w != "(" && **w != "!");
    while let Some(word) = words_iter.next() {
        match *word {
            "-name" | "-iname" => match words_iter.next() {
                Some(pattern) => names.push(*pattern),
                None => return true,
            },
            "-type" | "-maxdepth" | "-mindepth" => {
                words_iter.next();
            }
            w if NOT_SELECTING.contains(&w) => {}
            _ => return true, // `-o`, `!`, `-path`, `-regex`, …: read as removing anything
        }
    }
    if names.is_empty() {
        return true;
    }
    let protected_parts = protected_components(protected);
    names.iter().all(|pattern| {
        protected_parts
            .iter()
            .any(|part| crate::gate::glob::matches(pattern, part))
    })
}

/// Every path component of a protected place: a `-name` test matching none of them cannot
/// select a protected file or a directory above one.
fn protected_components(protected: &Protected) -> Vec<String> {
    let mut parts: Vec<String> = settings_files()
        .iter()
        .flat_map(|s| s.split('/'))
        .chain([".git", "hooks", "pre-push", "config", ".gitconfig"])
        .map(str::to_owned)
        .collect();
    let places = protected
        .dirs
        .iter()
        .chain(&protected.files)
        .chain(protected.binary.as_ref());
    for place in places {
        parts.extend(
            place
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        );
    }
    // What the state and config dirs hold (`trust.json`, `config.json`, the seal key): a
    // `-name` test selects them by their own names.
    for dir in &protected.dirs {
        names_below(dir, 3, &mut parts);
    }
    parts
}

/// The names of the files and folders below `dir`, `depth` levels down, at most 256.
fn names_below(dir: &std::path::Path, depth: usize, names: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten().take(256) {
        if names.len() > 1024 {
            return;
        }
        names.push(entry.file_name().to_string_lossy().into_owned());
        if depth > 1 && entry.file_type().is_ok_and(|t| t.is_dir()) {
            names_below(&entry.path(), depth - 1, names);
        }
    }
}

/// Whether `git WORDS…` can delete or move the paths it names: every verb but those known to
/// keep them (an alias or an unknown verb counts as removing).
/// git's global options that take the next word as their value (a place or a setting, never
/// a path it removes).
pub(super) const GIT_VALUED: [&str; 5] = ["-C", "-c", "--git-dir", "--work-tree", "--namespace"];

pub(super) fn git_may_remove(words: &[&str]) -> bool {
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        match *word {
            w if GIT_VALUED.contains(&w) => {
                rest.next();
            }
            w if w.starts_with('-') => {}
            verb => return !GIT_KEEPS_PATHS.contains(&verb),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn protected() -> Protected {
        Protected {
            dirs: vec![PathBuf::from("/home/u/.local/state/hookjudge")],
            files: Vec::new(),
            binary: Some(PathBuf::from("/usr/local/bin/hookjudge")),
            home: None,
        }
    }

    #[test]
    fn listing_and_reading_finds_remove_nothing() {
        let p = protected();
        for line in [
            ". -name *.py",
            ". -type f",
            ". -maxdepth 2 -type d",
            ". -type f -name *.md -exec wc -l {} +",
        ] {
            let words: Vec<&str> = line.split(' ').collect();
            assert!(!find_may_remove(&words, &p), "{line}");
        }
    }

    #[test]
    fn a_delete_removes_what_its_names_can_select() {
        let p = protected();
        let removes = |line: &str| find_may_remove(&line.split(' ').collect::<Vec<_>>(), &p);
        assert!(!removes(". -name __pycache__ -exec rm -rf {} +"));
        assert!(!removes(
            ". -name __pycache__ -type d -prune -exec rm -rf {} +"
        ));
        assert!(!removes(". -name *.pyc -delete"));
        assert!(removes(". -name .claude -prune -exec rm -rf {} +"));
        assert!(removes(". -path ./keep -prune -o -name *.json -delete"));
        assert!(removes(". -delete"));
        assert!(removes(". -name *.json -delete"));
        assert!(removes(". -name .claude -exec rm -rf {} +"));
        assert!(removes(". -name *.pyc -o -name x -delete"));
        assert!(removes(". -path ./x -exec rm -rf {} +"));
        assert!(removes(". -exec sh -c {} ;"));
        assert!(!removes(". -name x -exec sh -c {} ;"));
    }

    #[test]
    fn git_verbs_that_only_read_or_record_remove_nothing() {
        assert!(!git_may_remove(&["fetch", ".", "HEAD:refs/heads/snapshot"]));
        assert!(!git_may_remove(&["-C", ".", "log"]));
        assert!(git_may_remove(&["rm", "-r", "."]));
        assert!(git_may_remove(&["clean", "-fdx", "."]));
        assert!(git_may_remove(&["sync", "."]));
    }
}
