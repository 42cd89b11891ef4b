//! Command words the line only knows at run time, and files it writes before running them.
//!
//! `read -r c <<< 'git push'; $c`, `printf -v c …`, `mapfile -t a`: the variable is filled
//! from data when the line runs, so a command word taken from it is computed (and asked
//! about). `echo 'git push' > x.sh; source x.sh`: the file a later command runs is what the
//! line wrote, not what is on disk when the gate looks; when the line shows what it wrote, that
//! text is read like any script, otherwise what runs is unknowable.

use std::path::{Path, PathBuf};

use super::bodies::read_script;
use super::stdin::{Stdin, printf_output};
use super::{Scope, Script, SimpleCommand, Value, Word};

/// `read`, `printf -v` and `mapfile`/`readarray`: the variables they fill become computed.
pub(super) fn note_filled_variables(cmd: &SimpleCommand, scope: &mut Scope, script: &mut Script) {
    let args: Vec<&str> = cmd.argv.iter().skip(1).map(Word::text).collect();
    let names: Vec<&str> = match cmd.program() {
        Some("read") => operands(&args, &["-d", "-n", "-N", "-p", "-t", "-u", "-i"], &["-a"]),
        Some("mapfile" | "readarray") => {
            let named = operands(&args, &["-d", "-n", "-O", "-s", "-u", "-C", "-c"], &[]);
            if named.is_empty() {
                vec!["MAPFILE"]
            } else {
                named
            }
        }
        Some("printf") => args
            .windows(2)
            .filter(|p| p[0] == "-v")
            .map(|p| p[1])
            .collect(),
        _ => return,
    };
    for name in names {
        let name = name.split('[').next().unwrap_or(name);
        scope.vars.push((name.to_owned(), Value::Unknown));
        script.computed_vars.push(name.to_owned());
    }
}

/// The operands of a builtin: words after the options (`value_options` take the next word,
/// `named_options` take the next word and it is a name too).
fn operands<'a>(args: &[&'a str], value_options: &[&str], named_options: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(w) = words.next() {
        if named_options.contains(w) {
            out.extend(words.next().copied());
        } else if value_options.contains(w) {
            words.next();
        } else if !w.starts_with('-') {
            out.push(*w);
        }
    }
    out
}

/// Why `cmd`'s program (or, for a gated tool, its verb) is a word the line fills at run time.
pub(super) fn computed_command_word(cmd: &SimpleCommand, script: &Script) -> Option<String> {
    let from_filled = |w: &Word| match w {
        Word::Dynamic(src) => script
            .computed_vars
            .iter()
            .any(|name| expands(src, name))
            .then(|| src.clone()),
        Word::Literal(_) => None,
    };
    if let Some(src) = cmd.argv.first().and_then(from_filled) {
        return Some(format!(
            "runs `{src}`, a command the line reads at run time"
        ));
    }
    let gated_tool = cmd
        .program()
        .is_some_and(crate::gate::tools::is_gated_program);
    let verb = cmd
        .argv
        .get(1)
        .filter(|_| gated_tool)
        .and_then(from_filled)?;
    Some(format!(
        "runs `{} {verb}`, whose verb the line reads at run time",
        cmd.argv[0].text()
    ))
}

/// Whether `src` expands the variable `name` (`$c`, `${c}`, `${a[0]}`, `"$c"`).
pub(super) fn expands(src: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    src.match_indices('$').any(|(i, _)| {
        let rest = src[i + 1..].trim_start_matches('{');
        rest.strip_prefix(name)
            .is_some_and(|after| !after.starts_with(ident))
    })
}

