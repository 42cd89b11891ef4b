//! Symbolic links in what a delete names: `rm -rf link/` and `rm -rf link/sub` delete inside
//! the link's target, so the target is what the delete's facts must weigh. Links that exist
//! are read from the file system; links made earlier on the same line (`ln -s REPO/src /tmp/l
//! && rm -rf /tmp/l/`) from the line.

use std::path::{Path, PathBuf};

use super::shell::{SimpleCommand, Word};
use crate::support::paths::normalize;

/// Programs whose operands are deleted or truncated, read through links.
const DELETERS: [&str; 5] = ["rm", "unlink", "shred", "truncate", "find"];

/// The link `ln -s TARGET LINK` makes: `(LINK, TARGET)`, absolute; the target is read from the
/// link's directory, as the file system reads it.
pub fn made_by(cmd: &SimpleCommand) -> Option<(PathBuf, PathBuf)> {
    if cmd.program()? != "ln" {
        return None;
    }
    let cwd = cmd.cwd.as_deref()?;
    let words: Vec<&str> = cmd.argv[1..]
        .iter()
        .map(Word::literal)
        .collect::<Option<_>>()?;
    let symbolic = words.iter().any(|w| {
        *w == "--symbolic" || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
    });
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let [target, link] = operands[..] else {
        return None;
    };
    let link = normalize(&cwd.join(link.trim_end_matches('/')));
    let base = if symbolic {
        link.parent().unwrap_or(Path::new("/")).to_path_buf()
    } else {
        cwd.to_path_buf()
    };
    Some((link, normalize(&base.join(target))))
}

/// `cmd` with the paths its operands reach through links added as operands (its own words
/// kept, so nothing it named before is lost), or `None` when no operand passes through a link.
pub fn through_links(
    cmd: &SimpleCommand,
    line_links: &[(PathBuf, PathBuf)],
) -> Option<SimpleCommand> {
    if !DELETERS.contains(&cmd.program()?) {
        return None;
    }
    let cwd = cmd.cwd.as_deref()?;
    let added: Vec<Word> = cmd.argv[1..]
        .iter()
        .filter_map(Word::literal)
        .filter(|w| !w.starts_with('-'))
        .filter_map(|w| resolved(w, cwd, line_links))
        .map(|p| Word::Literal(p.to_string_lossy().into_owned()))
        .collect();
    if added.is_empty() {
        return None;
    }
    let mut out = cmd.clone();
    out.argv.extend(added);
    Some(out)
}

/// Where `word` leads when a link is on its way: through every directory on it, and through
/// its last part too when it ends in `/` (`rm -rf link/` empties the target).
fn resolved(word: &str, cwd: &Path, line_links: &[(PathBuf, PathBuf)]) -> Option<PathBuf> {
    let through_last = word.ends_with('/') && word.len() > 1;
    let path = normalize(&cwd.join(word));
    for (link, target) in line_links.iter().rev() {
        if path == *link && through_last {
            return Some(target.clone());
        }
        if let Ok(rest) = path.strip_prefix(link)
            && !rest.as_os_str().is_empty()
        {
            return Some(target.join(rest));
        }
    }
    let real = if through_last {
        std::fs::canonicalize(&path).ok()?
    } else {
        let parent = path.parent()?;
        std::fs::canonicalize(parent).ok()?.join(path.file_name()?)
    };
    (real != path).then_some(real)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;

    fn added(line: &str, dir: &Path) -> Vec<String> {
        let script = shell::parse(line, dir);
        let mut links = Vec::new();
        let mut out = Vec::new();
        for cmd in &script.commands {
            if let Some(c) = through_links(cmd, &links) {
                out.extend(c.argv[cmd.argv.len()..].iter().map(|w| w.text().to_owned()));
            }
            links.extend(made_by(cmd));
        }
        out
    }

    #[test]
    fn a_delete_through_a_link_names_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(real.join("repo/src")).unwrap();
        std::os::unix::fs::symlink(real.join("repo/src"), real.join("old")).unwrap();
        let src = real.join("repo/src").to_string_lossy().into_owned();
        // Made earlier on the line.
        let line = format!("ln -sfn {src} new && rm -rf new/");
        assert_eq!(added(&line, &real), [src.as_str()]);
        assert_eq!(
            added(&format!("ln -s {src} new; rm -r new/a.py"), &real),
            [format!("{src}/a.py")]
        );
        // Already there.
        assert_eq!(added("rm -rf old/", &real), [src.as_str()]);
        assert_eq!(added("rm -f old/a.py", &real), [format!("{src}/a.py")]);
    }

    #[test]
    fn removing_the_link_itself_or_plain_paths_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(real.join("repo/src")).unwrap();
        std::os::unix::fs::symlink(real.join("repo/src"), real.join("old")).unwrap();
        for line in [
            "rm old",
            "rm -rf old",
            "rm -rf repo/src/",
            "ls old/",
            "ln -s repo/src x && rm x",
        ] {
            assert_eq!(added(line, &real), Vec::<String>::new(), "{line}");
        }
    }
}
