//! Reading a command line the way a shell would, to find the simple commands it will run.
//!
//! The parse uses tree-sitter's bash grammar (an error-tolerant, iterative parser: no input can
//! overflow its stack). The walk is iterative too. It tracks what decides which repository a
//! command touches and what it runs: `cd`/`pushd`/`popd` in the same shell scope (subshells,
//! pipelines and substitutions get their own scope), `VAR=value` prefixes and `export`s,
//! variables, arrays and `set --` assigned earlier in the line (so `c=push; git $c` reads as
//! `git push`), and wrapper programs (the table in `wrappers`). Bodies that are themselves
//! scripts (`bash -c '…'`, `eval …`, a shell fed by a heredoc, a here-string or `echo … |`,
//! `su -c`, `trap`, `find -exec`, a `!` git alias) are parsed again, a few levels deep. Data is
//! not execution: a quoted `"git push"` is an argument, not a command. What cannot be read
//! without running anything (a computed word, a shell fed by a program's output, inline code of
//! an interpreter) stays dynamic or is noted as incomplete, never guessed.
//!
//! The parts, in the order a line flows through them: `walk` visits the syntax tree in source
//! order, keeping each scope's directory and variables; `stdin` finds what a command reads on
//! its standard input; `words` turns word nodes into values; `expand` applies what a found
//! command does to the walk (`cd`, functions, aliases, `eval`, `trap`, `find -exec`, …);
//! `unwrap` removes wrapper programs; `bodies` reads the scripts shells and interpreters run;
//! `runners` reads the recipes task runners run (Makefile targets, package.json scripts,
//! `just` and `task` recipes) and the hook files a test runner loads; `computed` notes command
//! words the line only knows at run time (`read`, `printf -v`, `mapfile`) and the files it
//! writes before running them; `code_files` finds the files of code an interpreter runs and
//! `code_calls` reads the programs they call; `git_runs` reads what a git command runs besides
//! itself (`rebase --exec`, settings that name programs); `path_change` notes a `PATH` that puts
//! a look-alike program first.

mod bodies;
pub mod code_calls;
mod code_files;
mod computed;
mod expand;
mod git_runs;
mod path_change;
mod runners;
mod sed;
mod stdin;
mod unwrap;
mod walk;
mod words;

use std::path::{Path, PathBuf};

use tree_sitter::{Parser, Tree};

/// Longer command lines are not parsed (the gate then asks a human if they look gated).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// How deep `bash -c`/`eval`/heredoc bodies are followed.
pub const MAX_DEPTH: usize = 4;
/// Words longer than this are not unquoted.
const MAX_WORD_BYTES: usize = 4096;
/// Script files (`bash deploy.sh`) larger than this are not read.
const MAX_SCRIPT_FILE_BYTES: u64 = 64 * 1024;

/// A word of a command: its value when it is known without running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    Literal(String),
    /// Depends on an expansion or substitution; holds the source text.
    Dynamic(String),
}

impl Word {
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    /// The literal value, or the source text of a dynamic word.
    pub fn text(&self) -> &str {
        match self {
            Word::Literal(s) | Word::Dynamic(s) => s,
        }
    }
}

/// A simple command the shell would run, with the context that decides what it touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `VAR=value` assignments that apply to it (exports, prefixes and `env` arguments).
    pub env: Vec<(String, Word)>,
    /// The program and its arguments, wrappers removed.
    pub argv: Vec<Word>,
    /// Files its redirections write (`> f`, `>> f`, `&> f`).
    pub writes: Vec<Word>,
    /// Of [`writes`](Self::writes), the files opened for appending (`>> f`, `&>> f`): they
    /// are written to but not over.
    pub appends: Vec<Word>,
    /// The directory it runs in, when known (after `cd`s in the same scope).
    pub cwd: Option<PathBuf>,
    /// How many script bodies deep it was found (0 = the command line itself).
    pub depth: usize,
    /// Its source text.
    pub source: String,
    /// Of its words and redirection targets, those the line takes from a program's output
    /// (`$(…)`, or a variable assigned one): what they name is known only
    /// when the line runs. A new temporary file (`$(mktemp)`) does not count.
    pub from_output: Vec<String>,
    /// It runs only when an earlier command failed, or its failure is ignored (`a || b`,
    /// `b || true`): used by the evidence reader.
    pub status_ignored: bool,
}

