//! Tree copies into a directory above hookjudge's places: `cp -r stage/. ~/.local/state/`
//! writes `~/.local/state/hookjudge/trust.json` though no word of the line names it. The
//! source tree was written earlier, so it is read now and each file's landing place checked.
//! A copy whose destination holds none of hookjudge's places costs one path comparison.

use std::path::{Path, PathBuf};

use super::places::Protected;

/// Programs that copy a directory tree into a destination, and their option letters (in a
/// bundle such as `-av`) or long options that make them copy trees.
const TREE_COPIERS: [(&str, &[char], &[&str]); 2] = [
    ("cp", &['r', 'R', 'a'], &["--recursive", "--archive"]),
    ("rsync", &['r', 'a'], &["--recursive", "--archive"]),
];

/// Files read from one source tree at most: a larger tree copied above hookjudge's places is
/// refused as unchecked rather than read for long on the hook's path.
const MAX_FILES: usize = 20_000;

/// What copying `words` (a `cp` or `rsync` command, run in `cwd`) would do against hookjudge:
/// the text for the self-protection reason, if a file of a source tree lands on a protected
/// place.
pub(super) fn tree_copy(
    protected: &Protected,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let program = words.first()?.rsplit('/').next()?;
    let (_, letters, long) = TREE_COPIERS.iter().find(|(p, _, _)| *p == program)?;
    let options = words[1..].iter().take_while(|w| **w != "--");
    let recursive = options.clone().any(|w| {
        long.contains(w)
            || (w.starts_with('-')
                && !w.starts_with("--")
                && w[1..].chars().any(|c| letters.contains(&c)))
    });
    let operands: Vec<&str> = words[1..]
        .iter()
        .filter(|w| !w.starts_with('-'))
        .copied()
        .collect();
    let (dest, sources) = operands.split_last()?;
    if !recursive || sources.is_empty() || dest.contains(':') {
        return None;
    }
    let dest = protected.word_path(dest, cwd);
    protected.holds_protected(&dest)?;
    for source in sources {
        let path = protected.word_path(source, cwd);
        if !path.is_dir() {
            continue; // a single file landing by name is read by the copier check
        }
        // `stage/.` (cp) and `stage/` (rsync) copy what the directory holds; `stage` copies
        // the directory itself, or its contents when the destination does not exist yet.
        let contents = matches!(*source, "." | "..")
            || source.ends_with("/.")
            || source.ends_with("/..")
            || (program == "rsync" && source.ends_with('/'));
        let mut bases = vec![];
        if contents || !dest.exists() {
            bases.push(dest.clone());
        }
        if !contents && let Some(name) = path.file_name() {
            bases.push(dest.join(name));
        }
        let mut files = vec![];
        if !walk(&path, &path, &mut files) {
            return Some(format!(
                "command copies a tree too large to check (`{source}`, over {MAX_FILES} files) into `{}`, which holds hookjudge's places",
                dest.display()
            ));
        }
        for relative in &files {
            for base in &bases {
                let landing = base.join(relative);
                if let Some(what) = protected.what(&landing) {
                    return Some(format!(
                        "command copies `{source}` so that `{}` lands on `{}`: it {what}",
                        relative.display(),
                        landing.display()
                    ));
                }
            }
        }
    }
    None
}

/// Every path under `dir` (files, links and directories), relative to `root`; `false` when
/// there are more than [`MAX_FILES`]. Links are listed, not followed: the copy writes the link.
fn walk(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if let Ok(relative) = path.strip_prefix(root) {
            found.push(relative.to_path_buf());
        }
        if found.len() > MAX_FILES {
            return false;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) && !walk(root, &path, found) {
            return false;
        }
    }
    true
}

/// Whether `command` may run a tree copier (checked before parsing, as the other hints are).
pub(super) fn may_copy_tree(command: &str) -> bool {
    command
        .split(|c: char| c.is_whitespace() || ";|&()`'\"".contains(c))
        .any(|w| {
            let program = w.rsplit('/').next().unwrap_or(w);
            TREE_COPIERS.iter().any(|(p, _, _)| *p == program)
        })
}
