//! Programs that code in another language runs: the calls of Python's `subprocess` and
//! `os.system`, Node's `child_process`, Ruby's and Perl's `system`, `exec`, backticks and
//! `qx`/`%x`. A call whose command is written out as strings (`subprocess.run(['git',
//! 'push'])`, `os.system('git push')`) is read as the shell line it runs, like the command
//! line; a call whose command is built at run time cannot be read, and is asked about when
//! the code builds strings, names a gated program or reads its environment or arguments.

use std::path::PathBuf;

use super::{Script, parse_body};

/// The language of a file of code, from its name or the program that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Python,
    Node,
    Ruby,
    Perl,
}

impl Lang {
    /// The language an interpreter (`python3.12`, `node`, `ruby`) runs.
    pub fn of_program(program: &str) -> Option<Lang> {
        let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match base {
            "python" | "pypy" => Some(Lang::Python),
            "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" => Some(Lang::Node),
            "ruby" => Some(Lang::Ruby),
            "perl" => Some(Lang::Perl),
            _ => None,
        }
    }

    /// The language of a file, from its extension or its `#!` line.
    pub fn of_file(path: &str, text: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e);
        match ext {
            Some("py") => return Some(Lang::Python),
            Some("js" | "mjs" | "cjs" | "ts" | "mts") => return Some(Lang::Node),
            Some("rb") => return Some(Lang::Ruby),
            Some("pl" | "pm") => return Some(Lang::Perl),
            _ => {}
        }
        let first = text.lines().next()?.strip_prefix("#!")?;
        first.split(['/', ' ']).find_map(Lang::of_program)
    }
}

/// Functions that run a program. Generic names (`run`, `call`, `exec`) count only in code
/// that imports a module that runs programs.
const CALLS: [&str; 22] = [
    "system",
    "popen",
    "Popen",
    "check_call",
    "check_output",
    "getoutput",
    "getstatusoutput",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "execa",
    "execaSync",
    "capture2",
    "capture2e",
    "capture3",
    "popen3",
    "execvp",
    "execlp",
    "run",
    "call",
];

/// What one call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// A shell line written out in the code.
    Line(String),
    /// Built at run time: the call's source.
    Computed(String),
}

/// A value of a call's argument.
enum Value {
    Str(String),
    List(Vec<String>),
    Other,
}

