//! The ignore lines for what hookjudge leaves in a repository (backups, the `.hookjudge/`
//! folder with the editor schema and `verified` marker, the agents' settings files of a local
//! install), added to
//! `.gitignore` in team mode or to the clone's own `.git/info/exclude` otherwise, under one
//! comment line that marks them as ours.

use crate::agent::{Agent, LocalFile};

/// The comment line above our lines.
pub const HEADER: &str = "# hookjudge: local files (added by `hookjudge init`)";

/// The file of `agent`'s local install inside the repository, as an ignore line, from the
/// agent table: it names this machine's binary, so it stays out of git. None when the local
/// install goes to the user's file.
fn local_line(agent: Agent) -> Option<String> {
    let files = agent.hook_files();
    match files.local {
        LocalFile::Own(path) => Some(format!("/{path}")),
        LocalFile::Project => Some(format!("/{}", files.project)),
        LocalFile::User => None,
    }
}

/// The ignore line for Codex's project config, when a local `init --boundary agent` created it.
pub const CODEX_CONFIG_LINE: &str = "/.codex/config.toml";

/// The lines an install wants ignored: ours, and the local files of `local_agents`.
pub fn lines(local_agents: &[Agent]) -> Vec<String> {
    let mut lines = vec![
        "/.hookjudge/".to_owned(),
        format!("*{}*", super::files::BACKUP_SUFFIX),
    ];
    for agent in Agent::ALL {
        if local_agents.contains(&agent)
            && let Some(line) = local_line(agent)
        {
            lines.push(line);
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
    let mut ours = lines(&Agent::ALL);
    ours.push(CODEX_CONFIG_LINE.to_owned());
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
                "target/\n/.hookjudge/\n{HEADER}\n*.hookjudge-backup*\n/.claude/settings.local.json\n/.codex/hooks.json\n/.gemini/settings.json\n/.qwen/settings.json\n/.factory/settings.json\n/.github/hooks/hookjudge.json\n/.cursor/hooks.json\n/crush.json\n/.clinerules/hooks/PreToolUse\n"
            )
        );
        assert_eq!(add(Some(&added), &wanted), None);
        assert_eq!(remove(&added), "target/\n/.hookjudge/\n");
        assert_eq!(add(None, &lines(&[])).unwrap().lines().count(), 3);
    }
}
