//! Issue 23: hookjudge cannot be switched off from inside the agent. Records a person makes
//! (trust, approvals) are sealed, so files copied into the state dir forge nothing.

use serde_json::json;

use crate::harness::Home;
use crate::self_protection::{
    Agent, approve_on_a_terminal, run_gate, setup, shell_input, state_dir,
};
use crate::trust::{clone_with, gate, trust_on_a_terminal};

/// `cp -r stage/. ~/.local/state/` with `stage/hookjudge/trust.json` naming the malicious
/// file's path and `git hash-object` id: the record has no seal made with the user's key.
#[test]
fn a_trust_record_copied_into_the_state_dir_trusts_nothing() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = clone_with(&home, "victim", r#"{"gate": {"push": "allow"}}"#);
    let file = repo.work.join(".hookjudge.json").canonicalize().unwrap();
    let hash = format!(
        "sha1:{}",
        crate::gate_repo::git(&repo.work, &["hash-object", ".hookjudge.json"]).trim()
    );
    let forged = |seal: &str| {
        let stage = home.path().join("stage/hookjudge");
        std::fs::create_dir_all(&stage).unwrap();
        let record = json!({"files": [{"path": file, "hash": hash,
            "trusted_at": "2026-01-01T00:00:00Z", "seal": seal}]});
        std::fs::write(stage.join("trust.json"), record.to_string()).unwrap();
        let copied = std::process::Command::new("cp")
            .args(["-r", "stage/.", "state/"])
            .current_dir(home.path())
            .status()
            .unwrap();
        assert!(copied.success());
    };
    forged("");
    assert_eq!(gate(&home, &repo.work, "git push"), "ask", "no seal");
    forged(&"ab".repeat(32));
    assert_eq!(gate(&home, &repo.work, "git push"), "ask", "a made-up seal");

    // A person trusts another repository's file: its good seal, copied onto this record,
    // still trusts nothing here (the seal covers the path and the content).
    let other = clone_with(&home, "other", r#"{"gate": {"push": "allow"}}"#);
    std::fs::remove_file(state_dir(&home).join("trust.json")).unwrap();
    assert_eq!(trust_on_a_terminal(&home, &other.work).code, 0);
    let store: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state_dir(&home).join("trust.json")).unwrap(),
    )
    .unwrap();
    let good = store["files"][0]["seal"].as_str().unwrap().to_owned();
    assert_eq!(good.len(), 64, "{store}");
    assert_eq!(gate(&home, &other.work, "git push"), "silent");
    forged(&good);
    assert_eq!(
        gate(&home, &repo.work, "git push"),
        "ask",
        "a borrowed seal"
    );

    // What a person does at their terminal still works.
    assert_eq!(trust_on_a_terminal(&home, &repo.work).code, 0);
    assert_eq!(gate(&home, &repo.work, "git push"), "silent");
}

/// A Codex approval forged the way trust was: `approvals.json` with `approved_ms` set, copied
/// into the state dir by a process the gate never saw.
#[test]
fn an_approval_written_into_the_state_dir_approves_nothing() {
    let (home, repo) = setup();
    let push = "git push origin main";
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny"
    );
    let path = state_dir(&home).join("approvals.json");
    let mut store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    store["requests"][0]["approved_ms"] = json!(now);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny",
        "an approval without a seal"
    );

    // A person's approval is sealed and lets exactly that command through once.
    std::fs::remove_file(&path).unwrap();
    run_gate(&home, shell_input(Agent::Codex, &repo.work, push));
    let approved = approve_on_a_terminal(&home, "y");
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"seal\""), "{text}");
    // Moved to another time, the seal no longer fits.
    let mut store: serde_json::Value = serde_json::from_str(&text).unwrap();
    let at = store["requests"][0]["approved_ms"].as_i64().unwrap();
    store["requests"][0]["approved_ms"] = json!(at + 1);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "deny"
    );
    store["requests"][0]["approved_ms"] = json!(at);
    std::fs::write(&path, store.to_string()).unwrap();
    assert_eq!(
        run_gate(&home, shell_input(Agent::Codex, &repo.work, push)).0,
        "silent"
    );
}

/// A scenario for the boundary: an isolated home whose hookjudge binary is installed in
/// `~/.cargo/bin`, a repository with a real origin, `init --agent all --git-hook` run by a
/// person, and an untrusted `.hookjudge.json` to forge trust for.
struct Scenario {
    home: Home,
    repo: crate::gate_repo::GitFixture,
    binary: std::path::PathBuf,
}

impl Scenario {
    fn new() -> Scenario {
        let home = Home::new();
        home.user_config(r#"{"llm": {"provider": "none"}}"#);
        let bin = home.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let binary = bin.join("hookjudge");
        std::fs::copy(crate::harness::BIN, &binary).unwrap();
        let repo = crate::gate_repo::GitFixture::new(home.path(), "scenario");
        let mut init = home.cmd_of(&binary, &["init", "--agent", "all", "--git-hook"]);
        init.command.current_dir(&repo.work);
        let out = init.output();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        std::fs::write(
            repo.work.join(".hookjudge.json"),
            r#"{"gate": {"push": "allow"}}"#,
        )
        .unwrap();
        repo.commit("b.txt", "unpushed\n", "local work");
        std::fs::write(repo.work.join("dirty.txt"), "uncommitted\n").unwrap();
        Scenario { home, repo, binary }
    }

    /// Runs `line` with `bash -c` inside the boundary, in the repository, as the agent would.
    fn confined(&self, line: &str) -> crate::harness::Outcome {
        self.confined_with(line, std::iter::empty::<(&str, &str)>())
    }

    /// [`Scenario::confined`] with more variables in the command's environment.
    fn confined_with<K, V>(
        &self,
        line: &str,
        envs: impl IntoIterator<Item = (K, V)>,
    ) -> crate::harness::Outcome
    where
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        let mut run = self
            .home
            .cmd_of(&self.binary, &["run-confined", "--", "bash", "-c", line]);
        run.command
            .current_dir(&self.repo.work)
            .envs(envs)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org");
        run.output()
    }

