//! `task` (Taskfile) tasks: the Taskfile (`-t`, `-d`, or the default names), the tasks named
//! on the command line (or `default`), their `deps` and `task:` calls first, and their `cmds`.
//! The YAML is read by indentation for the shapes Taskfiles use (a list of strings, `cmd:`,
//! `task:`, block scalars); what it does not recognise it leaves out.

use std::path::{Path, PathBuf};

use super::{Body, MAX_RECIPES, as_script, first_existing, join, read_file};

const NOTHING_RUNS: [&str; 11] = [
    "-l",
    "--list",
    "-a",
    "--list-all",
    "-n",
    "--dry",
    "--summary",
    "-h",
    "--help",
    "--version",
    "--init",
];

const DEFAULT_NAMES: [&str; 6] = [
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "Taskfile.dist.yaml",
];

/// One task: the commands it runs and the tasks it calls, in order.
#[derive(Debug, Default)]
struct Task {
    name: String,
    steps: Vec<Step>,
}

#[derive(Debug)]
enum Step {
    Command(String),
    Task(String),
}

pub(super) fn tasks(args: &[Option<&str>], cwd: Option<&Path>) -> Result<Vec<Body>, String> {
    let mut file: Option<String> = None;
    let mut dir: Option<PathBuf> = cwd.map(Path::to_path_buf);
    let mut names: Vec<&str> = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(w) = word else {
            return Err("runs a task named at run time".into());
        };
        if *w == "--" {
            break;
        }
        if NOTHING_RUNS.contains(w) {
            return Ok(Vec::new());
        }
        if matches!(*w, "-t" | "--taskfile" | "-d" | "--dir") {
            let Some(Some(value)) = words.next() else {
                return Err(format!("takes `{w}` computed at run time"));
            };
            if matches!(*w, "-t" | "--taskfile") {
                file = Some((*value).to_owned());
            } else {
                dir = Some(join(dir.as_deref(), value));
            }
            continue;
        }
        if !w.starts_with('-') && !w.contains('=') {
            names.push(w);
        }
    }
    let dir = dir.as_deref();
    let path = match file {
        Some(f) => join(dir, &f),
        None => match first_existing(dir, &DEFAULT_NAMES) {
            Some(p) => p,
            None => return Ok(Vec::new()),
        },
    };
    let Some(text) = read_file(&path)? else {
        return Ok(Vec::new());
    };
    let tasks = parse(&text);
    if names.is_empty() {
        names.push("default");
    }
    let mut visited = Vec::new();
    let mut lines = Vec::new();
    for name in names {
        collect(&tasks, name, &mut visited, &mut lines)?;
    }
    Ok(vec![(
        as_script(lines.iter().map(String::as_str)),
        dir.map(Path::to_path_buf),
    )])
}

fn collect(
    tasks: &[Task],
    name: &str,
    visited: &mut Vec<String>,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    if visited.iter().any(|v| v == name) {
        return Ok(());
    }
    if visited.len() >= MAX_RECIPES {
        return Err("runs more tasks than hookjudge reads".into());
    }
    visited.push(name.to_owned());
    let Some(task) = tasks.iter().find(|t| t.name == name) else {
        return Ok(());
    };
    for step in &task.steps {
        match step {
            Step::Command(c) => lines.push(c.clone()),
            Step::Task(t) => collect(tasks, t, visited, lines)?,
        }
    }
    Ok(())
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    s.to_owned()
}

/// The tasks under the top-level `tasks:` key.
fn parse(text: &str) -> Vec<Task> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let mut out: Vec<Task> = Vec::new();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "tasks:") else {
        return out;
    };
    let mut i = start + 1;
    let task_indent = lines.get(i).map_or(0, |l| indent(l));
    if task_indent == 0 {
        return out;
    }
    while i < lines.len() && indent(lines[i]) >= task_indent {
        let line = lines[i];
        i += 1;
        if indent(line) != task_indent {
            continue;
        }
        let Some((name, rest)) = line.trim().split_once(':') else {
            continue;
        };
        let mut task = Task {
            name: unquote(name),
            ..Task::default()
        };
        // `build: go build ./...`: a task given as one command.
        if !rest.trim().is_empty() {
            task.steps.push(Step::Command(unquote(rest)));
        }
        let body_start = i;
        while i < lines.len() && indent(lines[i]) > task_indent {
            i += 1;
        }
        read_task(&lines[body_start..i], &mut task);
        out.push(task);
    }
    out
}

