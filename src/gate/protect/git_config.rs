//! Git's own configuration files, written other than through `git config`: a line such as
//! `printf '[core]\n\thooksPath = /dev/null\n' >> .git/config` switches off every git hook,
//! hookjudge's pre-push hook among them, for all later pushes, and `~/.gitconfig` does it for
//! every repository. `git config KEY VALUE` is read key by key by the gate's git rules; a
//! write of the file is not, since what it sets cannot be known from the line (`sed -i`, a copy,
//! a redirect). So only writes are refused here, never reads (`cat .git/config`,
//! `cp .git/config /tmp/backup`, `grep url .git/config` stay silent).

use std::path::{Path, PathBuf};

use super::places::{Protected, real_path};
use crate::support::paths::normalize;

/// The reason's text: what the write does, and what to do instead.
pub(super) fn what(path: &Path) -> String {
    format!(
        "writes git's configuration file `{}` directly, which can switch off git hooks (hookjudge's pre-push hook among them) unseen; set a key with `git config KEY VALUE` instead, which the gate reads",
        path.display()
    )
}

/// Whether `path` is a git configuration file git reads for every command in a repository: a
/// repository's (`.git/config`, `.git/config.worktree`, a submodule's or a worktree's under
/// `.git/`), or the user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, the file
/// `GIT_CONFIG_GLOBAL` names).
pub(super) fn is_git_config(protected: &Protected, path: &Path) -> bool {
    let path = normalize(path);
    let real = real_path(&path);
    [&path, &real]
        .into_iter()
        .any(|p| in_a_repository(p) || user_files(protected).iter().any(|f| f == p))
}

fn in_a_repository(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if !matches!(name, "config" | "config.worktree") {
        return false;
    }
    // `.git/config`, `.git/modules/sub/config`, `.git/worktrees/wt/config.worktree`: a
    // `config` anywhere below a `.git` directory that git reads as a repository's.
    let parent = path.parent();
    parent.is_some_and(|p| p.file_name().is_some_and(|n| n == ".git"))
        || path.components().any(|c| c.as_os_str() == ".git")
            && parent.is_some_and(|p| p.join("HEAD").is_file())
}

fn user_files(protected: &Protected) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = &protected.home {
        files.push(home.join(".gitconfig"));
        files.push(home.join(".config/git/config"));
    }
    for (var, below) in [("XDG_CONFIG_HOME", "git/config"), ("GIT_CONFIG_GLOBAL", "")] {
        if let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let base = PathBuf::from(value);
            files.push(normalize(&if below.is_empty() {
                base
            } else {
                base.join(below)
            }));
        }
    }
    files
}

/// What writing the word `target` (a redirect's target, a copy's destination) does, when it is
/// a git configuration file.
pub(super) fn written(protected: &Protected, target: &str, cwd: Option<&Path>) -> Option<String> {
    protected
        .expanded(target, cwd)
        .into_iter()
        .find(|path| is_git_config(protected, path))
        .map(|path| format!("command {}", what(&path)))
}

