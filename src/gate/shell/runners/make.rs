//! Makefile targets: the makefile `make` reads (`-f`, `-C`, `--eval`, or the default names),
//! the goals (or the default goal), each goal's prerequisites first, and the recipe lines with
//! the makefile's variables, `$(MAKE)` and the automatic variables expanded. Conditionals are
//! not evaluated: every branch counts. `include`d files are read too, a few of them.
//!
//! Make runs some commands while it reads the makefile, whatever goal is named (even with
//! `-n`): every `$(shell …)` outside a recipe and every `VAR != command`. They are read first,
//! as recipe lines of their own.

use std::path::{Path, PathBuf};

use super::{Body, MAX_RECIPES, as_script, first_existing, join, read_file};

/// Options after which make runs no recipe (it prints, checks or plans); it still reads the
/// makefile, and so runs what the makefile runs while it is read.
const NO_RECIPE_RUNS: [&str; 10] = [
    "-n",
    "--just-print",
    "--dry-run",
    "--recon",
    "-q",
    "--question",
    "-p",
    "--print-data-base",
    "-t",
    "--touch",
];

/// Options after which make reads no makefile.
const NOTHING_RUNS: [&str; 4] = ["-h", "--help", "-v", "--version"];

/// Options that take the next word as their value.
const VALUE_OPTIONS: [&str; 10] = [
    "-C",
    "--directory",
    "-f",
    "--file",
    "--makefile",
    "-o",
    "-W",
    "-I",
    "--eval",
    "-E",
];

/// How many files `include` may add.
const MAX_INCLUDES: usize = 8;

/// A rule: its targets, prerequisites and recipe lines.
#[derive(Debug, Default)]
struct Rule {
    targets: Vec<String>,
    prerequisites: Vec<String>,
    recipe: Vec<String>,
}

#[derive(Debug, Default)]
struct Makefile {
    variables: Vec<(String, String)>,
    rules: Vec<Rule>,
    default_goal: Option<String>,
    /// Commands make runs while it reads the makefile (`$(shell …)`, `!=`).
    parse_time: Vec<String>,
}

pub(super) fn recipes(args: &[Option<&str>], cwd: Option<&Path>) -> Result<Vec<Body>, String> {
    let mut dir: Option<PathBuf> = cwd.map(Path::to_path_buf);
    let mut files: Vec<String> = Vec::new();
    let mut evals: Vec<String> = Vec::new();
    let mut goals: Vec<String> = Vec::new();
    let mut overrides: Vec<(String, String)> = Vec::new();
    let mut recipes_run = true;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(w) = word else {
            return Err("runs a goal or makefile computed at run time".into());
        };
        if NOTHING_RUNS.contains(w) {
            return Ok(Vec::new());
        }
        recipes_run &= !NO_RECIPE_RUNS.contains(w);
        let (name, attached) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ if w.len() > 2
                && w.get(..2)
                    .is_some_and(|o| ["-C", "-f", "-o", "-W", "-I", "-E"].contains(&o)) =>
            {
                (&w[..2], Some(w[2..].to_owned()))
            }
            _ => (*w, None),
        };
        if VALUE_OPTIONS.contains(&name) {
            let value = match attached {
                Some(v) => v,
                None => match words.next() {
                    Some(Some(v)) => (*v).to_owned(),
                    Some(None) => return Err(format!("takes `{name}` computed at run time")),
                    None => break,
                },
            };
            match name {
                "-C" | "--directory" => dir = Some(join(dir.as_deref(), &value)),
                "-f" | "--file" | "--makefile" => files.push(value),
                "--eval" | "-E" => evals.push(value),
                _ => {}
            }
            continue;
        }
        if w.starts_with('-') {
            continue;
        }
        match w.split_once('=') {
            Some((k, v)) if !k.contains(['/', ' ']) => overrides.push((k.to_owned(), v.to_owned())),
            _ => goals.push((*w).to_owned()),
        }
    }
    let dir = dir.as_deref();
    let mut texts: Vec<(String, PathBuf)> = evals
        .into_iter()
        .map(|e| (e, dir.map(Path::to_path_buf).unwrap_or_default()))
        .collect();
    if files.is_empty()
        && let Some(path) = first_existing(dir, &["GNUmakefile", "makefile", "Makefile"])
    {
        files.push(path.display().to_string());
    }
    for file in &files {
        let path = join(dir, file);
        match read_file(&path)? {
            Some(text) => texts.push((text, path)),
            // `-f -` and `/dev/stdin`: the makefile is whatever the pipe or redirection feeds.
            None if file == "-" || file == "/dev/stdin" => {
                return Err("reads its makefile from standard input".into());
            }
            None if file.starts_with("/dev/fd/") || file.starts_with("/proc/") => {
                return Err(format!("reads a makefile from `{file}`"));
            }
            None => {}
        }
    }
    if texts.is_empty() {
        return Ok(Vec::new()); // no makefile: make stops
    }
    let mut makefile = Makefile::default();
    let mut includes = 0;
    while let Some((text, path)) = texts.first().cloned() {
        texts.remove(0);
        for included in parse(&text, &mut makefile) {
            includes += 1;
            if includes > MAX_INCLUDES {
                return Err("includes more makefiles than hookjudge reads".into());
            }
            let base = path.parent().or(dir);
            if let Some(text) = read_file(&join(base, &included))? {
                texts.push((text, join(base, &included)));
            }
        }
    }
    makefile.variables.extend(overrides);
    if goals.is_empty() {
        goals.extend(makefile.default_goal.clone());
    }
    let mut lines: Vec<String> = makefile
        .parse_time
        .iter()
        .map(|c| expand(c, &makefile, "", &[], 0))
        .collect();
    let mut visited: Vec<String> = Vec::new();
    for goal in goals.iter().filter(|_| recipes_run) {
        collect(&makefile, goal, &mut visited, &mut lines)?;
    }
    Ok(vec![(
        as_script(lines.iter().map(String::as_str)),
        dir.map(Path::to_path_buf),
    )])
}

