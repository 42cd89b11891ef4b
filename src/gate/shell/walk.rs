//! The walk over the syntax tree: scopes (`cd` inside a subshell does not leak out), what
//! never runs (`false && x`), assignments, declarations, and the simple commands found.

use tree_sitter::{Node, Tree};

use super::expand::expand;
use super::stdin::{Stdin, stdin_of};
use super::words::{resolve, words};
use super::{Scope, Script, SimpleCommand, Value, Word, parse_body};

/// Node kinds whose contents run in a scope of their own (a `cd` inside does not leak out).
const SCOPES: [&str; 4] = [
    "subshell",
    "command_substitution",
    "process_substitution",
    "pipeline",
];

pub(super) fn walk(tree: &Tree, text: &str, scope: Scope, depth: usize, script: &mut Script) {
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
                let stdin = stdin_of(node, text, &scopes[scope], script);
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
                let flags = |letter: char| {
                    text[node.byte_range()]
                        .split_whitespace()
                        .any(|w| w.starts_with('-') && w.contains(letter))
                };
                let exported = keyword == "export" || flags('x');
                // `declare -n r=x`: `$r` is whatever `x` holds when it is expanded.
                let nameref = flags('n');
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "variable_assignment" if nameref => {
                            if let Some(name) = child.child_by_field_name("name") {
                                let name = text[name.byte_range()].to_owned();
                                scopes[scope].vars.push((name, Value::Unknown));
                            }
                        }
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
    let from_output = node
        .child_by_field_name("value")
        .is_some_and(|v| substitutes_output(&text[v.byte_range()]));
    scope.from_output.retain(|n| *n != name);
    if from_output {
        scope.from_output.push(name.clone());
    }
    scope.vars.push((name, value));
}

/// Whether `src` holds a command substitution (`$(…)` or backquotes, not arithmetic `$((…))`)
/// of anything but `mktemp`, whose new file holds no work.
fn substitutes_output(src: &str) -> bool {
    let dollar = src.match_indices("$(").any(|(i, _)| {
        let rest = &src[i + 2..];
        !rest.starts_with('(') && !rest.trim_start().starts_with("mktemp")
    });
    let backquote = src
        .split('`')
        .skip(1)
        .step_by(2)
        .any(|inner| !inner.trim_start().starts_with("mktemp"));
    dollar || backquote
}

/// Whether the dynamic word `src` takes a program's output: a substitution of its own, or a
/// variable the line assigned one. (Data read line by line, `while read f`, is a script's
/// ordinary input and stays with the other readings.)
fn takes_output(src: &str, scope: &Scope) -> bool {
    substitutes_output(src)
        || scope
            .from_output
            .iter()
            .any(|name| super::computed::expands(src, name))
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
    let mut appends = Vec::new();
    let mut redirect = |r: Node| {
        if let Some((target, appending)) = write_target(r, text, scope) {
            if appending {
                appends.push(target.clone());
            }
            writes.push(target);
        }
    };
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
            "file_redirect" => redirect(child),
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
                redirect(r);
            }
        }
    }
    let source = text[node.byte_range()].to_owned();
    let from_output = argv
        .iter()
        .chain(&writes)
        .filter_map(|w| match w {
            Word::Dynamic(src) if takes_output(src, scope) => Some(src.clone()),
            _ => None,
        })
        .collect();
    let found = SimpleCommand {
        env,
        argv,
        writes,
        appends,
        cwd: scope.cwd.clone(),
        depth,
        source,
        status_ignored: status_ignored(node, text),
        from_output,
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

/// The file a redirection writes, and whether it appends.
fn write_target(redirect: Node, text: &str, scope: &Scope) -> Option<(Word, bool)> {
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
    w.into_iter()
        .next()
        .map(|w| (w, matches!(op, ">>" | "&>>")))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::gate::shell::test_support::case;
    use crate::gate::shell::{SimpleCommand, parse};

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
        case("xargs -I{} git {} <<< push", &["git push"]);
        case("echo push | xargs -I % git %", &["echo push", "git push"]);
        case(
            "cat f | xargs --replace git {}",
            &["cat f", "git $(xargs -I {})"],
        );
        case("echo push | xargs -i git {}", &["echo push", "git push"]);
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