/// The programs `code` runs, in order.
pub fn calls(code: &str, lang: Lang) -> Vec<Call> {
    located_calls(code, lang)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// [`calls`], each with whether the call names the directory it runs in (`cwd=tmp_path`,
/// `{ cwd: dir }`): a test fixture's scratch repository, not the project.
fn located_calls(code: &str, lang: Lang) -> Vec<(Call, bool)> {
    let mut out = Vec::new();
    let generic = code.contains("subprocess") || code.contains("child_process");
    let bytes = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        // Backticks and `qx{}`/`%x()` in Ruby and Perl run a shell line.
        if matches!(lang, Lang::Ruby | Lang::Perl) && bytes[i] == b'`' {
            let end = code[i + 1..].find('`').map_or(code.len(), |e| i + 1 + e);
            out.push((interpolated(&code[i + 1..end], lang), false));
            i = end + 1;
            continue;
        }
        if !ident(bytes[i]) || (i > 0 && ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let end = code[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(code.len(), |e| i + e);
        let name = &code[i..end];
        let rest = &code[end..];
        if matches!(lang, Lang::Ruby | Lang::Perl)
            && matches!(name, "qx" | "x")
            && (name == "qx" || i > 0 && bytes[i - 1] == b'%')
            && let Some(open) = rest.chars().next().filter(|c| "({[|/!".contains(*c))
        {
            let close = match open {
                '(' => ')',
                '{' => '}',
                '[' => ']',
                c => c,
            };
            let body_end = rest[1..].find(close).map_or(rest.len(), |e| e + 1);
            out.push((interpolated(&rest[1..body_end], lang), false));
            i = end + body_end + 1;
            continue;
        }
        let known = CALLS.contains(&name) && (generic || !matches!(name, "run" | "call"))
            || (name == "exec" && lang != Lang::Python)
            || (name.starts_with("spawn") && name.len() <= 7 && lang == Lang::Python);
        if !known {
            i = end;
            continue;
        }
        let trimmed = rest.trim_start_matches([' ', '\t']);
        let (args, bare) = match trimmed.strip_prefix('(') {
            Some(a) => (a, false),
            // Ruby's and Perl's `system "git push"`, without parentheses.
            None if matches!(lang, Lang::Ruby | Lang::Perl) && trimmed.starts_with(['"', '\'']) => {
                (trimmed, true)
            }
            None => {
                i = end;
                continue;
            }
        };
        let values = arguments(args, bare, lang);
        let source: String = code[i..].chars().take(80).collect();
        let extent = call_extent(args);
        let elsewhere = ["cwd=", "cwd:", "cwd =", "chdir:"]
            .iter()
            .any(|k| extent.contains(k));
        out.push((judge_values(&values, &source), elsewhere));
        i = end;
    }
    out
}

/// The shell line of a call's argument values: a string, a list of strings, or a program
/// followed by its arguments (as strings or a list).
fn judge_values(values: &[Value], source: &str) -> Call {
    if values.is_empty() {
        return Call::Computed(source.to_owned());
    }
    let more_words = values[1..]
        .iter()
        .any(|v| matches!(v, Value::Str(_) | Value::List(_)));
    if let Some(Value::Str(line)) = values.first().filter(|_| !more_words) {
        return Call::Line(line.clone());
    }
    let mut words: Vec<String> = Vec::new();
    for (n, value) in values.iter().enumerate() {
        match value {
            Value::Str(s) => words.push(quote(s)),
            Value::List(l) => words.extend(l.iter().map(|w| quote(w))),
            Value::Other if n == 0 => return Call::Computed(source.to_owned()),
            // Options (`shell=True`, `{ stdio: 'inherit' }`) after the command.
            Value::Other => break,
        }
    }
    if words.is_empty() {
        return Call::Computed(source.to_owned());
    }
    Call::Line(words.join(" "))
}

/// `word` as the shell reads it back: plain when it has nothing the shell would expand.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// A shell line with interpolation (`#{x}`, `$x`): computed when it interpolates.
fn interpolated(text: &str, lang: Lang) -> Call {
    let computed = match lang {
        Lang::Ruby => text.contains("#{"),
        _ => text.contains('$') || text.contains('@'),
    };
    if computed {
        Call::Computed(text.chars().take(80).collect())
    } else {
        Call::Line(text.to_owned())
    }
}

/// The argument values of a call, up to its closing parenthesis (or the line's end).
fn arguments(text: &str, bare: bool, lang: Lang) -> Vec<Value> {
    let mut values = Vec::new();
    let mut rest = text;
    for _ in 0..8 {
        rest = rest.trim_start();
        if rest.starts_with(')') || rest.is_empty() {
            break;
        }
        let (value, after) = value(rest, lang);
        values.push(value);
        let after = after.trim_start_matches([' ', '\t']);
        match after.chars().next() {
            Some(',') => rest = &after[1..],
            Some(')') | Some(';') | Some('\n') | None => break,
            _ if bare => break,
            _ => {
                // `'git ' + x`: the value goes on past what was read.
                if let Some(last) = values.last_mut() {
                    *last = Value::Other;
                }
                break;
            }
        }
    }
    values
}

/// One value at the start of `text` and what follows it.
fn value(text: &str, lang: Lang) -> (Value, &str) {
    if let Some((s, after)) = string(text, lang) {
        return (s.map_or(Value::Other, Value::Str), after);
    }
    if let Some(list) = text.strip_prefix('[') {
        let mut words = Vec::new();
        let mut rest = list;
        loop {
            rest = rest.trim_start();
            if let Some(after) = rest.strip_prefix(']') {
                return (Value::List(words), after);
            }
            match string(rest, lang) {
                Some((Some(s), after)) => {
                    words.push(s);
                    rest = after.trim_start();
                    rest = rest.strip_prefix(',').unwrap_or(rest);
                }
                _ => return (Value::Other, skip_value(rest)),
            }
        }
    }
    (Value::Other, skip_value(text))
}

/// A call's arguments, up to its closing parenthesis (or the end of its line when it has
/// none).
fn call_extent(args: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' if depth == 0 => return &args[..i],
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    args.lines().next().unwrap_or("")
}

/// Past a value this reader does not follow: to the next `,` or `)` at its own depth.
fn skip_value(text: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return &text[i..],
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return &text[i..],
            _ => {}
        }
    }
    ""
}

