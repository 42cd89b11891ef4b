//! Where hookjudge keeps its files on this platform.

use std::path::PathBuf;

/// The environment variable naming an explicit config file (as `--config` does).
pub const CONFIG_ENV: &str = "HOOKJUDGE_CONFIG";

/// The platform's folders for hookjudge, read from the environment once per process (a hook
/// call asks for several of them: the gate's self-protection on every shell command).
fn project() -> Option<&'static directories::ProjectDirs> {
    static PROJECT: std::sync::OnceLock<Option<directories::ProjectDirs>> =
        std::sync::OnceLock::new();
    PROJECT
        .get_or_init(|| directories::ProjectDirs::from("", "", "hookjudge"))
        .as_ref()
}

/// The user config file (e.g. `~/.config/hookjudge/config.json`).
pub fn config_file() -> PathBuf {
    project()
        .map(|p| p.config_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".hookjudge"))
        .join("config.json")
}

/// Where logs live by default (e.g. `~/.local/share/hookjudge`).
pub fn data_dir() -> PathBuf {
    project()
        .map(|p| p.data_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join("hookjudge"))
}

/// Where short-lived state lives, such as the loop breaker's ledger
/// (e.g. `~/.local/state/hookjudge`).
pub fn state_dir() -> PathBuf {
    project()
        .and_then(|p| p.state_dir().map(|d| d.to_path_buf()))
        .unwrap_or_else(|| data_dir().join("state"))
}
