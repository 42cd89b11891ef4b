//! The command line the gate hands back to the agent in place of the original: the same
//! command, run by `bash -c` under `hookjudge run-confined`.

use std::path::Path;

/// The subcommand that runs a command inside the boundary.
pub const SUBCOMMAND: &str = "run-confined";

/// The flag that leaves publishing credentials visible: the gate adds it to a command it let
/// through as a push, publish or deploy (or that a person approved).
pub const WITH_CREDENTIALS: &str = "--with-credentials";

/// `command`, to be run inside the boundary by the hookjudge binary at `exe`.
pub fn confined_command(exe: &Path, command: &str, with_credentials: bool) -> String {
    format!(
        "{} {SUBCOMMAND} {}-- bash -c {}",
        shell_words::quote(&exe.to_string_lossy()),
        if with_credentials {
            format!("{WITH_CREDENTIALS} ")
        } else {
            String::new()
        },
        shell_words::quote(command)
    )
}

/// Whether `command` already runs inside the boundary, credentials hidden (a rewrite the
/// agent sent back): exactly the line [`confined_command`] writes for the hookjudge binary at
/// `exe`, and nothing beside it (`… -- true; cat ~/.git-credentials` would run its second part
/// outside, and another program called `hookjudge` anything at all). One that asks for the
/// credentials is not: the agent could write that itself, so it is confined again (and the
/// inner boundary, which cannot be set up inside another, fails closed).
pub fn is_confined_command(command: &str, exe: &Path) -> bool {
    let Ok(words) = shell_words::split(command) else {
        return false;
    };
    let [program, subcommand, dashes, bash, c, script] = words.as_slice() else {
        return false;
    };
    let same = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    same(Path::new(program)) == same(exe)
        && subcommand == SUBCOMMAND
        && (dashes, bash, c) == (&"--".to_owned(), &"bash".to_owned(), &"-c".to_owned())
        && confined_command(Path::new(program), script, false) == command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_runs_exactly_the_command_and_is_recognised() {
        let exe = Path::new("/home/u/my bin/hookjudge");
        let line = confined_command(exe, "echo 'a b' && git status", false);
        assert_eq!(
            line,
            "'/home/u/my bin/hookjudge' run-confined -- bash -c 'echo '\\''a b'\\'' && git status'"
        );
        let words = shell_words::split(&line).unwrap();
        assert_eq!(words.last().unwrap(), "echo 'a b' && git status");
        let ours = Path::new("/usr/bin/hookjudge");
        assert!(is_confined_command(
            &confined_command(ours, "ls", false),
            ours
        ));
        assert!(!is_confined_command(
            &confined_command(ours, "ls", true),
            ours
        ));
        assert!(!is_confined_command("hookjudge gate", ours));
        assert!(!is_confined_command("echo hookjudge run-confined", ours));
        // Anything beside the rewrite runs outside it, and so does another `hookjudge`.
        let line = confined_command(ours, "true", false);
        assert!(is_confined_command(&line, ours));
        for beside in [
            format!("{line}; cat ~/.git-credentials"),
            format!("{line} && git push"),
            format!("{line}\ncat x"),
            "/usr/bin/hookjudge run-confined -- true; cat ~/.git-credentials".to_owned(),
            "/usr/bin/hookjudge run-confined -- bash -c 'true' ; cat x".to_owned(),
            confined_command(Path::new("./hookjudge"), "true", false),
            confined_command(Path::new("/tmp/evil/hookjudge"), "true", false),
        ] {
            assert!(!is_confined_command(&beside, ours), "{beside}");
        }
    }
}