/// The recipe lines `target` runs, its prerequisites' first.
fn collect(
    makefile: &Makefile,
    target: &str,
    visited: &mut Vec<String>,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    if visited.iter().any(|v| v == target) {
        return Ok(());
    }
    if visited.len() >= MAX_RECIPES {
        return Err("runs more targets than hookjudge reads".into());
    }
    visited.push(target.to_owned());
    let rules: Vec<&Rule> = makefile
        .rules
        .iter()
        .filter(|r| r.targets.iter().any(|t| t == target))
        .collect();
    for rule in &rules {
        for prerequisite in &rule.prerequisites {
            collect(makefile, prerequisite, visited, lines)?;
        }
    }
    for rule in rules {
        for line in &rule.recipe {
            lines.push(expand(line, makefile, target, &rule.prerequisites, 0));
        }
    }
    Ok(())
}

/// Reads `text` into `makefile`; gives back the files it `include`s.
fn parse(text: &str, makefile: &mut Makefile) -> Vec<String> {
    let mut includes = Vec::new();
    let mut current: Option<usize> = None;
    let mut in_define = false;
    for line in logical_lines(text) {
        if in_define {
            in_define = line.trim() != "endef";
            continue;
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            if let Some(i) = current {
                let recipe = recipe.trim_start_matches(['@', '-', '+', ' ', '\t']);
                if !recipe.is_empty() && !recipe.starts_with('#') {
                    makefile.rules[i].recipe.push(recipe.to_owned());
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        makefile.parse_time.extend(shell_calls(trimmed));
        let first = trimmed.split_whitespace().next().unwrap_or("");
        match first {
            "define" => {
                in_define = true;
                current = None;
                continue;
            }
            "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif" => continue,
            "include" | "-include" | "sinclude" => {
                includes.extend(trimmed.split_whitespace().skip(1).map(str::to_owned));
                continue;
            }
            _ => {}
        }
        if let Some((name, value)) = assignment(trimmed) {
            if trimmed
                .split_once('=')
                .is_some_and(|(n, _)| n.ends_with('!'))
            {
                makefile.parse_time.push(value.clone());
            }
            if name == ".DEFAULT_GOAL" {
                makefile.default_goal = Some(value.clone());
            }
            makefile.variables.push((name, value));
            current = None;
            continue;
        }
        let Some((targets, rest)) = rule_line(trimmed) else {
            current = None;
            continue;
        };
        let (prerequisites, inline) = match rest.split_once(';') {
            Some((p, r)) => (p, Some(r.trim())),
            None => (rest, None),
        };
        let targets: Vec<String> = targets.split_whitespace().map(str::to_owned).collect();
        if makefile.default_goal.is_none()
            && let Some(t) = targets
                .iter()
                .find(|t| !t.starts_with('.') && !t.contains('%'))
        {
            makefile.default_goal = Some(t.clone());
        }
        let mut rule = Rule {
            targets,
            prerequisites: prerequisites
                .split_whitespace()
                .filter(|p| *p != "|")
                .map(str::to_owned)
                .collect(),
            recipe: Vec::new(),
        };
        if let Some(r) = inline.filter(|r| !r.is_empty()) {
            rule.recipe
                .push(r.trim_start_matches(['@', '-', '+']).to_owned());
        }
        makefile.rules.push(rule);
        current = Some(makefile.rules.len() - 1);
    }
    includes
}

/// The commands of the `$(shell …)` (or `${shell …}`) calls in `line`, parentheses balanced.
fn shell_calls(line: &str) -> Vec<String> {
    let mut calls = Vec::new();
    for (open, close) in [('(', ')'), ('{', '}')] {
        let marker = format!("${open}shell ");
        let mut rest = line;
        while let Some(at) = rest.find(&marker) {
            let body = &rest[at + marker.len()..];
            let mut depth = 1;
            let end = body
                .char_indices()
                .find(|&(_, c)| {
                    depth += i32::from(c == open) - i32::from(c == close);
                    depth == 0
                })
                .map_or(body.len(), |(i, _)| i);
            calls.push(body[..end].trim().to_owned());
            rest = &body[end..];
        }
    }
    calls
}

/// Lines with backslash-newline continuations joined (a recipe line's continuation loses the
/// tab make strips).
fn logical_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending: Option<String> = None;
    for raw in text.lines() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = match pending.take() {
            Some(p) => {
                let mut p = p.trim_end().to_owned();
                p.push(' ');
                p.push_str(raw.trim_start_matches('\t').trim_start());
                p
            }
            None => raw.to_owned(),
        };
        match line.strip_suffix('\\') {
            Some(head) => pending = Some(head.to_owned()),
            None => out.push(line),
        }
    }
    out.extend(pending);
    out
}

/// `NAME = value` (also `:=`, `::=`, `?=`, `+=`, `!=`, after `export`/`override`).
fn assignment(line: &str) -> Option<(String, String)> {
    let line = line
        .strip_prefix("export ")
        .or_else(|| line.strip_prefix("override "))
        .unwrap_or(line);
    let eq = line.find('=')?;
    let before = &line[..eq];
    let name = before.trim_end_matches([':', '?', '+', '!']).trim();
    if name.is_empty() || name.contains([' ', '\t', ':', '$']) && !name.starts_with("$(") {
        return None;
    }
    // `target: VAR=value` is a target-specific variable, not a plain assignment.
    if before.trim_end_matches([':', '?', '+', '!']).contains(':') {
        return None;
    }
    Some((name.to_owned(), line[eq + 1..].trim().to_owned()))
}

/// `targets: prerequisites`: the text before and after the rule's colon (`::` too).
fn rule_line(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    if line[colon..].starts_with(":=") || line[colon..].starts_with("::=") {
        return None;
    }
    let rest = line[colon + 1..].trim_start_matches(':');
    Some((&line[..colon], rest))
}

/// A recipe line with `$$`, `$(MAKE)`, automatic variables and the makefile's own variables
/// expanded. Unknown variables and functions stay as written: the shell then sees a command
/// substitution, a word computed at run time.
fn expand(
    line: &str,
    makefile: &Makefile,
    target: &str,
    prerequisites: &[String],
    depth: usize,
) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().map(|(_, c)| *c) {
            Some('$') => {
                chars.next();
                out.push('$');
            }
            Some('@') => {
                chars.next();
                out.push_str(target);
            }
            Some('<') => {
                chars.next();
                out.push_str(prerequisites.first().map_or("", String::as_str));
            }
            Some('^' | '+') => {
                chars.next();
                out.push_str(&prerequisites.join(" "));
            }
            Some(open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                let start = i + 2;
                let Some(len) = line[start..].find(close) else {
                    out.push_str(&line[i..]);
                    break;
                };
                let name = &line[start..start + len];
                // Skip past the reference.
                while chars.peek().is_some_and(|(j, _)| *j <= start + len) {
                    chars.next();
                }
                let value = match name {
                    "MAKE" => Some("make".to_owned()),
                    // `$(shell cmd)` in a recipe runs `cmd` when make expands the line.
                    _ if name.starts_with("shell ") => Some(format!("$({})", &name[6..])),
                    // A secret's value stays out of the commands the gate shows and logs.
                    _ if is_secret_name(name) => None,
                    _ if depth < 8 => makefile
                        .variables
                        .iter()
                        .rev()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| expand(v, makefile, target, prerequisites, depth + 1)),
                    _ => None,
                };
                match value {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&line[i..start + len + 1]),
                }
            }
            _ => out.push('$'),
        }
    }
    out
}

