//! package.json scripts: `npm run X` (and `run-script`, `test`, `start`, `stop`, `restart`),
//! `npm version V` (its version scripts), `npm publish` (its pack and publish scripts), and
//! the same through pnpm, yarn (which also runs a script named as its command) and `bun run`.
//! Each script runs with its `pre` and `post` scripts, in the package's directory. An
//! install (`npm install`, `npm ci`, `pnpm install`, a bare `yarn`, `bun install`) runs the
//! package's own install lifecycle scripts (`preinstall`, `install`, `postinstall`, `prepare`).

use std::path::{Path, PathBuf};

use super::{Body, join, read_file};

/// Options of the package managers that take the next word as their value.
const VALUE_OPTIONS: [&str; 12] = [
    "--prefix",
    "-C",
    "--dir",
    "--cwd",
    "--registry",
    "--workspace",
    "-w",
    "--filter",
    "-F",
    "--otp",
    "--tag",
    "--userconfig",
];

/// Commands of pnpm and yarn that are not a script's name (a name that is none of these runs
/// the script of that name).
const BUILTINS: [&str; 44] = [
    "add",
    "install",
    "i",
    "ci",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "link",
    "unlink",
    "import",
    "rebuild",
    "prune",
    "fetch",
    "patch",
    "exec",
    "dlx",
    "create",
    "pack",
    "outdated",
    "list",
    "ls",
    "why",
    "audit",
    "licenses",
    "store",
    "config",
    "env",
    "setup",
    "init",
    "root",
    "bin",
    "doctor",
    "info",
    "cache",
    "global",
    "workspace",
    "workspaces",
    "login",
    "logout",
    "help",
    "npm",
];

pub(super) fn scripts(
    program: &str,
    args: &[Option<&str>],
    cwd: Option<&Path>,
) -> Result<Vec<Body>, String> {
    let mut dir: Option<PathBuf> = cwd.map(Path::to_path_buf);
    let mut operands: Vec<&str> = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(w) = word else {
            if operands.len() < 2 {
                return Err("runs a script named at run time".into());
            }
            continue;
        };
        if *w == "--" {
            break; // the rest goes to the script
        }
        if *w == "--ignore-scripts" {
            return Ok(Vec::new());
        }
        if matches!(*w, "--help" | "-h" | "--dry-run" | "--version" | "-v") && operands.len() < 2 {
            return Ok(Vec::new());
        }
        let (name, attached) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (*w, None),
        };
        if VALUE_OPTIONS.contains(&name) {
            let value = attached.or_else(|| words.next().copied().flatten());
            if matches!(name, "--prefix" | "-C" | "--dir" | "--cwd")
                && let Some(v) = value
            {
                dir = Some(join(dir.as_deref(), v));
            }
            continue;
        }
        if !w.starts_with('-') {
            operands.push(w);
        }
    }
    let names = lifecycle(program, &operands);
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let dir = dir.as_deref();
    let Some(text) = read_file(&join(dir, "package.json"))? else {
        return Ok(Vec::new());
    };
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("runs scripts from a package.json that does not parse ({e})"))?;
    let scripts = json.get("scripts").and_then(|s| s.as_object());
    let Some(scripts) = scripts else {
        return Ok(Vec::new());
    };
    Ok(names
        .iter()
        .filter_map(|n| scripts.get(n.as_str()).and_then(|s| s.as_str()))
        .map(|s| (s.to_owned(), dir.map(Path::to_path_buf)))
        .collect())
}

/// The package's own scripts an install runs, in order.
const INSTALL_SCRIPTS: [&str; 7] = [
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "preprepare",
    "prepare",
    "postprepare",
];

/// The scripts a command runs, in order.
fn lifecycle(program: &str, operands: &[&str]) -> Vec<String> {
    let around = |name: &str| vec![format!("pre{name}"), name.to_owned(), format!("post{name}")];
    let first = operands.first().copied().unwrap_or("");
    match (program, first) {
        (_, "run" | "run-script" | "rum" | "urn") => {
            operands.get(1).map(|n| around(n)).unwrap_or_default()
        }
        ("bun", _) => Vec::new(), // `bun test` is bun's own runner
        (_, "test" | "t" | "tst") => around("test"),
        (_, "start" | "stop") => around(first),
        (_, "restart") => around("restart"),
        (_, "version") if operands.len() > 1 || program == "yarn" => around("version"),
        (_, "publish") => [
            "prepublishOnly",
            "prepack",
            "prepare",
            "postpack",
            "publish",
            "postpublish",
        ]
        .map(str::to_owned)
        .to_vec(),
        (_, "install" | "i" | "ci" | "in" | "isntall" | "add")
        | ("yarn", "")
        | ("npm" | "pnpm", "rebuild") => INSTALL_SCRIPTS.map(str::to_owned).to_vec(),
        ("yarn" | "pnpm", name) if !name.is_empty() && !BUILTINS.contains(&name) => around(name),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(program: &str, args: &[&str]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "jest", "prerelease": "npm test", "release": "git push --follow-tags", "postversion": "git push && git push --tags", "build": "tsc"}}"#,
        )
        .unwrap();
        let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        scripts(program, &args, Some(dir.path()))
            .unwrap()
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn an_install_runs_the_packages_install_scripts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"postinstall": "git push -q origin main", "prepare": "husky", "test": "jest"}}"#,
        )
        .unwrap();
        let run = |program: &str, args: &[&str]| -> Vec<String> {
            let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
            let found = scripts(program, &args, Some(dir.path())).unwrap();
            found.into_iter().map(|(s, _)| s).collect()
        };
        for (program, args) in [
            ("npm", &["install"][..]),
            ("npm", &["ci"]),
            ("pnpm", &["i"]),
            ("yarn", &[]),
        ] {
            assert_eq!(
                run(program, args),
                ["git push -q origin main", "husky"],
                "{program}"
            );
        }
    }

    #[test]
    fn a_script_runs_with_its_pre_and_post_scripts() {
        assert_eq!(
            run("npm", &["run", "release"]),
            ["npm test", "git push --follow-tags"]
        );
        assert_eq!(run("npm", &["test"]), ["jest"]);
        assert_eq!(
            run("yarn", &["release"]),
            ["npm test", "git push --follow-tags"]
        );
        assert_eq!(run("pnpm", &["build"]), ["tsc"]);
        assert_eq!(
            run("npm", &["version", "patch"]),
            ["git push && git push --tags"]
        );
        assert!(run("npm", &["version"]).is_empty());
        assert!(run("npm", &["ls"]).is_empty());
        assert!(run("yarn", &["why", "left-pad"]).is_empty());
    }
}
