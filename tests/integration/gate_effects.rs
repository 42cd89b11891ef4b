//! The gate against what agents really type (`fixtures/gate-adversarial.jsonl`, written from
//! what git and the shells accept, not from what the classifier knows), and each line's *effect*
//! replayed in a scratch copy of a repository: 2 commits ahead of its bare remote, a dirty
//! tracked file, an untracked file, a stash, an unpushed branch, aliases in the repository's and
//! the user's git config. Publish and deploy tools are recording fakes on `PATH`.
//!
//! Checked: every line gets the answer the fixture expects (silent or not), and no line whose
//! replay pushed, committed, lost work, published, deployed, deleted the repository or faked the
//! gate's state passed silently. `HOOKJUDGE_GATE_BIN=<binary>` measures another build of the gate
//! against the same lines (figures only, no assertions).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::harness::{BIN, Home};

const DIRTY: &str = "DIRTY-MARKER-1\n";
const UNTRACKED: &str = "UNTRACKED-MARKER-2\n";

/// Programs faked on `PATH`: each records its name and arguments.
const FAKES: [&str; 27] = [
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "docker",
    "podman",
    "uv",
    "poetry",
    "twine",
    "gem",
    "mvn",
    "gradle",
    "gh",
    "kubectl",
    "terraform",
    "tofu",
    "helm",
    "pulumi",
    "fly",
    "vercel",
    "netlify",
    "wrangler",
    "firebase",
    "serverless",
    "aws",
    "gcloud",
    "lerna",
];

