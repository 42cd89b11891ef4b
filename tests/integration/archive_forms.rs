//! Archives extracted above hookjudge's places in the forms `tar -x` alone does not show:
//! `--strip-components` (members land shorter than they are written), `-P` (absolute members
//! land where they say, whatever the destination), `--transform` (names rewritten, so refused
//! above hookjudge's own places), pax path headers (the member's real name), `gtar`/`bsdtar`,
//! and zip archives through `unzip`.

use std::path::Path;
use std::process::Command;

use crate::self_protection::{Agent, run_gate, setup, shell_input, state_dir};

fn run(dir: &Path, program: &str, args: &[&str]) {
    let made = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(made.success(), "{program} {args:?}");
}

#[test]
fn archives_in_other_forms_are_read_for_what_lands_on_hookjudges_places() {
    let (home, repo) = setup();
    let state = state_dir(&home);
    let state_parent = state.parent().unwrap().display().to_string();
    // Written earlier: `wrap/hookjudge/trust.json` (one component too many), a pax archive
    // with a name too long for a plain header, an archive with an absolute member, a zip.
    let stage = repo.work.join("stage");
    let long = format!("hookjudge/{}/trust.json", "d".repeat(110));
    std::fs::create_dir_all(stage.join("wrap/hookjudge")).unwrap();
    std::fs::write(stage.join("wrap/hookjudge/trust.json"), "{}").unwrap();
    std::fs::create_dir_all(stage.join(&long).parent().unwrap()).unwrap();
    std::fs::write(stage.join(&long), "{}").unwrap();
    run(&stage, "tar", &["-cf", "../wrapped.tar", "wrap"]);
    run(&stage, "tar", &["--format=pax", "-cf", "../pax.tar", &long]);
    let to_state = format!("s,^wrap/hookjudge,{},", state.display());
    run(
        &stage,
        "tar",
        &[
            "-P",
            "--transform",
            &to_state,
            "-cf",
            "../absolute.tar",
            "wrap/hookjudge/trust.json",
        ],
    );
    run(
        &stage,
        "python3",
        &[
            "-c",
            "import zipfile\nwith zipfile.ZipFile('../staged.zip', 'w') as z:\n    z.writestr('hookjudge/trust.json', '{}')\n    z.writestr('src/ok.py', '')",
        ],
    );
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        for (command, said) in [
            (
                format!("tar --strip-components=1 -xf wrapped.tar -C {state_parent}"),
                "extracts `wrap/hookjudge",
            ),
            (
                format!("tar -xf wrapped.tar --strip-components 1 -C {state_parent}"),
                "extracts `wrap/hookjudge",
            ),
            (
                format!("tar -xf pax.tar -C {state_parent}"),
                "extracts `hookjudge/ddd",
            ),
            ("tar -xPf absolute.tar".into(), "extracts `/"),
            (
                format!("tar -xf wrapped.tar --transform 's,^wrap/,,' -C {state_parent}"),
                "member names rewritten",
            ),
            (
                format!("bsdtar -xf wrapped.tar -s ',^wrap/,,' -C {state_parent}"),
                "member names rewritten",
            ),
            (
                format!("gtar --strip-components=1 -xf wrapped.tar -C {state_parent}"),
                "extracts `wrap/",
            ),
            (
                format!("unzip -o staged.zip -d {state_parent}"),
                "extracts `hookjudge/trust.json`",
            ),
            (
                format!("cd {state_parent} && unzip {}/staged", repo.work.display()),
                "extracts `hookjudge/trust.json`",
            ),
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(
                decision, "deny",
                "{agent:?}: `{command}` was not denied: {reason}"
            );
            assert!(reason.contains(said), "{agent:?}: `{command}`: {reason}");
        }
        for command in [
            "tar --strip-components=1 -xf wrapped.tar -C out".to_string(),
            format!("tar -xf wrapped.tar -C {state_parent}"),
            "unzip -o staged.zip -d vendor".into(),
            format!("unzip -l staged.zip -d {state_parent}"),
            "tar -xPf wrapped.tar".into(),
        ] {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, &command));
            assert_eq!(
                decision, "silent",
                "{agent:?}: `{command}` was gated: {reason}"
            );
        }
    }
}
