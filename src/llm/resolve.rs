//! Choosing the provider: explicit settings first, then (for `auto`) an API key in the
//! environment, `codex` or `claude` on PATH, and a local Ollama answering on loopback. The
//! result says why it was chosen, for `hookjudge doctor` and the log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::memory::ServerMemory;
use super::{LlmSettings, ProviderKind, ResponseFormat, command};
use crate::support::statefile;

/// Default model of the `openai` provider on the public endpoint.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-5-mini";
pub const OPENAI_DEFAULT_URL: &str = "https://api.openai.com/v1";
/// Default model of the `anthropic` provider: Haiku-class, fast and cheap.
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-haiku-4-5";
pub const ANTHROPIC_DEFAULT_URL: &str = "https://api.anthropic.com";
const OLLAMA_URL: &str = "http://127.0.0.1:11434";

/// A ready provider.
#[derive(Debug, Clone)]
pub enum Backend {
    OpenAi {
        base_url: String,
        model: String,
        api_key: Option<String>,
        /// The variable that should hold the key when the server needs one and it is unset or
        /// empty: the request is not sent without it.
        missing_key: Option<String>,
    },
    Anthropic {
        base_url: String,
        model: String,
        api_key: Option<String>,
        missing_key: Option<String>,
    },
    Command {
        name: &'static str,
        argv: Vec<String>,
        model: Option<String>,
    },
}

impl Backend {
    pub fn provider(&self) -> &'static str {
        match self {
            Backend::OpenAi { .. } => "openai",
            Backend::Anthropic { .. } => "anthropic",
            Backend::Command { name, .. } => name,
        }
    }

    pub fn model(&self) -> String {
        match self {
            Backend::OpenAi { model, .. } | Backend::Anthropic { model, .. } => model.clone(),
            Backend::Command { model, argv, .. } => model
                .clone()
                .unwrap_or_else(|| argv.first().cloned().unwrap_or_default()),
        }
    }

    /// Everything that identifies the provider except secrets, for cache keys and reports.
    pub fn describe(&self) -> String {
        match self {
            Backend::OpenAi {
                base_url, model, ..
            } => format!("openai {base_url} {model}"),
            Backend::Anthropic {
                base_url, model, ..
            } => format!("anthropic {base_url} {model}"),
            Backend::Command { name, argv, .. } => format!("{name} {}", argv.join(" ")),
        }
    }
}

/// The provider chosen (or none) and why.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub backend: Option<Backend>,
    pub why: String,
}

