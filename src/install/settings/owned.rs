//! Files `init` writes whole for an agent whose hooks are files of their own rather than
//! entries in a settings file: OpenCode's plugin. A file is ours when it starts with the
//! template's first line; one that is not is never overwritten.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Fill, Scope, settings_timeout_s};
use crate::agent::Agent;

const OPENCODE_PLUGIN: &str = include_str!("../../../hooks-templates/opencode.js");

/// Where `agent`'s file of ours goes for `scope`, when its hooks are such a file. OpenCode has
/// no per-checkout plugin folder kept out of git, so the local scope is the user's.
pub fn owned_path(agent: Agent, scope: Scope, root: &Path, home: &Path) -> Option<PathBuf> {
    match (agent, scope) {
        (Agent::OpenCode, Scope::Project) => Some(root.join(".opencode/plugin/hookjudge.js")),
        (Agent::OpenCode, Scope::Local | Scope::User) => {
            Some(home.join(".config/opencode/plugin/hookjudge.js"))
        }
        _ => None,
    }
}

/// The file's text, its placeholders filled (`None` for an agent without one).
pub fn owned_text(agent: Agent, fill: &Fill) -> Option<String> {
    let template = match agent {
        Agent::OpenCode => OPENCODE_PLUGIN,
        _ => return None,
    };
    let binary = if fill.portable {
        "hookjudge".to_owned()
    } else {
        fill.binary.to_string_lossy().into_owned()
    };
    Some(
        template
            .replace("@HOOKJUDGE_JS@", &json!(binary).to_string())
            .replace(
                "@GATE_TIMEOUT_MS@",
                &(settings_timeout_s(fill.gate_timeout_ms) * 1000).to_string(),
            )
            .replace(
                "@REQUIRED_JS@",
                if fill.required { "true" } else { "false" },
            ),
    )
}

/// The program a file of ours runs, as written in it.
pub fn owned_program(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("const HOOKJUDGE = "))?;
    serde_json::from_str(line.strip_suffix(';')?).ok()
}

/// Whether `text` is a file of ours (it starts as the template does).
pub fn is_owned_text(text: &str) -> bool {
    let first = OPENCODE_PLUGIN.lines().next().unwrap_or_default();
    text.lines().next() == Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_is_filled_and_recognised() {
        let fill = Fill {
            binary: PathBuf::from("/opt/hook judge/hookjudge"),
            stop_timeout_ms: 10_000,
            gate_timeout_ms: 8_000,
            portable: false,
            required: false,
        };
        let text = owned_text(Agent::OpenCode, &fill).unwrap();
        assert!(
            text.contains(r#"const HOOKJUDGE = "/opt/hook judge/hookjudge";"#),
            "{text}"
        );
        assert!(text.contains("const TIMEOUT_MS = 13000;"), "{text}");
        assert!(text.contains("const REQUIRED = false;"), "{text}");
        assert!(!text.contains('@'), "every placeholder is filled");
        assert!(is_owned_text(&text));
        assert_eq!(
            owned_program(&text).as_deref(),
            Some("/opt/hook judge/hookjudge")
        );
        assert!(!is_owned_text("export const Mine = async () => ({});\n"));
        let portable = Fill {
            portable: true,
            required: true,
            ..fill
        };
        let text = owned_text(Agent::OpenCode, &portable).unwrap();
        assert!(text.contains(r#"const HOOKJUDGE = "hookjudge";"#), "{text}");
        assert!(text.contains("const REQUIRED = true;"), "{text}");
        assert_eq!(owned_text(Agent::Claude, &portable), None);
        assert_eq!(
            owned_path(
                Agent::OpenCode,
                Scope::Project,
                Path::new("/r"),
                Path::new("/h")
            ),
            Some(PathBuf::from("/r/.opencode/plugin/hookjudge.js"))
        );
        assert_eq!(
            owned_path(Agent::Qwen, Scope::User, Path::new("/r"), Path::new("/h")),
            None
        );
    }
}
