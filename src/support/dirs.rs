//! Where hookjudge keeps its files on this platform.

use std::path::PathBuf;

/// The environment variable naming an explicit config file (as `--config` does).
pub const CONFIG_ENV: &str = "HOOKJUDGE_CONFIG";

fn project() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "hookjudge")
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
