//! Files `init` writes whole for an agent whose hooks are files of their own rather than
//! entries in a settings file: OpenCode's plugin and Cline's `PreToolUse` script. A file is
//! ours when it starts as its template does (two lines: a script's `#!` line alone says
//! nothing); one that is not is never overwritten.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Fill, Scope, missing_output, settings_path, settings_timeout_s};
use crate::agent::Agent;

/// The owned files' templates, one row per agent.
const TEMPLATES: [(Agent, &str); 2] = [
    (
        Agent::OpenCode,
        include_str!("../../../hooks-templates/opencode.js"),
    ),
    (
        Agent::Cline,
        include_str!("../../../hooks-templates/cline-PreToolUse"),
    ),
];

fn template(agent: Agent) -> Option<&'static str> {
    TEMPLATES
        .iter()
        .find(|(a, _)| *a == agent)
        .map(|(_, text)| *text)
}

/// Where `agent`'s file of ours goes for `scope`, when its hooks are such a file (the agent
/// table's [`crate::agent::HookFiles`]).
pub fn owned_path(agent: Agent, scope: Scope, root: &Path, home: &Path) -> Option<PathBuf> {
    template(agent).map(|_| settings_path(agent, scope, root, home))
}

/// The file's text, its placeholders filled (`None` for an agent without one).
pub fn owned_text(agent: Agent, fill: &Fill) -> Option<String> {
    let template = template(agent)?;
    let binary = if fill.portable {
        "hookjudge".to_owned()
    } else {
        fill.binary.to_string_lossy().into_owned()
    };
    let gate_s = settings_timeout_s(fill.gate_timeout_ms);
    let missing = missing_output(agent, "gate", fill.required).to_string();
    Some(
        template
            .replace("@HOOKJUDGE_JS@", &json!(binary).to_string())
            .replace("@HOOKJUDGE_SH@", &shell_words::quote(&binary))
            .replace("@MISSING_JSON@", &missing)
            .replace("@GATE_TIMEOUT_MS@", &(gate_s * 1000).to_string())
            .replace("@GATE_TIMEOUT_S@", &gate_s.to_string())
            .replace(
                "@REQUIRED_JS@",
                if fill.required { "true" } else { "false" },
            ),
    )
}

/// The program a file of ours runs, as written in it.
pub fn owned_program(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        if let Some(js) = l.strip_prefix("const HOOKJUDGE = ") {
            return serde_json::from_str(js.strip_suffix(';')?).ok();
        }
        let sh = l.strip_prefix("HOOKJUDGE=")?;
        shell_words::split(sh).ok()?.into_iter().next()
    })
}

/// Whether `text` is a file of ours (its first two lines are a template's).
pub fn is_owned_text(text: &str) -> bool {
    let head = |t: &str| t.lines().take(2).map(str::to_owned).collect::<Vec<_>>();
    TEMPLATES.iter().any(|(_, t)| head(t) == head(text))
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

    #[test]
    fn the_cline_script_is_filled_and_recognised() {
        let fill = Fill {
            binary: PathBuf::from("/opt/hook judge/hookjudge"),
            stop_timeout_ms: 10_000,
            gate_timeout_ms: 8_000,
            portable: false,
            required: false,
        };
        let text = owned_text(Agent::Cline, &fill).unwrap();
        assert!(text.starts_with("#!/bin/sh\n"), "{text}");
        assert!(
            text.contains("HOOKJUDGE='/opt/hook judge/hookjudge'\n"),
            "{text}"
        );
        assert!(
            text.contains("gate --agent cline --hook-timeout 13\n"),
            "{text}"
        );
        assert!(!text.contains('@'), "every placeholder is filled");
        // A machine without hookjudge lets the call go on: Cline cancels on anything else.
        assert!(text.contains(r#"'{"cancel":false}'"#), "{text}");
        assert!(is_owned_text(&text));
        assert_eq!(
            owned_program(&text).as_deref(),
            Some("/opt/hook judge/hookjudge")
        );
        assert!(!is_owned_text("#!/bin/sh\necho '{\"cancel\":false}'\n"));
        assert_eq!(
            owned_path(Agent::Cline, Scope::User, Path::new("/r"), Path::new("/h")),
            Some(PathBuf::from("/h/Documents/Cline/Hooks/PreToolUse"))
        );
        assert_eq!(
            owned_path(Agent::Cline, Scope::Local, Path::new("/r"), Path::new("/h")),
            Some(PathBuf::from("/r/.clinerules/hooks/PreToolUse"))
        );
    }
}
