//! `hookjudge completions SHELL` prints a script for every shell clap_complete knows, and the
//! scripts name the subcommands and their flags; where the shell is installed, it parses them.

use std::process::Command;

use crate::harness::Home;

#[test]
fn completions_generate_for_each_shell() {
    let home = Home::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = home.cmd(&["completions", shell]).output();
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        for word in ["hookjudge", "replay", "completions", "since", "utc", "jobs"] {
            assert!(out.stdout.contains(word), "{shell} script lacks `{word}`");
        }
        // Syntax-check with the shell itself where it is installed (bash always is).
        let check: &[&str] = match shell {
            "bash" => &["bash", "-n"],
            "zsh" => &["zsh", "-n"],
            "fish" => &["fish", "--no-execute"],
            _ => continue,
        };
        let script = home.path().join(format!("completion.{shell}"));
        std::fs::write(&script, &out.stdout).unwrap();
        match Command::new(check[0])
            .args(&check[1..])
            .arg(&script)
            .output()
        {
            Ok(result) => assert!(
                result.status.success(),
                "{shell} rejects its completion script: {}",
                String::from_utf8_lossy(&result.stderr)
            ),
            Err(_) => assert_ne!(shell, "bash", "bash is needed to check the bash script"),
        }
    }
    let bad = home.cmd(&["completions", "tcsh"]).output();
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("possible values"), "{}", bad.stderr);
}
