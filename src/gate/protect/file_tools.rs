//! The agents' file-writing tools (Claude Code `Write`/`Edit`/`MultiEdit`, Codex
//! `apply_patch`, Gemini CLI `write_file`/`replace`, Factory Droid `Create`/`Edit`, Copilot CLI's
//! read as these, see `agent::input`) and `apply_patch` run through the shell:
//! the file each call writes, and for a settings file whether its hook entries change (judged
//! on the file's text after the call, not on the call's lines).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::places::{Protected, settings_file};
use super::{env_files, git_config, scripts};
use crate::agent::HookInput;
use crate::gate::patch;
use crate::support::paths::normalize;

/// Keys of an agent's settings that decide whether hookjudge runs.
pub(super) const HOOK_KEYS: [&str; 4] = ["hooks", "disableAllHooks", "hooksConfig", "env"];

/// What a file-writing tool call would do against hookjudge, if anything.
pub fn file_tool(input: &HookInput) -> Option<String> {
    let tool = input.tool_name.as_deref()?;
    let tool_input = input.tool_input.as_ref()?;
    let cwd = input.cwd.as_deref().map(PathBuf::from);
    let protected = Protected::here();
    let resolve = |p: &str| protected.word_path(p, cwd.as_deref());
    let patch = ["command", "input", "patch"]
        .iter()
        .find_map(|k| tool_input[k].as_str())
        .filter(|p| tool == "apply_patch" || p.trim_start().starts_with("*** Begin Patch"));
    if let Some(patch) = patch {
        return patch_check(&protected, patch, cwd.as_deref());
    }
    let path = tool_input["file_path"]
        .as_str()
        .or(tool_input["path"].as_str())
        .or(tool_input["absolute_path"].as_str())?;
    // `x/../.claude/settings.local.json`: the tool creates `x` and writes the settings, so the
    // file is read as the path resolves, not as it is spelled (which may not exist yet).
    let path = normalize(&resolve(path));
    let Some(what) = protected.what(&path) else {
        if git_config::is_git_config(&protected, &path) {
            return Some(format!("edit {}", git_config::what(&path)));
        }
        if let Some(what) = super::faked::faked_by_file_tool(&path) {
            return Some(what);
        }
        // Not a protected file: still an env file an agent loads, or a script that writes
        // hookjudge's places when it runs.
        let content = tool_input["content"].as_str().unwrap_or("");
        let candidate = env_files::is_env_file(&path)
            || scripts::is_script(&path, content)
            || scripts::read_script_head(&path).is_some_and(|h| h.starts_with("#!"));
        if !candidate {
            return None;
        }
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let after = edited(tool, tool_input, &before)?;
        return written_content(&protected, &path, &before, &after);
    };
    if settings_file(&path) {
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let after = edited(tool, tool_input, &before)?;
        if !changes_hooks(&path, &before, &after) {
            return None;
        }
    }
    Some(format!("edit {what} (`{}`)", path.display()))
}

/// What writing `after` over `before` into `path` (a file the gate does not protect as such)
/// does against hookjudge: an env file an agent CLI loads that now moves hookjudge's dirs, or
/// a script that now writes hookjudge's places.
fn written_content(
    protected: &Protected,
    path: &Path,
    before: &str,
    after: &str,
) -> Option<String> {
    if env_files::is_env_file(path) {
        return env_files::file_write(path, before, after).map(|what| format!("edit {what}"));
    }
    if !scripts::is_script(path, after) {
        return None;
    }
    let what = scripts::code_concerns(after, protected)?;
    if scripts::code_concerns(before, protected).as_ref() == Some(&what) {
        return None; // the script did that before the edit too
    }
    Some(format!(
        "edit makes `{}` a script that {what}",
        path.display()
    ))
}

/// The file's text after the tool call; `None` when the call leaves it unchanged.
fn edited(tool: &str, input: &Value, before: &str) -> Option<String> {
    let replace = |text: &str, edit: &Value| -> String {
        let old = ["old_string", "old_str", "old_text"]
            .iter()
            .find_map(|k| edit[k].as_str())
            .unwrap_or("");
        let new = ["new_string", "new_str", "new_text"]
            .iter()
            .find_map(|k| edit[k].as_str())
            .unwrap_or("");
        // Cline's `editor` with `insert_line`: the new text goes in after that line.
        if let Some(line) = edit["insert_line"].as_u64() {
            let mut lines: Vec<&str> = text.lines().collect();
            let at = usize::try_from(line).unwrap_or(usize::MAX).min(lines.len());
            lines.insert(at, new);
            return lines.join("\n") + "\n";
        }
        if old.is_empty() {
            return format!("{new}{text}");
        }
        if edit["replace_all"].as_bool() == Some(true)
            || edit["expected_replacements"]
                .as_u64()
                .is_some_and(|n| n > 1)
        {
            text.replace(old, new)
        } else {
            text.replacen(old, new, 1)
        }
    };
    let after = match tool {
        "Write" | "Create" | "write_file" => input["content"].as_str().unwrap_or("").to_owned(),
        "MultiEdit" => input["edits"]
            .as_array()?
            .iter()
            .fold(before.to_owned(), |t, e| replace(&t, e)),
        _ => replace(before, input),
    };
    (after != before).then_some(after)
}

