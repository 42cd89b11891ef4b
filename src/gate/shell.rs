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

use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser, Tree};

use super::wrappers;

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
    /// The directory it runs in, when known (after `cd`s in the same scope).
    pub cwd: Option<PathBuf>,
    /// How many script bodies deep it was found (0 = the command line itself).
    pub depth: usize,
    /// Its source text.
    pub source: String,
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
    walk(&tree, text, scope, depth, script);
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

/// Node kinds whose contents run in a scope of their own (a `cd` inside does not leak out).
const SCOPES: [&str; 4] = [
    "subshell",
    "command_substitution",
    "process_substitution",
    "pipeline",
];

fn walk(tree: &Tree, text: &str, scope: Scope, depth: usize, script: &mut Script) {
    let mut scopes: Vec<Scope> = vec![scope];
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
                let stdin = stdin_of(node, text, &scopes[scope]);
                command(node, text, stdin, &mut scopes[scope], depth, script);
                // Substitutions inside the words run too, in their own scopes.
                push_children(node, child_scope, &mut stack, |n| {
                    n.kind() != "command_name" || has_substitution(n)
                });
            }
            "variable_assignment" => {
                assign(node, text, &mut scopes[scope], false);
                prompt_code(node, text, &scopes[scope], depth, script);
                push_children(node, child_scope, &mut stack, |_| true);
            }
            // `false && x`, `true || x`: the right side never runs.
            "list" if never_runs_right(node, text) => {
                if let Some(left) = node.named_child(0) {
                    stack.push((left, child_scope));
                }
            }
            // `if false; then x; fi`: only the `elif`/`else` parts can run.
            "if_statement" if condition_is_false(node, text) => {
                push_children(node, child_scope, &mut stack, |n| {
                    matches!(n.kind(), "elif_clause" | "else_clause")
                });
            }
            // A function's body runs where it is called (see `expand`).
            "function_definition" => {
                let name = node.child_by_field_name("name");
                let body = node.child_by_field_name("body");
                if let (Some(name), Some(body)) = (name, body) {
                    let body = &text[body.byte_range()];
                    let body = body
                        .strip_prefix('{')
                        .and_then(|b| b.strip_suffix('}'))
                        .unwrap_or(body);
                    script
                        .functions
                        .push((text[name.byte_range()].to_owned(), body.to_owned()));
                }
            }
            "declaration_command" => {
                let keyword = text[node.byte_range()]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                let exported = keyword == "export"
                    || text[node.byte_range()]
                        .split_whitespace()
                        .any(|w| w.starts_with('-') && w.contains('x'));
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "variable_assignment" => assign(child, text, &mut scopes[scope], exported),
                        "variable_name" | "word" if exported => {
                            let name = &text[child.byte_range()];
                            if let Some(Value::Scalar(v)) = scopes[scope].var(name).cloned() {
                                scopes[scope]
                                    .exported
                                    .push((name.to_owned(), Word::Literal(v)));
                            }
                        }
                        _ => {}
                    }
                }
                push_children(node, child_scope, &mut stack, |n| {
                    n.kind() != "variable_assignment"
                });
            }
            // Data, unless a shell reads it (handled at its command); an unquoted heredoc still
            // runs its `$(…)` substitutions.
            "heredoc_body" => push_children(node, child_scope, &mut stack, |n| {
                matches!(n.kind(), "command_substitution" | "process_substitution")
            }),
            _ => push_children(node, child_scope, &mut stack, |_| true),
        }
    }
}

/// `false && x` or `true || x` (`:` too): the right side of the list never runs.
fn never_runs_right(node: Node, text: &str) -> bool {
    let (Some(left), Some(op)) = (node.named_child(0), node.child(1)) else {
        return false;
    };
    let left = text[left.byte_range()].trim();
    match op.kind() {
        "&&" => left == "false",
        "||" => matches!(left, "true" | ":"),
        _ => false,
    }
}

/// `if false; then …`: the condition is the literal `false`.
fn condition_is_false(node: Node, text: &str) -> bool {
    let mut cursor = node.walk();
    let conditions: Vec<&str> = node
        .children_by_field_name("condition", &mut cursor)
        .map(|c| text[c.byte_range()].trim().trim_end_matches(';').trim())
        .filter(|c| !c.is_empty())
        .collect();
    conditions == ["false"]
}

/// Prompt variables whose value the shell expands as code when it prints them
/// (`PS4='$(…)'; set -x`): their value is read as a script body.
fn prompt_code(node: Node, text: &str, scope: &Scope, depth: usize, script: &mut Script) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    if !matches!(
        &text[name.byte_range()],
        "PS0" | "PS1" | "PS2" | "PS4" | "PROMPT_COMMAND"
    ) {
        return;
    }
    match node
        .child_by_field_name("value")
        .map(|v| resolve(v, text, scope))
    {
        Some(Some(value)) => parse_body(&value, scope.cwd.clone(), depth + 1, script),
        Some(None) => script
            .incomplete
            .push("a prompt variable holds code computed at run time".into()),
        None => {}
    }
}

