//! The ignore lines for what hookjudge leaves in a repository (backups, the `.hookjudge/`
//! folder with the editor schema and `verified` marker, the agents' settings files of a local
//! install), added to
//! `.gitignore` in team mode or to the clone's own `.git/info/exclude` otherwise, under one
//! comment line that marks them as ours.

use crate::agent::Agent;

/// The comment line above our lines.
pub const HEADER: &str = "# hookjudge: local files (added by `hookjudge init`)";

/// The settings file of each agent's local install, relative to the repository root: they
/// name this machine's binary, so they stay out of git.
pub const LOCAL_SETTINGS: [(Agent, &str); 3] = [
    (Agent::Claude, "/.claude/settings.local.json"),
    (Agent::Codex, "/.codex/hooks.json"),
    (Agent::Gemini, "/.gemini/settings.json"),
];

/// The lines an install wants ignored: ours, and the settings files of `local_agents`.
pub fn lines(local_agents: &[Agent]) -> Vec<String> {
    let mut lines = vec![
        "/.hookjudge/".to_owned(),
        format!("*{}*", super::files::BACKUP_SUFFIX),
    ];
    for (agent, file) in LOCAL_SETTINGS {
        if local_agents.contains(&agent) {
            lines.push(file.to_owned());
        }
    }
    lines
}

/// `current` with the lines it lacks appended under [`HEADER`], or `None` when it has them all.
pub fn add(current: Option<&str>, wanted: &[String]) -> Option<String> {
    let current = current.unwrap_or("");
    let have: Vec<&str> = current.lines().map(str::trim).collect();
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|l| !have.contains(&l.as_str()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut out = current.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !have.contains(&HEADER) {
        out.push_str(HEADER);
        out.push('\n');
    }
    for line in missing {
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

/// `current` without our header and the lines of ours right below it.
pub fn remove(current: &str) -> String {
    let ours = lines(&Agent::ALL);
    let mut out = String::new();
    let mut in_block = false;
    for line in current.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == HEADER {
            in_block = true;
            continue;
        }
        if in_block && ours.iter().any(|l| l == bare) {
            continue;
        }
        in_block = false;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_only_missing_lines_and_removes_its_block() {
        let wanted = lines(&Agent::ALL);
        let original = "target/\n/.hookjudge/";
        let added = add(Some(original), &wanted).unwrap();
        assert_eq!(
            added,
            format!(
                "target/\n/.hookjudge/\n{HEADER}\n*.hookjudge-backup*\n/.claude/settings.local.json\n/.codex/hooks.json\n/.gemini/settings.json\n"
            )
        );
        assert_eq!(add(Some(&added), &wanted), None);
        assert_eq!(remove(&added), "target/\n/.hookjudge/\n");
        assert_eq!(add(None, &lines(&[])).unwrap().lines().count(), 3);
    }
}