/// The files a command writes by naming them as arguments, beside its redirects: `tee FILE`,
/// `sed -i … FILE`, `perl -i -pe … FILE`, `dd of=FILE`, `truncate FILE`, and the destination of
/// `cp`/`mv`/`install`/`ln` (a file, or a directory the sources land in by their names). Reads
/// (`cat`, `grep`, `cp .git/config /tmp/x`) name files too and are not writes.
pub(super) fn command_writes(
    protected: &Protected,
    program: &str,
    words: &[&str],
    cwd: Option<&Path>,
) -> Option<String> {
    let args = &words[1..];
    let operands = || args.iter().copied().filter(|w| !w.starts_with('-'));
    // `-i`, `-i.bak`, `-Ei`, `-pi`, `--in-place=.bak`.
    let in_place = |w: &&str| {
        w.starts_with("--in-place")
            || (w.starts_with('-') && !w.starts_with("--") && w.contains('i'))
    };
    match program {
        "tee" | "truncate" => operands().find_map(|w| written(protected, w, cwd)),
        "sed" | "perl" if args.iter().any(in_place) => {
            operands().find_map(|w| written(protected, w, cwd))
        }
        // `git config -e`: the editor (`GIT_EDITOR`, `core.editor`) writes the file.
        "git" if args.iter().any(|w| matches!(*w, "-e" | "--edit"))
            && args
                .iter()
                .filter(|w| !w.starts_with('-'))
                .any(|w| *w == "config") =>
        {
            Some("command has an editor write git's configuration, which can switch off git hooks (hookjudge's pre-push hook among them) unseen; set a key with `git config KEY VALUE` instead, which the gate reads".into())
        }
        "dd" => args
            .iter()
            .find_map(|w| w.strip_prefix("of="))
            .and_then(|w| written(protected, w, cwd)),
        "cp" | "mv" | "install" | "ln" => {
            let operands: Vec<&str> = operands().collect();
            let [sources @ .., last] = operands.as_slice() else {
                return None;
            };
            if let Some(what) = written(protected, last, cwd) {
                return Some(what);
            }
            let dir = protected.word_path(last, cwd);
            if !dir.is_dir() {
                return None;
            }
            sources.iter().find_map(|source| {
                let landing = dir.join(Path::new(source).file_name()?);
                is_git_config(protected, &landing).then(|| format!("command {}", what(&landing)))
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(home: &Path) -> Protected {
        Protected {
            dirs: vec![],
            files: vec![],
            binary: None,
            home: Some(home.to_path_buf()),
        }
    }

    #[test]
    fn repository_and_user_config_files_are_known() {
        let tmp = tempfile::tempdir().unwrap();
        let (home, repo) = (tmp.path().join("home"), tmp.path().join("repo"));
        std::fs::create_dir_all(repo.join(".git/modules/sub")).unwrap();
        std::fs::write(repo.join(".git/modules/sub/HEAD"), "ref: refs/heads/main\n").unwrap();
        let p = protected(&home);
        for yes in [
            repo.join(".git/config"),
            repo.join(".git/config.worktree"),
            repo.join(".git/modules/sub/config"),
            home.join(".gitconfig"),
            home.join(".config/git/config"),
        ] {
            assert!(is_git_config(&p, &yes), "{}", yes.display());
        }
        for no in [
            repo.join("config"),
            repo.join("src/config"),
            repo.join(".git/hooks/config"),
            repo.join(".gitconfig"),
            home.join(".config/app/config"),
        ] {
            assert!(!is_git_config(&p, &no), "{}", no.display());
        }
    }

    #[test]
    fn lines_that_write_gits_configuration_pass_the_filter_before_the_parse() {
        let p = Protected {
            dirs: vec![PathBuf::from("/h/.local/state/hookjudge")],
            files: vec![],
            binary: Some(PathBuf::from("/usr/local/bin/hookjudge")),
            home: Some(PathBuf::from("/h")),
        };
        for line in [
            "chmod +x ed.sh && GIT_EDITOR=./ed.sh git config -e",
            "git config --global --edit",
            "printf x >> .git/config",
            "cat x > ~/.gitconfig",
            "cp x ~/.config/git/config",
        ] {
            assert!(p.may_concern(line), "{line}");
        }
        assert!(p.may_concern("cd .git && cat ../x >> config"));
        for line in [
            "cargo test --release",
            "git clone https://example.com/a/b.git /tmp/b",
            "echo node_modules >> .gitignore",
        ] {
            assert!(!p.may_concern(line), "{line}");
        }
    }

    #[test]
    fn writers_are_read_and_readers_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let p = protected(&repo.join("home"));
        let writes = |line: &str| {
            let words: Vec<&str> = line.split_whitespace().collect();
            command_writes(&p, words[0], &words, Some(repo))
        };
        for line in [
            "tee -a .git/config",
            "sed -i s/a/b/ .git/config",
            "perl -pi -e s/a/b/ .git/config",
            "dd of=.git/config",
            "cp evil.cfg .git/config",
            "mv /tmp/config .git",
            "cp -f x ~/.gitconfig",
            "install -m 644 cfg .git/config",
        ] {
            assert!(writes(line).is_some(), "{line}");
        }
        for line in [
            "cp .git/config /tmp/backup",
            "sed -n 1,5p .git/config",
            "tee out.log",
            "cp config.example config",
            "mv notes .git-notes",
        ] {
            assert_eq!(writes(line), None, "{line}");
        }
    }
}