    /// Every anchor's content: what no confined command may change.
    fn anchors(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let roots = [
            self.home.path().join("state"),
            self.home.path().join("config"),
            self.home.path().join(".cargo"),
            self.home.path().join(".claude"),
            self.home.path().join(".codex"),
            self.home.path().join(".gemini"),
            self.home.path().join(".gitconfig"),
            self.repo.work.join(".claude"),
            self.repo.work.join(".codex"),
            self.repo.work.join(".gemini"),
            self.repo.work.join(".git/config"),
            self.repo.work.join(".git/hooks"),
        ];
        for root in roots {
            collect(&root, &mut out);
        }
        out.sort();
        out
    }
}

fn collect(path: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        out.push((format!("{} (absent)", path.display()), Vec::new()));
        return;
    };
    if meta.is_dir() {
        out.push((format!("{} (dir)", path.display()), Vec::new()));
        for entry in std::fs::read_dir(path).unwrap() {
            collect(&entry.unwrap().path(), out);
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        let bytes = std::fs::read(path).unwrap_or_default();
        out.push((format!("{} {mode:o}", path.display()), bytes));
    }
}

/// Whether this kernel and machine can set up the boundary; if not, says why (the test is
/// then skipped, loudly).
fn boundary_available(s: &Scenario) -> bool {
    let probe = s.confined("true");
    if probe.code == 126 {
        eprintln!(
            "SKIPPED: the boundary cannot be set up on this machine: {}",
            probe.stderr
        );
        return false;
    }
    assert_eq!(probe.code, 0, "{}", probe.stderr);
    true
}

/// The forms of issue 23 that switched hookjudge off, and their kin: none writes an anchor.
#[test]
fn no_confined_command_writes_an_anchor() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    // The first confined run creates the missing anchors (empty) so it can bind them.
    let before = s.anchors();
    let file = s.repo.work.join(".hookjudge.json").canonicalize().unwrap();
    let hash = crate::gate_repo::git(&s.repo.work, &["hash-object", ".hookjudge.json"]);
    let forged = json!({"files": [{"path": file, "hash": format!("sha1:{}", hash.trim()),
        "trusted_at": "2026-01-01T00:00:00Z"}]})
    .to_string();
    let attacks = [
        format!(
            "mkdir -p stage/hookjudge && printf '%s' '{forged}' > stage/hookjudge/trust.json && cp -r stage/. \"$XDG_STATE_HOME/\""
        ),
        "tar -C stage -cf - hookjudge | tar -C \"$XDG_STATE_HOME\" -xf -".into(),
        "cd \"$XDG_STATE_HOME\" && rm -rf hookjudge".into(),
        "mv \"$XDG_STATE_HOME/hookjudge\" \"$XDG_STATE_HOME/old\"".into(),
        "printf '{\"gate\":{\"push\":\"allow\"}}' > \"$XDG_CONFIG_HOME/hookjudge/config.json\"".into(),
        "mkdir -p evilcfg/hookjudge && echo '{}' > evilcfg/hookjudge/config.json && cp -r evilcfg/. \"$XDG_CONFIG_HOME/\"".into(),
        "ln -s .claude cc; printf '{}' > cc/settings.local.json".into(),
        "printf '{\"disableAllHooks\":true}' > .claude/settings.json".into(),
        "printf '{}' > ~/.claude/settings.json".into(),
        "mkdir -p ~/.codex && printf '[features]\\ncodex_hooks=false\\n' > ~/.codex/config.toml".into(),
        "printf '{}' > ~/.gemini/settings.json".into(),
        "printf '{}' > .gemini/settings.json".into(),
        "git stash -a".into(),
        "cp /bin/true ~/.cargo/bin/hookjudge".into(),
        "mkdir -p evil && cp /bin/true evil/hookjudge && cp -r evil/. ~/.cargo/bin/".into(),
        "install -m 755 /bin/true ~/.cargo/bin/hookjudge".into(),
        "mv ~/.cargo ~/.cargo.old".into(),
        "chmod -R a-x ~/.cargo/bin".into(),
        "git config core.hooksPath /dev/null".into(),
        "git config -f .git/config core.hooksPath /dev/null".into(),
        "git config include.path ../evil.cfg".into(),
        "git config --global core.hooksPath /dev/null".into(),
        "printf '[core]\\n\\thooksPath = /dev/null\\n' >> .git/config".into(),
        "sed -i 's/^\\[core\\]/[core]\\n\\thooksPath = \\/dev\\/null/' .git/config".into(),
        "find .git -name pre-push -delete".into(),
        "rm -rf .git/hooks".into(),
        "mv .git/hooks .git/hooks.off".into(),
        "chmod a-x .git/hooks/pre-push".into(),
        "python3 -c \"open('.git/hooks/pre-push', 'w').write('exit 0')\"".into(),
        "perl -e 'open(my $f, \">>\", \".git/config\") or die $!; print $f \"[core]\\n\\thooksPath = /dev/null\\n\"'".into(),
        "python3 -c \"import os; os.rename(os.path.expanduser('~/.claude'), os.path.expanduser('~/.claude.off'))\"".into(),
        "sh -c 'echo x > \"$XDG_STATE_HOME/hookjudge/approvals.json\"'".into(),
        "umount .git/config".into(),
        "unshare -Urm sh -c 'umount .git/config && echo x >> .git/config'".into(),
        "setsid --fork --wait sh -c 'echo x >> .git/config'".into(),
    ];
    let mut wrote = Vec::new();
    for attack in &attacks {
        let out = s.confined(attack);
        let after = s.anchors();
        if after != before {
            let changed: Vec<&String> = after
                .iter()
                .filter(|a| !before.contains(a))
                .map(|(name, _)| name)
                .collect();
            wrote.push(format!("{attack}\n  changed {changed:?}\n  {}", out.stderr));
        }
    }
    assert!(
        wrote.is_empty(),
        "these wrote an anchor:\n{}",
        wrote.join("\n")
    );
    let hooks_path = std::process::Command::new("git")
        .args(["config", "--get", "core.hooksPath"])
        .current_dir(&s.repo.work)
        .env("HOME", s.home.path())
        .env("XDG_CONFIG_HOME", s.home.path().join("config"))
        .output()
        .unwrap();
    assert!(!hooks_path.status.success(), "core.hooksPath was set");
    assert!(s.repo.work.join(".git/hooks/pre-push").exists());
}

