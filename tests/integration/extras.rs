//! What a person gets after `cargo install` with one more command: `install-extras` puts every
//! man page and the bash, zsh and fish completions where `man` and the shells look; `--help`
//! lists the person's commands before the hooks' entry points.

use crate::harness::Home;

#[test]
fn install_extras_writes_every_man_page_and_the_completions() {
    let home = Home::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    let mut table: Vec<String> = hookjudge::commands::install_extras::MAN_PAGES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    table.sort();
    assert_eq!(
        table, shipped,
        "the built-in table lists every page in man/"
    );
    // The default prefix is ~/.local.
    let dry = home.cmd(&["install-extras", "--dry-run"]).output();
    assert!(
        dry.stdout.contains(&format!(
            "would write {}/.local/share/man/man1/hookjudge.1",
            home.path().display()
        )),
        "{}",
        dry.stdout
    );
    assert!(!home.path().join(".local").exists());
    let prefix = home.path().join("prefix");
    let out = home
        .cmd(&["install-extras", "--prefix", prefix.to_str().unwrap()])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in &shipped {
        let installed = std::fs::read_to_string(prefix.join("share/man/man1").join(name)).unwrap();
        assert_eq!(
            installed,
            std::fs::read_to_string(dir.join(name)).unwrap(),
            "{name}"
        );
    }
    for (file, shell) in [
        ("share/bash-completion/completions/hookjudge", "bash"),
        ("share/zsh/site-functions/_hookjudge", "zsh"),
        ("share/fish/vendor_completions.d/hookjudge.fish", "fish"),
    ] {
        let script = std::fs::read_to_string(prefix.join(file)).unwrap();
        assert_eq!(
            script,
            home.cmd(&["completions", shell]).output().stdout,
            "{file}"
        );
    }
    // `man` itself finds the page, when it is installed here.
    if let Ok(found) = std::process::Command::new("man")
        .args([
            "-M",
            prefix.join("share/man").to_str().unwrap(),
            "-w",
            "hookjudge-log",
        ])
        .output()
        && found.status.success()
    {
        assert!(String::from_utf8_lossy(&found.stdout).contains("hookjudge-log.1"));
    }
}

#[test]
fn help_lists_the_persons_commands_before_the_hook_entry_points() {
    let home = Home::new();
    let help = home.cmd(&["--help"]).output().stdout;
    let at = |word: &str| {
        help.find(&format!("\n  {word} "))
            .unwrap_or_else(|| panic!("no `{word}` in\n{help}"))
    };
    for person in ["init", "doctor", "log", "stats", "check", "install-extras"] {
        assert!(at(person) < at("stop") && at(person) < at("gate"), "{help}");
    }
}

#[test]
fn doctor_is_in_colour_on_a_terminal_only_and_fits_100_columns() {
    let home = Home::new();
    let screen = home
        .cmd(&["doctor"])
        .env("TERM", "xterm")
        .on_terminal("")
        .stdout;
    assert!(screen.contains("\u{1b}[32mok \u{1b}[0m"), "{screen:?}");
    let plain = home
        .cmd(&["doctor"])
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .on_terminal("")
        .stdout;
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let piped = home.cmd(&["doctor"]).output().stdout;
    assert!(!piped.contains('\u{1b}'), "{piped:?}");
    // Long details wrap under their check (a path longer than a line keeps its own).
    for line in piped.lines().filter(|l| !l.contains('/')) {
        assert!(line.chars().count() <= 100, "{line}");
    }
}