/// A string literal at the start of `text`: `Some(None)` when it is one whose value is built
/// (an f-string, a template with `${}`, escapes), `None` when `text` holds no string.
fn string(text: &str, lang: Lang) -> Option<(Option<String>, &str)> {
    let prefix = text
        .find(['\'', '"', '`'])
        .filter(|&p| p <= 2 && text[..p].chars().all(|c| "rbfRBFu".contains(c)))?;
    let quote = text[prefix..].chars().next()?;
    if quote == '`' && lang != Lang::Node {
        return None;
    }
    let body = &text[prefix + 1..];
    let end = body.find(quote)?;
    let value = &body[..end];
    let after = &body[end + 1..];
    let built = value.contains('\\')
        || text[..prefix].contains(['f', 'F'])
        || (quote == '`' && value.contains("${"))
        || (lang == Lang::Ruby && quote == '"' && value.contains("#{"))
        || (lang == Lang::Perl && quote == '"' && value.contains(['$', '@']));
    Some(((!built).then(|| value.to_owned()), after))
}

/// Ways code takes strings from outside: the environment or the arguments. With the ways it
/// builds them at run time (`bodies::JOINED_OR_DECODED`), what makes a program it runs unknown.
const GIVEN: [&str; 5] = ["environ", "getenv", "process.env", "ENV[", "argv"];

/// Modules and calls that run programs, for code whose calls this reader did not find.
const HIDDEN_RUNNERS: [&str; 8] = [
    "subprocess",
    "child_process",
    "os.system",
    "os.popen",
    "os.exec",
    "os.spawn",
    "Open3",
    "IO.popen",
];

/// Ways code reaches a function or string by a name it builds (`getattr(subprocess, 'r' +
/// 'un')`, a decoded name).
const HIDDEN_NAMES: [&str; 9] = [
    "getattr(",
    "__import__",
    "decode(",
    "fromhex",
    "b64decode",
    "chr(",
    "fromCharCode",
    "[::-1]",
    "send(",
];