impl SimpleCommand {
    /// The program's base name (`/usr/bin/git` → `git`), when it is literal.
    pub fn program(&self) -> Option<&str> {
        match self.argv.first()? {
            Word::Literal(name) => Some(name.rsplit('/').next().unwrap_or(name)),
            // `"$(git --exec-path)"/git-push`: the directory is computed, the name is not.
            Word::Dynamic(src) => {
                let (_, name) = src.rsplit_once('/')?;
                (!name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
                .then_some(name)
            }
        }
    }

    pub fn env_var(&self, name: &str) -> Option<&Word> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

/// Everything found in a command line.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub commands: Vec<SimpleCommand>,
    /// The parser had to recover from syntax errors somewhere.
    pub had_errors: bool,
    /// Something was not followed: input too long, nesting too deep, a dynamic script body,
    /// a shell or interpreter fed code that cannot be read.
    pub incomplete: Vec<String>,
    /// Program text the line computes or decodes and hands to a shell (`… | base64 -d | sh`):
    /// no word of the line says what it runs, so it is asked about whatever the line mentions.
    pub unknowable: Vec<String>,
    /// Functions defined so far (name, body): a body runs only where the function is called.
    functions: Vec<(String, String)>,
    /// Aliases defined so far (name, value): expanded where the name is the program.
    aliases: Vec<(String, String)>,
    /// Trap actions for user signals (`trap … USR2`): they run if the line sends the signal.
    signal_traps: Vec<String>,
    /// Variables the line fills from data at run time (`read`, `printf -v`, `mapfile`): a
    /// command word taken from one is computed.
    computed_vars: Vec<String>,
    /// Files earlier commands of the line write, with what they write when the line shows it
    /// (`echo 'git push' > x.sh`): a later `source x.sh` runs that, not what is on disk now.
    written: Vec<(PathBuf, Option<String>)>,
}

/// Parses `text`, run in `cwd`.
pub fn parse(text: &str, cwd: &Path) -> Script {
    let mut script = Script::default();
    parse_into(text, Scope::at(Some(cwd.to_path_buf())), 0, &mut script);
    script
}

/// Parses `text` as a script body found inside a command that runs in `cwd`.
pub fn parse_body(text: &str, cwd: Option<PathBuf>, depth: usize, script: &mut Script) {
    parse_into(text, Scope::at(cwd), depth, script);
}

/// A variable's value as far as the line shows it.
#[derive(Debug, Clone)]
enum Value {
    Scalar(String),
    Array(Vec<String>),
    /// Assigned something computed.
    Unknown,
}

/// What a shell scope knows.
#[derive(Debug, Clone, Default)]
struct Scope {
    cwd: Option<PathBuf>,
    /// `pushd` stack.
    dirs: Vec<Option<PathBuf>>,
    vars: Vec<(String, Value)>,
    exported: Vec<(String, Word)>,
    /// `set -- …`
    positional: Option<Vec<String>>,
    /// Variables assigned a command's output (`f=$(git ls-files -m)`).
    from_output: Vec<String>,
}

impl Scope {
    fn at(cwd: Option<PathBuf>) -> Scope {
        Scope {
            cwd,
            ..Scope::default()
        }
    }

    fn var(&self, name: &str) -> Option<&Value> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

fn parse_into(text: &str, scope: Scope, depth: usize, script: &mut Script) {
    if text.len() > MAX_INPUT_BYTES {
        script
            .incomplete
            .push(format!("command longer than {MAX_INPUT_BYTES} bytes"));
        return;
    }
    if depth > MAX_DEPTH {
        script
            .incomplete
            .push(format!("script bodies nested deeper than {MAX_DEPTH}"));
        return;
    }
    let joined;
    let text = if text.contains("\\\n") {
        joined = join_continued_lines(text);
        joined.as_str()
    } else {
        text
    };
    let Some(tree) = parse_tree(text) else {
        script.incomplete.push("the shell parser gave up".into());
        return;
    };
    if tree.root_node().has_error() {
        script.had_errors = true;
    }
    walk::walk(&tree, text, scope, depth, script);
}

/// Removes backslash-newline pairs outside single quotes, as the shell does before it splits
/// words (`git pu\<newline>sh` is `git push`).
fn join_continued_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut single = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => single = !single,
            '\\' if !single => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                    continue;
                }
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

fn parse_tree(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    parser.parse(text, None)
}

/// Helpers for the tests of the parts: what a line runs, as argument lists.
#[cfg(test)]
mod test_support {
    use std::path::Path;

    use super::{Word, parse};

    fn argvs(text: &str) -> Vec<String> {
        parse(text, Path::new("/w"))
            .commands
            .iter()
            .map(|c| c.argv.iter().map(Word::text).collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[track_caller]
    pub fn case(text: &str, expected: &[&str]) {
        assert_eq!(argvs(text), expected, "{text}");
    }
}