/// The seal key exists (a person trusted a file) and confined commands cannot read it.
#[test]
fn confined_commands_cannot_read_the_seal_key() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    assert_eq!(trust_on_a_terminal(&s.home, &s.repo.work).code, 0);
    let key = state_dir(&s.home).join("key/seal.key");
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
    let out = s.confined("cat \"$XDG_STATE_HOME/hookjudge/key/seal.key\"");
    assert!(out.code != 0 && out.stdout.is_empty(), "{}", out.stdout);
    let out = s.confined("ls -A \"$XDG_STATE_HOME/hookjudge/key\"; tar -C \"$XDG_STATE_HOME\" -cf - hookjudge | tar -tf -");
    assert!(!out.stdout.contains("seal.key"), "{}", out.stdout);
    assert!(
        out.stdout.contains("hookjudge/trust.json"),
        "the rest stays readable: {}",
        out.stdout
    );
    assert_ne!(
        s.confined("test -r \"$XDG_STATE_HOME/hookjudge/key/seal.key\"")
            .code,
        0
    );
}

/// A copy of the binary run under `setsid -f … script` (a terminal the agent made, the agent
/// markers unset) asks, is answered, and still cannot record trust: the state dir is
/// read-only to it and the seal key out of its sight.
#[test]
fn trust_run_from_a_terminal_the_agent_makes_records_nothing() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    // With the boundary's marker still set, `trust` refuses outright.
    let out =
        s.confined("printf 'y\\n' | script -qec '~/.cargo/bin/hookjudge trust --yes' /dev/null");
    assert!(
        out.stdout.contains("boundary"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    let line = "cp ~/.cargo/bin/hookjudge ../hj && printf 'y\\n' | env -u HOOKJUDGE_CONFINED setsid --fork --wait script -qec '../hj trust --yes' /dev/null";
    let out = s.confined(line);
    assert!(
        out.stdout.contains("Read-only file system"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(gate(&s.home, &s.repo.work, "git push"), "ask");
}

/// Everyday work inside the boundary: edits, new files and folders at the top of the
/// repository, a build, git status, diff, log, commit and fetch.
#[test]
fn everyday_work_is_unaffected_by_the_boundary() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let out = s.confined(
        "set -e; echo new > NEW.md; mkdir -p target/debug && printf 'int main(){return 0;}' > target/m.c; \
         cc -o target/debug/m target/m.c 2>/dev/null || cp /bin/true target/debug/m; ./target/debug/m; \
         echo edit >> a.txt; git status --short; git diff --stat; git add -A; git commit -qm work; \
         git log --oneline -1; git fetch -q origin; echo tmp > /tmp/hookjudge-boundary-$$; echo done",
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("work") && out.stdout.ends_with("done\n"),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_to_string(s.repo.work.join("NEW.md")).unwrap(),
        "new\n"
    );
    // And the exit status is the command's.
    assert_eq!(s.confined("exit 7").code, 7);
}

/// The gate's answer for `command` run by `agent` in the scenario, through the installed copy.
fn gate_answer(s: &Scenario, agent: Agent, command: &str, mode: &str) -> serde_json::Value {
    let mut input: serde_json::Value =
        serde_json::from_str(&shell_input(agent, &s.repo.work, command)).unwrap();
    if agent != Agent::Gemini {
        input["permission_mode"] = json!(mode);
    }
    let out = s
        .home
        .cmd_of(&s.binary, &["gate"])
        .stdin(input.to_string())
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return json!("silent");
    }
    out.json()
}

/// The rewritten command of a gate answer, for each agent's shape.
fn rewritten(answer: &serde_json::Value) -> Option<String> {
    let output = &answer["hookSpecificOutput"];
    output["updatedInput"]["command"]
        .as_str()
        .or_else(|| output["tool_input"]["command"].as_str())
        .map(str::to_owned)
}

/// With `boundary.mode` `landlock` the gate answers every agent with the command rewritten to
/// run confined; run as rewritten, a script written earlier (whose targets the gate cannot read) does
/// its everyday part (it appends, so that the file a round leaves is no work to lose) and writes no anchor. Claude Code is asked unless the person's rules or
/// mode would have run the command without asking; gated commands are decided as before.
#[test]
fn the_gate_rewrites_commands_to_run_inside_the_boundary_for_every_agent() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    s.home
        .user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
    std::fs::write(
        s.repo.work.join("x.sh"),
        "echo ran >> ran.txt\nwhile read -r target; do printf '{}' > \"$target\"; done < targets.txt\n",
    )
    .unwrap();
    // The files it writes come from data, which no reading of the command line can know.
    let targets = [
        state_dir(&s.home).join("trust.json"),
        s.repo.work.join(".claude/settings.local.json"),
        s.repo.work.join(".git/config"),
        s.home.path().join(".claude/settings.json"),
    ];
    let lines: Vec<String> = targets
        .iter()
        .map(|t| t.display().to_string() + "\n")
        .collect();
    std::fs::write(s.repo.work.join("targets.txt"), lines.concat()).unwrap();
    s.confined("true");
    let before = s.anchors();
    let script = "sh x.sh";
    for (agent, mode, decision) in [
        (Agent::Claude, "bypassPermissions", Some("allow")),
        (Agent::Claude, "default", Some("ask")),
        (Agent::Codex, "default", Some("allow")),
        (Agent::Gemini, "default", None),
    ] {
        let answer = gate_answer(&s, agent, script, mode);
        let output = &answer["hookSpecificOutput"];
        assert_eq!(
            output["permissionDecision"].as_str(),
            decision,
            "{agent:?} {mode}: {answer}"
        );
        let line = rewritten(&answer).unwrap_or_else(|| panic!("{agent:?}: {answer}"));
        assert!(line.contains("run-confined -- bash -c 'sh x.sh'"), "{line}");
        let _ = std::fs::remove_file(s.repo.work.join("ran.txt"));
        let mut run = s.home.cmd_of(std::path::Path::new("bash"), &["-c", &line]);
        run.command.current_dir(&s.repo.work);
        run.output();
        assert_eq!(
            std::fs::read_to_string(s.repo.work.join("ran.txt")).unwrap_or_default(),
            "ran\n",
            "{agent:?}: the script ran"
        );
        assert_eq!(s.anchors(), before, "{agent:?}: an anchor was written");
    }
    // The person's own allow rule for the command: Claude Code runs it without asking.
    std::fs::write(
        s.repo.work.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(sh x.sh)"]}}"#,
    )
    .unwrap();
    let answer = gate_answer(&s, Agent::Claude, script, "default");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "allow",
        "{answer}"
    );
    // A gated command is decided as before: a deny is not rewritten.
    let answer = gate_answer(
        &s,
        Agent::Claude,
        "git push --force origin main",
        "bypassPermissions",
    );
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert!(rewritten(&answer).is_none(), "{answer}");
    // A rewrite sent back is not wrapped again.
    let line = rewritten(&gate_answer(&s, Agent::Codex, script, "default")).unwrap();
    assert_eq!(
        gate_answer(&s, Agent::Codex, &line, "default"),
        json!("silent")
    );
    // Off (the default): silent, as before, and the same script run as it is writes the
    // anchors it names.
    s.home.user_config(r#"{"llm": {"provider": "none"}}"#);
    assert_eq!(
        gate_answer(&s, Agent::Codex, script, "default"),
        json!("silent")
    );
    let before = s.anchors();
    let mut run = s.home.cmd_of(std::path::Path::new("sh"), &["x.sh"]);
    run.command.current_dir(&s.repo.work);
    run.output();
    assert_ne!(
        s.anchors(),
        before,
        "unconfined, the script writes the anchors"
    );
}