/// Records `NAME=value` (or `NAME=(a b)`) in the scope.
fn assign(node: Node, text: &str, scope: &mut Scope, exported: bool) {
    let Some(name) = node
        .child_by_field_name("name")
        .map(|n| text[n.byte_range()].to_owned())
    else {
        return;
    };
    let value = match node.child_by_field_name("value") {
        None => Value::Scalar(String::new()),
        Some(v) if v.kind() == "array" => {
            let mut cursor = v.walk();
            let mut items = Vec::new();
            let mut known = true;
            for item in v.named_children(&mut cursor) {
                for w in words(item, text, scope) {
                    match w {
                        Word::Literal(l) => items.push(l),
                        Word::Dynamic(_) => known = false,
                    }
                }
            }
            if known {
                Value::Array(items)
            } else {
                Value::Unknown
            }
        }
        Some(v) => match resolve(v, text, scope) {
            Some(s) => Value::Scalar(s),
            None => Value::Unknown,
        },
    };
    if exported {
        let word = match &value {
            Value::Scalar(s) => Word::Literal(s.clone()),
            _ => Word::Dynamic(text[node.byte_range()].to_owned()),
        };
        scope.exported.push((name.clone(), word));
    } else if let Some(slot) = scope.exported.iter_mut().rev().find(|(k, _)| *k == name) {
        // Assigning an exported variable changes what children see.
        slot.1 = match &value {
            Value::Scalar(s) => Word::Literal(s.clone()),
            _ => Word::Dynamic(text[node.byte_range()].to_owned()),
        };
    }
    scope.vars.push((name, value));
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

/// What a command reads on its standard input, when the line shows it.
#[derive(Debug, Clone)]
enum Stdin {
    /// Known text: a heredoc, a here-string, or `echo`/`printf`/`cat <<EOF` piped in.
    Text(String),
    /// Another program's output.
    Program(String),
}

/// The input of `node`: its own heredoc or here-string, or the output of the command piped in.
fn stdin_of(node: Node, text: &str, scope: &Scope) -> Option<Stdin> {
    // `bash <<< 'git push'`: the here-string belongs to the command itself.
    let mut own = node.walk();
    for redirect in node.children(&mut own) {
        if redirect.kind() == "herestring_redirect" {
            let value = redirect.named_child(0)?;
            return Some(match resolve(value, text, scope) {
                Some(s) => Stdin::Text(s),
                None => Stdin::Program(text[value.byte_range()].to_owned()),
            });
        }
    }
    let parent = node.parent()?;
    if parent.kind() == "redirected_statement" {
        let mut cursor = parent.walk();
        for redirect in parent.children(&mut cursor) {
            match redirect.kind() {
                "heredoc_redirect" => {
                    let mut c = redirect.walk();
                    if let Some(body) = redirect
                        .children(&mut c)
                        .find(|c| c.kind() == "heredoc_body")
                    {
                        return Some(Stdin::Text(text[body.byte_range()].to_owned()));
                    }
                }
                "herestring_redirect" => {
                    let value = redirect.named_child(0)?;
                    return Some(match resolve(value, text, scope) {
                        Some(s) => Stdin::Text(s),
                        None => Stdin::Program(text[value.byte_range()].to_owned()),
                    });
                }
                _ => {}
            }
        }
    }
    // `cat <<EOF | sh`: the pipeline sits inside the heredoc redirect of `cat`.
    if parent.kind() == "pipeline" {
        let mut prev = node.prev_named_sibling();
        while let Some(p) = prev {
            if p.kind() != "comment" {
                break;
            }
            prev = p.prev_named_sibling();
        }
        return match prev {
            Some(p) => Some(output_of(p, text, scope)),
            None => {
                let redirect = parent.parent().filter(|g| g.kind() == "heredoc_redirect")?;
                let statement = redirect.parent()?;
                let body = statement.child_by_field_name("body")?;
                let mut c = redirect.walk();
                let heredoc = redirect
                    .children(&mut c)
                    .find(|c| c.kind() == "heredoc_body")
                    .map(|b| text[b.byte_range()].to_owned());
                match (output_of_command(body, text, scope), heredoc) {
                    (Some(out), _) => Some(Stdin::Text(out)),
                    (None, Some(h)) if is_cat(body, text) => Some(Stdin::Text(h)),
                    _ => Some(Stdin::Program(text[body.byte_range()].to_owned())),
                }
            }
        };
    }
    None
}

fn is_cat(node: Node, text: &str) -> bool {
    node.kind() == "command"
        && node
            .child_by_field_name("name")
            .is_some_and(|n| &text[n.byte_range()] == "cat")
        && node.named_child_count() == 1
}

/// What the command `node` prints, when it is `echo`/`printf` of known words (or `cat` of its
/// heredoc).
fn output_of(node: Node, text: &str, scope: &Scope) -> Stdin {
    let (command, heredoc) = if node.kind() == "redirected_statement" {
        let body = node.child_by_field_name("body");
        let mut c = node.walk();
        let heredoc = node
            .children(&mut c)
            .find(|c| c.kind() == "heredoc_redirect")
            .and_then(|r| {
                let mut c = r.walk();
                r.children(&mut c)
                    .find(|c| c.kind() == "heredoc_body")
                    .map(|b| text[b.byte_range()].to_owned())
            });
        (body, heredoc)
    } else {
        (Some(node), None)
    };
    let Some(command) = command else {
        return Stdin::Program(text[node.byte_range()].to_owned());
    };
    if let Some(out) = output_of_command(command, text, scope) {
        return Stdin::Text(out);
    }
    if let Some(h) = heredoc.filter(|_| is_cat(command, text)) {
        return Stdin::Text(h);
    }
    Stdin::Program(text[command.byte_range()].to_owned())
}

fn output_of_command(node: Node, text: &str, scope: &Scope) -> Option<String> {
    if node.kind() != "command" {
        return None;
    }
    let mut cursor = node.walk();
    let mut argv: Vec<Word> = Vec::new();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "command_name" => argv.extend(
                child
                    .named_child(0)
                    .map(|w| words(w, text, scope))
                    .unwrap_or_default(),
            ),
            k if k.ends_with("redirect") => return None,
            _ if child.is_named() && child.kind() != "comment" => {
                argv.extend(words(child, text, scope))
            }
            _ => {}
        }
    }
    let literal: Option<Vec<&str>> = argv.iter().map(Word::literal).collect();
    let literal = literal?;
    match literal.split_first() {
        Some((&"echo", rest)) => {
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .skip_while(|a| matches!(*a, "-n" | "-e" | "-E"))
                .collect();
            Some(rest.join(" ").replace("\\n", "\n"))
        }
        Some((&"printf", [format, args @ ..])) => {
            let mut out = format.replace("\\n", "\n").replace("\\t", "\t");
            for a in args {
                out = out.replacen("%s", a, 1);
            }
            Some(out)
        }
        _ => None,
    }
}

