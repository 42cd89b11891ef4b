//! Reading a command line the way a shell would, to find the simple commands it will run.
//!
//! The parse uses tree-sitter's bash grammar (an error-tolerant, iterative parser: no input can
//! overflow its stack). The walk is iterative too. It tracks what decides which repository a
//! command touches: `cd` in the same shell scope (subshells, pipelines and substitutions get
//! their own scope), `VAR=value` prefixes, and wrapper programs (`env`, `sudo`, `timeout`,
//! `xargs`, …). Bodies that are themselves scripts (`bash -c '…'`, `eval …`, `bash <<EOF`) are
//! parsed again, a few levels deep. Data is not execution: a quoted `"git push"` is an argument,
//! not a command. Words whose value depends on expansions are kept as dynamic, not guessed.

use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser, Tree};

/// Longer command lines are not parsed (the gate then asks a human if they look gated).
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// How deep `bash -c`/`eval`/heredoc bodies are followed.
pub const MAX_DEPTH: usize = 4;
/// Words longer than this are not unquoted.
const MAX_WORD_BYTES: usize = 4096;

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
    /// `VAR=value` assignments that apply to it (prefixes and `env` arguments).
    pub env: Vec<(String, Word)>,
    /// The program and its arguments, wrappers removed.
    pub argv: Vec<Word>,
    /// The directory it runs in, when known (after `cd`s in the same scope).
    pub cwd: Option<PathBuf>,
    /// How many script bodies deep it was found (0 = the command line itself).
    pub depth: usize,
    /// Its source text.
    pub source: String,
}

impl SimpleCommand {
    /// The program's base name (`/usr/bin/git` → `git`), when it is literal.
    pub fn program(&self) -> Option<&str> {
        let name = self.argv.first()?.literal()?;
        Some(name.rsplit('/').next().unwrap_or(name))
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
    /// Something was not followed: input too long, nesting too deep, a dynamic script body.
    pub incomplete: Vec<String>,
}

/// Parses `text`, run in `cwd`.
pub fn parse(text: &str, cwd: &Path) -> Script {
    let mut script = Script::default();
    parse_into(text, Some(cwd.to_path_buf()), 0, &mut script);
    script
}

fn parse_into(text: &str, cwd: Option<PathBuf>, depth: usize, script: &mut Script) {
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
    let Some(tree) = parse_tree(text) else {
        script.incomplete.push("the shell parser gave up".into());
        return;
    };
    if tree.root_node().has_error() {
        script.had_errors = true;
    }
    walk(&tree, text, cwd, depth, script);
}

fn parse_tree(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    parser.parse(text, None)
}

/// Node kinds whose contents run in a scope of their own (a `cd` inside does not leak out).
const SCOPES: [&str; 4] = [
    "subshell",
    "command_substitution",
    "process_substitution",
    "pipeline",
];

fn walk(tree: &Tree, text: &str, cwd: Option<PathBuf>, depth: usize, script: &mut Script) {
    let mut scopes: Vec<Option<PathBuf>> = vec![cwd];
    // (node, scope index); children are pushed in reverse so that the walk is in source order.
    let mut stack: Vec<(Node, usize)> = vec![(tree.root_node(), 0)];
    while let Some((node, scope)) = stack.pop() {
        let mut child_scope = scope;
        if SCOPES.contains(&node.kind()) {
            scopes.push(scopes[scope].clone());
            child_scope = scopes.len() - 1;
        }
        match node.kind() {
            "command" => {
                let heredoc = heredoc_of(node, text);
                command(node, text, heredoc, &mut scopes[scope], depth, script);
                // Substitutions inside the words run too, in their own scopes.
                push_children(node, child_scope, &mut stack, |n| {
                    n.kind() != "command_name" || has_substitution(n)
                });
            }
            "heredoc_body" => {} // data, unless a shell reads it (handled at its command)
            _ => push_children(node, child_scope, &mut stack, |_| true),
        }
    }
}

fn push_children<'t>(
    node: Node<'t>,
    scope: usize,
    stack: &mut Vec<(Node<'t>, usize)>,
    keep: impl Fn(&Node) -> bool,
) {
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).filter(|c| keep(c)).collect();
    for child in children.into_iter().rev() {
        // A pipeline's parts run in subshells: give each its own scope via the pipeline's.
        stack.push((child, scope));
    }
}