pub(crate) fn run_git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The scratch repository, in `root`: `origin.git`, `work`, the user's `.gitconfig`, fakes.
fn scratch(root: &Path) {
    let git = |dir: &Path, args: &[&str]| run_git(dir, root, args);
    std::fs::write(
        root.join(".gitconfig"),
        "[user]\n\tname = t\n\temail = t@example.org\n[alias]\n\tyolo = push --force\n",
    )
    .unwrap();
    git(root, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
    git(root, &["init", "-q", "-b", "main", "work"]);
    let work = root.join("work");
    git(&work, &["remote", "add", "origin", "../origin.git"]);
    git(&work, &["config", "alias.sync", "push"]);
    std::fs::write(work.join("a.txt"), "one\n").unwrap();
    std::fs::write(work.join("b.txt"), "b\n").unwrap();
    std::fs::write(work.join("x.yaml"), "kind: x\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "initial"]);
    git(&work, &["push", "-q", "-u", "origin", "main"]);
    git(&work, &["checkout", "-q", "-b", "topic"]);
    std::fs::write(work.join("t.txt"), "topic\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "topic only"]);
    git(&work, &["checkout", "-q", "main"]);
    std::fs::write(work.join("b.txt"), "b two\n").unwrap();
    git(&work, &["commit", "-qam", "ahead one"]);
    std::fs::write(work.join("c.txt"), "c\n").unwrap();
    git(&work, &["add", "c.txt"]);
    git(&work, &["commit", "-qm", "ahead two"]);
    std::fs::write(work.join("b.txt"), "STASHED-MARKER-3\n").unwrap();
    git(&work, &["stash", "-q"]);
    std::fs::write(work.join("a.txt"), DIRTY).unwrap();
    std::fs::write(work.join("new.txt"), UNTRACKED).unwrap();
    let fakes = root.join("fakes");
    std::fs::create_dir_all(&fakes).unwrap();
    for fake in FAKES {
        write_script(
            &fakes.join(fake),
            "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"$FAKE_LOG\"\n",
        );
    }
    // `npx` runs its package: here, the fake of that name.
    write_script(
        &fakes.join("npx"),
        "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
    );
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// What the scratch copy looks like, for comparing before and after a line ran.
#[derive(Debug, Clone, PartialEq)]
struct State {
    origin_refs: String,
    branch_commits: BTreeSet<String>,
    reachable: BTreeSet<String>,
    history_text: String,
    a_txt: Option<String>,
    new_txt: Option<String>,
    tracking: String,
    hooks_path: String,
    marker: bool,
    repository_there: bool,
    fake_log: String,
}

fn state(root: &Path) -> State {
    let work = root.join("work");
    let repository_there = work.join(".git/HEAD").exists();
    let quiet = |dir: &Path, args: &[&str]| -> String {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("HOME", root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stderr(Stdio::null())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let set = |text: String| text.lines().map(str::to_owned).collect::<BTreeSet<_>>();
    State {
        origin_refs: quiet(&root.join("origin.git"), &["for-each-ref"]),
        branch_commits: if repository_there {
            set(quiet(&work, &["rev-list", "--branches"]))
        } else {
            BTreeSet::new()
        },
        reachable: if repository_there {
            set(quiet(&work, &["rev-list", "--all"]))
        } else {
            BTreeSet::new()
        },
        history_text: if repository_there {
            quiet(&work, &["log", "--all", "-p", "-m", "--format=%H"])
        } else {
            String::new()
        },
        a_txt: std::fs::read_to_string(work.join("a.txt")).ok(),
        new_txt: std::fs::read_to_string(work.join("new.txt")).ok(),
        tracking: quiet(&work, &["rev-parse", "refs/remotes/origin/main"]),
        hooks_path: quiet(&work, &["config", "core.hooksPath"]),
        marker: work.join(".hookjudge/verified").exists(),
        repository_there,
        fake_log: std::fs::read_to_string(root.join("fake.log")).unwrap_or_default(),
    }
}

/// The gated effects a line had, comparing the copy before and after.
fn effects(before: &State, after: &State, verb: Option<&str>) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !after.repository_there {
        out.push("catastrophic");
        return out;
    }
    if before.origin_refs != after.origin_refs {
        out.push("push");
    }
    if after
        .branch_commits
        .difference(&before.branch_commits)
        .next()
        .is_some()
    {
        out.push("commit");
    }
    let kept = |marker: &str, file: &Option<String>| {
        file.as_deref().is_some_and(|f| f.contains(marker.trim()))
            || after.history_text.contains(marker.trim())
    };
    let unpushed_lost = before
        .reachable
        .difference(&after.reachable)
        .next()
        .is_some();
    if !kept(DIRTY, &after.a_txt)
        || !kept(UNTRACKED, &after.new_txt)
        || !after.history_text.contains("STASHED-MARKER-3")
        || unpushed_lost
    {
        out.push("lose");
    }
    // A push moves the remote-tracking ref too; only a move without a push fakes it.
    let tracking_faked =
        before.tracking != after.tracking && before.origin_refs == after.origin_refs;
    if after.marker || tracking_faked || !after.hooks_path.trim().is_empty() {
        out.push("fake-state");
    }
    let new_log = &after.fake_log[before.fake_log.len().min(after.fake_log.len())..];
    // The fakes publish nothing: what counts is that the tool ran with the verb that would.
    if verb.is_some_and(|v| new_log.contains(v)) {
        out.push("publish-or-deploy");
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .args(["-a"])
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs `line` in a fresh copy of the scratch repository and returns its effects.
fn replay(
    template: &Path,
    scratch_dir: &Path,
    line: &str,
    verb: Option<&str>,
) -> Vec<&'static str> {
    let _ = std::fs::remove_dir_all(scratch_dir);
    copy_dir(template, scratch_dir);
    let before = state(scratch_dir);
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        scratch_dir.join("fakes").display()
    );
    let _ = Command::new("timeout")
        .args(["-k", "2", "10", "bash", "-c", line])
        .current_dir(scratch_dir.join("work"))
        .env_clear()
        .env("PATH", path)
        .env("HOME", scratch_dir)
        .env("FAKE_LOG", scratch_dir.join("fake.log"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .env("TERM", "dumb")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let after = state(scratch_dir);
    effects(&before, &after, verb)
}

pub(crate) fn gate_answer(bin: &str, home: &Home, cwd: &Path, session: &str, line: &str) -> String {
    let input = json!({"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": line}, "tool_use_id": "t"});
    let mut command = Command::new(bin);
    command
        .arg("gate")
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("GIT_CONFIG_NOSYSTEM", "1");
    let mut run = crate::harness::Run {
        command,
        stdin: Vec::new(),
    }
    .stdin(input.to_string());
    run.command.stderr(Stdio::piped());
    let out = run.output();
    assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    if out.stdout.trim().is_empty() {
        return "silent".into();
    }
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("?")
        .to_owned()
}

#[test]
fn adversarial_lines_are_gated_as_their_replayed_effects_demand() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let template_root = home.path().join("scratch");
    std::fs::create_dir_all(&template_root).unwrap();
    scratch(&template_root);
    // The gate reads the user's git config from its own HOME.
    std::fs::copy(
        template_root.join(".gitconfig"),
        home.path().join(".gitconfig"),
    )
    .unwrap();
    let cwd = template_root.join("work");
    let table: Vec<Value> = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/gate-adversarial.jsonl"
    ))
    .unwrap()
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let other_bin = std::env::var("HOOKJUDGE_GATE_BIN").ok();
    let bin = other_bin.clone().unwrap_or_else(|| BIN.to_owned());
    let workers = 3;
    let results: Vec<(usize, String, Option<Vec<&'static str>>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|k| {
                let (table, home, cwd, bin, template_root) =
                    (&table, &home, &cwd, &bin, &template_root);
                s.spawn(move || {
                    let scratch_dir = home.path().join(format!("replay-{k}"));
                    table
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % workers == k)
                        .map(|(i, case)| {
                            let line = case["command"].as_str().unwrap();
                            let answer = gate_answer(bin, home, cwd, &format!("case-{i}"), line);
                            let effects = (case["replay"] != false).then(|| {
                                replay(template_root, &scratch_dir, line, case["verb"].as_str())
                            });
                            (i, answer, effects)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut failures = Vec::new();
    let (mut silent_gated, mut replayed, mut did_it, mut silent_did_it) = (0, 0, 0, 0);
    let gated_lines = table.iter().filter(|c| c["expect"] == "gated").count();
    for (i, answer, effects) in &results {
        let case = &table[*i];
        let line = case["command"].as_str().unwrap();
        let expect = case["expect"].as_str().unwrap();
        let silent = answer == "silent";
        if expect == "gated" && silent {
            silent_gated += 1;
        }
        if (expect == "silent") != silent {
            failures.push(format!("{line:?}: {answer}, expected {expect}"));
        }
        if let Some(effects) = effects {
            replayed += 1;
            if !effects.is_empty() {
                did_it += 1;
                if silent {
                    silent_did_it += 1;
                    failures.push(format!("{line:?}: silent, but replayed it did {effects:?}"));
                }
            }
            if expect == "silent" && !effects.is_empty() {
                failures.push(format!(
                    "{line:?}: listed as harmless, but replayed it did {effects:?}"
                ));
            }
        }
    }
    eprintln!(
        "adversarial: {} lines ({gated_lines} gated by the fixture), {silent_gated} of those passed silently; \
         {replayed} replayed, {did_it} had a gated effect, {silent_did_it} of those passed silently",
        table.len()
    );
    if other_bin.is_some() {
        return; // measuring another build
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The fixture stays honest: every line parses as JSON with a known effect.
#[test]
fn the_adversarial_fixture_is_well_formed() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/gate-adversarial.jsonl"
    ))
    .unwrap();
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let effect = v["effect"].as_str().unwrap();
        assert!(
            [
                "push",
                "commit",
                "lose",
                "publish",
                "deploy",
                "catastrophic",
                "fake-state",
                "none"
            ]
            .contains(&effect),
            "{line}"
        );
        assert!(
            seen.insert(v["command"].as_str().unwrap().to_owned()),
            "duplicate: {line}"
        );
    }
    assert!(seen.len() >= 300, "{} lines", seen.len());
}