/// `doctor` says per agent which boundary protects hookjudge, and how to get one.
#[test]
fn doctor_names_the_boundary_of_each_agent() {
    let s = Scenario::new();
    // Claude Code's sandbox needs bubblewrap and socat on PATH; this machine may lack them.
    // `doctor` runs with stand-ins that start and succeed (`doctor` only asks whether they
    // start), so what is checked here is the settings; a missing bubblewrap is checked below.
    let stand_ins = s.home.path().join("sandbox-tools");
    std::fs::create_dir_all(&stand_ins).unwrap();
    for tool in ["bwrap", "socat"] {
        let file = stand_ins.join(tool);
        std::fs::write(&file, "#!/bin/sh\nexit 0\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let with_tools = std::env::join_paths(std::iter::once(stand_ins.clone()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let doctor = |s: &Scenario| {
        let mut run = s.home.cmd_of(&s.binary, &["doctor", "--json"]);
        run.command
            .current_dir(&s.repo.work)
            .env("PATH", &with_tools);
        let report = run.output().json();
        let checks = report["checks"].as_array().unwrap().clone();
        let boundary = |agent: &str| {
            checks
                .iter()
                .find(|c| c["name"] == format!("boundary ({agent})"))
                .cloned()
                .unwrap_or_else(|| panic!("{agent}: {report}"))
        };
        ["Claude Code", "Codex CLI", "Gemini CLI"].map(boundary)
    };
    // None: a warning (hookjudge works, but a write the gate cannot see switches it off),
    // whose fix says what to run or set.
    for check in doctor(&s) {
        assert!(
            check["ok"] == true
                && check["warning"] == true
                && check["detail"].as_str().unwrap().starts_with("none:")
                && check["fix"]
                    .as_str()
                    .unwrap()
                    .contains("\"boundary\": {\"mode\": \"landlock\"}"),
            "{check}"
        );
    }
    let [claude, ..] = doctor(&s);
    assert!(
        claude["fix"]
            .as_str()
            .unwrap()
            .starts_with("run `hookjudge init --boundary agent`"),
        "{claude}"
    );
    // Claude Code's sandbox on, but its deny list leaves the hooks writable: a problem.
    let local = s.repo.work.join(".claude/settings.local.json");
    let mut settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    settings["sandbox"] = json!({"enabled": true, "filesystem": {"denyWrite": ["~/.claude"]}});
    std::fs::write(&local, settings.to_string()).unwrap();
    let [claude, codex, _] = doctor(&s);
    assert_eq!(claude["ok"], false, "{claude}");
    assert!(
        claude["fix"].as_str().unwrap().contains("denyWrite"),
        "{claude}"
    );
    assert!(
        codex["detail"].as_str().unwrap().starts_with("none:"),
        "{codex}"
    );
    // With the deny list `doctor` gives, Claude Code's sandbox covers every anchor.
    let fix = claude["fix"].as_str().unwrap();
    let snippet: serde_json::Value =
        serde_json::from_str(fix.split_once("`.claude/settings.local.json`:").unwrap().1).unwrap();
    settings["sandbox"] = snippet["sandbox"].clone();
    std::fs::write(&local, settings.to_string()).unwrap();
    let [claude, _, _] = doctor(&s);
    assert!(
        claude["ok"] == true
            && claude["detail"]
                .as_str()
                .unwrap()
                .starts_with("Claude Code's sandbox"),
        "{claude}"
    );
    // hookjudge's own boundary, where it can be set up, for every agent.
    if boundary_available(&s) {
        s.home
            .user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
        for check in doctor(&s) {
            assert!(
                check["ok"] == true
                    && check["detail"]
                        .as_str()
                        .unwrap()
                        .starts_with("hookjudge's own"),
                "{check}"
            );
        }
    }
}

/// An agent that runs its own command line, not the one its hook hands back (Qwen Code, checked
/// with the real client), has no boundary under `landlock`, and `doctor` says so; for Cline it
/// holds for the CLI only, and `doctor` says that.
#[test]
fn doctor_says_landlock_does_not_hold_for_an_agent_that_runs_its_own_command() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    for agent in ["qwen", "cline"] {
        let mut init = s.home.cmd_of(&s.binary, &["init", "--agent", agent]);
        init.command.current_dir(&s.repo.work);
        assert_eq!(init.output().code, 0);
    }
    s.home
        .user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
    let mut run = s.home.cmd_of(&s.binary, &["doctor", "--json"]);
    run.command.current_dir(&s.repo.work);
    let report = run.output().json();
    let check = |agent: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == format!("boundary ({agent})"))
            .cloned()
            .unwrap_or_else(|| panic!("{agent}: {report}"))
    };
    let qwen = check("Qwen Code");
    assert!(
        qwen["warning"] == true
            && qwen["detail"]
                .as_str()
                .unwrap()
                .starts_with("none: `boundary.mode` is `landlock`, but Qwen Code runs its own"),
        "{qwen}"
    );
    assert!(
        qwen["fix"]
            .as_str()
            .unwrap()
            .contains("Factory Droid, Copilot CLI"),
        "{qwen}"
    );
    let codex = check("Codex CLI");
    assert!(
        codex["detail"]
            .as_str()
            .unwrap()
            .starts_with("hookjudge's own"),
        "{codex}"
    );
    let cline = check("Cline");
    let detail = cline["detail"].as_str().unwrap();
    assert!(
        cline["ok"] == true
            && detail.starts_with("hookjudge's own")
            && detail.contains("the VS Code extension's hooks cannot hand back a command"),
        "{cline}"
    );
}

