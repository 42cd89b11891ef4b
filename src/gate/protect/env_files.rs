//! Environment files the agent CLIs load into their own environment, which every hook they
//! run inherits: Gemini CLI reads `.gemini/.env` or `.env` (from the working directory up to
//! the project root, then `~/.gemini/.env`, `~/.env`), Codex CLI `$CODEX_HOME/.env`
//! (`~/.codex/.env`). A line there that sets `HOOKJUDGE_CONFIG`, an `XDG_*` base directory,
//! `HOME`, `PATH` or an agent's home moves hookjudge's config, state or binary (or the agent's
//! hook settings) for the next session, so writing one is gated like a write to the state dir.
//! Other lines (`DATABASE_URL=…`) are the project's business.

use std::path::Path;

/// The variables that move what hookjudge reads or runs. `HOOKJUDGE_` is a prefix.
pub const MOVING_VARIABLES: [&str; 8] = [
    "HOOKJUDGE_",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "HOME",
    "PATH",
    "GEMINI_CLI_HOME",
    "CODEX_HOME",
];

/// Whether `path` is an environment file an agent CLI loads (any file named `.env`: the
/// project's, `.gemini/.env`, `~/.codex/.env`, `~/.env`).
pub fn is_env_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".env")
}

/// The variable an assignment `NAME=…` sets, when it is one of [`MOVING_VARIABLES`].
fn moving(name: &str) -> Option<&str> {
    let name = name.trim();
    MOVING_VARIABLES
        .iter()
        .any(|v| {
            if let Some(prefix) = v.strip_suffix('_') {
                name.starts_with(prefix) && name[prefix.len()..].starts_with('_')
            } else {
                name == *v
            }
        })
        .then_some(name)
}

/// The moving variables an env file's text sets, one `NAME=value` line each (`export NAME=`
/// too), as the lines that set them.
pub fn settings_in(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
            let (name, _) = line.split_once('=')?;
            moving(name).map(|_| line.to_owned())
        })
        .collect()
}

/// The first moving variable `after` sets that `before` did not (same line), if any.
pub fn newly_set(before: &str, after: &str) -> Option<String> {
    let old = settings_in(before);
    settings_in(after)
        .into_iter()
        .find(|line| !old.contains(line))
        .map(|line| line.split('=').next().unwrap_or("").trim().to_owned())
}

/// A moving variable assigned anywhere in a command line (`echo HOOKJUDGE_CONFIG=x >> .env`,
/// a heredoc's line), if any: the name right before an `=`, as a word of its own.
pub fn assigned_in_text(text: &str) -> Option<String> {
    for (at, _) in text.match_indices('=') {
        let before = &text[..at];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if let Some(name) = moving(&before[start..]) {
            return Some(name.to_owned());
        }
    }
    None
}

/// Whether a text names an env file as a word of its own (`.env`, `~/.codex/.env`,
/// `open('.gemini/.env', 'a')`), not `.envrc` or `x.env`.
pub fn names_env_file(text: &str) -> bool {
    text.match_indices(".env").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + 4..].chars().next();
        before
            .is_none_or(|c| c == '/' || !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-'))
            && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-'))
    })
}

/// What a command line or a script's text does to an env file, if it names one and assigns
/// a moving variable.
pub fn text_writes(text: &str) -> Option<String> {
    if !names_env_file(text) {
        return None;
    }
    let name = assigned_in_text(text)?;
    Some(format!(
        "sets `{name}` in an environment file an agent CLI loads (`.env`), which would move hookjudge's config, state or binary for the next session"
    ))
}

/// What writing `after` over `before` into the env file `path` does against hookjudge, if
/// anything: the text for the gate's reason.
pub fn file_write(path: &Path, before: &str, after: &str) -> Option<String> {
    let name = newly_set(before, after)?;
    Some(env_reason(&name, path))
}

pub fn env_reason(name: &str, path: &Path) -> String {
    format!(
        "sets `{name}` in `{}`, an environment file an agent CLI loads, which would move hookjudge's config, state or binary for the next session",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_variables_that_move_hookjudge_count() {
        let text = "DATABASE_URL=postgres://x\nexport HOOKJUDGE_CONFIG=/tmp/c.json\nMY_HOME=/x\nXDG_STATE_HOME = /tmp/s\n";
        assert_eq!(
            settings_in(text),
            ["HOOKJUDGE_CONFIG=/tmp/c.json", "XDG_STATE_HOME = /tmp/s"]
        );
        assert_eq!(
            newly_set("A=1\n", "A=1\nHOME=/tmp/h\n").as_deref(),
            Some("HOME")
        );
        assert_eq!(newly_set("HOME=/h\n", "HOME=/h\nB=2\n"), None);
        assert_eq!(
            assigned_in_text("echo 'HOOKJUDGE_CONFIG=/x' >> .env").as_deref(),
            Some("HOOKJUDGE_CONFIG")
        );
        assert_eq!(assigned_in_text("echo \"DIR=$HOME/x\" >> .env"), None);
        assert_eq!(assigned_in_text("echo HOOKJUDGEX=1 >> .env"), None);
        assert!(names_env_file("open('.gemini/.env','a')"));
        assert!(names_env_file("cat >> ~/.codex/.env"));
        assert!(!names_env_file("cat .envrc x.env .env.local"));
        assert!(is_env_file(Path::new("/h/.gemini/.env")));
        assert!(!is_env_file(Path::new("/h/.envrc")));
    }
}
