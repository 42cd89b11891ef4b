//! Config files are read as the agents read their settings (comments and trailing commas), a
//! misspelled name gets "did you mean", and `config check`/`config show` exit non-zero on a
//! file they ignore.

use crate::gate_repo::GitFixture;
use crate::harness::Home;
use crate::install::in_dir;

#[test]
fn comments_and_trailing_commas_are_accepted_in_both_files() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    home.user_config(
        "{\n  // the LLM, for every repository\n  \"llm\": {\"provider\": \"none\", \"timeout_ms\": 4321,},\n  /* done */\n}\n",
    );
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        "{\n  \"gate\": {\"push\": \"deny\",}, // no pushes here\n}\n",
    )
    .unwrap();
    let out = in_dir(&home, &repo.work, &["config", "show"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("llm.timeout_ms = 4321"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("gate.push = \"deny\""),
        "{}",
        out.stdout
    );
    let out = in_dir(&home, &repo.work, &["config", "check"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn a_misspelled_value_or_key_gets_the_closest_name() {
    let home = Home::new();
    home.user_config(r#"{"llm": {"provider": "opnai"}}"#);
    let out = in_dir(&home, &home.work(), &["config", "show"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `openai`?"),
        "{}",
        out.stderr
    );
    home.user_config(r#"{"llm": {"providr": "openai"}}"#);
    let out = in_dir(&home, &home.work(), &["config", "check"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `provider`?"),
        "{}",
        out.stderr
    );
    home.user_config(r#"{"llm": {"provider": "gemini"}}"#);
    let out = in_dir(&home, &home.work(), &["config", "show"]);
    assert!(!out.stderr.contains("did you mean"), "{}", out.stderr);
}

#[test]
fn a_repository_file_that_is_ignored_exits_non_zero() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        "{\"gate\": {\"push\": }}",
    )
    .unwrap();
    let show = in_dir(&home, &repo.work, &["config", "show"]);
    assert_eq!(show.code, 1, "{}", show.stdout);
    let check = in_dir(&home, &repo.work, &["config", "check"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains("is not valid config"),
        "{}",
        check.stdout
    );
    // Untrusted keys that would weaken hookjudge are ignored too: `check` says so.
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"gate": {"push": "allow"}}"#,
    )
    .unwrap();
    let check = in_dir(&home, &repo.work, &["config", "check"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(check.stdout.contains("gate.push"), "{}", check.stdout);
    // Only stricter: all of it applies.
    std::fs::write(
        repo.work.join(".hookjudge.json"),
        r#"{"gate": {"push": "deny"}}"#,
    )
    .unwrap();
    let check = in_dir(&home, &repo.work, &["config", "check"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
}