fn command(
    node: Node,
    text: &str,
    stdin: Option<Stdin>,
    scope: &mut Scope,
    depth: usize,
    script: &mut Script,
) {
    let mut env = scope.exported.clone();
    let mut argv = Vec::new();
    let mut writes = Vec::new();
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
                    .map(|v| match resolve(v, text, scope) {
                        Some(s) => Word::Literal(s),
                        None => Word::Dynamic(text[v.byte_range()].to_owned()),
                    })
                    .unwrap_or(Word::Literal(String::new()));
                env.push((name, value));
            }
            "command_name" => argv.extend(
                child
                    .named_child(0)
                    .map(|w| words(w, text, scope))
                    .unwrap_or_else(|| vec![Word::Dynamic(String::new())]),
            ),
            "file_redirect" => writes.extend(write_target(child, text, scope)),
            k if k.ends_with("redirect") => {}
            _ if child.is_named() && child.kind() != "comment" => {
                argv.extend(words(child, text, scope))
            }
            _ => {}
        }
    }
    // Redirections written after the command belong to its redirected statement.
    if let Some(parent) = node.parent().filter(|p| p.kind() == "redirected_statement") {
        let mut c = parent.walk();
        for r in parent.children(&mut c) {
            if r.kind() == "file_redirect" {
                writes.extend(write_target(r, text, scope));
            }
        }
    }
    let source = text[node.byte_range()].to_owned();
    let found = SimpleCommand {
        env,
        argv,
        writes,
        cwd: scope.cwd.clone(),
        depth,
        source,
        status_ignored: status_ignored(node, text),
    };
    expand(found, stdin, scope, script);
}

/// Whether a command's status may not be the call's: it is part of an `||` list (`a || true`,
/// `true || a`), a condition (`if a; …`), negated, or not the last part of a pipeline.
fn status_ignored(node: Node, text: &str) -> bool {
    let mut child = node;
    let mut parent = node.parent();
    while let Some(p) = parent {
        match p.kind() {
            "list" => {
                // `a || b`: `a`'s failure is caught; `a && b || c` catches both.
                // `a || b`: `a`'s failure is caught, and `b` runs only if `a` fails.
                let mut cursor = p.walk();
                if p.children(&mut cursor)
                    .any(|n| !n.is_named() && &text[n.byte_range()] == "||")
                {
                    return true;
                }
            }
            "if_statement" | "while_statement" | "elif_clause" => {
                if p.child_by_field_name("condition")
                    .is_some_and(|c| c.id() == child.id())
                {
                    return true;
                }
            }
            "negated_command" => return true,
            "pipeline" => {
                // Only the last command's status is the pipeline's (without `pipefail`).
                let last = p.named_child(p.named_child_count().saturating_sub(1));
                if last.is_some_and(|l| l.id() != child.id()) && !text.contains("pipefail") {
                    return true;
                }
            }
            "redirected_statement" | "subshell" | "compound_statement" => {}
            _ => return false,
        }
        child = p;
        parent = p.parent();
    }
    false
}

fn write_target(redirect: Node, text: &str, scope: &Scope) -> Option<Word> {
    let mut cursor = redirect.walk();
    let op = redirect
        .children(&mut cursor)
        .find(|c| !c.is_named())
        .map(|c| &text[c.byte_range()])?;
    if !matches!(op, ">" | ">>" | "&>" | "&>>" | ">|" | "<>") {
        return None;
    }
    let dest = redirect.child_by_field_name("destination")?;
    if dest.kind() == "number" {
        return None; // `2>&1`
    }
    let w = words(dest, text, scope);
    w.into_iter().next()
}

