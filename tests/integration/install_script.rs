//! `install/install.sh` runs `cargo install` and `hookjudge init`; here `cargo` is a stand-in
//! on PATH (the real install is exercised by CI's own build), so the test checks the script's
//! own logic: idempotent init in the current repository, and `--uninstall`.

use std::path::Path;
use std::process::Command;

use crate::gate_repo::GitFixture;
use crate::harness::{BIN, Home};

fn run_script(home: &Home, dir: &Path, args: &[&str]) -> std::process::Output {
    let bin = home.path().join("cargo-home/bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A stand-in `cargo` that "installs" the binary this test suite built.
    let fake_cargo = format!(
        "#!/bin/sh\ncase \"$1\" in install) cp '{BIN}' '{}/hookjudge';; uninstall) rm -f '{}/hookjudge';; esac\n",
        bin.display(),
        bin.display()
    );
    std::fs::write(bin.join("cargo"), fake_cargo).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("cargo"))
        .status()
        .unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/install/install.sh");
    // `--uninstall` removes hooks, which only a person at a terminal may: run it on one,
    // answering yes.
    let uninstall = args.contains(&"--uninstall");
    let mut command = if uninstall {
        let mut line = vec!["sh".to_owned(), script.to_owned()];
        line.extend(args.iter().map(|a| a.to_string()));
        let mut c = Command::new("script");
        c.args(["-qec", &shell_words::join(line), "/dev/null"]);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg(script).args(args);
        c
    };
    command.stdin(if uninstall {
        std::process::Stdio::piped()
    } else {
        std::process::Stdio::null()
    });
    let child = command
        .current_dir(dir)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("CARGO_HOME", home.path().join("cargo-home"))
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = child;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(b"y\n");
    }
    child.wait_with_output().unwrap()
}

#[test]
fn install_script_is_idempotent_and_uninstalls() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = run_script(&home, &repo.work, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let settings = std::fs::read_to_string(repo.work.join(".claude/settings.local.json")).unwrap();
    assert!(settings.contains("cargo-home/bin/hookjudge"), "{settings}");
    let out = run_script(&home, &repo.work, &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"));
    assert_eq!(
        std::fs::read_to_string(repo.work.join(".claude/settings.local.json")).unwrap(),
        settings
    );
    let out = run_script(&home, &repo.work, &["--uninstall"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!home.path().join("cargo-home/bin/hookjudge").exists());
    assert!(
        !repo.work.join(".claude/settings.local.json").exists(),
        "uninstall removes the settings file that init created"
    );
}

#[test]
fn install_script_installs_man_pages_and_completions_and_removes_them() {
    let home = Home::new();
    let repo = GitFixture::new(home.path(), "repo");
    let out = run_script(&home, &repo.work, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let man_dir = home.path().join("cargo-home/share/man/man1");
    let pages = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/man"))
        .unwrap()
        .count();
    assert!(pages > 10);
    assert_eq!(std::fs::read_dir(&man_dir).unwrap().count(), pages);
    assert!(
        std::fs::read_to_string(man_dir.join("hookjudge-log.1"))
            .unwrap()
            .contains(".SH \"EXAMPLES\"")
    );
    // bash is on every machine the tests run on; zsh and fish only where installed.
    let bash = home
        .path()
        .join("data/bash-completion/completions/hookjudge");
    let script = std::fs::read_to_string(&bash).unwrap();
    assert!(
        script.contains("replay") && script.contains("--utc"),
        "{script}"
    );
    let syntax = Command::new("bash").arg("-n").arg(&bash).status().unwrap();
    assert!(syntax.success(), "the bash completion script parses");
    // The script and `install-extras` put every file in the same place: the script runs it.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("wrote {}", bash.display())),
        "{stdout}"
    );
    let listed = Command::new(home.path().join("cargo-home/bin/hookjudge"))
        .args(["install-extras", "--dry-run"])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let files: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_prefix("would write "))
        .collect();
    assert!(files.len() > pages, "{listed}");
    for file in &files {
        assert!(Path::new(file).is_file(), "{file} listed but not installed");
    }
    assert!(
        files.contains(&man_dir.join("hookjudge.1").to_str().unwrap()),
        "{listed}"
    );

    let out = run_script(&home, &repo.work, &["--uninstall"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&man_dir).unwrap().count(), 0);
    for file in &files {
        assert!(!Path::new(file).exists(), "{file} left behind");
    }
}
