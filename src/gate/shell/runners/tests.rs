//! The runners through the shell reader: a recipe's commands are found like the line's own.

use std::path::Path;

use crate::gate::shell::{Word, parse};

fn programs(line: &str, dir: &Path) -> Vec<String> {
    parse(line, dir)
        .commands
        .iter()
        .map(|c| c.argv.iter().map(Word::text).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn recipes_are_followed_through_runners_that_call_runners() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Makefile"),
        "ship:\n\tnpm run release\nloop:\n\t$(MAKE) loop2\nloop2:\n\t$(MAKE) loop\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"scripts": {"release": "git push origin main"}}"#,
    )
    .unwrap();
    let found = programs("make ship", dir.path());
    assert!(
        found.iter().any(|c| c == "git push origin main"),
        "{found:?}"
    );
    // Recursion without end stops at the shell's depth bound, and says so.
    let s = parse("make loop", dir.path());
    assert!(!s.incomplete.is_empty(), "{:?}", s.commands);
}

#[test]
fn a_test_runner_s_hook_file_that_pushes_is_unknowable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("conftest.py"),
        "import subprocess\nsubprocess.run(['git', 'push', 'origin', 'main'])\n",
    )
    .unwrap();
    assert!(
        !parse("python3 -m pytest -q", dir.path())
            .unknowable
            .is_empty()
    );
    std::fs::write(
        dir.path().join("conftest.py"),
        "import subprocess\n\ndef repo(tmp_path):\n    subprocess.run(['git', 'init'], cwd=tmp_path)\n",
    )
    .unwrap();
    assert!(parse("pytest -q", dir.path()).unknowable.is_empty());
}

#[test]
fn a_makefile_read_from_standard_input_is_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Makefile"), "all:\n\techo hi\n").unwrap();
    for line in [
        "printf 'all:\\n\\tgit push origin main\\n' | make -f -",
        "make -f /dev/stdin < build.mk",
        "gmake --file=- all <<'EOF'\nall:\n\tgit push\nEOF",
    ] {
        assert!(!parse(line, dir.path()).incomplete.is_empty(), "{line}");
    }
    assert!(parse("make all", dir.path()).incomplete.is_empty());
}