/// Removes wrappers, applies `cd`, and follows script bodies.
fn expand(mut cmd: SimpleCommand, stdin: Option<Stdin>, scope: &mut Scope, script: &mut Script) {
    let mut bodies: Vec<String> = Vec::new();
    let xargs = cmd.program() == Some("xargs");
    // `exec -a git-push git …`: git takes its verb from the name it is run under.
    let exec_name = (cmd.program() == Some("exec"))
        .then(|| {
            cmd.argv
                .windows(2)
                .find(|p| p[0].literal() == Some("-a"))
                .and_then(|p| p[1].literal())
                .and_then(|n| n.strip_prefix("git-"))
                .map(str::to_owned)
        })
        .flatten();
    unwrap_wrappers(&mut cmd, &mut bodies);
    if let Some(verb) = exec_name
        && cmd.program() == Some("git")
    {
        cmd.argv.insert(1, Word::Literal(verb));
    }
    if xargs && cmd.program() != Some("xargs") {
        // `echo push | xargs git`: xargs appends what it reads.
        match &stdin {
            Some(Stdin::Text(t)) => cmd
                .argv
                .extend(t.split_whitespace().map(|w| Word::Literal(w.to_owned()))),
            Some(Stdin::Program(p)) => cmd.argv.push(Word::Dynamic(format!("$(xargs < {p})"))),
            None => cmd.argv.push(Word::Dynamic("$(xargs)".into())),
        }
    }
    let program = cmd.program().map(str::to_owned);
    if let Some(name) = program.as_deref()
        && cmd.argv[0].literal().is_some()
    {
        // A function defined earlier in the line runs its body with these arguments.
        if let Some((_, body)) = script.functions.iter().rev().find(|(n, _)| n == name) {
            let body = body.clone();
            let mut inner = Scope::at(cmd.cwd.clone());
            inner.positional = cmd.argv[1..]
                .iter()
                .map(|w| w.literal().map(str::to_owned))
                .collect();
            parse_into(&body, inner, cmd.depth + 1, script);
        }
        // An alias (`shopt -s expand_aliases; alias gp='git push'; gp`) is its value.
        if let Some((_, value)) = script.aliases.iter().rev().find(|(n, _)| n == name) {
            let rest: Vec<&str> = cmd.argv[1..].iter().map(Word::text).collect();
            let body = format!("{value} {}", rest.join(" "));
            parse_into(&body, Scope::at(cmd.cwd.clone()), cmd.depth + 1, script);
        }
    }
    let cwd = &mut scope.cwd;
    match program.as_deref() {
        Some("alias") => {
            for def in cmd.argv[1..].iter().filter_map(Word::literal) {
                if let Some((name, value)) = def.split_once('=') {
                    script.aliases.push((name.to_owned(), value.to_owned()));
                }
            }
        }
        // `hash -p PATH NAME`: NAME now runs PATH, whatever it is called.
        Some("hash") if cmd.argv[1..].iter().any(|w| w.literal() == Some("-p")) => {
            script
                .incomplete
                .push("`hash -p` gives a program another name".into());
        }
        Some("cd" | "pushd") => {
            if program.as_deref() == Some("pushd") {
                scope.dirs.push(cwd.clone());
            }
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
        Some("popd") => {
            *cwd = scope.dirs.pop().unwrap_or(None);
        }
        Some("set") if cmd.argv.get(1).and_then(Word::literal) == Some("--") => {
            scope.positional = cmd.argv[2..]
                .iter()
                .map(|w| w.literal().map(str::to_owned))
                .collect();
        }
        Some(shell) if is_shell(shell) => shell_body(&cmd, stdin, &mut bodies, script),
        Some("eval") => {
            let parts: Vec<&Word> = cmd.argv[1..].iter().collect();
            if parts.iter().all(|w| w.literal().is_some()) {
                let body: Vec<&str> = parts.iter().filter_map(|w| w.literal()).collect();
                bodies.push(body.join(" "));
            } else {
                script
                    .incomplete
                    .push(format!("dynamic eval `{}`", cmd.source));
            }
        }
        Some("source" | ".") => match (cmd.argv.get(1), &stdin) {
            (Some(Word::Literal(f)), Some(Stdin::Text(t))) if f == "/dev/stdin" || f == "-" => {
                bodies.push(t.clone())
            }
            (Some(Word::Literal(f)), _) if f != "/dev/stdin" => {
                if let Some(body) = read_script(cmd.cwd.as_deref(), f) {
                    bodies.push(body);
                }
            }
            (Some(w), _) => script
                .incomplete
                .push(format!("sources `{}`, which cannot be read", w.text())),
            _ => {}
        },
        Some("trap") => {
            let action = cmd.argv[1..].iter().find(|w| w.literal() != Some("--"));
            match action {
                Some(Word::Literal(a)) if !a.starts_with('-') => {
                    // A user signal runs the action only when someone sends it.
                    let signals: Vec<&str> = cmd.argv[1..]
                        .iter()
                        .filter_map(Word::literal)
                        .skip_while(|w| *w == "--")
                        .skip(1)
                        .collect();
                    let only_user_signals = !signals.is_empty()
                        && signals.iter().all(|s| {
                            matches!(
                                s.trim_start_matches("SIG"),
                                "USR1" | "USR2" | "WINCH" | "10" | "12"
                            )
                        });
                    if !only_user_signals
                        || script.commands.iter().any(|c| c.program() == Some("kill"))
                    {
                        bodies.push(a.clone());
                    } else {
                        script.signal_traps.push(a.clone());
                    }
                }
                Some(Word::Dynamic(src)) => script
                    .incomplete
                    .push(format!("a trap runs `{src}`, computed at run time")),
                _ => {}
            }
        }
        Some("find") => {
            // `find … -exec cmd args \;` runs `cmd` once per file.
            let mut i = 1;
            while i < cmd.argv.len() {
                if matches!(
                    cmd.argv[i].literal(),
                    Some("-exec" | "-execdir" | "-ok" | "-okdir")
                ) {
                    let end = (i + 1..cmd.argv.len())
                        .find(|&j| matches!(cmd.argv[j].literal(), Some(";" | "+" | "\\;")))
                        .unwrap_or(cmd.argv.len());
                    let mut inner = cmd.clone();
                    // `{}` is each file found: computed at run time.
                    inner.argv = cmd.argv[i + 1..end]
                        .iter()
                        .map(|w| match w.literal() {
                            Some(l) if l.contains("{}") => Word::Dynamic(l.to_owned()),
                            _ => w.clone(),
                        })
                        .collect();
                    inner.writes.clear();
                    if !inner.argv.is_empty() {
                        expand(inner, None, scope, script);
                    }
                    i = end;
                }
                i += 1;
            }
        }
        Some("xargs") => {}
        Some("kill") => bodies.append(&mut script.signal_traps),
        // `at`/`batch` run the command lines they read later, as a shell would.
        Some("at" | "batch") => {
            let file = cmd
                .argv
                .windows(2)
                .find(|p| p[0].literal() == Some("-f"))
                .map(|p| p[1].clone());
            match (file, stdin) {
                (Some(Word::Literal(f)), _) => match read_script(cmd.cwd.as_deref(), &f) {
                    Some(body) => bodies.push(body),
                    None => script.unknowable.push(format!(
                        "`at` runs the script `{f}`, which cannot be read now"
                    )),
                },
                (Some(w), _) => script
                    .unknowable
                    .push(format!("`at` runs the script `{}`", w.text())),
                (None, Some(Stdin::Text(t))) => bodies.push(t),
                (None, Some(Stdin::Program(p))) => script
                    .unknowable
                    .push(format!("`at` runs what `{p}` prints")),
                (None, None) => {}
            }
        }
        // `parallel CMD ARGS ::: VALUES`: runs CMD ARGS VALUE for each value.
        Some("parallel") => {
            let mut words = cmd.argv[1..].iter().peekable();
            while let Some(w) = words.peek() {
                match w.literal() {
                    Some("-j" | "--jobs" | "-S" | "--sshlogin" | "--delay" | "--timeout") => {
                        words.next();
                        words.next();
                    }
                    Some(a) if a.starts_with('-') => {
                        words.next();
                    }
                    _ => break,
                }
            }
            let mut inner = cmd.clone();
            let mut argv: Vec<Word> = words
                .by_ref()
                .take_while(|w| !matches!(w.literal(), Some(":::" | "::::" | ":::+")))
                .cloned()
                .collect();
            if let Some(value) = words.next() {
                argv.push(value.clone());
            }
            if !argv.is_empty() {
                inner.argv = argv;
                inner.writes.clear();
                expand(inner, None, scope, script);
            }
        }
        // Editors' `-c '!cmd'` and sqlite's `.system cmd` hand a command line to a shell.
        Some("vim" | "vi" | "nvim" | "ex" | "view" | "sqlite3") => {
            let sqlite = program.as_deref() == Some("sqlite3");
            let mut texts: Vec<String> = cmd.argv[1..]
                .iter()
                .filter_map(Word::literal)
                .map(str::to_owned)
                .collect();
            if let Some(Stdin::Text(t)) = &stdin {
                texts.extend(t.lines().map(str::to_owned));
            }
            for t in texts {
                let t = t.trim_start_matches('+').trim_start_matches(':').trim();
                let escape = if sqlite {
                    t.strip_prefix(".system ")
                        .or_else(|| t.strip_prefix(".shell "))
                } else {
                    t.strip_prefix('!').or_else(|| t.strip_prefix("silent !"))
                };
                if let Some(line) = escape {
                    bodies.push(line.to_owned());
                }
            }
        }
        Some(p) => interpreter_code(p, &cmd, stdin, script),
        _ => {}
    }
    for body in bodies {
        parse_into(&body, Scope::at(cmd.cwd.clone()), cmd.depth + 1, script);
    }
    script.commands.push(cmd);
}

fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "ash" | "yash" | "busybox"
    )
}