fn has_substitution(node: &Node) -> bool {
    let mut stack = vec![*node];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "command_substitution" | "process_substitution") {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

/// The heredoc body fed to `node` when it is the body of a redirected statement.
fn heredoc_of(node: Node, text: &str) -> Option<String> {
    let parent = node.parent()?;
    if parent.kind() != "redirected_statement" {
        return None;
    }
    let mut cursor = parent.walk();
    let redirect = parent
        .children(&mut cursor)
        .find(|c| c.kind() == "heredoc_redirect")?;
    let mut cursor = redirect.walk();
    let body = redirect
        .children(&mut cursor)
        .find(|c| c.kind() == "heredoc_body")?;
    Some(text[body.byte_range()].to_owned())
}

fn command(
    node: Node,
    text: &str,
    heredoc: Option<String>,
    cwd: &mut Option<PathBuf>,
    depth: usize,
    script: &mut Script,
) {
    let mut env = Vec::new();
    let mut argv = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "variable_assignment" => {
                let name = child
                    .child_by_field_name("name")
                    .map(|n| text[n.byte_range()].to_owned())
                    .unwrap_or_default();
                let value = child
                    .child_by_field_name("value")
                    .map(|v| word(v, text))
                    .unwrap_or(Word::Literal(String::new()));
                env.push((name, value));
            }
            "command_name" => argv.push(
                child
                    .named_child(0)
                    .map(|w| word(w, text))
                    .unwrap_or(Word::Dynamic(String::new())),
            ),
            k if k.ends_with("redirect") || k == "file_redirect" || k == "herestring_redirect" => {}
            _ if child.is_named() && child.kind() != "comment" => argv.push(word(child, text)),
            _ => {}
        }
    }
    let source = text[node.byte_range()].to_owned();
    let found = SimpleCommand {
        env,
        argv,
        cwd: cwd.clone(),
        depth,
        source,
    };
    expand(found, heredoc, cwd, script);
}

/// Removes wrappers, applies `cd`, and follows script bodies.
fn expand(
    mut cmd: SimpleCommand,
    heredoc: Option<String>,
    cwd: &mut Option<PathBuf>,
    script: &mut Script,
) {
    unwrap_wrappers(&mut cmd);
    let program = cmd.program().map(str::to_owned);
    match program.as_deref() {
        Some("cd" | "pushd") => {
            *cwd = match (cmd.argv.get(1).and_then(Word::literal), cwd.as_ref()) {
                (Some("-"), _) | (None, _) => None,
                (Some(dir), _) if dir.starts_with('/') => Some(PathBuf::from(dir)),
                (Some(dir), _) if dir == "~" || dir.starts_with("~/") => std::env::var_os("HOME")
                    .map(|h| {
                        PathBuf::from(h).join(dir.trim_start_matches('~').trim_start_matches('/'))
                    }),
                (Some(dir), Some(base)) => Some(base.join(dir)),
                (Some(_), None) => None,
            };
            if cmd.argv.get(1).is_some_and(|w| w.literal().is_none()) {
                *cwd = None;
            }
        }
        Some(shell) if is_shell(shell) => {
            if let Some(body) = shell_c_body(&cmd) {
                match body {
                    Word::Literal(body) => {
                        parse_into(&body, cmd.cwd.clone(), cmd.depth + 1, script)
                    }
                    Word::Dynamic(src) => script
                        .incomplete
                        .push(format!("dynamic script body `{src}`")),
                }
            } else if let Some(body) = heredoc.filter(|_| {
                cmd.argv.len() == 1
                    || cmd.argv[1..]
                        .iter()
                        .all(|w| w.literal().is_some_and(|a| a.starts_with('-') && a != "-c"))
            }) {
                parse_into(&body, cmd.cwd.clone(), cmd.depth + 1, script);
            }
        }
        Some("eval") => {
            let parts: Vec<&Word> = cmd.argv[1..].iter().collect();
            if parts.iter().all(|w| w.literal().is_some()) {
                let body: Vec<&str> = parts.iter().filter_map(|w| w.literal()).collect();
                parse_into(&body.join(" "), cmd.cwd.clone(), cmd.depth + 1, script);
            } else {
                script
                    .incomplete
                    .push(format!("dynamic eval `{}`", cmd.source));
            }
        }
        _ => {}
    }
    script.commands.push(cmd);
}

fn is_shell(name: &str) -> bool {
    matches!(name, "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish")
}

/// The script of `bash -c SCRIPT` (also `-lc`, `-ec`, `-c` after other options).
fn shell_c_body(cmd: &SimpleCommand) -> Option<Word> {
    let mut args = cmd.argv.iter().skip(1);
    while let Some(arg) = args.next() {
        let a = arg.literal()?;
        if a == "--" || !a.starts_with('-') {
            return None;
        }
        if a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
            return args.next().cloned();
        }
        if matches!(a, "-o" | "+o" | "-O" | "+O") {
            args.next();
        }
    }
    None
}

