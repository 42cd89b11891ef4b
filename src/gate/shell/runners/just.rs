//! `just` recipes: the justfile (`--justfile`, `--working-directory`, or `justfile` found
//! upward from the directory), the recipes named on the command line (or the first one), their
//! dependencies first, and their lines. A recipe with a shebang of another language is only
//! checked for a gated action.
//!
//! `{{name}}` in a line is the justfile's variable of that name when its value is a string
//! (or strings joined with `+`); any other interpolation (a parameter, a function call) is
//! a word computed at run time. A backtick in an assignment runs while the justfile is read,
//! whatever recipe is named: it is read first, as a line of its own.

use std::path::{Path, PathBuf};

use super::{Body, MAX_RECIPES, as_script, join, read_file};

/// Options after which just runs no recipe.
const NOTHING_RUNS: [&str; 15] = [
    "-l",
    "--list",
    "--summary",
    "--show",
    "-s",
    "-n",
    "--dry-run",
    "--evaluate",
    "--help",
    "-h",
    "--version",
    "-V",
    "--dump",
    "--fmt",
    "--variables",
];

const VALUE_OPTIONS: [&str; 7] = [
    "-f",
    "--justfile",
    "-d",
    "--working-directory",
    "--shell",
    "--dotenv-filename",
    "--dotenv-path",
];

#[derive(Debug)]
struct Recipe {
    name: String,
    dependencies: Vec<String>,
    lines: Vec<String>,
}

pub(super) fn recipes(args: &[Option<&str>], cwd: Option<&Path>) -> Result<Vec<Body>, String> {
    let mut file: Option<PathBuf> = None;
    let mut dir: Option<PathBuf> = cwd.map(Path::to_path_buf);
    let mut operands: Vec<&str> = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(w) = word else {
            return Err("runs a recipe named at run time".into());
        };
        if NOTHING_RUNS.contains(w) {
            return Ok(Vec::new());
        }
        if *w == "--set" {
            words.next();
            words.next();
            continue;
        }
        if VALUE_OPTIONS.contains(w) {
            let Some(Some(value)) = words.next() else {
                return Err(format!("takes `{w}` computed at run time"));
            };
            match *w {
                "-f" | "--justfile" => file = Some(join(dir.as_deref(), value)),
                "-d" | "--working-directory" => dir = Some(join(dir.as_deref(), value)),
                _ => {}
            }
            continue;
        }
        if !w.starts_with('-') && !w.contains('=') {
            operands.push(w);
        }
    }
    let path = match file {
        Some(f) => f,
        None => match find_upward(dir.as_deref()) {
            Some(p) => p,
            None => return Ok(Vec::new()),
        },
    };
    let Some(text) = read_file(&path)? else {
        return Ok(Vec::new());
    };
    let run_dir = dir.or_else(|| path.parent().map(Path::to_path_buf));
    let recipes = parse(&text);
    let variables = variables(&text);
    let mut wanted: Vec<&str> = operands
        .iter()
        .copied()
        .filter(|o| recipes.iter().any(|r| r.name == *o))
        .collect();
    if wanted.is_empty() {
        wanted.extend(recipes.first().map(|r| r.name.as_str()));
    }
    let mut visited: Vec<String> = Vec::new();
    let mut lines: Vec<String> = variables.backticks;
    for name in wanted {
        collect(&recipes, name, &mut visited, &mut lines)?;
    }
    let lines: Vec<String> = lines
        .iter()
        .map(|l| interpolate(l, &variables.values))
        .collect();
    Ok(vec![(as_script(lines.iter().map(String::as_str)), run_dir)])
}