/// The script a shell runs: `-c SCRIPT`, a script file, or its standard input.
fn shell_body(
    cmd: &SimpleCommand,
    stdin: Option<Stdin>,
    bodies: &mut Vec<String>,
    script: &mut Script,
) {
    let mut args = cmd.argv.iter().skip(1).peekable();
    if cmd.program() == Some("busybox") {
        args.next(); // `busybox sh …`
    }
    // `BASH_ENV=/dev/stdin bash -c :`: the shell first runs the file the variable names.
    for name in ["BASH_ENV", "ENV"] {
        match (cmd.env_var(name), &stdin) {
            (Some(Word::Literal(f)), Some(Stdin::Text(t))) if f == "/dev/stdin" => {
                bodies.push(t.clone())
            }
            (Some(Word::Literal(f)), _) if !f.is_empty() => {
                match read_script(cmd.cwd.as_deref(), f) {
                    Some(body) => bodies.push(body),
                    None => script
                        .unknowable
                        .push(format!("the shell first runs `{f}` (`{name}`)")),
                }
            }
            (Some(w), _) if !w.text().is_empty() => script
                .unknowable
                .push(format!("the shell first runs `{}` (`{name}`)", w.text())),
            _ => {}
        }
    }
    let mut dash_c = false;
    let mut noexec = false;
    let mut operand: Option<&Word> = None;
    while let Some(arg) = args.next() {
        let Some(a) = arg.literal() else {
            operand = Some(arg);
            break;
        };
        if a == "--" {
            operand = args.next();
            break;
        }
        if a.starts_with('-') && a.len() > 1 && !a.starts_with("--") {
            dash_c |= a.contains('c');
            noexec |= a.contains('n');
            if matches!(a, "-o" | "-O") {
                args.next();
            }
            continue;
        }
        if a.starts_with('+') || a.starts_with("--") {
            if matches!(a, "+o" | "+O" | "--rcfile" | "--init-file") {
                args.next();
            }
            continue;
        }
        operand = Some(arg);
        break;
    }
    if noexec {
        return; // `bash -n`: reads the script, runs nothing
    }
    match (dash_c, operand) {
        (true, Some(Word::Literal(body))) => {
            // `sh -c 'exec "$0" "$@"' git push`: the words after the body are `$0`, `$1`, ….
            let rest: Vec<String> = args.map(|w| w.text().to_owned()).collect();
            if rest.is_empty() || !(body.contains('$')) {
                bodies.push(body.clone());
            } else {
                let quoted: Vec<String> = rest
                    .iter()
                    .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
                    .collect();
                bodies.push(format!(
                    "set -- {}; {}",
                    quoted[1..].join(" "),
                    body.replace("\"$0\"", &quoted[0]).replace("$0", &quoted[0])
                ));
            }
        }
        (true, Some(Word::Dynamic(src))) => script
            .incomplete
            .push(format!("dynamic script body `{src}`")),
        (true, None) => {}
        (false, Some(Word::Literal(file))) => match read_script(cmd.cwd.as_deref(), file) {
            Some(body) => bodies.push(body),
            None => script.incomplete.push(format!(
                "runs the script `{file}`, which cannot be read now"
            )),
        },
        (false, Some(Word::Dynamic(src))) => script
            .incomplete
            .push(format!("runs the script `{src}`, computed at run time")),
        (false, None) => match stdin {
            Some(Stdin::Text(t)) => bodies.push(t),
            Some(Stdin::Program(p)) => script
                .unknowable
                .push(format!("a shell runs what `{p}` prints")),
            None => {}
        },
    }
}

