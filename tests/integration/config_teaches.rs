//! The config explains itself: every command that reads it reports a bad pattern with the
//! exact key and the next command, `.hookjudge.json` names no `$schema` a clone lacks, and
//! artifact globs are real globs.

use std::path::Path;

use serde_json::Value;

use crate::gate_repo::{GitFixture, pre_tool_use};
use crate::harness::Home;
use crate::install::{in_dir, read};

#[test]
fn config_show_reports_a_bad_pattern_with_its_key_and_file() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    // The user's own config: read whatever a repository's file may set.
    home.user_config(
        r#"{"judges": {"commit": {"add_triggers": ["(unclosed"]}}, "gate": {"add_artifacts": ["reports/[x"]}}"#,
    );
    let file = home.path().join("config/hookjudge/config.json");
    // A pattern that is not a regex: the config does not load, and the key and file are named.
    let out = in_dir(&home, &repo.work, &["config", "show"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("at `judges.commit.add_triggers[0]`: judge `commit`")
            && out.stderr.contains(&format!(
                "hint: fix `judges.commit.add_triggers[0]` in `{}`",
                file.display()
            )),
        "{}",
        out.stderr
    );
    let out = in_dir(&home, &repo.work, &["doctor", "--json"]);
    let config = out.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "config")
        .unwrap()
        .clone();
    assert_eq!(config["ok"], false);
    assert!(
        config["fix"]
            .as_str()
            .unwrap()
            .contains("judges.commit.add_triggers[0]"),
        "{config}"
    );
    // The pattern fixed, the glob that is not a glob is a problem shown after the values.
    home.user_config(r#"{"gate": {"add_artifacts": ["reports/[x"]}}"#);
    let out = in_dir(&home, &repo.work, &["config", "show"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("llm.provider = "),
        "the values are still shown"
    );
    assert!(
        out.stderr.contains("1 problem(s)") && out.stderr.contains("`gate.add_artifacts[0]`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "hint: fix `gate.add_artifacts[0]` in `{}`, then run `hookjudge config show`",
            file.display()
        )),
        "{}",
        out.stderr
    );
    // A key the parser does not know: the hint names it too.
    home.user_config(r#"{"stop": {"max_block": 1}}"#);
    let out = in_dir(&home, &repo.work, &["config", "show"]);
    assert!(
        out.stderr.contains("hint: fix `stop.max_block` in `")
            && out
                .stderr
                .contains("`hookjudge config schema` lists every key"),
        "{}",
        out.stderr
    );
}

#[test]
fn init_commits_no_schema_reference_a_clone_cannot_resolve() {
    // `$schema` named `./.hookjudge/schema.json`, which is git-ignored: a teammate's clone
    // pointed at nothing, and the file no longer matched what `init` is known to write.
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    assert_eq!(in_dir(&home, &repo.work, &["init"]).code, 0);
    let config: Value = serde_json::from_str(&read(&repo.work.join(".hookjudge.json"))).unwrap();
    assert_eq!(config.get("$schema"), None, "{config}");
    // The schema is still there for the editor's own settings, and rewritten on demand.
    let schema_path = repo.work.join(".hookjudge/schema.json");
    let printed = in_dir(&home, &repo.work, &["config", "schema"]).stdout;
    assert_eq!(read(&schema_path), printed);
    std::fs::remove_file(&schema_path).unwrap();
    let out = in_dir(
        &home,
        &repo.work.join("."),
        &["config", "schema", "--write"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(read(&schema_path), printed);
    // A file that names a `$schema` of its own is accepted by the parser.
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"$schema": "./.hookjudge/schema.json", "gate": {}, "judges": {}}"#,
    )
    .unwrap();
    assert_eq!(in_dir(&home, &repo.work, &["config", "show"]).code, 0);
    // No advice to add a reference that would break clones.
    std::fs::write(repo.work.join(".hookjudge.json"), "{}").unwrap();
    let out = in_dir(&home, &repo.work, &["init"]);
    assert!(!out.stdout.contains("$schema"), "{}", out.stdout);
}

#[test]
fn user_scope_prints_absolute_paths_and_the_user_config() {
    let home = Home::new();
    let out = in_dir(&home, &home.work(), &["init", "--scope", "user"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let settings = home.path().join(".claude/settings.json");
    assert!(
        out.stdout
            .contains(&format!("created    {}", settings.display())),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains(".hookjudge.json"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            &home
                .path()
                .join("config/hookjudge/config.json")
                .display()
                .to_string()
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_settings_file_that_is_not_an_object_is_explained() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let path = repo.work.join(".claude/settings.local.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "[]").unwrap();
    let out = in_dir(&home, &repo.work, &["init"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("the top level is an array, but a settings file is one JSON object")
            && !out.stderr.contains("fix or remove that key"),
        "{}",
        out.stderr
    );
}

#[test]
fn double_star_artifacts_count_as_evidence() {
    let home = Home::new();
    home.user_config(
        r#"{"llm": {"provider": "none"}, "gate": {"add_artifacts": ["**/junit.xml"]}}"#,
    );
    let repo = GitFixture::new(home.path(), "repo");
    // A monorepo service whose build folder is ignored, as build folders are.
    std::fs::create_dir_all(repo.work.join("services/api")).unwrap();
    std::fs::write(repo.work.join("services/api/.gitignore"), "build/\n").unwrap();
    repo.commit("services/api/main.rs", "fn main() {}\n", "change a");
    let gate = |home: &Home, dir: &Path| {
        let out = home
            .cmd(&["gate"])
            .stdin(pre_tool_use(dir, "git push origin main", false, None))
            .output();
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    assert!(gate(&home, &repo.work).contains("ask"), "no evidence yet");
    let report = repo.work.join("services/api/build/junit.xml");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    std::fs::write(&report, "<testsuites/>").unwrap();
    assert_eq!(gate(&home, &repo.work).trim(), "", "a fresh report passes");
    let evidence = &home.last_log()["rulings"][0]["evidence"];
    assert_eq!(evidence["kind"], "fresh_artifact", "{evidence}");
    assert!(
        evidence["path"]
            .as_str()
            .unwrap()
            .ends_with("services/api/build/junit.xml"),
        "{evidence}"
    );
}

#[test]
fn a_judge_pattern_too_big_to_compile_is_refused_when_the_config_loads() {
    let home = Home::new();
    // A regex, but a million copies of `a`: far past the size limit of a compiled pattern.
    home.user_config(
        r#"{"llm": {"provider": "none"}, "judges": {"commit": {"add_triggers": ["fine", "(?:a{1000}){1000}"]}}}"#,
    );
    let file = home.path().join("config/hookjudge/config.json");
    let explained = |stderr: &str| {
        stderr.contains(
            "at `judges.commit.add_triggers[1]`: judge `commit`: trigger pattern `(?:a{1000}){1000}` is too big",
        ) && stderr.contains(&format!(
            "hint: fix `judges.commit.add_triggers[1]` in `{}`",
            file.display()
        ))
    };
    let out = home.cmd(&["config", "show"]).output();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(explained(&out.stderr), "{}", out.stderr);
    // Whatever the text: a text without an `a` would never have compiled it.
    let out = home
        .cmd(&["judge", "--no-llm"])
        .stdin("I reworded the docs.")
        .output();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(explained(&out.stderr), "{}", out.stderr);
}

#[test]
fn a_test_command_pattern_that_is_not_a_regex_does_not_load() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "none"}, "gate": {"test_commands": "(cargo test"}}"#);
    let repo = GitFixture::new(home.path(), "repo");
    let out = in_dir(&home, &repo.work, &["check", "--no-input"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("at `gate.test_commands`: not a valid regex")
            && out.stderr.contains("hint: fix `gate.test_commands` in `"),
        "{}",
        out.stderr
    );
}

#[test]
fn config_show_names_the_file_that_set_each_key() {
    let home = Home::new();
    home.user_config(r#"{"gate": {"push": "ask", "timeout_ms": 900}}"#);
    let user = home.path().join("config/hookjudge/config.json");
    // A layer above holding an empty `gate` section sets no gate key.
    let explicit = home.path().join("empty-gate.json");
    std::fs::write(&explicit, r#"{"gate": {}, "text_bytes": 1234}"#).unwrap();
    let out = in_dir(
        &home,
        &home.work(),
        &["--config", explicit.to_str().unwrap(), "config", "show"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |key: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no `{key}` in {}", out.stdout))
            .to_owned()
    };
    let (user, explicit) = (user.display().to_string(), explicit.display().to_string());
    assert!(
        line("gate.push").ends_with(&format!("({user})")),
        "{}",
        line("gate.push")
    );
    assert!(line("gate.timeout_ms").ends_with(&format!("({user})")));
    assert!(
        line("gate.commit").ends_with("(default)"),
        "{}",
        line("gate.commit")
    );
    assert!(line("gate.artifacts").ends_with("(default)"));
    assert!(line("text_bytes").ends_with(&format!("= 1234  ({explicit})")));
}

#[test]
fn config_path_labels_an_explicit_file_outside_a_repository() {
    let home = Home::new();
    let explicit = home.path().join("mine.json");
    std::fs::write(&explicit, "{}").unwrap();
    let out = in_dir(
        &home,
        &home.work(),
        &["--config", explicit.to_str().unwrap(), "config", "path"],
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(lines[0].starts_with("user "), "{}", out.stdout);
    assert!(
        lines[1].starts_with("explicit ") && lines[1].contains(explicit.to_str().unwrap()),
        "{}",
        out.stdout
    );
}

/// The Layer 1 signal of `judge` on `text` under `home`'s config, as `judge --no-llm --json`
/// reports it.
fn layer1_signal(home: &Home, judge: &str, text: &str) -> String {
    let out = home
        .cmd(&["judge", "--no-llm", "--json", "--judge", judge])
        .stdin(text)
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.json()["judges"][0]["layer1"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn speech_masks_and_shown_headings_from_the_config_keep_shown_words_from_waking_a_judge() {
    let home = Home::new();
    let masked = "Updated the Fixed Asset Register export; totals match the ledger.";
    let headed = "Weekly report\n### Resolved\n- duplicate invoices in March";
    home.user_config(r#"{"llm": {"provider": "none"}}"#);
    assert_eq!(layer1_signal(&home, "shallow-bugfix", masked), "trigger");
    assert_eq!(layer1_signal(&home, "shallow-bugfix", headed), "trigger");
    home.user_config(
        r#"{"llm": {"provider": "none"}, "speech": {"add_masks": ["\\bfixed asset register\\b"], "add_shown_headings": ["^#+\\s*resolved$"]}}"#,
    );
    assert_eq!(layer1_signal(&home, "shallow-bugfix", masked), "quiet");
    assert_eq!(layer1_signal(&home, "shallow-bugfix", headed), "quiet");
    // Said, not shown: still judged.
    assert_eq!(
        layer1_signal(&home, "shallow-bugfix", "I fixed the totals."),
        "trigger"
    );
    let out = home.cmd(&["config", "show"]).output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let user = home.path().join("config/hookjudge/config.json");
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("speech.add_masks = ")
                && l.contains("fixed asset register")
                && l.ends_with(&format!("({})", user.display()))),
        "{}",
        out.stdout
    );
}

#[test]
fn a_speech_rule_that_is_not_a_regex_names_its_key() {
    let home = Home::new();
    home.user_config(
        r#"{"llm": {"provider": "none"}, "speech": {"add_shown_headings": ["^ok$", "(unclosed"]}}"#,
    );
    let file = home.path().join("config/hookjudge/config.json");
    for args in [&["config", "show"][..], &["judge", "--no-llm"][..]] {
        let out = home.cmd(args).stdin("I fixed it.").output();
        assert_eq!(out.code, 2, "{args:?}: {}", out.stdout);
        assert!(
            out.stderr.contains(
                "at `speech.add_shown_headings[1]`: shown heading pattern `(unclosed` is not a valid regex"
            ) && out.stderr.contains(&format!(
                "hint: fix `speech.add_shown_headings[1]` in `{}`",
                file.display()
            )),
            "{args:?}: {}",
            out.stderr
        );
    }
}
