//! The scripts shells and interpreters are handed: `sh -c`, a script file, standard input,
//! `BASH_ENV`, and inline interpreter code (noted, never evaluated).

use std::path::{Path, PathBuf};

use super::computed::{ScriptText, script_file};
use super::stdin::Stdin;
use super::{MAX_SCRIPT_FILE_BYTES, Script, SimpleCommand, Word, parse_body};
use crate::gate::wrappers;

pub(super) fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "ash" | "yash" | "busybox"
    )
}

/// The script a shell runs: `-c SCRIPT`, a script file, or its standard input.
pub(super) fn shell_body(
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
                match script_file(script, cmd.cwd.as_deref(), f) {
                    ScriptText::Text(body) => bodies.push(body),
                    _ => script
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
        (false, Some(Word::Literal(file))) => match script_file(script, cmd.cwd.as_deref(), file) {
            ScriptText::Text(body) => bodies.push(body),
            ScriptText::WrittenUnknown(why) => script.unknowable.push(why),
            ScriptText::Unreadable => script.incomplete.push(format!(
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
pub(super) fn read_script(cwd: Option<&Path>, file: &str) -> Option<String> {
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
pub(super) fn interpreter_code(
    program: &str,
    cmd: &SimpleCommand,
    stdin: Option<Stdin>,
    script: &mut Script,
) {
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
    } else if let Some(c) = code.iter().find(|c| {
        runs_programs(c)
            && (builds_strings(c)
                || (reads_arguments(c)
                    && args.iter().filter_map(Word::literal).any(|a| {
                        crate::gate::tools::is_gated_program(a)
                            || crate::gate::tools::is_gated_verb(a)
                    })))
    }) {
        // Asked about whatever else the line holds: the program's name is the string built.
        script.unknowable.push(format!(
            "`{program}` runs a program named by a string it builds or is given at run time: `{}`",
            c.chars().take(80).collect::<String>()
        ));
    } else if let Some(src) = unreadable {
        script.incomplete.push(format!(
            "`{program}` runs code from {src}, which cannot be read"
        ));
    }
}

fn runs_programs(code: &str) -> bool {
    wrappers::RUNS_PROGRAMS.iter().any(|r| code.contains(r))
}

/// Ways code builds a string at run time: concatenation, joins, character codes, escapes,
/// reversal and decoding (`'g'+'it p'+'ush'`, `chr(103)`, `[::-1]`, `b64decode`). Also read by
/// `code_calls` for files of code.
pub(super) const JOINED_OR_DECODED: [&str; 17] = [
    "'+'",
    "\"+\"",
    "' +",
    "\" +",
    "+ '",
    "+ \"",
    ".join(",
    "chr(",
    "fromCharCode",
    "\\x",
    "[::-1]",
    "reverse",
    "decode(",
    "fromhex",
    "b64decode",
    "concat(",
    "pack(",
];

/// More ways a one-line program builds a string: mixed quotes, hex, base64, rot13, `format`.
const ALSO_BUILDS: [&str; 7] = [
    "'+\"",
    "\"+'",
    "unhexlify",
    "base64",
    "atob(",
    "rot13",
    ".format(",
];

fn builds_strings(code: &str) -> bool {
    JOINED_OR_DECODED
        .iter()
        .chain(&ALSO_BUILDS)
        .any(|b| code.contains(b))
}

/// Code that runs the words it is given (`exec @ARGV`, `subprocess.run(sys.argv[1:])`).
fn reads_arguments(code: &str) -> bool {
    [
        "@ARGV",
        "$ARGV",
        "sys.argv",
        "process.argv",
        "ARGV",
        "$argv",
        "args",
    ]
    .iter()
    .any(|a| code.contains(a))
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

/// Verbs that, in code that runs programs and names a gated program, make it a gated action
/// (`subprocess.run(['git', 'push'])`; a fixture's `git init` or `git commit` in a scratch
/// repository is not publishing).
const PUBLISHING_VERBS: [&str; 7] = [
    "push",
    "send-pack",
    "publish",
    "unpublish",
    "deploy",
    "upload",
    "yank",
];

/// Whether code in another language runs a gated action: it runs programs, names a gated
/// program and a publishing verb.
pub(super) fn code_runs_gated(code: &str) -> bool {
    names_gated_program(code)
        && wrappers::RUNS_PROGRAMS.iter().any(|r| code.contains(r))
        && code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .any(|w| PUBLISHING_VERBS.contains(&w))
}

fn names_gated_program(code: &str) -> bool {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .any(crate::gate::tools::is_gated_program)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::shell::parse;
    use crate::gate::shell::test_support::case;

    /// Interpreter code that runs a program whose name or arguments it builds at run time
    /// (concatenated, reversed, decoded from hex or base64, a module imported by a built name)
    /// is unknowable whatever the rest of the line says; code that only builds strings, or only
    /// runs a program it names, is not.
    #[test]
    fn interpreter_code_running_built_strings_is_unknowable() {
        let unknowable = |line: &str| parse(line, Path::new("/nonexistent-dir")).unknowable;
        for line in [
            "python3 -c \"import importlib;m=importlib.import_module('sub'+'process');m.run(['gi'+'t','com'+'mit','-qam','x'])\"",
            "python3 -c \"exec(bytes.fromhex('696d706f7274206f73').decode())\"",
            "perl -e '$_=reverse \"sutats tig\"; system $_'",
            "python3 -c \"import os,base64; os.system(base64.b64decode('Z2l0').decode())\"",
            "node -e \"require('child_process').execSync(['gi','t'].join('') + ' status')\"",
            "ruby -e 'system(\"gi\" + \"t status\")'",
        ] {
            assert!(!unknowable(line).is_empty(), "{line}");
        }
        for line in [
            "python3 -c \"print('a' + 'b')\"",
            "python3 -c \"print(', '.join(['a', 'b']))\"",
            "python3 -c \"import subprocess; subprocess.run(['ls', '-l'])\"",
            "node -e \"console.log(require('./package.json').version)\"",
            "python3 -c \"import base64; print(base64.b64encode(b'x'))\"",
        ] {
            assert!(unknowable(line).is_empty(), "{line}");
        }
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
}