/// Publishing needs a person: a confined command sees no credentials (files, the SSH agent's
/// socket, token variables) unless the gate let it through as a push, publish or deploy or a
/// person approved it.
#[test]
fn credentials_are_hidden_from_commands_the_gate_did_not_let_through_to_publish() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let home = s.home.path();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE-KEY\n").unwrap();
    std::fs::write(
        home.join(".git-credentials"),
        "https://u:TOKEN@example.org\n",
    )
    .unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token = \"CARGO\"\n").unwrap();
    let read = "cat ~/.ssh/id_ed25519 ~/.git-credentials ~/.cargo/credentials.toml 2>/dev/null; echo \"gh=$GH_TOKEN\"; ls -A ~/.ssh";
    let run = |flags: &[&str]| {
        let mut args = vec!["run-confined"];
        args.extend(flags);
        args.extend(["--", "bash", "-c", read]);
        let mut run = s.home.cmd_of(&s.binary, &args);
        run.command
            .current_dir(&s.repo.work)
            .env("GH_TOKEN", "GHTOKEN");
        run.output().stdout
    };
    let hidden = run(&[]);
    for secret in ["PRIVATE-KEY", "TOKEN@", "CARGO", "GHTOKEN", "id_ed25519"] {
        assert!(!hidden.contains(secret), "{secret} visible: {hidden}");
    }
    let visible = run(&["--with-credentials"]);
    for secret in ["PRIVATE-KEY", "TOKEN@", "CARGO", "GHTOKEN"] {
        assert!(visible.contains(secret), "{secret} hidden: {visible}");
    }

    // Through the gate: a script is confined without them; a push a person approved (Codex)
    // is confined with them.
    s.home
        .user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
    std::fs::write(s.repo.work.join("build.sh"), "cat ~/.git-credentials\n").unwrap();
    let answer = gate_answer(&s, Agent::Codex, "sh build.sh", "default");
    let line = rewritten(&answer).unwrap_or_else(|| panic!("{answer}"));
    assert!(!line.contains("--with-credentials"), "{line}");
    let push = "git push origin main";
    assert_eq!(
        gate_answer(&s, Agent::Codex, push, "default")["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let approved = approve_on_a_terminal(&s.home, "y");
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
    let answer = gate_answer(&s, Agent::Codex, push, "default");
    let line = rewritten(&answer).unwrap_or_else(|| panic!("{answer}"));
    assert!(
        line.contains("run-confined --with-credentials -- bash -c"),
        "{line}"
    );
    // The approved line sent again is read through to its push, which the approval no longer
    // covers: refused, not run.
    let again = gate_answer(&s, Agent::Codex, &line, "default");
    assert_eq!(
        again["hookSpecificOutput"]["permissionDecision"], "deny",
        "{again}"
    );
    // An agent that writes the flag itself is confined again, and the inner boundary, which
    // cannot be set up inside another, runs nothing.
    let forged = line.replace("git push origin main", "cat ~/.git-credentials");
    let again = gate_answer(&s, Agent::Codex, &forged, "default");
    let line = rewritten(&again).unwrap_or_else(|| panic!("{again}"));
    let mut run = s.home.cmd_of(std::path::Path::new("bash"), &["-c", &line]);
    run.command.current_dir(&s.repo.work);
    assert_eq!(run.output().code, 126, "{line}");
}

/// Publishing needs a person: credentials written into git's configuration (a token in a
/// remote's URL, an extra header, a helper in a file the user's configuration includes) are not
/// in what a confined command reads unless the gate let it publish. Git reads the rest as
/// before, and nothing changes on disk.
#[test]
fn git_configuration_is_read_without_its_credentials() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let home = s.home.path();
    let append = |path: &std::path::Path, text: &str| {
        let before = std::fs::read_to_string(path).unwrap_or_default();
        std::fs::write(path, before + text).unwrap();
    };
    let repo_config = s.repo.work.join(".git/config");
    append(
        &repo_config,
        "[remote \"pub\"]\n\turl = https://TOKEN1@example.org/o/r.git\n[http]\n\textraHeader = AUTHORIZATION: bearer TOKEN2\n",
    );
    std::fs::write(
        home.join(".gitconfig-work"),
        "[credential]\n\thelper = \"!echo password=TOKEN3\"\n",
    )
    .unwrap();
    append(
        &home.join(".gitconfig"),
        "[include]\n\tpath = ~/.gitconfig-work\n",
    );
    let on_disk = std::fs::read(&repo_config).unwrap();
    let read = "cat .git/config ~/.gitconfig-work; git config --get-all remote.pub.url; git config --get-all http.extraheader; git config --get-all credential.helper; git config --get remote.origin.url";
    let hidden = s.confined(read);
    assert_eq!(hidden.code, 0, "{}", hidden.stderr);
    for secret in ["TOKEN1", "TOKEN2", "TOKEN3"] {
        assert!(
            !hidden.stdout.contains(secret),
            "{secret} visible: {}",
            hidden.stdout
        );
    }
    assert!(
        hidden.stdout.contains("https://example.org/o/r.git\n"),
        "{}",
        hidden.stdout
    );
    let origin = std::process::Command::new("git")
        .args(["config", "--get", "remote.origin.url"])
        .current_dir(&s.repo.work)
        .output()
        .unwrap();
    assert!(
        hidden
            .stdout
            .ends_with(&*String::from_utf8_lossy(&origin.stdout)),
        "the rest reads as before: {}",
        hidden.stdout
    );
    // The copies are in the state folder, which no confined command can write: the
    // repository's, the included file's, and the system's where it holds a helper.
    let copies = home.join("state/hookjudge/boundary");
    let count = std::fs::read_dir(&copies).unwrap().count();
    assert!(count >= 2, "{copies:?}");
    let write = s.confined(
        "for f in ~/state/hookjudge/boundary/*; do echo x >> \"$f\" || echo REFUSED; done",
    );
    assert!(
        write.stdout.matches("REFUSED").count() == count,
        "{}{}",
        write.stdout,
        write.stderr
    );
    // Outside any repository too, with what the user's configuration includes; and the
    // `git -c` settings passed down in the environment.
    let show = "cat ~/.gitconfig-work; echo \"p=$GIT_CONFIG_PARAMETERS\"";
    let mut run = s
        .home
        .cmd_of(&s.binary, &["run-confined", "--", "bash", "-c", show]);
    run.command
        .current_dir(home)
        .env("GIT_CONFIG_PARAMETERS", "'http.extraheader'='X: TOKEN4'");
    let outside = run.output();
    assert_eq!(outside.code, 0, "{}", outside.stderr);
    assert!(
        !outside.stdout.contains("TOKEN") && outside.stdout.ends_with("p=\n"),
        "{}",
        outside.stdout
    );
    // The same settings numbered in the environment (as Gemini CLI passes its own): the
    // credential goes, the agent's own setting stays.
    let show = "git config --get-all http.extraheader; echo \"hooks=[$(git config --get core.hookspath)] n=$GIT_CONFIG_COUNT\"";
    let numbered = s.confined_with(
        show,
        [
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "http.extraHeader"),
            ("GIT_CONFIG_VALUE_0", "AUTHORIZATION: bearer TOKEN5"),
            ("GIT_CONFIG_KEY_1", "core.hooksPath"),
            ("GIT_CONFIG_VALUE_1", "/nowhere"),
        ],
    );
    assert_eq!(
        numbered.stdout, "hooks=[/nowhere] n=1\n",
        "{}",
        numbered.stderr
    );
    // Past the count, a key git refuses, a secret in an ordinary value, an SSH command of its
    // own: none reaches the command.
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let pub_alias = format!("!curl -H 'Authorization: token {token}' x");
    let env = s.confined_with(
        "env",
        [
            ("GIT_CONFIG_COUNT", "3"),
            ("GIT_CONFIG_KEY_0", " http.extraheader"),
            ("GIT_CONFIG_VALUE_0", "AUTHORIZATION: bearer TOKEN6"),
            ("GIT_CONFIG_KEY_1", "alias.pub"),
            ("GIT_CONFIG_VALUE_1", pub_alias.as_str()),
            ("GIT_CONFIG_KEY_2", "user.name"),
            ("GIT_CONFIG_VALUE_2", "Me"),
            ("GIT_CONFIG_KEY_3", "http.extraheader"),
            ("GIT_CONFIG_VALUE_3", "AUTHORIZATION: bearer TOKEN7"),
            ("GIT_SSH_COMMAND", "ssh -i /keys/TOKEN8"),
        ],
    );
    for secret in ["TOKEN6", "TOKEN7", "TOKEN8", token.as_str()] {
        assert!(!env.stdout.contains(secret), "{secret} in:\n{}", env.stdout);
    }
    assert!(
        env.stdout.contains("GIT_CONFIG_COUNT=1\n")
            && env.stdout.contains("GIT_CONFIG_KEY_0=user.name\n"),
        "{}",
        env.stdout
    );
    // A value that is not UTF-8 passes byte for byte, and the settings after it stay.
    use std::os::unix::ffi::OsStrExt;
    let latin = s.confined_with(
        "echo \"n=$GIT_CONFIG_COUNT $GIT_CONFIG_KEY_1=[$GIT_CONFIG_VALUE_1]\"; printf %s \"$GIT_CONFIG_VALUE_0\" | od -An -tx1",
        [
            ("GIT_CONFIG_COUNT", std::ffi::OsStr::new("2")),
            ("GIT_CONFIG_KEY_0", std::ffi::OsStr::new("user.name")),
            ("GIT_CONFIG_VALUE_0", std::ffi::OsStr::from_bytes(b"Jos\xe9")),
            ("GIT_CONFIG_KEY_1", std::ffi::OsStr::new("core.hooksPath")),
            ("GIT_CONFIG_VALUE_1", std::ffi::OsStr::new("")),
        ],
    );
    assert_eq!(
        latin.stdout, "n=2 core.hooksPath=[]\n 4a 6f 73 e9\n",
        "{}",
        latin.stderr
    );
    let mut run = s.home.cmd_of(
        &s.binary,
        &[
            "run-confined",
            "--with-credentials",
            "--",
            "bash",
            "-c",
            read,
        ],
    );
    run.command.current_dir(&s.repo.work);
    let visible = run.output();
    for secret in ["TOKEN1", "TOKEN2", "TOKEN3"] {
        assert!(
            visible.stdout.contains(secret),
            "{secret} hidden: {}",
            visible.stdout
        );
    }
    assert_eq!(std::fs::read(&repo_config).unwrap(), on_disk);
}