/// The process environment, as `resolve` reads it.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Resolves the provider for `settings`. `env` reads environment variables (tests pass their own).
pub fn resolve(
    settings: &LlmSettings,
    state_dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Resolution {
    let model = settings.model.clone();
    let key = |default: &str| Key::read(settings, default, env);
    let chosen = |backend: Backend, why: String| Resolution {
        backend: Some(backend),
        why,
    };
    match settings.provider {
        ProviderKind::None => Resolution {
            backend: None,
            why: "`llm.provider` is `none`: Layer 1 only".into(),
        },
        ProviderKind::Openai => chosen(
            openai(settings, key("OPENAI_API_KEY")),
            "`llm.provider` is `openai`".into(),
        ),
        ProviderKind::Anthropic => chosen(
            anthropic(settings, key("ANTHROPIC_API_KEY")),
            "`llm.provider` is `anthropic`".into(),
        ),
        ProviderKind::Command => match &settings.command {
            Some(argv) if !argv.is_empty() => chosen(
                Backend::Command {
                    name: "command",
                    argv: argv.clone(),
                    model,
                },
                "`llm.provider` is `command`".into(),
            ),
            _ => Resolution {
                backend: None,
                why: "`llm.provider` is `command` but `llm.command` is not set".into(),
            },
        },
        ProviderKind::Codex => chosen(
            Backend::Command {
                name: "codex",
                argv: command::codex_preset(model.as_deref()),
                model,
            },
            "`llm.provider` is `codex`".into(),
        ),
        ProviderKind::Claude => chosen(
            Backend::Command {
                name: "claude",
                argv: command::claude_preset(model.as_deref()),
                model,
            },
            "`llm.provider` is `claude`".into(),
        ),
        ProviderKind::Auto => auto(settings, state_dir, env),
    }
}

/// An API key read from its variable, and whether the server needs one.
pub struct Key {
    /// The variable's value, when set and non-empty.
    pub value: Option<String>,
    /// The variable read: `llm.api_key_env`, or the provider's usual one.
    pub variable: String,
    /// A key is needed: the provider's public endpoint (no `llm.base_url`), or a variable named
    /// in `llm.api_key_env`. A server of one's own (`llm.base_url`) may need none.
    pub required: bool,
}

impl Key {
    pub fn read(
        settings: &LlmSettings,
        default: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Key {
        let variable = settings
            .api_key_env
            .as_deref()
            .unwrap_or(default)
            .to_owned();
        Key {
            value: env(&variable),
            required: settings.api_key_env.is_some() || settings.base_url.is_none(),
            variable,
        }
    }

    /// The variable to name when the key is needed and absent.
    fn missing(&self) -> Option<String> {
        (self.required && self.value.is_none()).then(|| self.variable.clone())
    }
}

fn openai(settings: &LlmSettings, key: Key) -> Backend {
    let base_url = settings
        .base_url
        .clone()
        .unwrap_or_else(|| OPENAI_DEFAULT_URL.into());
    let model = settings
        .model
        .clone()
        .unwrap_or_else(|| OPENAI_DEFAULT_MODEL.into());
    Backend::OpenAi {
        base_url,
        model,
        missing_key: key.missing(),
        api_key: key.value,
    }
}

fn anthropic(settings: &LlmSettings, key: Key) -> Backend {
    let base_url = settings
        .base_url
        .clone()
        .unwrap_or_else(|| ANTHROPIC_DEFAULT_URL.into());
    let model = settings
        .model
        .clone()
        .unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.into());
    Backend::Anthropic {
        base_url,
        model,
        missing_key: key.missing(),
        api_key: key.value,
    }
}

fn auto(
    settings: &LlmSettings,
    state_dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Resolution {
    let chosen = |backend: Backend, why: &str| Resolution {
        backend: Some(backend),
        why: format!("auto: {why}"),
    };
    if let Some(argv) = settings.command.clone().filter(|a| !a.is_empty()) {
        return chosen(
            Backend::Command {
                name: "command",
                argv,
                model: settings.model.clone(),
            },
            "`llm.command` is set",
        );
    }
    if settings.base_url.is_some() {
        let key = Key {
            value: settings.api_key_env.as_deref().and_then(env),
            variable: settings.api_key_env.clone().unwrap_or_default(),
            required: settings.api_key_env.is_some(),
        };
        return chosen(
            openai(settings, key),
            "`llm.base_url` is set (OpenAI-compatible)",
        );
    }
    if let Some(var) = &settings.api_key_env
        && let Some(key) = env(var)
    {
        return chosen(
            openai(settings, present(var, key)),
            &format!("`{var}` (from `llm.api_key_env`) is set"),
        );
    }
    if let Some(key) = env("OPENAI_API_KEY") {
        return chosen(
            openai(settings, present("OPENAI_API_KEY", key)),
            "`OPENAI_API_KEY` is set",
        );
    }
    if let Some(key) = env("ANTHROPIC_API_KEY") {
        return chosen(
            anthropic(settings, present("ANTHROPIC_API_KEY", key)),
            "`ANTHROPIC_API_KEY` is set",
        );
    }
    let path = env("PATH").unwrap_or_default();
    if find_on_path("codex", &path).is_some() {
        let model = settings.model.clone();
        return chosen(
            Backend::Command {
                name: "codex",
                argv: command::codex_preset(model.as_deref()),
                model,
            },
            "`codex` is on PATH",
        );
    }
    if find_on_path("claude", &path).is_some() {
        let model = settings.model.clone();
        return chosen(
            Backend::Command {
                name: "claude",
                argv: command::claude_preset(model.as_deref()),
                model,
            },
            "`claude` is on PATH",
        );
    }
    if let Some(model) = ollama_model(state_dir) {
        let backend = Backend::OpenAi {
            base_url: format!("{OLLAMA_URL}/v1"),
            model: settings.model.clone().unwrap_or(model),
            api_key: None,
            missing_key: None,
        };
        return chosen(backend, "a local Ollama answers on 127.0.0.1:11434");
    }
    Resolution {
        backend: None,
        why: "auto: no provider found (no API key in the environment, no `codex` or `claude` on PATH, no local Ollama); Layer 1 only".into(),
    }
}

/// A key found in `variable`.
fn present(variable: &str, value: String) -> Key {
    Key {
        value: Some(value),
        variable: variable.to_owned(),
        required: true,
    }
}

/// The full path of `program` in `path` (a `PATH` value), if it is there.
pub fn find_on_path(program: &str, path: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// The first model of a local Ollama, probed quickly; the answer is remembered for a while so
/// that hook calls do not probe every time.
fn ollama_model(state_dir: &Path) -> Option<String> {
    let memo = state_dir.join("ollama-probe.json");
    let fresh = memo
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < Duration::from_secs(600));
    if fresh
        && let Some(v) = std::fs::read_to_string(&memo)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    {
        return v["model"].as_str().map(str::to_owned);
    }
    let model = probe_ollama();
    let _ = std::fs::create_dir_all(state_dir);
    let _ = std::fs::write(&memo, json!({"model": model}).to_string());
    model
}

fn probe_ollama() -> Option<String> {
    let addr: std::net::SocketAddr = "127.0.0.1:11434".parse().ok()?;
    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(20)).ok()?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_millis(300)))
        .proxy(None)
        .build()
        .into();
    let tags: Value = agent
        .get(format!("{OLLAMA_URL}/api/tags"))
        .call()
        .ok()?
        .body_mut()
        .read_json()
        .ok()?;
    tags["models"][0]["name"].as_str().map(str::to_owned)
}

