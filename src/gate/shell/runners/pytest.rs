//! The code pytest loads before any test: `conftest.py` files (in the directory, its `tests`
//! and `test` folders, and the folders of the paths it is given), `sitecustomize.py` and
//! `usercustomize.py` there, and the plugins `-p NAME` names on the command line or in the
//! `addopts` of its configuration. That code is Python: it is only checked for a gated action
//! (a gated program with a gated verb, in code that runs programs).
//!
//! The test modules it collects run at import too: the files named on the command line and
//! the `test_*.py`/`*_test.py` files under the folders it searches (a bounded walk). The
//! programs all these files run are read like the command line.
//!
//! Which session wrote the file is not known here: a committed `conftest.py` that pushes is
//! asked about like one written a moment ago.

use std::path::{Path, PathBuf};

use super::{join, read_file};
use crate::gate::shell::bodies::code_runs_gated;

/// Configuration files whose `addopts` may load plugins.
const CONFIGS: [&str; 4] = ["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];

/// How many test modules one run is read for.
const MAX_TEST_FILES: usize = 200;

/// Folders a test walk does not enter.
const SKIPPED_DIRS: [&str; 8] = [
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    "site-packages",
];

/// The hook files and test modules a run loads, with their code (`Err` for one that cannot be
/// read).
pub(super) fn loaded_files(
    args: &[Option<&str>],
    cwd: Option<&Path>,
) -> Vec<(PathBuf, Result<String, String>)> {
    let Some(dir) = cwd else {
        return Vec::new();
    };
    let mut named: Vec<PathBuf> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut folders: Vec<PathBuf> = vec![dir.to_path_buf(), dir.join("tests"), dir.join("test")];
    let mut plugins: Vec<String> = Vec::new();
    let mut words = args.iter().flatten();
    while let Some(w) = words.next() {
        if *w == "-p" {
            plugins.extend(words.next().map(|p| (*p).to_owned()));
        } else if let Some(p) = w.strip_prefix("-p").filter(|p| !p.is_empty()) {
            plugins.push(p.to_owned());
        } else if !w.starts_with('-') {
            let path = join(Some(dir), w.split("::").next().unwrap_or(w));
            named.push(path.clone());
            let folder = if path.is_dir() {
                Some(path)
            } else {
                path.parent().map(Path::to_path_buf)
            };
            folders.extend(folder);
        }
    }
    for config in CONFIGS {
        if let Ok(Some(text)) = read_file(&dir.join(config)) {
            for line in text.lines().filter(|l| l.contains("addopts")) {
                let mut tokens = line
                    .split(|c: char| {
                        c.is_whitespace() || matches!(c, '"' | '\'' | ',' | '[' | ']' | '=')
                    })
                    .filter(|t| !t.is_empty());
                while let Some(t) = tokens.next() {
                    if t == "-p" {
                        plugins.extend(tokens.next().map(str::to_owned));
                    }
                }
            }
        }
    }
    for folder in &folders {
        files.push(folder.join("conftest.py"));
    }
    files.push(dir.join("sitecustomize.py"));
    files.push(dir.join("usercustomize.py"));
    for plugin in plugins.iter().filter(|p| !p.starts_with("no:")) {
        files.push(dir.join(format!("{}.py", plugin.replace('.', "/"))));
    }
    let roots: Vec<PathBuf> = if named.is_empty() {
        vec![dir.to_path_buf()]
    } else {
        named
    };
    test_modules(&roots, &mut files);
    files.dedup();
    files
        .into_iter()
        .filter_map(|file| match read_file(&file) {
            Ok(Some(code)) => Some((file, Ok(code))),
            Ok(None) => None,
            Err(why) => Some((file, Err(format!("pytest {why}")))),
        })
        .collect()
}

/// The test modules under `roots` (a file stands for itself), a bounded walk.
fn test_modules(roots: &[PathBuf], files: &mut Vec<PathBuf>) {
    let mut pending: Vec<(PathBuf, usize)> = roots.iter().map(|r| (r.clone(), 0)).collect();
    let mut found = 0;
    while let Some((path, depth)) = pending.pop() {
        if found >= MAX_TEST_FILES {
            return;
        }
        if path.is_file() {
            if path.extension().is_some_and(|e| e == "py") {
                files.push(path);
                found += 1;
            }
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten().take(1000) {
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir
                && depth < 6
                && !SKIPPED_DIRS.contains(&name.as_str())
                && !name.starts_with('.')
            {
                pending.push((p, depth + 1));
            } else if !is_dir
                && name.ends_with(".py")
                && (name.starts_with("test_") || name.ends_with("_test.py"))
            {
                files.push(p);
                found += 1;
            }
        }
    }
}

/// Why the run executes a gated action, if a file it loads holds one.
pub(super) fn hooks_run_gated(files: &[(PathBuf, Result<String, String>)]) -> Option<String> {
    files.iter().find_map(|(file, code)| match code {
        Ok(code) if code_runs_gated(code) => Some(format!(
            "pytest loads `{}`, code that runs a gated command",
            file.display()
        )),
        Ok(_) => None,
        Err(why) => Some(why.clone()),
    })
}
