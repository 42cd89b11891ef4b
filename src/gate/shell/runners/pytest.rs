//! The code pytest loads before any test: `conftest.py` files (in the directory, its `tests`
//! and `test` folders, and the folders of the paths it is given), `sitecustomize.py` and
//! `usercustomize.py` there, and the plugins `-p NAME` names on the command line or in the
//! `addopts` of its configuration. That code is Python: it is only checked for a gated action
//! (a gated program with a gated verb, in code that runs programs).
//!
//! Which session wrote the file is not known here: a committed `conftest.py` that pushes is
//! asked about like one written a moment ago.

use std::path::{Path, PathBuf};

use super::{join, read_file};
use crate::gate::shell::bodies::code_runs_gated;

/// Configuration files whose `addopts` may load plugins.
const CONFIGS: [&str; 4] = ["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];

/// Why the run executes a gated action, if a hook file it loads holds one.
pub(super) fn hooks_run_gated(args: &[Option<&str>], cwd: Option<&Path>) -> Option<String> {
    let dir = cwd?;
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
    files.dedup();
    files.iter().find_map(|file| match read_file(file) {
        Ok(Some(code)) if code_runs_gated(&code) => Some(format!(
            "pytest loads `{}`, code that runs a gated command",
            file.display()
        )),
        Ok(_) => None,
        Err(why) => Some(format!("pytest {why}")),
    })
}
