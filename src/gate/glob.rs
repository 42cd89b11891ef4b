//! Artifact globs (`gate.artifacts`, `gate.add_artifacts`) as `globset` reads them: `*` and `?`
//! within one path segment, `**` across segments, `[…]` classes and `{a,b}` alternatives,
//! relative to the repository root with `/` as the separator.
//!
//! Finding artifacts walks only from a glob's literal prefix (`target/nextest` for
//! `target/nextest/*/junit.xml`), only as deep as the glob reaches (any depth for `**`, up to a
//! bound), and reads a bounded number of entries, so a push to a large repository stays quick.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// Entries read at most while finding the files of one glob.
const MAX_ENTRIES: usize = 20_000;
/// How deep `**` reaches below a glob's literal prefix.
const MAX_DEPTH: usize = 16;

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(true).build()
}

/// A configured artifact glob that globset cannot read.
#[derive(Debug)]
pub struct NotAGlob {
    pub pattern: String,
    pub cause: globset::Error,
}

impl std::fmt::Display for NotAGlob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not a glob ({})",
            self.pattern,
            self.cause.kind()
        )
    }
}

impl std::error::Error for NotAGlob {}

/// Whether `pattern` is a glob; if not, why, in globset's words.
pub fn check(pattern: &str) -> Result<(), NotAGlob> {
    glob(pattern).map(|_| ()).map_err(|cause| NotAGlob {
        pattern: pattern.to_owned(),
        cause,
    })
}

/// Whether one path segment `name` matches the shell pattern `pattern` (`.gi?`, `*.pyc`).
pub fn matches(pattern: &str, name: &str) -> bool {
    glob(pattern).is_ok_and(|g| g.compile_matcher().is_match(name))
}

/// Whether `text` matches `pattern` as `find`'s tests read it: `-name` within one segment,
/// `-path` with `*` matching `/` too (`across`), `-iname`/`-ipath` ignoring case (`fold`).
pub fn find_matches(pattern: &str, text: &str, across: bool, fold: bool) -> bool {
    GlobBuilder::new(pattern)
        .literal_separator(!across)
        .case_insensitive(fold)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(text))
}

fn is_literal(segment: &str) -> bool {
    !segment.contains(['*', '?', '[', '{'])
}

/// The existing files under `root` that `pattern` matches.
pub fn find(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let Ok(matcher) = glob(pattern).map(|g| g.compile_matcher()) else {
        return Vec::new();
    };
    let segments: Vec<&str> = pattern.split('/').collect();
    let literal = segments.iter().take_while(|s| is_literal(s)).count();
    if literal == segments.len() {
        let path = root.join(pattern);
        return if path.exists() {
            vec![path]
        } else {
            Vec::new()
        };
    }
    let start = segments[..literal].join("/");
    let depth = if segments[literal..].contains(&"**") || pattern.contains("**") {
        MAX_DEPTH
    } else {
        segments.len() - literal
    };
    let mut found = Vec::new();
    let mut budget = MAX_ENTRIES;
    walk(
        root,
        &root.join(&start),
        depth,
        &matcher,
        &mut budget,
        &mut found,
    );
    found
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    matcher: &GlobMatcher,
    budget: &mut usize,
    found: &mut Vec<PathBuf>,
) {
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let path = entry.path();
        let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) else {
            continue;
        };
        if matcher.is_match(rel) {
            found.push(path.clone());
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && entry.file_name() != ".git" {
            walk(root, &path, depth - 1, matcher, budget, found);
        }
    }
}

thread_local! {
    /// The set for the last glob list: `covers` runs once per index entry with the same list.
    static COVERS: RefCell<Option<(Vec<String>, GlobSet)>> = const { RefCell::new(None) };
}

/// Whether a repository-relative path is an artifact, inside an artifact's folder, or the
/// folder right above one (`coverage` for `coverage/lcov.info`). Globs that do not parse are
/// skipped here; the config check reports them.
pub fn covers(rel_path: &str, globs: &[String]) -> bool {
    COVERS.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.as_ref().is_none_or(|(g, _)| g.as_slice() != globs) {
            let mut set = GlobSetBuilder::new();
            for pattern in globs {
                let mut variants = vec![pattern.clone(), format!("{pattern}/**")];
                if let Some((parent, _)) = pattern.rsplit_once('/')
                    && !parent.contains("**")
                {
                    variants.push(parent.to_owned());
                }
                for v in variants {
                    if let Ok(g) = glob(&v) {
                        set.add(g);
                    }
                }
            }
            let set = set.build().unwrap_or_else(|_| GlobSet::empty());
            *cell = Some((globs.to_vec(), set));
        }
        cell.as_ref().expect("just set").1.is_match(rel_path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn double_star_question_mark_and_classes_match() {
        let g = globs(&["**/junit.xml", "reports/test-?.xml", "out/[ab]/*.log"]);
        assert!(covers("junit.xml", &g));
        assert!(covers("services/api/target/junit.xml", &g));
        assert!(covers("reports/test-1.xml", &g));
        assert!(!covers("reports/test-12.xml", &g));
        assert!(covers("out/a/x.log", &g));
        assert!(!covers("out/c/x.log", &g));
        assert!(!covers("src/main.rs", &g));
    }

    #[test]
    fn star_stays_within_a_segment_and_folders_count() {
        let g = globs(&[
            "target/nextest/*/junit.xml",
            ".pytest_cache/v/cache/nodeids",
        ]);
        assert!(covers("target/nextest/ci/junit.xml", &g));
        assert!(
            !covers("target/nextest/a/b/junit.xml", &g),
            "`*` is one segment"
        );
        assert!(covers(".pytest_cache/v/cache/nodeids", &g));
        assert!(covers("target/nextest/ci/junit.xml/inner", &g));
        assert!(!covers("target", &g), "a bare build dir is not an artifact");
    }

    #[test]
    fn find_walks_only_as_deep_as_the_glob() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a/junit.xml", "a/b/c/junit.xml", "junit.xml", "x/y.xml"] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let mut all = find(dir.path(), "**/junit.xml");
        all.sort();
        assert_eq!(all.len(), 3, "{all:?}");
        assert_eq!(
            find(dir.path(), "*/junit.xml"),
            [dir.path().join("a/junit.xml")]
        );
        assert_eq!(find(dir.path(), "x/y.xml"), [dir.path().join("x/y.xml")]);
        assert!(find(dir.path(), "x/[").is_empty());
        assert!(check("x/[").is_err() && check("**/a?[bc]").is_ok());
    }
}