/// Whether the change from `before` to `after` touches what decides whether hooks run.
pub(super) fn changes_hooks(path: &Path, before: &str, after: &str) -> bool {
    if path.extension().is_some_and(|e| e == "toml") {
        let changed = diff_lines(before, after);
        return changed.iter().any(|l| mentions_hooks(l));
    }
    let parse = |t: &str| -> Option<Value> {
        if t.trim().is_empty() {
            Some(Value::Object(Default::default()))
        } else {
            serde_json::from_str(t).ok()
        }
    };
    let (Some(b), Some(a)) = (parse(before), parse(after)) else {
        return true; // a settings file that does not parse any more turns its hooks off
    };
    HOOK_KEYS.iter().any(|k| b.get(k) != a.get(k))
}

fn mentions_hooks(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    [
        "hook",
        "hookjudge",
        "disableallhooks",
        "\"env\"",
        "[env",
        "env =",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

/// Lines only in one of the two texts.
fn diff_lines(before: &str, after: &str) -> Vec<String> {
    let b: std::collections::HashSet<&str> = before.lines().collect();
    let a: std::collections::HashSet<&str> = after.lines().collect();
    b.symmetric_difference(&a).map(|l| l.to_string()).collect()
}

/// What an `apply_patch` patch would do against hookjudge: each file it touches, with a
/// settings file judged on its content after the patch (as the `Write`/`Edit` path does).
pub(super) fn patch_check(
    protected: &Protected,
    patch: &str,
    cwd: Option<&Path>,
) -> Option<String> {
    for file in patch::parse(patch) {
        for (name, moved) in [(Some(&file.path), false), (file.move_to.as_ref(), true)] {
            let Some(name) = name else { continue };
            let path = normalize(&protected.word_path(name, cwd));
            let Some(what) = protected.what(&path) else {
                if git_config::is_git_config(protected, &path) {
                    return Some(format!("patch {}", git_config::what(&path)));
                }
                if file.action != patch::Action::Delete
                    && let Some(what) = super::faked::faked_by_file_tool(&path)
                {
                    return Some(format!("patch: {what}"));
                }
                if file.action != patch::Action::Delete && !moved {
                    let before = std::fs::read_to_string(&path).unwrap_or_default();
                    let after = match file.action {
                        patch::Action::Add => Some(file.added()),
                        _ => patch::apply(&before, &file.chunks),
                    };
                    if let Some(after) = after
                        && let Some(what) = written_content(protected, &path, &before, &after)
                    {
                        return Some(format!("patch: {what}"));
                    }
                }
                continue;
            };
            if settings_file(&path)
                && !moved
                && file.action != patch::Action::Delete
                && file.move_to.is_none()
            {
                let before = std::fs::read_to_string(&path).unwrap_or_default();
                let after = match file.action {
                    patch::Action::Add => Some(file.added()),
                    _ => patch::apply(&before, &file.chunks),
                };
                match after {
                    Some(after) if !changes_hooks(&path, &before, &after) => continue,
                    Some(_) => {}
                    None => {
                        return Some(format!(
                            "patch does not apply to {} and {what} (`{}`)",
                            "the file as it is",
                            path.display()
                        ));
                    }
                }
            }
            return Some(format!("patch {what} (`{}`)", path.display()));
        }
    }
    None
}

/// The patch text of `apply_patch` run through the shell (`apply_patch <<'EOF' … EOF`,
/// `apply_patch '…'`), which Codex applies as a patch.
pub(super) fn shell_patch(command: &str) -> Option<&str> {
    let start = command.find("*** Begin Patch")?;
    if !command.contains("apply_patch") && !command.contains("applypatch") {
        return None;
    }
    let rest = &command[start..];
    let end = rest
        .find("*** End Patch")
        .map_or(rest.len(), |e| e + "*** End Patch".len());
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_edits_that_leave_hooks_alone_pass() {
        let path = Path::new("/r/.claude/settings.json");
        let before = r#"{"permissions": {"allow": []}, "hooks": {"Stop": []}}"#;
        assert!(!changes_hooks(
            path,
            before,
            r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": []}}"#
        ));
        assert!(changes_hooks(
            path,
            before,
            r#"{"permissions": {"allow": []}, "hooks": {"Stop": []}, "disableAllHooks": true}"#
        ));
        assert!(changes_hooks(path, before, "not json"));
    }
}
