//! Paths as the gate and the config compare them: lexically normalised, with `~` expanded, and
//! the repository a directory belongs to.

use std::path::{Component, Path, PathBuf};

/// `a/./b/../c` → `a/c`, without touching the file system: how the gate compares the paths a
/// command names with the paths it protects, weighs or wrote. `..` above the start is dropped
/// (`/..` is `/`), as the kernel resolves it at the root.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `~` and `~/rest` under `home`; any other text as a path. `None` when the text starts with
/// `~` and there is no home to put in its place.
pub fn expand_home(text: &str, home: Option<&Path>) -> Option<PathBuf> {
    if text == "~" || text.starts_with("~/") {
        return home.map(|h| h.join(text.trim_start_matches('~').trim_start_matches('/')));
    }
    Some(PathBuf::from(text))
}

/// The root of the git work tree containing `dir` (normalised first, so `repo/sub/..` is
/// inside `repo`), found by looking for `.git` upwards.
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    normalize(dir)
        .ancestors()
        .find(|d| !d.as_os_str().is_empty() && d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_is_lexical() {
        let n = |p: &str| normalize(Path::new(p));
        assert_eq!(n("/a/./b/../c"), PathBuf::from("/a/c"));
        assert_eq!(n("/a/b/"), PathBuf::from("/a/b"));
        assert_eq!(n("/.."), PathBuf::from("/"));
        assert_eq!(n("a/.."), PathBuf::new());
        assert_eq!(n("../x"), PathBuf::from("x"));
    }

    #[test]
    fn home_is_expanded_only_at_the_start() {
        let home = Some(Path::new("/home/u"));
        assert_eq!(expand_home("~", home), Some(PathBuf::from("/home/u")));
        assert_eq!(
            expand_home("~/x/y", home),
            Some(PathBuf::from("/home/u/x/y"))
        );
        assert_eq!(expand_home("a/~/b", home), Some(PathBuf::from("a/~/b")));
        assert_eq!(
            expand_home("~other/x", home),
            Some(PathBuf::from("~other/x"))
        );
        assert_eq!(expand_home("~/x", None), None);
        assert_eq!(expand_home("/abs", None), Some(PathBuf::from("/abs")));
    }

    #[test]
    fn the_repository_root_is_found_through_dot_dot_and_from_deep_inside() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        assert_eq!(repo_root(&repo.join("src/deep")), Some(repo.clone()));
        assert_eq!(repo_root(&repo), Some(repo.clone()));
        // `repo/src/../..` is the parent of `repo`, which no `.git` covers, although the
        // ancestors of the literal path all lie inside `repo`.
        assert_eq!(repo_root(&repo.join("src/../..").join("outside")), None);
        assert_eq!(repo_root(&repo.join("src/..")), Some(repo));
    }
}
