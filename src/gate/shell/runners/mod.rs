//! The recipes task runners run, read like the scripts shells run: Makefile targets (with
//! their prerequisites and `$(MAKE)` recursion), package.json scripts (with their `pre`/`post`
//! scripts) for npm, pnpm, yarn and bun, `just` recipes and `task` (Taskfile) tasks; and the
//! hook files a test runner loads before any test (`conftest.py`, `sitecustomize.py`, plugins
//! named by `-p`) and the test modules it imports, which are Python: the programs they run
//! are read like the command line.
//!
//! Each runner gives back shell text with the directory it runs in; the text is parsed as a
//! script body one level deeper, so a recipe that runs another runner is followed until the
//! shell's depth bound, past which the line is asked about. A runner file that exists but
//! cannot be read is noted as incomplete (asked about); a missing one runs nothing.

mod just;
mod make;
mod package;
mod pytest;
mod taskfile;

use std::path::{Path, PathBuf};

use super::{Script, SimpleCommand, Word, code_calls};

/// Runner files larger than this are not read (the line is then asked about).
const MAX_RUNNER_FILE_BYTES: u64 = 256 * 1024;

/// How many targets, scripts or tasks one runner command may expand to.
const MAX_RECIPES: usize = 64;

/// A recipe's shell text and the directory it runs in.
pub(super) type Body = (String, Option<PathBuf>);

/// The recipes `cmd` runs, when its program is a task runner; what cannot be read is noted in
/// `script`.
pub(super) fn recipes(cmd: &SimpleCommand, script: &mut Script) -> Vec<Body> {
    let Some(program) = cmd.program() else {
        return Vec::new();
    };
    let args: Vec<Option<&str>> = cmd.argv[1..].iter().map(Word::literal).collect();
    let dir = cmd.cwd.as_deref();
    let found = match program {
        "make" | "gmake" => make::recipes(&args, dir),
        "npm" | "pnpm" | "yarn" | "bun" => package::scripts(program, &args, dir),
        "just" => just::recipes(&args, dir),
        "task" | "go-task" => taskfile::tasks(&args, dir),
        "pytest" | "py.test" => {
            let files = pytest::loaded_files(&args, dir);
            if let Some(why) = pytest::hooks_run_gated(&files) {
                script.unknowable.push(why);
            }
            for (file, code) in &files {
                if let Ok(code) = code {
                    let what = format!("pytest loads `{}`, which", file.display());
                    // A fixture's `git init`/`git commit` names the scratch repository it
                    // runs in (`cwd=tmp_path`): only calls in the project are judged.
                    let at = (cmd.cwd.clone(), cmd.depth);
                    code_calls::judge(code, code_calls::Lang::Python, &what, at, false, script);
                }
            }
            return Vec::new();
        }
        _ => return Vec::new(),
    };
    match found {
        Ok(bodies) => bodies,
        Err(why) => {
            script.incomplete.push(format!("`{program}` {why}"));
            Vec::new()
        }
    }
}

/// A runner file's text: `Ok(None)` when it does not exist, `Err` when it exists but cannot
/// be read (too large, not text).
fn read_file(path: &Path) -> Result<Option<String>, String> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.len() > MAX_RUNNER_FILE_BYTES {
        return Err(format!(
            "runs recipes from `{}`, larger than hookjudge reads",
            path.display()
        ));
    }
    std::fs::read_to_string(path).map(Some).map_err(|e| {
        format!(
            "runs recipes from `{}`, which cannot be read ({e})",
            path.display()
        )
    })
}

/// `dir` joined with `rel` (an absolute `rel` stands alone).
fn join(dir: Option<&Path>, rel: &str) -> PathBuf {
    match dir {
        Some(d) if !rel.starts_with('/') => d.join(rel),
        _ => PathBuf::from(rel),
    }
}

/// The first of `names` that exists in `dir`.
fn first_existing(dir: Option<&Path>, names: &[&str]) -> Option<PathBuf> {
    names.iter().map(|n| join(dir, n)).find(|p| p.is_file())
}

/// Recipe lines as one script, each line in its own subshell (a runner gives each line its
/// own shell: a `cd` in one does not reach the next).
fn as_script<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        out.push_str("(\n");
        out.push_str(line);
        out.push_str("\n)\n");
    }
    out
}

#[cfg(test)]
mod tests;