/// Records the files `cmd` writes through redirections (and `tee`), with their text when the
/// line shows it: `echo`/`printf` of literal words, or `cat`/`tee` fed known text.
pub(super) fn record_writes(cmd: &SimpleCommand, stdin: Option<&Stdin>, script: &mut Script) {
    let tee = cmd.program() == Some("tee");
    if cmd.writes.is_empty() && !tee {
        return;
    }
    let literal: Option<Vec<&str>> = cmd.argv.iter().map(Word::literal).collect();
    let fed = match stdin {
        Some(Stdin::Text(t)) => Some(t.clone()),
        _ => None,
    };
    let printed = match literal.as_deref() {
        Some(["echo", rest @ ..]) => {
            let rest: Vec<&str> = rest
                .iter()
                .copied()
                .skip_while(|a| matches!(*a, "-n" | "-e" | "-E"))
                .collect();
            Some(format!("{}\n", rest.join(" ")))
        }
        Some(["printf", format, args @ ..]) if !format.starts_with('-') => {
            Some(printf_output(format, args))
        }
        Some(["cat"]) => fed.clone(),
        _ => None,
    };
    let mut targets: Vec<&Word> = cmd.writes.iter().collect();
    if cmd.program() == Some("tee") {
        targets.extend(
            cmd.argv
                .iter()
                .skip(1)
                .filter(|w| !w.text().starts_with('-')),
        );
    }
    let tee = cmd.program() == Some("tee");
    for target in targets {
        let Some(file) = target.literal() else {
            continue;
        };
        let path = at(cmd.cwd.as_deref(), file);
        let text = if tee { fed.clone() } else { printed.clone() };
        // A second write to the same file (`>>`) makes its text unknown.
        let text = text.filter(|_| !script.written.iter().any(|(p, _)| *p == path));
        script.written.push((path, text));
    }
}

/// The text of a script file a later command of the line runs.
pub(super) enum ScriptText {
    Text(String),
    /// An earlier command of the line wrote it, with text the line does not show.
    WrittenUnknown(String),
    /// Not written by the line, and not readable now.
    Unreadable,
}

/// `file` as an earlier command of the line left it, or as it is on disk now.
pub(super) fn script_file(script: &Script, cwd: Option<&Path>, file: &str) -> ScriptText {
    let path = at(cwd, file);
    if let Some((_, text)) = script.written.iter().rev().find(|(p, _)| *p == path) {
        return match text {
            Some(t) => ScriptText::Text(t.clone()),
            None => ScriptText::WrittenUnknown(format!(
                "runs `{file}`, which an earlier command of the line writes"
            )),
        };
    }
    match read_script(cwd, file) {
        Some(t) => ScriptText::Text(t),
        None => ScriptText::Unreadable,
    }
}

/// [`script_file`] for a file fed to a shell on its standard input: the text, or why it is
/// not known.
pub(super) fn script_text(
    script: &Script,
    cwd: Option<&Path>,
    file: &str,
) -> Result<String, String> {
    match script_file(script, cwd, file) {
        ScriptText::Text(t) => Ok(t),
        ScriptText::WrittenUnknown(why) => Err(why),
        ScriptText::Unreadable => Err(format!("the file `{file}`, which cannot be read now")),
    }
}

fn at(cwd: Option<&Path>, file: &str) -> PathBuf {
    match cwd {
        Some(c) if !file.starts_with('/') => c.join(file),
        _ => PathBuf::from(file),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::shell::parse;

    fn unknowable(line: &str) -> Vec<String> {
        parse(line, Path::new("/nonexistent-dir")).unknowable
    }

    #[test]
    fn command_words_filled_at_run_time_are_unknowable() {
        for line in [
            "read -r c <<< 'git push'; $c",
            "printf -v c 'git push'; $c",
            "mapfile -t a <<< 'git push'; ${a[0]}",
            "readarray a < list; \"${a[@]}\"",
            "read -r v <<< push; git $v",
            "echo 'x' > s.sh; echo more >> s.sh; source s.sh",
        ] {
            assert!(!unknowable(line).is_empty(), "{line}");
        }
        for line in [
            "read -r name; echo \"$name\"",
            "while read -r f; do wc -l \"$f\"; done < files.txt",
            "printf -v now '%(%s)T' -1; echo $now",
            "echo 'git status' > s.sh; bash s.sh",
        ] {
            assert!(unknowable(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn a_script_the_line_writes_is_read_as_written() {
        let s = parse(
            "echo 'git push origin main' > /tmp/p.sh; source /tmp/p.sh",
            Path::new("/w"),
        );
        assert!(
            s.commands
                .iter()
                .any(|c| c.argv.first().and_then(|w| w.literal()) == Some("git")),
            "{:?}",
            s.commands
        );
    }
}