/// Wrapper programs and how many arguments their options take.
fn wrapper_option_takes_value(wrapper: &str, option: &str) -> bool {
    match wrapper {
        "sudo" | "doas" => matches!(
            option,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U" | "-T"
        ),
        "env" => matches!(option, "-u" | "-C" | "--unset" | "--chdir"),
        "timeout" => matches!(option, "-s" | "-k" | "--signal" | "--kill-after"),
        "nice" => matches!(option, "-n" | "--adjustment"),
        "ionice" => matches!(option, "-c" | "-n" | "-p" | "-P" | "-u"),
        "stdbuf" => matches!(option, "-i" | "-o" | "-e"),
        "xargs" => matches!(
            option,
            "-I" | "-L"
                | "-n"
                | "-P"
                | "-d"
                | "-E"
                | "-s"
                | "-a"
                | "--max-args"
                | "--max-procs"
                | "--delimiter"
                | "--arg-file"
        ),
        "exec" => matches!(option, "-a"),
        "time" => matches!(option, "-f" | "-o" | "--format" | "--output"),
        "chronic" | "nohup" | "command" | "builtin" | "caffeinate" => false,
        _ => false,
    }
}

const WRAPPERS: [&str; 15] = [
    "sudo",
    "doas",
    "env",
    "command",
    "builtin",
    "nohup",
    "nice",
    "ionice",
    "time",
    "timeout",
    "exec",
    "stdbuf",
    "xargs",
    "chronic",
    "caffeinate",
];

fn unwrap_wrappers(cmd: &mut SimpleCommand) {
    for _ in 0..8 {
        let Some(wrapper) = cmd.program().map(str::to_owned) else {
            return;
        };
        if !WRAPPERS.contains(&wrapper.as_str()) {
            return;
        }
        let mut i = 1;
        let mut chdir: Option<String> = None;
        while let Some(word) = cmd.argv.get(i) {
            let Some(arg) = word.literal() else { break };
            if arg == "--" {
                i += 1;
                break;
            }
            if wrapper == "env" && !arg.starts_with('-') && arg.contains('=') {
                let (k, v) = arg.split_once('=').expect("contains =");
                cmd.env.push((k.to_owned(), Word::Literal(v.to_owned())));
                i += 1;
                continue;
            }
            if !arg.starts_with('-') || arg == "-" {
                break;
            }
            if wrapper == "env" && matches!(arg, "-C" | "--chdir") {
                chdir = cmd
                    .argv
                    .get(i + 1)
                    .and_then(Word::literal)
                    .map(str::to_owned);
            }
            if wrapper == "env" && matches!(arg, "-S" | "--split-string") {
                // `env -S 'git push'`: the string is split into the command.
                if let Some(Word::Literal(s)) = cmd.argv.get(i + 1).cloned() {
                    let words: Vec<Word> = shell_words::split(&s)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Word::Literal)
                        .collect();
                    cmd.argv.splice(i..i + 2, words);
                    continue;
                }
            }
            i += if wrapper_option_takes_value(&wrapper, arg) {
                2
            } else {
                1
            };
        }
        // `timeout DURATION cmd` and `nice`'s old `-N` form take a positional first.
        if wrapper == "timeout"
            && cmd
                .argv
                .get(i)
                .and_then(Word::literal)
                .is_some_and(|d| d.chars().next().is_some_and(|c| c.is_ascii_digit()))
        {
            i += 1;
        }
        if i >= cmd.argv.len() {
            return;
        }
        cmd.argv.drain(..i);
        // `sudo VAR=1 cmd` and friends: assignments after a wrapper still reach the command.
        while let Some((k, v)) = cmd
            .argv
            .first()
            .and_then(Word::literal)
            .and_then(assignment)
        {
            cmd.env.push((k, Word::Literal(v)));
            cmd.argv.remove(0);
        }
        if let Some(dir) = chdir {
            cmd.cwd = cmd
                .cwd
                .take()
                .map(|c| c.join(&dir))
                .or(Some(PathBuf::from(dir)));
        }
    }
}

/// `NAME=value` with a valid variable name.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// A word's value, when it has no expansions.
fn word(node: Node, text: &str) -> Word {
    let source = &text[node.byte_range()];
    if source.len() > MAX_WORD_BYTES || has_expansion(node) {
        return Word::Dynamic(source.to_owned());
    }
    match shell_words::split(source) {
        Ok(parts) if parts.len() == 1 => Word::Literal(parts.into_iter().next().expect("one part")),
        Ok(parts) if parts.is_empty() => Word::Literal(String::new()),
        _ => Word::Dynamic(source.to_owned()),
    }
}