/// A script file a shell is asked to run, when it is small and readable now.
fn read_script(cwd: Option<&Path>, file: &str) -> Option<String> {
    let path = match cwd {
        Some(c) if !file.starts_with('/') => c.join(file),
        _ => PathBuf::from(file),
    };
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCRIPT_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Inline code of an interpreter (`python -c`, `node -e`, `awk 'BEGIN{system(…)}'`, a shell
/// escape in `gdb -ex`) cannot be read as shell; it is noted when it names a gated program or
/// runs programs and names a gated verb.
fn interpreter_code(program: &str, cmd: &SimpleCommand, stdin: Option<Stdin>, script: &mut Script) {
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let Some(options) = wrappers::interpreter(program).or_else(|| wrappers::interpreter(base))
    else {
        return;
    };
    let args = &cmd.argv[1..];
    let mut code: Vec<String> = Vec::new();
    let mut unreadable: Option<String> = None;
    let awk = matches!(program, "awk" | "gawk" | "mawk" | "nawk");
    for (i, arg) in args.iter().enumerate() {
        let a = arg.text();
        if options.contains(&a) {
            match args.get(i + 1) {
                Some(Word::Literal(c)) => {
                    if program == "gdb" {
                        if let Some(shell) =
                            c.strip_prefix("shell ").or_else(|| c.strip_prefix('!'))
                        {
                            code.push(shell.to_owned());
                        }
                    } else if !matches!(program, "make" | "gmake") || a == "--eval" {
                        code.push(c.clone());
                    }
                }
                Some(Word::Dynamic(src)) => unreadable = Some(src.clone()),
                None => {}
            }
        } else if let Some(c) = options
            .iter()
            .find_map(|o| a.strip_prefix(&format!("{o}=")))
        {
            code.push(c.to_owned());
        }
    }
    if awk && let Some(prog) = args.iter().find(|w| !w.text().starts_with('-')) {
        code.push(prog.text().to_owned());
    }
    if program == "gdb" {
        // A gdb shell escape is a shell command line: read it as one.
        for c in code.drain(..) {
            parse_body(&c, cmd.cwd.clone(), cmd.depth + 1, script);
        }
    }
    let reads_stdin = code.is_empty()
        && unreadable.is_none()
        && args
            .iter()
            .all(|w| w.text().starts_with('-') || w.text() == "-")
        && !matches!(program, "make" | "gmake");
    if reads_stdin {
        match stdin {
            Some(Stdin::Text(t)) => code.push(t),
            Some(Stdin::Program(p)) => unreadable = Some(format!("what `{p}` prints")),
            None => {}
        }
    }
    // Code that names a gated program and can run programs: printing `git push` is data.
    let suspicious =
        |c: &str| names_gated_program(c) && wrappers::RUNS_PROGRAMS.iter().any(|r| c.contains(r));
    if let Some(c) = code.iter().find(|c| deletes_files(c)) {
        script.incomplete.push(format!(
            "`{program}` removes files in code hookjudge does not evaluate: `{}`",
            c.chars().take(80).collect::<String>()
        ));
    } else if let Some(c) = code.iter().find(|c| suspicious(c)) {
        script.incomplete.push(format!(
            "`{program}` runs code that names a gated action: `{}`",
            c.chars().take(80).collect::<String>()
        ));
    } else if let Some(src) = unreadable {
        script.incomplete.push(format!(
            "`{program}` runs code from {src}, which cannot be read"
        ));
    }
}

/// Calls of interpreters' standard libraries that remove files or trees.
const DELETE_CALLS: [&str; 9] = [
    "os.remove(",
    "os.unlink(",
    "rmtree(",
    ".unlink(",
    "remove_tree(",
    "rmSync(",
    "unlinkSync(",
    "rmdirSync(",
    "FileUtils.rm",
];

fn deletes_files(code: &str) -> bool {
    DELETE_CALLS.iter().any(|c| code.contains(c))
        || code.contains("unlink ")
        || code.contains("unlink(")
}

fn names_gated_program(code: &str) -> bool {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .any(super::tools::is_gated_program)
}

/// Removes wrapper programs (the table in `wrappers`), collecting the command lines some of
/// them hand to a shell (`su -c '…'`, `watch …`).
fn unwrap_wrappers(cmd: &mut SimpleCommand, bodies: &mut Vec<String>) {
    for _ in 0..8 {
        let Some(program) = cmd.program().map(str::to_owned) else {
            return;
        };
        let first = cmd.argv.get(1).and_then(Word::literal).map(str::to_owned);
        let Some(wrapper) = wrappers::wrapper(&program, first.as_deref()) else {
            return;
        };
        // `su root -c '…'`: a script option may come after the operands.
        if !wrapper.script_options.is_empty()
            && let Some(body) = script_option_anywhere(wrapper, &cmd.argv[1..])
        {
            if let Word::Literal(body) = body {
                bodies.push(body);
            }
            cmd.argv.truncate(1);
            return;
        }
        let mut i = if wrapper.sub.is_some() { 2 } else { 1 };
        let mut chdir: Option<String> = None;
        let mut operands_left = wrapper.operands;
        while let Some(word) = cmd.argv.get(i) {
            // `env HOME="$HOME" cmd`: an assignment with a computed value is still one.
            if program == "env"
                && let Word::Dynamic(src) = word
                && let Some((k, v)) = src.split_once('=')
                && assignment(&format!("{k}=")).is_some()
            {
                cmd.env.push((k.to_owned(), Word::Dynamic(v.to_owned())));
                i += 1;
                continue;
            }
            let Some(arg) = word.literal().map(str::to_owned) else {
                break;
            };
            if arg == "--" {
                i += 1;
                break;
            }
            if program == "env" && !arg.starts_with('-') && arg.contains('=') {
                let (k, v) = arg.split_once('=').expect("contains =");
                cmd.env.push((k.to_owned(), Word::Literal(v.to_owned())));
                i += 1;
                continue;
            }
            if !arg.starts_with('-') || arg == "-" {
                if operands_left > 0 {
                    operands_left -= 1;
                    i += 1;
                    continue;
                }
                break;
            }
            if program == "env" && matches!(arg.as_str(), "-S" | "--split-string") {
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
            // The option's name and whether its value is attached (`-uroot`, `--user=root`).
            let (takes, script_opt, attached) = option_shape(wrapper, &arg);
            let value = match attached {
                Some(v) => Some(Word::Literal(v)),
                None if takes || script_opt => {
                    i += 1;
                    cmd.argv.get(i).cloned()
                }
                None => None,
            };
            if program == "env" && matches!(arg.as_str(), "-C" | "--chdir") {
                chdir = value.as_ref().and_then(Word::literal).map(str::to_owned);
            }
            if script_opt {
                match value {
                    Some(Word::Literal(body)) => bodies.push(body),
                    Some(Word::Dynamic(_)) | None => {}
                }
                // The command is the script; the rest are operands (a user, a file).
                cmd.argv.truncate(1);
                return;
            }
            i += 1;
        }
        if wrapper.joins && i < cmd.argv.len() {
            let joined: Vec<&str> = cmd.argv[i..].iter().map(Word::text).collect();
            bodies.push(joined.join(" "));
            cmd.argv.truncate(1);
            return;
        }
        if program == "sg"
            && let Some(Word::Literal(body)) = cmd.argv.get(i)
        {
            bodies.push(body.clone());
            cmd.argv.truncate(1);
            return;
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

/// The value of a script option (`-c '…'`, `--command=…`) anywhere among `args`.
fn script_option_anywhere(wrapper: &wrappers::Wrapper, args: &[Word]) -> Option<Word> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(arg) = word.literal() else {
            i += 1;
            continue;
        };
        if arg == "--" {
            return None;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            let (takes, script, attached) = option_shape(wrapper, arg);
            if script {
                return attached
                    .map(Word::Literal)
                    .or_else(|| args.get(i + 1).cloned());
            }
            if takes && attached.is_none() {
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// (takes a value, its value is a script, the value when attached) for one option word.
fn option_shape(wrapper: &wrappers::Wrapper, arg: &str) -> (bool, bool, Option<String>) {
    if let Some(long) = arg.strip_prefix("--") {
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (long, None),
        };
        let script = wrapper.script_options.contains(&name);
        return (wrappers::takes_value(wrapper, name), script, inline);
    }
    // A cluster of short options: the first that takes a value takes the rest of the cluster,
    // or the next word (`sudo -iu root`, `su -lc 'cmd'`).
    let letters: Vec<char> = arg[1..].chars().collect();
    for (k, c) in letters.iter().enumerate() {
        let name = c.to_string();
        let script = wrapper.script_options.contains(&name.as_str());
        if script || wrappers::takes_value(wrapper, &name) {
            let rest: String = letters[k + 1..].iter().collect();
            return (true, script, (!rest.is_empty()).then_some(rest));
        }
    }
    (false, false, None)
}

/// `NAME=value` with a valid variable name.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// The words a word node becomes: its value when the line shows it (variables assigned
/// earlier, `$'…'`, `{a,b}`), split the way the shell splits an unquoted expansion.
fn words(node: Node, text: &str, scope: &Scope) -> Vec<Word> {
    let source = &text[node.byte_range()];
    if source.len() > MAX_WORD_BYTES {
        return vec![Word::Dynamic(source.to_owned())];
    }
    // `"${v[@]}"`, `"$@"`, `$@`: every element.
    if let Some(items) = array_expansion(node, text, scope) {
        return items.into_iter().map(Word::Literal).collect();
    }
    match resolve(node, text, scope) {
        Some(value) => {
            let unquoted_expansion = matches!(node.kind(), "simple_expansion" | "expansion");
            if unquoted_expansion {
                return value
                    .split_whitespace()
                    .map(|w| Word::Literal(w.to_owned()))
                    .collect();
            }
            if !source.contains(['\'', '"']) && source.contains('{') && source.contains(',') {
                return braces(&value).into_iter().map(Word::Literal).collect();
            }
            vec![Word::Literal(value)]
        }
        None => vec![Word::Dynamic(source.to_owned())],
    }
}

/// `"${name[@]}"`, `${name[*]}`, `"$@"`, `$*` when the array (or `set --`) is known.
fn array_expansion(node: Node, text: &str, scope: &Scope) -> Option<Vec<String>> {
    let inner = if node.kind() == "string" && node.named_child_count() == 1 {
        node.named_child(0)?
    } else {
        node
    };
    let src = &text[inner.byte_range()];
    if matches!(src, "$@" | "$*" | "${@}" | "${*}") {
        return scope.positional.clone();
    }
    if inner.kind() != "expansion" {
        return None;
    }
    let body = src.strip_prefix("${")?.strip_suffix('}')?;
    let name = body
        .strip_suffix("[@]")
        .or_else(|| body.strip_suffix("[*]"))?;
    match scope.var(name)? {
        Value::Array(items) => Some(items.clone()),
        _ => None,
    }
}

/// The value of a word node when nothing has to run to know it.
fn resolve(node: Node, text: &str, scope: &Scope) -> Option<String> {
    let source = &text[node.byte_range()];
    match node.kind() {
        "word" | "number" => unquote(source),
        "raw_string" => Some(
            source
                .trim_start_matches('\'')
                .trim_end_matches('\'')
                .to_owned(),
        ),
        "ansi_c_string" => Some(ansi_c(source.strip_prefix("$'")?.strip_suffix('\'')?)),
        "string_content" => Some(unescape_double(source)),
        "simple_expansion" | "expansion" => {
            let name = source
                .trim_start_matches('$')
                .trim_start_matches('{')
                .trim_end_matches('}');
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            match scope.var(name)? {
                Value::Scalar(s) => Some(s.clone()),
                _ => None,
            }
        }
        "string" | "concatenation" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            if node.kind() == "string" {
                // Text between the quotes that has no node of its own is literal.
                let inner_start = node.start_byte() + 1;
                let inner_end = node.end_byte().saturating_sub(1);
                let mut at = inner_start;
                for c in children.iter().filter(|c| c.is_named()) {
                    if c.start_byte() > at {
                        out.push_str(&unescape_double(&text[at..c.start_byte()]));
                    }
                    out.push_str(&resolve(*c, text, scope)?);
                    at = c.end_byte();
                }
                if inner_end > at {
                    out.push_str(&unescape_double(&text[at..inner_end]));
                }
                return Some(out);
            }
            let mut at = node.start_byte();
            for c in &children {
                if c.start_byte() > at {
                    out.push_str(&unquote(&text[at..c.start_byte()])?);
                }
                out.push_str(&resolve(*c, text, scope)?);
                at = c.end_byte();
            }
            Some(out)
        }
        _ => None,
    }
}

fn unquote(source: &str) -> Option<String> {
    match shell_words::split(source) {
        Ok(parts) if parts.len() == 1 => parts.into_iter().next(),
        Ok(parts) if parts.is_empty() => Some(String::new()),
        _ => None,
    }
}

fn unescape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '"' | '\\' | '$' | '`' | '\n')
        {
            chars.next();
            if n != '\n' {
                out.push(n);
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Decodes the body of `$'…'`.
fn ansi_c(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('e' | 'E') => out.push('\x1b'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(|c| c.is_ascii_hexdigit()))
                    .take(2)
                    .collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(u @ ('u' | 'U')) => {
                let n = if u == 'u' { 4 } else { 8 };
                let hex: String = std::iter::from_fn(|| chars.next_if(|c| c.is_ascii_hexdigit()))
                    .take(n)
                    .collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(d @ '0'..='7') => {
                let mut oct = d.to_string();
                while oct.len() < 3
                    && let Some(n) = chars.next_if(|c| ('0'..='7').contains(c))
                {
                    oct.push(n);
                }
                if let Some(ch) = u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Brace expansion of one word (`{push,}` → `push`; `a{b,c}d` → `abd acd`); empty results
/// vanish as the shell's do.
fn braces(word: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (word.find('{'), word.rfind('}')) else {
        return vec![word.to_owned()];
    };
    if close < open || !word[open..close].contains(',') {
        return vec![word.to_owned()];
    }
    let (pre, inner, post) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    inner
        .split(',')
        .map(|alt| format!("{pre}{alt}{post}"))
        .filter(|w| !w.is_empty())
        .collect()
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
        case(
            "cat f | xargs git push",
            &["cat f", "git push $(xargs < cat f)"],
        );
        case("echo push | xargs git", &["echo push", "git push"]);
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
    fn values_known_from_the_line_are_used() {
        case("c=push; git $c", &["git push"]);
        case("c=push; git \"$c\"", &["git push"]);
        case("cmd=\"git push\"; $cmd", &["git push"]);
        case("v=(git push); \"${v[@]}\"", &["git push"]);
        case("set -- git push; \"$@\"", &["set -- git push", "git push"]);
        case("git $'\\x70ush'", &["git push"]);
        case("git {push,}", &["git push"]);
        case("p=pu; git ${p}sh", &["git push"]);
        // Unknown values stay dynamic.
        case("git $c", &["git $c"]);
        case("read -r c <<< push; git $c", &["read -r c", "git $c"]);
    }

    #[test]
    fn shells_fed_known_text_run_it() {
        case("bash <<< 'git push'", &["git push", "bash"]);
        case("echo git push | sh", &["echo git push", "git push", "sh"]);
        case("cat <<EOF | sh\ngit push\nEOF", &["cat", "git push", "sh"]);
        case(". /dev/stdin <<< 'git push'", &["git push", ". /dev/stdin"]);
        case("trap 'git push' EXIT", &["git push", "trap git push EXIT"]);
        case("su root -c 'git push'", &["git push", "su"]);
        case(
            "find . -exec git push \\;",
            &["git push", "find . -exec git push ;"],
        );
        let s = parse("curl -s x | sh", Path::new("/w"));
        assert!(
            s.unknowable.iter().any(|i| i.contains("a shell runs what")),
            "{:?}",
            s.unknowable
        );
    }

    #[test]
    fn wrappers_from_the_table() {
        for line in [
            "setsid git push",
            "flock .lock git push",
            "strace -f -o /dev/null git push",
            "sudo -iu root git push",
            "runuser -u root -- git push",
            "unshare -r git push",
            "taskset -c 0 git push",
            "npx -y git push",
            "uv run --with x git push",
        ] {
            let s = parse(line, Path::new("/w"));
            let last = s.commands.last().unwrap();
            assert_eq!(
                last.argv.iter().map(Word::text).collect::<Vec<_>>(),
                ["git", "push"],
                "{line}"
            );
        }
    }

    #[test]
    fn pushd_and_popd_restore_the_directory() {
        let s = parse("pushd /tmp; popd; git push", Path::new("/w"));
        assert_eq!(s.commands.last().unwrap().cwd, Some(PathBuf::from("/w")));
        let s = parse("export GIT_DIR=/r/.git && git push", Path::new("/w"));
        assert_eq!(
            s.commands.last().unwrap().env_var("GIT_DIR"),
            Some(&Word::Literal("/r/.git".into()))
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
