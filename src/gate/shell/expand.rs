//! What a found command does to the rest of the walk: wrappers removed, `cd`/`pushd`/`popd`,
//! `set --`, functions and aliases defined earlier, and the bodies it runs (`eval`, `source`,
//! `trap`, `find -exec`, `at`, `parallel`, editors' shell escapes).

use std::path::PathBuf;

use super::bodies::{interpreter_code, is_shell, read_script, shell_body};
use super::computed::{
    ScriptText, computed_command_word, note_filled_variables, record_writes, script_file,
};
use super::runners;
use super::sed;
use super::stdin::Stdin;
use super::unwrap::unwrap_wrappers;
use super::{Scope, Script, SimpleCommand, Word, parse_into};

/// Removes wrappers, applies `cd`, and follows script bodies.
pub(super) fn expand(
    mut cmd: SimpleCommand,
    stdin: Option<Stdin>,
    scope: &mut Scope,
    script: &mut Script,
) {
    let mut bodies: Vec<String> = Vec::new();
    let xargs = cmd.program() == Some("xargs");
    let replace = if xargs { xargs_replace(&cmd) } else { None };
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
    // `python3 tools/release.py`, `python3 -m pkg.release`: what the code runs.
    super::code_files::interpreter_file(&cmd, script);
    unwrap_wrappers(&mut cmd, &mut bodies);
    super::git_runs::git_bodies(&cmd, &mut bodies, script);
    super::path_change::note_shadowing(&cmd, script);
    note_filled_variables(&cmd, scope, script);
    if let Some(why) = computed_command_word(&cmd, script) {
        script.unknowable.push(why);
    }
    // What the command writes, when a later command runs that file (kept before `stdin` is
    // handed on).
    let fed = (!cmd.writes.is_empty() || cmd.program() == Some("tee"))
        .then(|| stdin.clone())
        .flatten();
    if let Some(verb) = exec_name
        && cmd.program() == Some("git")
    {
        cmd.argv.insert(1, Word::Literal(verb));
    }
    if let Some(replace) = replace.filter(|_| cmd.program() != Some("xargs")) {
        // `xargs -I{} git {} <<< push`: each input line takes the place of the replace string.
        let line = match &stdin {
            Some(Stdin::Text(t)) if t.trim().lines().count() == 1 => Some(t.trim().to_owned()),
            _ => None,
        };
        for word in cmd.argv.iter_mut() {
            if let Some(text) = word.literal().filter(|t| t.contains(replace.as_str())) {
                *word = match &line {
                    Some(line) => Word::Literal(text.replace(replace.as_str(), line)),
                    None => Word::Dynamic(format!("$(xargs -I {replace})")),
                };
            }
        }
    } else if xargs && cmd.program() != Some("xargs") {
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
                match script_file(script, cmd.cwd.as_deref(), f) {
                    ScriptText::Text(body) => bodies.push(body),
                    ScriptText::WrittenUnknown(why) => script.unknowable.push(why),
                    ScriptText::Unreadable => {}
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
        // GNU sed's `e` runs a command line, or its input, through the shell.
        Some("sed" | "gsed") => match sed::runs(&cmd) {
            Ok(runs) => {
                for run in runs {
                    match run {
                        sed::Runs::Line(line) => bodies.push(line),
                        sed::Runs::PatternSpace => script.unknowable.push(
                            "`sed` runs lines of its input through the shell (its `e` command)"
                                .into(),
                        ),
                    }
                }
            }
            Err(why) => script.incomplete.push(why),
        },
        Some(p) => {
            path_program(&cmd, script);
            interpreter_code(p, &cmd, stdin, script)
        }
        _ => {}
    }
    for body in bodies {
        parse_into(&body, Scope::at(cmd.cwd.clone()), cmd.depth + 1, script);
    }
    for (body, dir) in runners::recipes(&cmd, script) {
        recipe_body(&cmd, &body, dir, script);
    }
    record_writes(&cmd, fed.as_ref(), script);
    script.commands.push(cmd);
}

/// Make's own variables for programs (`$(CC)`): a recipe's command word taken from one of
/// them is a compiler or tool, not a command filled in at run time.
const MAKE_PROGRAM_VARIABLES: [&str; 14] = [
    "CC", "CXX", "CPP", "FC", "AR", "AS", "LD", "RM", "LEX", "YACC", "MAKE", "M2C", "PC", "TEX",
];

/// A recipe a task runner runs, read with the variables the command sets (`X=… npm run b`
/// fills `$X` in the script). A recipe whose command word is still computed (a variable of
/// the environment, `{{var}}` the runner fills) runs a command no word on the line names.
fn recipe_body(cmd: &SimpleCommand, body: &str, dir: Option<PathBuf>, script: &mut Script) {
    let mut scope = Scope::at(dir);
    for (name, value) in &cmd.env {
        if let Word::Literal(v) = value {
            scope
                .vars
                .push((name.clone(), super::Value::Scalar(v.clone())));
            scope.exported.push((name.clone(), value.clone()));
        }
    }
    let before = script.commands.len();
    parse_into(body, scope, cmd.depth + 1, script);
    let computed = script.commands[before..]
        .iter()
        .find_map(|c| match c.argv.first() {
            Some(Word::Dynamic(src))
                if !MAKE_PROGRAM_VARIABLES
                    .iter()
                    .any(|v| src == &format!("$({v})") || src == &format!("${{{v}}}")) =>
            {
                Some(src.clone())
            }
            _ => None,
        });
    if let Some(src) = computed {
        script.unknowable.push(format!(
            "`{}` runs a recipe whose command `{src}` is only known at run time",
            short(&cmd.source)
        ));
    }
}

fn short(text: &str) -> String {
    crate::support::text::short(text, 80)
}

/// `./ship.sh push`: a program named by a path runs that file. A shell script (or one without
/// a `#!` line) is read like the line, with its arguments as `$1`…; code in another language
/// only for a gated action. Notes inside the file (a computed word it cannot follow) are not
/// the line's: only what it runs and what is unknowable count.
fn path_program(cmd: &SimpleCommand, script: &mut Script) {
    let Some(Word::Literal(path)) = cmd.argv.first() else {
        return;
    };
    if !path.contains('/') {
        return;
    }
    let text = match script_file(script, cmd.cwd.as_deref(), path) {
        ScriptText::Text(text) => text,
        ScriptText::WrittenUnknown(why) => return script.unknowable.push(why),
        ScriptText::Unreadable => return,
    };
    let first = text.lines().next().unwrap_or("");
    let shell =
        !first.starts_with("#!") || first.split(['/', ' ']).any(|part| is_shell(part.trim()));
    if !shell {
        use super::code_calls::{Lang, judge};
        let lang = Lang::of_file(path, &text).unwrap_or(Lang::Python);
        let what = format!("`{path}`");
        judge(
            &text,
            lang,
            &what,
            (cmd.cwd.clone(), cmd.depth),
            true,
            script,
        );
        if super::bodies::code_runs_gated(&text) {
            script
                .unknowable
                .push(format!("runs `{path}`, code that runs a gated command"));
        }
        return;
    }
    let mut scope = Scope::at(cmd.cwd.clone());
    scope.positional = cmd.argv[1..]
        .iter()
        .map(|w| w.literal().map(str::to_owned))
        .collect();
    let mut inner = Script::default();
    parse_into(&text, scope, cmd.depth + 1, &mut inner);
    script.commands.extend(inner.commands);
    script.unknowable.extend(inner.unknowable);
}

/// The replace string of `xargs -I R` / `-i[R]` / `--replace[=R]`, read from xargs' own options.
fn xargs_replace(cmd: &SimpleCommand) -> Option<String> {
    let mut words = cmd.argv[1..].iter().map(Word::literal);
    while let Some(Some(word)) = words.next() {
        if !word.starts_with('-') || word == "--" {
            break;
        }
        if word == "-I" {
            return words.next().flatten().map(str::to_owned);
        }
        if let Some(r) = word.strip_prefix("-I") {
            return Some(r.to_owned());
        }
        if let Some(r) = word.strip_prefix("--replace=") {
            return Some(r.to_owned());
        }
        if word == "--replace" || word == "-i" {
            return Some("{}".into());
        }
        if let Some(r) = word.strip_prefix("-i") {
            return Some(r.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::gate::shell::{Word, parse};

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
}