fn has_expansion(node: Node) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "simple_expansion"
                | "expansion"
                | "command_substitution"
                | "process_substitution"
                | "arithmetic_expansion"
                | "ansi_c_string"
                | "translated_string"
                | "brace_expression"
        ) {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(text: &str) -> Vec<String> {
        parse(text, Path::new("/w"))
            .commands
            .iter()
            .map(|c| c.argv.iter().map(Word::text).collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[track_caller]
    fn case(text: &str, expected: &[&str]) {
        assert_eq!(argvs(text), expected, "{text}");
    }

    #[test]
    fn finds_commands_in_compound_forms() {
        case(
            "git add . && git commit -m x; git push",
            &["git add .", "git commit -m x", "git push"],
        );
        case(
            "( cd a; git push ) || { git push -f; }",
            &["cd a", "git push", "git push -f"],
        );
        case("x=$(git push)", &["git push"]);
        case("echo `git push`", &["echo `git push`", "git push"]);
        case("if true; then git push; fi", &["true", "git push"]);
        case("cat f | xargs git push", &["cat f", "git push"]);
    }

    #[test]
    fn data_is_not_execution() {
        case("echo \"git push\"", &["echo git push"]);
        case(
            "git commit -m \"fix git push --force\"",
            &["git commit -m fix git push --force"],
        );
        case("grep -r 'git push' docs", &["grep -r git push docs"]);
        case("cat <<EOF\ngit push\nEOF", &["cat"]);
    }

    #[test]
    fn quoting_tricks_unquote() {
        case("g\\it pu\\sh", &["git push"]);
        case("\"git\" 'push'", &["git push"]);
        case("\\git push", &["git push"]);
    }

    #[test]
    fn script_bodies_are_followed() {
        case(
            "bash -c 'git push origin main'",
            &["git push origin main", "bash -c git push origin main"],
        );
        case(
            "zsh -lc \"cd sub && git push\"",
            &["cd sub", "git push", "zsh -lc cd sub && git push"],
        );
        case("eval git push", &["git push", "eval git push"]);
        case("bash <<EOF\ngit push\nEOF", &["git push", "bash"]);
        case(
            "sh -c \"sh -c 'git push'\"",
            &["git push", "sh -c git push", "sh -c sh -c 'git push'"],
        );
    }

    #[test]
    fn wrappers_and_env_prefixes() {
        let s = parse(
            "HUSKY=0 sudo -u me env GIT_DIR=/r timeout -s KILL 10 nice -n 5 git push",
            Path::new("/w"),
        );
        let c = s.commands.last().unwrap();
        assert_eq!(
            c.argv.iter().map(Word::text).collect::<Vec<_>>(),
            ["git", "push"]
        );
        assert_eq!(c.env_var("HUSKY"), Some(&Word::Literal("0".into())));
        assert_eq!(c.env_var("GIT_DIR"), Some(&Word::Literal("/r".into())));
    }

    #[test]
    fn cd_is_scoped() {
        let s = parse(
            "cd sub && git push; (cd ../x; git push); git push",
            Path::new("/w"),
        );
        let cwds: Vec<Option<PathBuf>> = s
            .commands
            .iter()
            .filter(|c| c.program() == Some("git"))
            .map(|c| c.cwd.clone())
            .collect();
        assert_eq!(
            cwds,
            [
                Some(PathBuf::from("/w/sub")),
                Some(PathBuf::from("/w/sub/../x")),
                Some(PathBuf::from("/w/sub"))
            ]
        );
        let s = parse("cd $DIR && git push", Path::new("/w"));
        assert_eq!(
            s.commands.last().unwrap().cwd,
            None,
            "an unknown cd target makes the cwd unknown"
        );
    }

    #[test]
    fn dynamic_words_are_not_guessed() {
        let s = parse("$GIT push", Path::new("/w"));
        assert_eq!(s.commands[0].argv[0], Word::Dynamic("$GIT".into()));
        assert!(
            parse("bash -c \"$CMD\"", Path::new("/w"))
                .incomplete
                .iter()
                .any(|i| i.contains("dynamic script"))
        );
    }

    #[test]
    fn the_claude_commit_idiom_parses_cleanly() {
        let text = "git commit -m \"$(cat <<'EOF'\nIt's done\nEOF\n)\" && git push";
        let s = parse(text, Path::new("/w"));
        assert!(!s.had_errors);
        let programs: Vec<&str> = s
            .commands
            .iter()
            .filter_map(SimpleCommand::program)
            .collect();
        assert_eq!(programs, ["git", "cat", "git"]);
    }
}