/// Names of variables that hold credentials (`GITHUB_TOKEN`, `DB_PASSWORD`, `API_KEY`).
fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "KEY",
        "AUTH",
        "CREDENTIAL",
    ]
    .iter()
    .any(|s| upper.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(makefile: &str, args: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
        let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        let bodies = recipes(&args, Some(dir.path())).unwrap();
        bodies.into_iter().map(|(b, _)| b).collect()
    }

    #[test]
    fn goals_run_their_prerequisites_and_recipes() {
        let mk = "REMOTE := origin\nbuild:\n\t@echo build\nship: build\n\tgit push $(REMOTE) main\n\nall:\n\techo hi\nrec:\n\t$(MAKE) ship\n";
        let ship = run(mk, &["ship"]);
        assert!(
            ship.contains("echo build") && ship.contains("git push origin main"),
            "{ship}"
        );
        assert!(
            run(mk, &[]).contains("echo build"),
            "the first target is the default"
        );
        assert!(!run(mk, &["all"]).contains("git push"));
        assert!(run(mk, &["rec"]).contains("make ship"));
        assert!(!run(mk, &["-n", "ship"]).contains("git push"));
        assert!(run(mk, &["--help"]).is_empty());
        assert!(run(mk, &["--eval", "x:; git push", "x"]).contains("git push"));
        // An option word whose second character takes several bytes is read, not split.
        assert!(!run(mk, &["-€"]).contains("git push"));
    }

    #[test]
    fn continuations_and_assignments() {
        let mk = "CARGO ?= cargo\nrelease: ; $(CARGO) publish \\\n\t--locked\nt: X=1\nt:\n\techo $$HOME $@\n";
        assert!(run(mk, &["release"]).contains("cargo publish --locked"));
        assert!(run(mk, &["t"]).contains("echo $HOME t"));
        let secret =
            "GH_TOKEN := ghp_abc\nship:\n\tgh api -H 'Authorization: token $(GH_TOKEN)' user\n";
        let ship = run(secret, &["ship"]);
        assert!(
            ship.contains("$(GH_TOKEN)") && !ship.contains("ghp_abc"),
            "{ship}"
        );
    }

    #[test]
    fn commands_run_while_the_makefile_is_read_count_for_any_goal() {
        let mk = "X := $(shell git push -q origin main 2>&1)\nY != git push --tags\nifeq ($(shell git branch -D wip),)\nendif\nhelp:\n\t@echo help\nz:\n\techo $(shell git push z)\n";
        let help = run(mk, &["help"]);
        for wanted in [
            "git push -q origin main 2>&1",
            "git push --tags",
            "git branch -D wip",
            "echo help",
        ] {
            assert!(help.contains(wanted), "{wanted} in {help}");
        }
        assert!(run(mk, &["-n", "help"]).contains("git push --tags"));
        assert!(run(mk, &["z"]).contains("echo $(git push z)"));
        assert!(!run("X := $(wildcard *.c)\nall:\n\techo\n", &[]).contains("wildcard"));
    }
}