/// A hooks folder set by `core.hooksPath` (a committed `.husky`) is an anchor too.
#[test]
fn a_configured_hooks_folder_is_read_only_inside() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    std::fs::create_dir_all(s.repo.work.join(".husky")).unwrap();
    std::fs::write(s.repo.work.join(".husky/pre-push"), "#!/bin/sh\n").unwrap();
    crate::gate_repo::git(&s.repo.work, &["config", "core.hooksPath", ".husky"]);
    let out = s.confined("rm -f .husky/pre-push; echo x > src.txt; cat src.txt");
    assert!(
        out.stderr.contains("Read-only file system"),
        "{}",
        out.stderr
    );
    assert!(s.repo.work.join(".husky/pre-push").exists());
    assert_eq!(out.stdout, "x\n");
}

/// Gemini CLI runs its shell commands with `core.hooksPath` set empty (no hook runs): that names
/// no folder, so the work tree stays writable and `.git/hooks` stays read-only.
#[test]
fn an_empty_hooks_path_leaves_the_work_tree_writable() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let mut run = s.home.cmd_of(
        &s.binary,
        &[
            "run-confined",
            "--",
            "bash",
            "-c",
            "echo x > src.txt && cat src.txt; touch .git/hooks/post-checkout",
        ],
    );
    run.command
        .current_dir(&s.repo.work)
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.hooksPath")
        .env("GIT_CONFIG_VALUE_0", "");
    let out = run.output();
    assert_eq!(out.stdout, "x\n", "{}", out.stderr);
    assert!(
        out.stderr.contains("Read-only file system"),
        "{}",
        out.stderr
    );
    assert!(!s.repo.work.join(".git/hooks/post-checkout").exists());
}

