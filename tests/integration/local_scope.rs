//! `local` means this checkout for every agent: Codex and Gemini get the repository's own
//! files, kept out of git, never the user's; another repository does not see them, and a
//! committed file of the team's is left alone.

use crate::gate_repo::{GitFixture, git};
use crate::harness::Home;
use crate::install::{in_dir, read};

#[test]
fn a_local_install_stays_in_its_checkout() {
    let home = Home::new();
    let alpha = GitFixture::new(home.path(), "alpha");
    let beta = GitFixture::new(home.path(), "beta");
    let out = in_dir(&home, &alpha.work, &["init", "--agent", "all"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!home.path().join(".codex").exists() && !home.path().join(".gemini").exists());
    // Each note is whole (wrapped at spaces only), and names the agent it is about.
    let flat = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("open `/hooks` in Codex and trust the hookjudge entries")
            && flat.contains("Gemini CLI runs a repository's `.gemini/settings.json` hooks"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("every project"), "{}", out.stdout);
    // Another repository, in team mode, does not see alpha's install as a second one.
    let out = in_dir(
        &home,
        &beta.work,
        &["init", "--agent", "codex", "--scope", "project"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doctor = in_dir(&home, &beta.work, &["doctor", "--json"]).json();
    let twice: Vec<_> = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"].as_str().unwrap().ends_with("installs"))
        .collect();
    assert!(twice.is_empty(), "{twice:?}");
    // Outside any repository there is nothing local to remove.
    let out = in_dir(
        &home,
        &home.work(),
        &[
            "uninstall",
            "--scope",
            "local",
            "--agent",
            "all",
            "--dry-run",
        ],
    );
    assert!(
        !out.stdout.contains(".codex") && !out.stdout.contains(".gemini"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_committed_settings_file_is_left_alone() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let team = "{\n  \"model\": {\"name\": \"gemini-2.5-pro\"}\n}\n";
    std::fs::create_dir_all(repo.work.join(".gemini")).unwrap();
    std::fs::write(repo.work.join(".gemini/settings.json"), team).unwrap();
    git(&repo.work, &["add", "."]);
    git(&repo.work, &["commit", "-qm", "team settings"]);
    let out = in_dir(&home, &repo.work, &["init", "--agent", "gemini"]);
    assert!(
        out.stdout.contains("is committed in this repository"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(read(&repo.work.join(".gemini/settings.json")), team);
    assert!(!home.path().join(".gemini").exists());
}
