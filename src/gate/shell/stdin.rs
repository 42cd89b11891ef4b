//! What a command reads on its standard input, when the line shows it: a heredoc, a
//! here-string, the known output of `echo`/`printf`/`cat <<EOF` piped in or fed through a
//! process substitution (`bash < <(echo …)`), or, for a shell, the file it is fed (`sh < f`).

use tree_sitter::Node;

use super::bodies::is_shell;
use super::words::{resolve, words};
use super::{Scope, Script, Word};

/// What a command reads on its standard input, when the line shows it.
#[derive(Debug, Clone)]
pub(super) enum Stdin {
    /// Known text: a heredoc, a here-string, or `echo`/`printf`/`cat <<EOF` piped in.
    Text(String),
    /// Another program's output.
    Program(String),
}

/// The input of `node`: its own heredoc or here-string, or the output of the command piped in.
pub(super) fn stdin_of(node: Node, text: &str, scope: &Scope, script: &Script) -> Option<Stdin> {
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
                "file_redirect" if text[redirect.byte_range()].starts_with('<') => {
                    if let Some(input) = file_input(node, redirect, text, scope, script) {
                        return Some(input);
                    }
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

/// `< <(echo git push)`: the output of the substitution; `< file` for a shell or `source`:
/// the file's text (what an earlier command of the line wrote there, or what is on disk).
fn file_input(
    node: Node,
    redirect: Node,
    text: &str,
    scope: &Scope,
    script: &Script,
) -> Option<Stdin> {
    let target = redirect.child_by_field_name("destination")?;
    if target.kind() == "process_substitution" {
        let inner = target.named_child(0)?;
        return Some(output_of(inner, text, scope));
    }
    let name = node.child_by_field_name("name")?;
    let program = text[name.byte_range()].rsplit('/').next().unwrap_or("");
    if !(is_shell(program) || matches!(program, "source" | ".")) {
        return None;
    }
    let file = match resolve(target, text, scope) {
        Some(f) => f,
        None => return Some(Stdin::Program(text[target.byte_range()].to_owned())),
    };
    Some(
        match super::computed::script_text(script, scope.cwd.as_deref(), &file) {
            Ok(body) => Stdin::Text(body),
            Err(why) => Stdin::Program(why),
        },
    )
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
        Some((&"printf", [format, args @ ..])) if !format.starts_with('-') => {
            Some(printf_output(format, args))
        }
        _ => None,
    }
}

/// What `printf FORMAT ARGS…` prints, for the escapes and the `%s`/`%b` conversions a line
/// uses to spell a command (`printf '\x67it push'`).
pub(super) fn printf_output(format: &str, args: &[&str]) -> String {
    let mut out = unescape_printf(format);
    for a in args {
        let at = [out.find("%s"), out.find("%b")].into_iter().flatten().min();
        match at {
            Some(i) => out.replace_range(i..i + 2, &unescape_printf(a)),
            None => break,
        }
    }
    out
}

/// `\n`, `\t`, `\\`, `\xHH`, `\NNN` (octal) and `\uHHHH`, as printf reads them.
fn unescape_printf(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
            let mut value = 0u32;
            let mut n = 0;
            while n < max
                && let Some(d) = chars.peek().and_then(|c| c.to_digit(radix))
            {
                value = value * radix + d;
                chars.next();
                n += 1;
            }
            (n > 0).then(|| char::from_u32(value)).flatten()
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('x') => out.extend(digits(&mut chars, 16, 2)),
            Some('u') => out.extend(digits(&mut chars, 16, 4)),
            Some(d @ '0'..='7') => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(v) => {
                            value = value * 8 + v;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::shell::parse;
    use crate::gate::shell::test_support::case;

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
}