/// A remote that is a local path takes a push without any credential: a confined command the
/// gate did not let through as a push sees it read-only, while fetching from it works and the
/// push the gate allows (`"push": "allow"` here) goes through.
#[test]
fn a_local_path_remote_takes_only_the_push_the_gate_let_through() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    s.home
        .user_config(r#"{"llm": {"provider": "none"}, "boundary": {"mode": "landlock"}}"#);
    // The pre-push hook refuses a push without test evidence of its own: not what is tested
    // here, so it goes.
    std::fs::remove_file(s.repo.work.join(".git/hooks/pre-push")).unwrap();
    // A relative path, as `git remote add origin ../x.git` writes it.
    crate::gate_repo::git(
        &s.repo.work,
        &["remote", "set-url", "origin", "../scenario-origin.git"],
    );
    let before = s.repo.origin_head();
    let local = crate::gate_repo::git(&s.repo.work, &["rev-parse", "main"]);
    assert_ne!(before, local.trim(), "there is local work to push");
    let run = |line: &str| {
        let mut run = s.home.cmd_of(std::path::Path::new("bash"), &["-c", line]);
        run.command.current_dir(&s.repo.work);
        run.output()
    };
    // A script whose push no reading of it sees: git, under another name made when it runs.
    std::fs::write(
        s.repo.work.join("ship.sh"),
        "ln -sf \"$(command -v git)\" tool\n./tool push origin main\n",
    )
    .unwrap();
    for agent in [Agent::Codex, Agent::Claude] {
        let answer = gate_answer(&s, agent, "sh ship.sh", "bypassPermissions");
        let line = rewritten(&answer).unwrap_or_else(|| panic!("{agent:?}: {answer}"));
        assert!(!line.contains("--with-credentials"), "{line}");
        let out = run(&line);
        assert_ne!(out.code, 0, "{agent:?}: the script pushed: {}", out.stderr);
        assert_eq!(s.repo.origin_head(), before, "{agent:?}: origin changed");
    }
    // Also written straight to the boundary, without the gate.
    let out = s.confined("git push origin main");
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(s.repo.origin_head(), before);
    // Fetching reads the remote, and writes only this repository.
    crate::gate_repo::git(&s.repo.origin, &["branch", "side", "main"]);
    let line = rewritten(&gate_answer(
        &s,
        Agent::Codex,
        "git fetch origin",
        "default",
    ))
    .unwrap();
    let out = run(&line);
    assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    assert!(
        crate::gate_repo::git(&s.repo.work, &["branch", "-r"]).contains("origin/side"),
        "fetched"
    );
    // The push the gate lets through (here, once a person approved it) keeps write access
    // to the remote.
    let push = "git push origin main";
    assert_eq!(
        gate_answer(&s, Agent::Codex, push, "default")["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let approved = approve_on_a_terminal(&s.home, "y");
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
    let answer = gate_answer(&s, Agent::Codex, push, "default");
    let line = rewritten(&answer).unwrap_or_else(|| panic!("{answer}"));
    assert!(line.contains("--with-credentials"), "{line}");
    let out = run(&line);
    assert_eq!(out.code, 0, "{line}: {}{}", out.stdout, out.stderr);
    assert_eq!(s.repo.origin_head(), local.trim());
}

/// `init --agent all` wrote hook files for every agent in the table; inside the boundary none of
/// them can be changed, moved or deleted, whatever the agent (not only Claude Code, Codex and
/// Gemini CLI, whose folders are anchors of their own).
#[test]
fn every_agents_hook_files_are_read_only_inside_the_boundary() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let files: Vec<std::path::PathBuf> = [
        ".qwen/settings.json",
        ".factory/settings.json",
        ".github/hooks/hookjudge.json",
        ".cursor/hooks.json",
        "crush.json",
        ".clinerules/hooks/PreToolUse",
    ]
    .iter()
    .map(|f| s.repo.work.join(f))
    .filter(|f| f.exists())
    .collect();
    assert!(
        files.len() >= 4,
        "init --agent all wrote too few: {files:?}"
    );
    for file in &files {
        let before = std::fs::read(file).unwrap();
        let path = file.display();
        for attack in [
            format!("printf '{{}}' > '{path}'"),
            format!("rm -f '{path}'"),
            format!("mv '{path}' '{path}.old'"),
            format!("cp /dev/null '{path}'"),
        ] {
            s.confined(&attack);
            assert_eq!(
                std::fs::read(file).ok(),
                Some(before.clone()),
                "`{attack}` changed it"
            );
        }
    }
    // The work tree around them stays writable.
    assert_eq!(s.confined("printf x > notes.txt && rm notes.txt").code, 0);
}

/// A SHA-256 repository is a repository too: its git folder is kept, its configuration read
/// without credentials (before, it could not be opened, and nothing of it was protected).
#[test]
fn a_sha256_repository_is_protected_like_any_other() {
    let s = Scenario::new();
    if !boundary_available(&s) {
        return;
    }
    let repo = s.home.path().join("sha256");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(s.home.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q", "--object-format=sha256", "sha256"]);
    git(&[
        "-C",
        "sha256",
        "remote",
        "add",
        "o",
        "https://TOKEN@example.org/r",
    ]);
    let mut run = s.home.cmd_of(
        &s.binary,
        &[
            "run-confined",
            "--",
            "bash",
            "-c",
            "git config --get remote.o.url; touch .git/hooks/pre-push || echo REFUSED",
        ],
    );
    run.command.current_dir(&repo);
    let out = run.output();
    assert_eq!(
        out.stdout, "https://example.org/r\nREFUSED\n",
        "{}",
        out.stderr
    );
    assert!(!repo.join(".git/hooks/pre-push").exists());
}
