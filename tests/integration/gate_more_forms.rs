//! More forms that acted silently, each class in a real repository: a push to a remote the
//! same line adds (judged on the session's last test run, read from a real transcript);
//! publishers of other ecosystems, copies to and commands on other machines; interpreter code
//! that runs a program it builds; a makefile fed on standard input; sed's `e` command; a
//! command word's default (`${GIT:-git}`); and targets taken from a program's output. Their
//! everyday neighbours stay silent.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::gate_table_rows::Scene;
use crate::harness::Home;

/// A transcript whose only tool call is `pytest`, failing or passing.
fn transcript_with_test_run(home: &Home, passed: bool) -> PathBuf {
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "fix it and push"}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "1", "name": "Bash", "input": {"command": "python3 -m pytest -q"}}]}}),
        json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "1", "is_error": !passed, "content": if passed { "1 passed" } else { "1 failed" }}]}, "toolUseResult": {}}),
    ];
    let path = home.path().join(format!("session-{passed}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn decision(home: &Home, cwd: &Path, command: &str, t: &Path) -> (String, String) {
    let out = home
        .cmd(&["gate"])
        .stdin(pre_tool_use(cwd, command, false, Some(t)))
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    if out.stdout.trim().is_empty() {
        return ("silent".into(), String::new());
    }
    let v: Value = out.json();
    let field = |k: &str| {
        v["hookSpecificOutput"][k]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    (
        field("permissionDecision"),
        field("permissionDecisionReason"),
    )
}

#[test]
fn a_push_to_a_remote_the_line_adds_is_judged_like_one_to_origin() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    repo.commit("a.txt", "two\n", "change a");
    let line = format!(
        "git remote add backup {} && git push -q backup HEAD:refs/heads/main",
        repo.origin.display()
    );
    let failed = transcript_with_test_run(&home, false);
    let (d, why) = decision(&home, &repo.work, &line, &failed);
    assert_eq!(d, "deny", "{why}");
    assert!(why.contains("a remote the same line adds"), "{why}");
    let passed = transcript_with_test_run(&home, true);
    let (d, why) = decision(&home, &repo.work, &line, &passed);
    assert_eq!(d, "ask", "{why}");
    // The remote alone, or a fetch from it, publishes nothing.
    let fetch = format!(
        "git remote add backup {} && git fetch -q backup",
        repo.origin.display()
    );
    assert_eq!(decision(&home, &repo.work, &fetch, &failed).0, "silent");
}

#[test]
fn other_ecosystems_remote_machines_and_computed_code_ask() {
    let scene = Scene::new(&[("Makefile", "all:\n\techo built\n")]);
    scene.check(
        &[
            ("dart pub publish --force", Some("publish")),
            ("flutter pub publish", Some("publish")),
            ("mix hex.publish", Some("publish")),
            ("swift package-registry publish acme.pkg 1.0.0", Some("publish")),
            ("pod trunk push Pkg.podspec", Some("publish")),
            ("vsce publish", Some("publish")),
            ("ovsx publish", Some("publish")),
            ("snapcraft upload app.snap", Some("publish")),
            ("anaconda upload pkg.tar.bz2", Some("publish")),
            ("sbt clean +publishSigned", Some("publish")),
            ("scp -r src deploy@prod.example.com:/srv/app/", Some("deploy")),
            ("rsync -az --delete dist/ deploy@prod:/var/www/", Some("deploy")),
            (
                "ssh deploy@prod.example.com 'cd /srv/app && git pull && systemctl restart app'",
                Some("deploy"),
            ),
            (
                "python3 -c \"import importlib;m=importlib.import_module('sub'+'process');m.run(['gi'+'t','com'+'mit','-qam','x'])\"",
                Some("unparsed"),
            ),
            (
                "python3 -c \"exec(bytes.fromhex('696d706f7274206f73').decode())\"",
                Some("unparsed"),
            ),
            (
                "perl -e '$_=reverse \"sutats tig\"; system $_'",
                Some("unparsed"),
            ),
            (
                "printf 'all:\\n\\tgit push origin main\\n' | make -f -",
                Some("unparsed"),
            ),
            ("sed 'e git push origin main' a.txt", Some("push")),
            ("echo x | sed 's/x/git status/e'", Some("unparsed")),
            ("${HJ_UNSET_GIT:-git} ${HJ_UNSET_VERB:-push} origin main", Some("push")),
            ("f=$(git ls-files | head -1); : > \"$f\"", Some("unparsed")),
            ("v=$(echo ZHJvcA== | base64 -d); git stash $v", Some("unparsed")),
            (
                "b=$(git branch --list 'top*' | head -1); git branch -D \"$b\"",
                Some("unparsed"),
            ),
        ],
        &[
            "ssh prod",
            "ssh -T git@github.com",
            "scp prod:/var/log/app.log /tmp/",
            "rsync -a src/ /tmp/backup/",
            "dart pub get",
            "mix test",
            "sed -i 's/a/b/' a.txt",
            "sed -n '1,5p' a.txt",
            "python3 -c \"print(', '.join(['a', 'b']))\"",
            "python3 -c \"import subprocess; subprocess.run(['ls'])\"",
            "make all",
            "${HJ_UNSET_GIT:-git} ${HJ_UNSET_VERB:-status}",
            "out=$(mktemp); git log > \"$out\"",
            "f=$(git ls-files | head -1); echo note >> \"$f\"",
            "git tag \"v$(cat a.txt)\"",
            "git stash push -m \"$(date)\"",
        ],
    );
}