/// Reads what `code` runs into `script`: its literal lines as script bodies (judged like the
/// command line; with `everywhere` unset, only those that run in the current directory, not
/// a directory the call names), and, when a computed call could run anything, a note that
/// the run is asked about. `what` names the code in that note.
pub fn judge(
    code: &str,
    lang: Lang,
    what: &str,
    at: (Option<PathBuf>, usize),
    everywhere: bool,
    script: &mut Script,
) {
    let (cwd, depth) = at;
    let located = located_calls(code, lang);
    for (call, elsewhere) in &located {
        if let Call::Line(line) = call
            && (everywhere || !elsewhere)
        {
            parse_body(line, cwd.clone(), depth + 1, script);
        }
    }
    let calls: Vec<Call> = located.into_iter().map(|(c, _)| c).collect();
    let suspicious = || {
        super::bodies::JOINED_OR_DECODED
            .iter()
            .chain(&GIVEN)
            .any(|b| code.contains(b))
            || code
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .any(crate::gate::tools::is_gated_program)
    };
    let computed = calls.iter().find_map(|c| match c {
        Call::Computed(src) => Some(src.clone()),
        Call::Line(_) => None,
    });
    // Code that runs programs in a way this reader does not see (`getattr(os, 'sys' + 'tem')`).
    let unseen = calls.is_empty()
        && HIDDEN_RUNNERS.iter().any(|r| code.contains(r))
        && HIDDEN_NAMES.iter().any(|b| code.contains(b));
    if let Some(src) = computed.filter(|_| suspicious()) {
        script.unknowable.push(format!(
            "{what} runs a command it builds at run time: `{}`",
            src.lines().next().unwrap_or("")
        ));
    } else if unseen {
        script.unknowable.push(format!(
            "{what} can run programs named by strings it builds at run time"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(code: &str, lang: Lang) -> Vec<Call> {
        calls(code, lang)
    }

    #[test]
    fn literal_calls_are_shell_lines() {
        use Call::*;
        assert_eq!(
            lines(
                "import subprocess\nsubprocess.run(['git', 'branch', '-D', 'wip'])\n",
                Lang::Python
            ),
            [Line("git branch -D wip".into())]
        );
        assert_eq!(
            lines("import os\nos.system('git push')\n", Lang::Python),
            [Line("git push".into())]
        );
        assert_eq!(
            lines(
                "import subprocess\nsubprocess.check_call('git push', shell=True)\n",
                Lang::Python
            ),
            [Line("git push".into())]
        );
        assert_eq!(
            lines(
                "const { execSync, spawnSync } = require('child_process');\nexecSync('npm publish', { stdio: 'inherit' });\nspawnSync('git', ['push', 'origin']);\n",
                Lang::Node
            ),
            [Line("npm publish".into()), Line("git push origin".into())]
        );
        assert_eq!(
            lines("system \"git push\"\n`git tag v1`\n", Lang::Ruby),
            [Line("git push".into()), Line("git tag v1".into())]
        );
        assert_eq!(
            lines("my $x = qx(git push);\n", Lang::Perl),
            [Line("git push".into())]
        );
        // Data and other functions' calls are not programs run.
        assert!(lines("print('git push')\nasyncio.run(main())\n", Lang::Python).is_empty());
        assert!(lines("const s = `git push`;\n", Lang::Node).is_empty());
    }

    #[test]
    fn built_calls_are_computed() {
        for (code, lang) in [
            (
                "import os\nos.system(bytes.fromhex('67').decode())\n",
                Lang::Python,
            ),
            (
                "import subprocess\nsubprocess.run('git ' + verb)\n",
                Lang::Python,
            ),
            (
                "import subprocess\nsubprocess.run(cmd, shell=True)\n",
                Lang::Python,
            ),
            (
                "import subprocess\nsubprocess.run(['git', verb])\n",
                Lang::Python,
            ),
            ("import os\nos.system(f'git {v}')\n", Lang::Python),
            (
                "require('child_process').execSync(`git ${v}`)\n",
                Lang::Node,
            ),
            ("system(\"git #{v}\")\n", Lang::Ruby),
        ] {
            assert!(
                matches!(lines(code, lang).as_slice(), [Call::Computed(_)]),
                "{code}"
            );
        }
    }

    #[test]
    fn a_computed_call_is_asked_about_when_the_code_builds_or_names_a_command() {
        let notes = |code: &str| {
            let mut script = Script::default();
            judge(code, Lang::Python, "`x.py`", (None, 0), true, &mut script);
            (script.unknowable, script.commands.len())
        };
        assert_eq!(
            notes("import os\nos.system(bytes.fromhex('6769').decode())\n")
                .0
                .len(),
            1
        );
        assert_eq!(
            notes("import subprocess\nsubprocess.run(ARGS)\n").0.len(),
            0
        );
        let (asked, commands) = notes("import subprocess\nsubprocess.run(['git', 'status'])\n");
        assert!(asked.is_empty() && commands == 1);
        let scratch = "import subprocess\nsubprocess.run(['git', 'init'], cwd=tmp)\nsubprocess.run(['git', 'push'])\n";
        let mut script = Script::default();
        judge(
            scratch,
            Lang::Python,
            "`t.py`",
            (None, 0),
            false,
            &mut script,
        );
        assert_eq!(script.commands.len(), 1, "only the call in the project");
        assert_eq!(
            notes("import subprocess\ngetattr(subprocess, 'r' + 'un')('x')\n")
                .0
                .len(),
            1,
            "calls hidden behind built names"
        );
        // A program that reads its arguments and runs no program is not asked about.
        let manage = "import sys\nfrom django.core.management import execute_from_command_line\n\n# run the shell\nexecute_from_command_line(sys.argv)\nprint(', '.join(sys.argv))\n";
        assert!(notes(manage).0.is_empty());
    }
}
