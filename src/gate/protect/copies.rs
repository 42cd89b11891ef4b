//! Tree copies into a directory above hookjudge's places: `cp -r stage/. ~/.local/state/`
//! writes `~/.local/state/hookjudge/trust.json` though no word of the line names it. The
//! source tree was written earlier, so it is read now and each file's landing place checked.
//! A copy whose destination holds none of hookjudge's places costs one path comparison.
//! `tar -x` into such a directory is read the same way, by the archive's members; an archive
//! read from the input (`tar -cf - … | tar -C ~/.local/state -xf -`) cannot be read beforehand,
//! so extracting one there is refused.

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

/// What copying `words` (a `cp` or `rsync` command, `program`, run in `cwd`) would do against
/// hookjudge: the text for the self-protection reason, if a file of a source tree lands on a
/// protected place.
pub(super) fn tree_copy(
    protected: &Protected,
    program: &str,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let (_, letters, long) = TREE_COPIERS.iter().find(|(p, _, _)| *p == program)?;
    let options = words[1..].iter().take_while(|w| **w != "--");
    let recursive = options.clone().any(|w| {
        long.contains(w)
            || (w.starts_with('-')
                && !w.starts_with("--")
                && w[1..].chars().any(|c| letters.contains(&c)))
    });
    if !recursive {
        return None;
    }
    let (mut operands, target) = operands_of(&words[1..], program);
    // `cp -t DIR SRC…` names its destination first; `cp -T SRC DEST` copies SRC's contents.
    let no_target_dir = program == "cp"
        && words[1..].iter().take_while(|w| **w != "--").any(|w| {
            *w == "--no-target-directory"
                || (w.starts_with('-') && !w.starts_with("--") && w.contains('T'))
        });
    let dest = match target {
        Some(dir) => dir,
        None => operands.pop()?,
    };
    let sources = operands;
    if sources.is_empty() || dest.contains(':') {
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
        let contents = no_target_dir
            || matches!(source, "." | "..")
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
            if !protected.holds_own(&dest) {
                continue; // above an agent's settings only: the copier check reads names
            }
            return Some(format!(
                "command copies a tree too large to check (`{source}`, over {MAX_FILES} files) into `{}`, which holds hookjudge's places",
                dest.display()
            ));
        }
        for relative in &files {
            for base in &bases {
                let landing = base.join(relative);
                if let Some(what) = lands_on(protected, &landing) {
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

/// tar's options that take the next word as their value (in a bundle such as `-xzf A`, the
/// letters that take values take the next words in order).
const TAR_VALUED: [char; 7] = ['f', 'C', 'T', 'X', 'b', 'H', 'K'];

/// How a tar extraction names what it writes, beside its archive and directory.
#[derive(Default)]
struct Naming {
    /// `--strip-components=N`: the first N components of each member are dropped.
    strip: usize,
    /// `-P`/`--absolute-names`: members keep a leading `/` and land there.
    absolute: bool,
    /// `--transform`/`--xform`, bsdtar's `-s`: names rewritten by an expression, not followed
    /// here, so the members' landing places are unknown.
    rewritten: bool,
}

/// What extracting a tar archive (`words`, run in `cwd`; `program` is `tar`, `gtar` or
/// `bsdtar`) would do against hookjudge, if its destination holds hookjudge's places: a member
/// landing on one, or an archive that cannot be read first (from the input, or unreadable
/// here).
pub(super) fn tar_extract(
    protected: &Protected,
    program: &str,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let (mut extract, mut archive, mut directory) = (false, None::<&str>, None::<&str>);
    let mut naming = Naming::default();
    // bsdtar's `-s PATTERN` rewrites names; GNU tar's `-s` is `--same-order`.
    let valued: &[char] = if program == "bsdtar" {
        &['f', 'C', 'T', 'X', 'b', 'H', 'K', 's']
    } else {
        &TAR_VALUED
    };
    let mut pending: Vec<char> = vec![];
    for (i, word) in words.iter().enumerate().skip(1) {
        if let Some(letter) = pending.pop() {
            match letter {
                'f' => archive = Some(word),
                'C' => directory = Some(word),
                's' => naming.rewritten = true,
                'N' => naming.strip = word.parse().unwrap_or(usize::MAX),
                _ => {}
            }
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            let slot = match name {
                "extract" | "get" => {
                    extract = true;
                    continue;
                }
                "absolute-names" => {
                    naming.absolute = true;
                    continue;
                }
                "transform" | "xform" => {
                    naming.rewritten = true;
                    if value.is_none() {
                        pending.push('s');
                    }
                    continue;
                }
                "file" => 'f',
                "directory" => 'C',
                "strip-components" | "strip" => 'N',
                _ => continue,
            };
            match (slot, value) {
                ('f', Some(v)) => archive = Some(v),
                ('C', Some(v)) => directory = Some(v),
                ('N', Some(v)) => naming.strip = v.parse().unwrap_or(usize::MAX),
                (letter, _) => pending.push(letter),
            }
            continue;
        }
        // `-xzf A`, and the old form `tar xzf A` where the first word is the bundle.
        let bundle = match word.strip_prefix('-') {
            Some(b) => b,
            None if i == 1 && word.chars().all(|c| c.is_ascii_alphabetic()) => word,
            None => continue,
        };
        for (at, letter) in bundle.char_indices() {
            match letter {
                'x' => extract = true,
                'P' => naming.absolute = true,
                _ => {}
            }
            if valued.contains(&letter) {
                let rest = &bundle[at + 1..];
                if word.starts_with('-') && !rest.is_empty() {
                    // `-fA`, `-C/dir`: the value is the rest of the word.
                    match letter {
                        'f' => archive = Some(rest),
                        'C' => directory = Some(rest),
                        's' => naming.rewritten = true,
                        _ => {}
                    }
                    break;
                }
                pending.insert(0, letter);
            }
        }
    }
    if !extract {
        return None;
    }
    let members = || {
        archive
            .filter(|a| *a != "-")
            .and_then(|a| crate::gate::tar_members::members(&protected.word_path(a, cwd)))
    };
    extracted(protected, archive, directory, &naming, members, cwd)
}

/// What `unzip` (`words`, run in `cwd`) would do against hookjudge: as for `tar -x`, with the
/// archive's members read from its central directory. unzip drops a leading `/` and `../`
/// from member names unless `-:` is given.
pub(super) fn unzip(protected: &Protected, words: &[&str], cwd: Option<&Path>) -> Option<String> {
    let (mut archive, mut directory, mut listing) = (None::<&str>, None::<&str>, false);
    let (mut naming, mut excluding) = (Naming::default(), false);
    let mut args = words[1..].iter();
    while let Some(word) = args.next() {
        match *word {
            "-d" => directory = args.next().copied(),
            "-x" => excluding = true, // the names that follow are left out
            "-:" => naming.absolute = true,
            w if w.starts_with("-d") => directory = Some(&w[2..]),
            w if w.starts_with('-') => {
                listing |= w[1..]
                    .chars()
                    .any(|c| matches!(c, 'l' | 'v' | 't' | 'Z' | 'p'));
            }
            w if archive.is_none() && !excluding => archive = Some(w),
            _ => {} // a member to extract: all are checked
        }
    }
    if listing {
        return None;
    }
    let archive_path = archive.map(|a| protected.word_path(a, cwd));
    let members = || {
        archive_path.as_deref().and_then(|a| {
            crate::gate::tar_members::zip_members(a)
                .or_else(|| crate::gate::tar_members::zip_members(&a.with_extension("zip")))
        })
    };
    extracted(protected, archive, directory, &naming, members, cwd)
}

/// The judgment shared by `tar -x` and `unzip`: each member's landing place under the
/// destination (or at its own absolute path), or, for an archive that cannot be read or whose
/// names are rewritten, a refusal when the destination is above hookjudge's own places.
fn extracted(
    protected: &Protected,
    archive: Option<&str>,
    directory: Option<&str>,
    naming: &Naming,
    members: impl FnOnce() -> Option<Vec<String>>,
    cwd: Option<&Path>,
) -> Option<String> {
    let dest = directory.map_or_else(
        || cwd.map(Path::to_path_buf).unwrap_or_default(),
        |d| protected.word_path(d, cwd),
    );
    // With absolute names any place may be written, wherever the destination is.
    let above = protected.what(&dest).is_some() || protected.holds_protected(&dest).is_some();
    if !above && !naming.absolute {
        return None;
    }
    let members = if naming.rewritten { None } else { members() };
    let Some(members) = members else {
        // Above an agent's settings only (a project's root): extracting there is everyday
        // work, and the settings' own checks stand; above hookjudge's own places it is not.
        if !naming.absolute && protected.what(&dest).is_none() && !protected.holds_own(&dest) {
            return None;
        }
        let why = if naming.rewritten {
            "with its member names rewritten".to_string()
        } else {
            format!(
                "that cannot be read beforehand ({})",
                archive.filter(|a| *a != "-").map_or_else(
                    || "it comes from the command's input".to_string(),
                    |a| format!("`{a}`")
                )
            )
        };
        let into = if naming.absolute {
            "keeping absolute names".to_string()
        } else {
            format!("into `{}`, which holds hookjudge's places", dest.display())
        };
        return Some(format!("command extracts an archive {why} {into}"));
    };
    members.iter().find_map(|member| {
        let name: Vec<&str> = member
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .skip(naming.strip)
            .collect();
        if name.is_empty() {
            return None;
        }
        let landing = if naming.absolute && member.starts_with('/') {
            Path::new("/").join(name.join("/"))
        } else {
            dest.join(name.join("/"))
        };
        lands_on(protected, &landing).map(|what| {
            format!(
                "command extracts `{member}` onto `{}`: it {what}",
                landing.display()
            )
        })
    })
}

/// What a symbolic link `words` (an `ln -s` command, run in `cwd`) would do against hookjudge:
/// a link to a protected place, or to a directory holding one (`ln -s .claude cc`), lets a
/// later write in the same line (`> cc/settings.local.json`) reach it under a name no check
/// knows, since the link does not exist yet when the line is read.
pub(super) fn link_to_protected(
    protected: &Protected,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let options = words[1..].iter().take_while(|w| **w != "--");
    let symbolic = options.clone().any(|w| {
        *w == "--symbolic" || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
    });
    if !symbolic {
        return None;
    }
    let (operands, target_dir) = operands_of(&words[1..], "ln");
    let here = cwd.map(Path::to_path_buf).unwrap_or_default();
    // Where the link is made: a relative target is read from there, as the link will be.
    let (targets, link_dir) = match (operands.as_slice(), target_dir) {
        (all, Some(dir)) => (all, protected.word_path(dir, cwd)),
        ([one], None) => (std::slice::from_ref(one), here),
        ([targets @ .., last], None) => {
            let last = protected.word_path(last, cwd);
            let dir = if targets.len() > 1 || last.is_dir() {
                last
            } else {
                last.parent().map_or(here, Path::to_path_buf)
            };
            (targets, dir)
        }
        ([], None) => return None,
    };
    targets.iter().find_map(|target| {
        let path = if target.starts_with('/') || target.starts_with('~') || target.starts_with('$')
        {
            protected.word_path(target, cwd)
        } else {
            link_dir.join(target)
        };
        let concerned = protected.what(&path).is_some()
            || protected.holds_own(&path)
            || protected.is_settings_folder(&path);
        concerned.then(|| {
            format!(
                "command links to `{}`, which is or holds hookjudge's or an agent's hook settings: what is written through the link cannot be checked",
                path.display()
            )
        })
    })
}

/// What a file landing on `path` does against hookjudge: a protected place, or git's
/// configuration.
fn lands_on(protected: &Protected, path: &Path) -> Option<String> {
    protected.what(path).map(str::to_owned).or_else(|| {
        super::git_config::is_git_config(protected, path).then(|| super::git_config::what(path))
    })
}

/// Options of the copiers and `ln` that take the next word as their value, when written apart
/// (`--exclude .git`, `-e ssh`, `-t DIR`): that word is no source or destination.
const VALUED: [(&str, &[&str]); 3] = [
    ("cp", &["-t", "--target-directory", "-S", "--suffix"]),
    (
        "rsync",
        &[
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--filter",
            "-f",
            "-e",
            "--rsh",
            "--rsync-path",
            "--files-from",
            "--log-file",
            "--partial-dir",
            "--temp-dir",
            "-T",
            "--backup-dir",
            "--suffix",
            "--chmod",
            "--chown",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
            "--password-file",
            "--timeout",
            "--max-size",
            "--min-size",
            "--bwlimit",
            "--port",
        ],
    ),
    ("ln", &["-t", "--target-directory", "-S", "--suffix"]),
];

/// The operands of `args` (a copier's or `ln`'s arguments), and the directory `-t DIR` or
/// `--target-directory=DIR` names, if any.
fn operands_of<'a>(args: &[&'a str], program: &str) -> (Vec<&'a str>, Option<&'a str>) {
    let valued = VALUED
        .iter()
        .find(|(p, _)| *p == program)
        .map_or(&[][..], |(_, v)| *v);
    let (mut operands, mut target) = (vec![], None);
    let mut words = args.iter();
    let mut options_done = false;
    while let Some(word) = words.next() {
        if options_done || !word.starts_with('-') || *word == "-" {
            operands.push(*word);
        } else if *word == "--" {
            options_done = true;
        } else if let Some(dir) = word.strip_prefix("--target-directory=") {
            target = Some(dir);
        } else if valued.contains(word) {
            let value = words.next();
            if program != "rsync" && matches!(*word, "-t" | "--target-directory") {
                target = value.copied();
            }
        }
    }
    (operands, target)
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
            matches!(program, "tar" | "gtar" | "bsdtar" | "unzip" | "ln")
                || TREE_COPIERS.iter().any(|(p, _, _)| *p == program)
        })
}