fn find_upward(dir: Option<&Path>) -> Option<PathBuf> {
    let mut at = dir?;
    for _ in 0..16 {
        for name in ["justfile", "Justfile", ".justfile", "JUSTFILE"] {
            let p = at.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
        at = at.parent()?;
    }
    None
}

fn collect(
    recipes: &[Recipe],
    name: &str,
    visited: &mut Vec<String>,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    if visited.iter().any(|v| v == name) {
        return Ok(());
    }
    if visited.len() >= MAX_RECIPES {
        return Err("runs more recipes than hookjudge reads".into());
    }
    visited.push(name.to_owned());
    let Some(recipe) = recipes.iter().find(|r| r.name == name) else {
        return Ok(());
    };
    for dependency in &recipe.dependencies {
        collect(recipes, dependency, visited, lines)?;
    }
    let body: Vec<&str> = recipe.lines.iter().map(String::as_str).collect();
    match body.first() {
        Some(shebang) if shebang.starts_with("#!") => {
            let shell = ["sh", "bash", "zsh", "dash"]
                .iter()
                .any(|s| shebang.split(['/', ' ']).any(|part| part == *s));
            if shell {
                lines.push(body[1..].join("\n"));
            } else if crate::gate::shell::bodies::code_runs_gated(&body[1..].join("\n")) {
                return Err(format!(
                    "runs the recipe `{name}`, code that names a gated action"
                ));
            }
        }
        _ => lines.extend(
            body.iter()
                .map(|l| l.trim_start_matches(['@', '-']).to_owned()),
        ),
    }
    Ok(())
}

/// A justfile's assignments: the values known without running anything, and the commands
/// of its backticks.
#[derive(Debug, Default)]
struct Variables {
    values: Vec<(String, String)>,
    backticks: Vec<String>,
}

fn variables(text: &str) -> Variables {
    let mut out = Variables::default();
    for line in text.lines().filter(|l| !l.starts_with([' ', '\t'])) {
        let line = line.trim().strip_prefix("export ").unwrap_or(line.trim());
        let Some((name, value)) = line.split_once(":=") else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        let mut rest = value;
        while let Some(start) = rest.find('`') {
            let Some(len) = rest[start + 1..].find('`') else {
                break;
            };
            out.backticks
                .push(rest[start + 1..start + 1 + len].to_owned());
            rest = &rest[start + len + 2..];
        }
        let parts: Option<Vec<&str>> = value
            .split('+')
            .map(|p| {
                let p = p.trim();
                p.strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .or_else(|| p.strip_prefix('"').and_then(|q| q.strip_suffix('"')))
            })
            .collect();
        if let Some(parts) = parts {
            out.values.push((name.to_owned(), parts.concat()));
        }
    }
    out
}

/// `line` with each `{{expression}}` replaced by the variable's value, or by a word computed
/// at run time when it is not a variable with a known value.
fn interpolate(line: &str, values: &[(String, String)]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        if rest[start..].starts_with("{{{{") {
            out.push_str("{{");
            rest = &rest[start + 4..];
            continue;
        }
        let Some(len) = rest[start + 2..].find("}}") else {
            rest = &rest[start..];
            break;
        };
        let expression = rest[start + 2..start + 2 + len].trim();
        match values.iter().rev().find(|(n, _)| n == expression) {
            Some((_, v)) => out.push_str(v),
            None => out.push_str("${just_interpolation}"),
        }
        rest = &rest[start + 4 + len..];
    }
    out.push_str(rest);
    out
}

/// The recipes of a justfile, in order.
fn parse(text: &str) -> Vec<Recipe> {
    let mut out: Vec<Recipe> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(i) = current {
                out[i].lines.push(line.trim().to_owned());
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        current = None;
        if trimmed.starts_with(['#', '[']) {
            continue;
        }
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if matches!(first, "set" | "alias" | "export" | "import" | "mod") || trimmed.contains(":=")
        {
            continue;
        }
        let Some(colon) = trimmed.find(':') else {
            continue;
        };
        let head = trimmed[..colon].trim_start_matches('@');
        let Some(name) = head.split_whitespace().next() else {
            continue;
        };
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            continue;
        }
        let dependencies = trimmed[colon + 1..]
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '&')
            .filter(|d| {
                !d.is_empty()
                    && d.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
            .map(str::to_owned)
            .collect();
        out.push(Recipe {
            name: name.to_owned(),
            dependencies,
            lines: Vec::new(),
        });
        current = Some(out.len() - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_with_dependencies() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("justfile"),
            "set shell := [\"bash\", \"-c\"]\nversion := \"1\"\n\ntest:\n    cargo test\n\n# ship it\nship tag=\"x\": test\n    @git push origin main\n\npy:\n    #!/usr/bin/env python3\n    import os; os.system('git push')\n",
        )
        .unwrap();
        let run = |args: &[&str]| {
            let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
            recipes(&args, Some(dir.path()))
        };
        let ship = run(&["ship"]).unwrap()[0].0.clone();
        assert!(
            ship.contains("cargo test") && ship.contains("git push origin main"),
            "{ship}"
        );
        assert!(!run(&[]).unwrap()[0].0.contains("git push"));
        assert!(run(&["--list"]).unwrap().is_empty());
        assert!(run(&["py"]).is_err());
    }

    #[test]
    fn interpolations_take_the_variables_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("justfile"),
            "v := 'push'\nr := \"ori\" + 'gin'\nh := `git push --tags`\nship:\n    git {{v}} -q {{ r }} main\nrun cmd:\n    {{cmd}} now\n",
        )
        .unwrap();
        let run = |args: &[&str]| {
            let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
            recipes(&args, Some(dir.path())).unwrap()[0].0.clone()
        };
        let ship = run(&["ship"]);
        assert!(ship.contains("git push -q origin main"), "{ship}");
        assert!(ship.contains("git push --tags"), "{ship}");
        assert!(run(&["run"]).contains("${just_interpolation} now"));
    }
}
