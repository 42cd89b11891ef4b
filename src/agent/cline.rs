//! Cline CLI 3's shell tool, `run_commands`: its input read into one shape, the commands Cline
//! runs from it (each on its own, a heredoc split over entries joined back by Cline's own rule),
//! and the input handed back in place of a refused call. As `@cline/core` 3.0.65 does it
//! (`aZ`, `rf`/`af`/`lf`, `nf` in its bundle; tests/e2e run the real CLI).

use serde_json::{Value, json};

use super::input::{HookInput, shell_quote};

/// Cline CLI 3's shell tool: a list of whole commands.
pub const CLINE_SHELL: &str = "run_commands";

/// Cline CLI 3's `run_commands` input in the one shape the gate reads and hands back:
/// `{"commands": [line, …]}` (other keys kept). `@cline/core` 3.0.65 takes a list of commands,
/// one command as a string (`commands`, `command`, `cmd`, or the whole input), and commands as
/// `{command, args}` run without a shell, which are read as the quoted line. An input in none of
/// these shapes is left as it came: its command cannot be read, and the gate asks (fail safe).
pub(super) fn cline_commands(input: Value, from_parameters: bool) -> Value {
    fn line(item: &Value) -> Option<String> {
        match item {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => {
                let program = o.get("command").or_else(|| o.get("cmd"))?.as_str()?;
                match o.get("args") {
                    None | Some(Value::Null) => Some(program.to_owned()),
                    Some(Value::Array(args)) => {
                        let mut words = vec![shell_quote(program)];
                        for arg in args {
                            words.push(shell_quote(arg.as_str()?));
                        }
                        Some(words.join(" "))
                    }
                    Some(_) => None,
                }
            }
            _ => None,
        }
    }
    let (items, mut rest) = match &input {
        Value::Object(o) if o.contains_key("commands") => {
            let items = match &o["commands"] {
                Value::String(s) => match serde_json::from_str::<Value>(s) {
                    Ok(Value::Array(list)) if from_parameters => list,
                    _ => vec![Value::String(s.clone())],
                },
                Value::Array(list) => list.clone(),
                _ => return input,
            };
            let mut rest = o.clone();
            rest.remove("commands");
            (items, rest)
        }
        Value::Array(list) => (list.clone(), serde_json::Map::new()),
        other => (vec![other.clone()], serde_json::Map::new()),
    };
    let Some(lines) = items.iter().map(line).collect::<Option<Vec<String>>>() else {
        return input;
    };
    if lines.is_empty() {
        return input;
    }
    for key in ["command", "cmd", "args"] {
        rest.remove(key);
    }
    rest.insert("commands".to_owned(), json!(lines));
    Value::Object(rest)
}

/// Cline CLI 3's `run_commands` call as the commands Cline runs, each on its own (in parallel,
/// in the same folder): its list, with a heredoc split over several entries joined back as
/// `@cline/core` 3.0.65 joins it (an entry with `<<WORD` up to the next entry that is `WORD`,
/// trimmed). `None` for any other call.
pub fn cline_commands_run(input: &HookInput) -> Option<Vec<String>> {
    if input.tool_name.as_deref() != Some(CLINE_SHELL) {
        return None;
    }
    let Value::Array(commands) = &input.tool_input.as_ref()?["commands"] else {
        return None;
    };
    let lines: Vec<&str> = commands.iter().map(Value::as_str).collect::<Option<_>>()?;
    let mut run = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let end = heredoc_word(lines[i])
            .and_then(|word| (i + 1..lines.len()).find(|&j| lines[j].trim() == word))
            .unwrap_or(i);
        run.push(lines[i..=end].join("\n"));
        i = end + 1;
    }
    (!run.is_empty()).then_some(run)
}

/// The word a heredoc in `line` ends at, as `@cline/core` 3.0.65 finds it: the first `<<` not
/// after another `<`, an optional `-`, spaces, then a quoted word or `[A-Za-z0-9_./-]+`.
fn heredoc_word(line: &str) -> Option<&str> {
    static WORD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"^<<-?\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_./-]+))"#)
            .expect("a valid pattern")
    });
    let bytes = line.as_bytes();
    (0..line.len())
        .filter(|&i| line[i..].starts_with("<<") && (i == 0 || bytes[i - 1] != b'<'))
        .find_map(|i| {
            let found = WORD.captures(&line[i..])?;
            (1..=3).find_map(|g| found.get(g)).map(|m| m.as_str())
        })
}

/// Cline CLI 3's `run_commands` input (read into one shape when parsed) whose one command is
/// `line`; `None` for any other input.
pub fn replaced_commands(tool_input: Option<&Value>, line: &str) -> Option<Value> {
    let mut input = tool_input?.clone();
    if !input.get("commands").is_some_and(Value::is_array) {
        return None;
    }
    input["commands"] = json!([line]);
    Some(input)
}
