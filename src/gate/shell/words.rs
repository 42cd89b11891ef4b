//! Word nodes to values: quoting, `$'…'`, variables and arrays assigned earlier in the line,
//! brace expansion, and the splitting of unquoted expansions. What needs a program to run
//! stays dynamic.

use tree_sitter::Node;

use super::{MAX_WORD_BYTES, Scope, Value, Word};

/// The words a word node becomes: its value when the line shows it (variables assigned
/// earlier, `$'…'`, `{a,b}`), split the way the shell splits an unquoted expansion.
pub(super) fn words(node: Node, text: &str, scope: &Scope) -> Vec<Word> {
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
                // Split at `IFS` as the line set it (`IFS=_; c=git_push; $c` runs `git push`).
                let ifs = match scope.var("IFS") {
                    None => " \t\n".to_owned(),
                    Some(Value::Scalar(ifs)) => ifs.clone(),
                    Some(_) => return vec![Word::Dynamic(source.to_owned())],
                };
                if ifs.is_empty() {
                    return vec![Word::Literal(value)];
                }
                return value
                    .split(|c: char| ifs.contains(c))
                    .filter(|w| !w.is_empty())
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

/// `${NAME:-default}`, `${NAME-default}` (and the assigning `:=`/`=`): `None` when `body` is
/// no such form; else its value: the variable's when the line set it, the default when neither
/// the line nor the environment sets it, and unknown (`Some(None)`) when the environment does
/// or the default is itself computed.
fn with_default(body: &str, scope: &Scope) -> Option<Option<String>> {
    let split = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, rest) = body.split_at(split);
    let (empty_counts, default) =
        if let Some(d) = rest.strip_prefix(":-").or_else(|| rest.strip_prefix(":=")) {
            (true, d)
        } else {
            (
                false,
                rest.strip_prefix('-').or_else(|| rest.strip_prefix('='))?,
            )
        };
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let default = (!default.contains(['$', '`', '"', '\'', '\\'])).then(|| default.to_owned());
    Some(match scope.var(name) {
        Some(Value::Scalar(v)) if !(empty_counts && v.is_empty()) => Some(v.clone()),
        Some(Value::Scalar(_)) => default,
        Some(_) => None,
        None if std::env::var_os(name).is_some() => None,
        None => default,
    })
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
pub(super) fn resolve(node: Node, text: &str, scope: &Scope) -> Option<String> {
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
            if let Some(value) = with_default(name, scope) {
                return value;
            }
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
    use std::path::Path;

    use crate::gate::shell::test_support::case;
    use crate::gate::shell::{Word, parse};

    #[test]
    fn quoting_tricks_unquote() {
        case("g\\it pu\\sh", &["git push"]);
        case("\"git\" 'push'", &["git push"]);
        case("\\git push", &["git push"]);
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
        // A default applies when neither the line nor the environment sets the variable.
        case(
            "${HJ_UNSET_GIT:-git} ${HJ_UNSET_VERB:-push} origin main",
            &["git push origin main"],
        );
        case("git \"${HJ_UNSET_VERB-push}\"", &["git push"]);
        case("v=; git ${v:-push}", &["git push"]);
        case("v=status; git ${v:-push}", &["git status"]);
        case("git ${HOME:-push}", &["git ${HOME:-push}"]);
        case(
            "git ${HJ_UNSET_VERB:-$(echo push)}",
            &["git ${HJ_UNSET_VERB:-$(echo push)}", "echo push"],
        );
        // Unknown values stay dynamic.
        case("git $c", &["git $c"]);
        case("read -r c <<< push; git $c", &["read -r c", "git $c"]);
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
}