/// What response format an OpenAI-compatible server accepted last, per server and model.
pub struct FormatMemory(ServerMemory);

impl FormatMemory {
    pub fn new(state_dir: &Path, base_url: &str, model: &str) -> FormatMemory {
        FormatMemory(ServerMemory::new(
            state_dir,
            "response-formats.json",
            base_url,
            model,
        ))
    }

    pub fn recall(&self) -> Option<ResponseFormat> {
        serde_json::from_value(self.0.recall()?).ok()
    }

    /// Records the format that worked; nothing is written when it is the one known already.
    pub fn remember(&self, format: ResponseFormat) -> Result<(), statefile::Error> {
        if self.recall() == Some(format) {
            return Ok(());
        }
        self.0.remember(json!(format))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(settings: &LlmSettings, vars: &[(&str, &str)]) -> Resolution {
        let dir = tempfile::tempdir().unwrap();
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let env = move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        // Keep the Ollama probe out of unit tests: a fresh memo says there is none.
        std::fs::write(dir.path().join("ollama-probe.json"), r#"{"model":null}"#).unwrap();
        resolve(settings, dir.path(), &env)
    }

    #[test]
    fn auto_prefers_explicit_settings_then_keys_then_clis() {
        let bin = tempfile::tempdir().unwrap();
        std::fs::write(bin.path().join("claude"), "").unwrap();
        let path = bin.path().to_str().unwrap();
        let auto = LlmSettings::default();
        let r = resolve_with(&auto, &[("PATH", path)]);
        assert_eq!(r.backend.unwrap().provider(), "claude", "{}", r.why);
        let r = resolve_with(&auto, &[("PATH", path), ("ANTHROPIC_API_KEY", "k")]);
        assert_eq!(r.backend.unwrap().provider(), "anthropic");
        let r = resolve_with(
            &auto,
            &[("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")],
        );
        assert_eq!(r.backend.unwrap().provider(), "openai");
        let local = LlmSettings {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..LlmSettings::default()
        };
        let r = resolve_with(&local, &[("ANTHROPIC_API_KEY", "k")]);
        assert!(
            matches!(r.backend, Some(Backend::OpenAi { ref base_url, .. }) if base_url == "http://127.0.0.1:9/v1")
        );
        let r = resolve_with(&auto, &[("PATH", "/nonexistent")]);
        assert!(
            r.backend.is_none() && r.why.contains("no provider found"),
            "{}",
            r.why
        );
    }

    #[test]
    fn explicit_providers_and_missing_command() {
        let none = LlmSettings {
            provider: ProviderKind::None,
            ..LlmSettings::default()
        };
        assert!(
            resolve_with(&none, &[("OPENAI_API_KEY", "k")])
                .backend
                .is_none()
        );
        let cmd = LlmSettings {
            provider: ProviderKind::Command,
            ..LlmSettings::default()
        };
        assert!(
            resolve_with(&cmd, &[])
                .why
                .contains("`llm.command` is not set")
        );
        let codex = LlmSettings {
            provider: ProviderKind::Codex,
            ..LlmSettings::default()
        };
        assert_eq!(
            resolve_with(&codex, &[]).backend.unwrap().provider(),
            "codex"
        );
        let key_env = LlmSettings {
            provider: ProviderKind::Anthropic,
            api_key_env: Some("MY_KEY".into()),
            ..LlmSettings::default()
        };
        assert!(
            matches!(resolve_with(&key_env, &[("MY_KEY", "secret")]).backend, Some(Backend::Anthropic { api_key: Some(ref k), .. }) if k == "secret")
        );
    }

    #[test]
    fn format_memory_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let m = FormatMemory::new(dir.path(), "http://x", "m");
        assert_eq!(m.recall(), None);
        m.remember(ResponseFormat::JsonObject).unwrap();
        assert_eq!(
            FormatMemory::new(dir.path(), "http://x", "m").recall(),
            Some(ResponseFormat::JsonObject)
        );
        assert_eq!(
            FormatMemory::new(dir.path(), "http://x", "other").recall(),
            None
        );
    }
}