/// The `deps` and `cmds` of one task's body, deps first.
fn read_task(body: &[&str], task: &mut Task) {
    let mut deps: Vec<Step> = Vec::new();
    let mut cmds: Vec<Step> = Vec::new();
    let Some(key_indent) = body.first().map(|l| indent(l)) else {
        return;
    };
    let mut i = 0;
    while i < body.len() {
        let line = body[i].trim();
        i += 1;
        if indent(body[i - 1]) != key_indent {
            continue;
        }
        let (key, rest) = line.split_once(':').unwrap_or((line, ""));
        let into = match key {
            "deps" => &mut deps,
            "cmds" | "cmd" => &mut cmds,
            _ => continue,
        };
        let rest = rest.trim();
        if let Some(list) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            for item in list.split(',').filter(|s| !s.trim().is_empty()) {
                into.push(if key == "deps" {
                    Step::Task(unquote(item))
                } else {
                    Step::Command(unquote(item))
                });
            }
            continue;
        }
        if !rest.is_empty() && !rest.starts_with(['|', '>']) {
            into.push(Step::Command(unquote(rest)));
            continue;
        }
        let end = (i..body.len())
            .find(|&j| indent(body[j]) <= key_indent)
            .unwrap_or(body.len());
        if rest.starts_with(['|', '>']) {
            let block: Vec<&str> = body[i..end].iter().map(|l| l.trim()).collect();
            into.push(Step::Command(block.join("\n")));
        } else {
            list_items(&body[i..end], key == "deps", into);
        }
        i = end;
    }
    task.steps.extend(deps);
    task.steps.extend(cmds);
}

/// `- cmd`, `- cmd: x`, `- task: y`, `- |` blocks.
fn list_items(lines: &[&str], deps: bool, into: &mut Vec<Step>) {
    let mut i = 0;
    while i < lines.len() {
        let item_indent = indent(lines[i]);
        let Some(item) = lines[i].trim().strip_prefix('-') else {
            i += 1;
            continue;
        };
        i += 1;
        let item = item.trim();
        let end = (i..lines.len())
            .find(|&j| indent(lines[j]) <= item_indent)
            .unwrap_or(lines.len());
        let block = |from: usize| -> String {
            lines[from..end]
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join("\n")
        };
        if item.starts_with(['|', '>']) {
            into.push(Step::Command(block(i)));
        } else if let Some(v) = item.strip_prefix("task:") {
            into.push(Step::Task(unquote(v)));
        } else if let Some(v) = item.strip_prefix("cmd:") {
            let v = v.trim();
            if v.starts_with(['|', '>']) {
                into.push(Step::Command(block(i)));
            } else {
                into.push(Step::Command(unquote(v)));
            }
        } else if deps {
            into.push(Step::Task(unquote(item)));
        } else if !item.contains(": ") || item.starts_with(['"', '\'']) {
            into.push(Step::Command(unquote(item)));
        }
        // Keys of the item's own mapping (`task:`/`cmd:` on the next lines).
        for line in &lines[i..end] {
            let l = line.trim();
            if let Some(v) = l.strip_prefix("task:") {
                into.push(Step::Task(unquote(v)));
            } else if let Some(v) = l.strip_prefix("cmd:") {
                into.push(Step::Command(unquote(v)));
            }
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_with_deps_and_calls() {
        let yml = "version: '3'\n\ntasks:\n  default:\n    cmds:\n      - task: test\n  test:\n    cmds:\n      - go test ./...\n  ship:\n    deps: [test]\n    cmds:\n      - cmd: git push origin main\n      - |\n        echo done\n        cargo publish\n  lint: golangci-lint run\n";
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Taskfile.yml"), yml).unwrap();
        let run = |args: &[&str]| {
            let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
            tasks(&args, Some(dir.path())).unwrap()[0].0.clone()
        };
        let ship = run(&["ship"]);
        assert!(
            ship.contains("go test")
                && ship.contains("git push origin main")
                && ship.contains("cargo publish"),
            "{ship}"
        );
        assert!(run(&[]).contains("go test") && !run(&[]).contains("git push"));
        assert!(run(&["lint"]).contains("golangci-lint run"));
    }
}
