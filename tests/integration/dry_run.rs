//! `--dry-run` prints unified diffs that the real `patch -p1` applies: applied to a copy, they
//! give the files `init` writes (and the settings files `uninstall` leaves), an unchanged file
//! shows nothing, and the generated schema is named, not inlined, by `init` (`uninstall` shows
//! its removal as a deletion diff, so that `patch` removes it too).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_repo::GitFixture;
use crate::harness::Home;
use crate::install::{in_dir, read};

/// The user's own settings: comments, a trailing comma, CRLF line ends, no final newline.
const CLAUDE_LOCAL: &str =
    "{\r\n  // mine\r\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\r\n}";

const FILES: [&str; 6] = [
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".gemini/settings.json",
    ".hookjudge.json",
    ".git/info/exclude",
    ".git/hooks/pre-push",
];

pub fn patch(dir: &Path, diff: &str) {
    use std::io::Write;
    let mut child = Command::new("patch")
        .args(["-p1", "--batch", "--silent"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "patch failed: {}{}\n{diff}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn setup(home: &Home, name: &str) -> GitFixture {
    let repo = GitFixture::new(home.path(), name);
    let path = repo.work.join(".claude/settings.local.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, CLAUDE_LOCAL).unwrap();
    repo
}

fn contents(dir: &Path) -> Vec<Option<String>> {
    FILES
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).ok())
        .collect()
}

#[test]
fn dry_run_diffs_apply_with_patch() {
    let home = Home::new();
    let dry = setup(&home, "dry");
    let real = setup(&home, "real");
    let before = contents(&real.work);
    let args = ["init", "--agent", "all", "--git-hook"];
    let diff = in_dir(&home, &dry.work, &[&args[..], &["--dry-run"]].concat());
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    assert!(
        diff.stdout
            .contains("--- a/.claude/settings.local.json\n+++ b/.claude/settings.local.json\n@@ ")
            && diff
                .stdout
                .contains("--- /dev/null\n+++ b/.codex/hooks.json\n"),
        "{}",
        diff.stdout
    );
    // The schema is named with its size, not printed.
    assert!(
        diff.stdout
            .contains("# .hookjudge/schema.json: writes the config's JSON Schema (")
    );
    assert!(!diff.stdout.contains("\"$defs\"") && !diff.stdout.contains("\"properties\""));
    patch(&dry.work, &diff.stdout);
    assert_eq!(in_dir(&home, &real.work, &args).code, 0);
    let installed = contents(&real.work);
    assert_eq!(contents(&dry.work), installed);
    // The pre-push hook keeps its mode only through `init`; patch writes its text.
    assert!(installed[5].is_some());
    // Nothing changes now: no diff at all.
    let again = in_dir(&home, &real.work, &[&args[..], &["--dry-run"]].concat());
    assert!(
        !again.stdout.contains("--- ") && !again.stdout.contains("+++ "),
        "{}",
        again.stdout
    );
    // `uninstall --dry-run` applies too, and gives back the files as they were.
    let undo = in_dir(&home, &real.work, &["uninstall", "--dry-run"]);
    assert!(undo.stdout.contains("+++ /dev/null"), "{}", undo.stdout);
    // What has no diff (the git hook) is named in a comment line, which `patch` skips.
    assert!(
        undo.stdout
            .contains("# would be removed    .git/hooks/pre-push"),
        "{}",
        undo.stdout
    );
    // The generated schema goes as a real deletion, so that `patch` removes it too; the
    // repository's shared config stays, and the dry run says so and why.
    assert!(
        undo.stdout
            .contains("--- a/.hookjudge/schema.json\n+++ /dev/null\n@@ "),
        "{}",
        undo.stdout
    );
    assert!(
        undo.stdout
            .contains("# `.hookjudge.json` is kept: it is the repository's shared settings"),
        "{}",
        undo.stdout
    );
    assert!(real.work.join(".hookjudge/schema.json").is_file());
    patch(&real.work, &undo.stdout);
    assert!(!real.work.join(".hookjudge/schema.json").exists());
    let after = contents(&real.work);
    // `.hookjudge.json` stays; the pre-push hook is named in a line, not diffed.
    let kept = [".hookjudge.json", ".git/hooks/pre-push"];
    for (i, file) in FILES.iter().enumerate().filter(|(_, f)| !kept.contains(f)) {
        assert_eq!(after[i], before[i], "{file}");
    }
    assert_eq!(
        read(&real.work.join(".claude/settings.local.json")),
        CLAUDE_LOCAL
    );
}
