//! The layers of the config ladder and where each value comes from. Layers are merged key by
//! key (a key a layer leaves unset keeps the value below it, as uv's `Combine` does), and
//! [`Merge`] records the layer that set each key as it merges, so `config show` names the right
//! file for every key without reading any file again: a layer holding `"gate": {}` sets nothing.
//! How each key merges is declared with the key (see [`crate::config::keys`]); the `judges`
//! map merges per judge, here.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::config::{REPO_FILE, Settings};
use crate::judge::JudgeSpec;
use crate::support::dirs::{self, CONFIG_ENV};
use crate::support::paths::repo_root;

/// The kind of a config layer, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// The user's own file (e.g. `~/.config/hookjudge/config.json`).
    User,
    /// `.hookjudge.json` at the repository root (see [`crate::config::trust`]).
    Repository,
    /// A file named by `--config` or `HOOKJUDGE_CONFIG`.
    Explicit,
}

impl LayerKind {
    /// The word `config path` shows.
    pub fn label(self) -> &'static str {
        match self {
            LayerKind::User => "user",
            LayerKind::Repository => "repository",
            LayerKind::Explicit => "explicit",
        }
    }
}

/// One config layer: its kind and its file (which may not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub kind: LayerKind,
    pub path: PathBuf,
}

impl Settings {
    /// The config layers consulted for `cwd`, lowest first (their files may not exist).
    pub fn layers(cwd: &Path, explicit: Option<&Path>) -> Vec<Layer> {
        let layer = |kind, path| Layer { kind, path };
        let mut layers = vec![layer(LayerKind::User, dirs::config_file())];
        if let Some(root) = repo_root(cwd) {
            layers.push(layer(LayerKind::Repository, root.join(REPO_FILE)));
        }
        let explicit = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => std::env::var_os(CONFIG_ENV)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        };
        layers.extend(explicit.map(|p| layer(LayerKind::Explicit, p)));
        layers
    }
}

/// Leaf key path (as `config show` prints it) -> the layer that set it last. A key no layer set
/// holds its default.
#[derive(Debug, Clone, Default)]
pub struct Sources(IndexMap<String, Layer>);

impl Sources {
    /// The layer that set `key` last, or `None` for a default.
    pub fn of(&self, key: &str) -> Option<&Layer> {
        self.0.get(key)
    }
}

/// One layer being merged into the settings: records each key it sets as coming from it.
pub struct Merge<'a> {
    layer: &'a Layer,
    sources: &'a mut Sources,
}

impl<'a> Merge<'a> {
    pub fn new(layer: &'a Layer, sources: &'a mut Sources) -> Merge<'a> {
        Merge { layer, sources }
    }

    /// Records that this layer set `key` (a value it replaced, a list it extended, a judge it
    /// changed).
    pub fn mark(&mut self, key: &str) {
        self.sources.0.insert(key.to_owned(), self.layer.clone());
    }

    /// Records this layer for `key` unless a lower layer already did (a judge's definition).
    pub fn mark_first(&mut self, key: &str) {
        if !self.sources.0.contains_key(key) {
            self.mark(key);
        }
    }
}

/// Merges one layer's `judges` onto `layers` (the judge sections of the layers below),
/// recording what it sets. Which judges are built in is known only where sources are shown
/// (the built-ins are not parsed on the gate's quiet path): a new judge's keys come from the
/// layer that first defined it unless a later one sets them (see
/// [`sourced`](crate::config::show::sourced)).
pub fn apply_judges(
    m: &mut Merge,
    layers: &mut Vec<(String, JudgeSpec)>,
    judges: IndexMap<String, JudgeSpec>,
) {
    for (name, spec) in judges {
        m.mark_first(&format!("judges.{name}"));
        if spec.enabled.is_some() {
            m.mark(&format!("judges.{name}.enabled"));
        }
        if spec.triggers.is_some() || spec.add_triggers.is_some() {
            m.mark(&format!("judges.{name}.triggers"));
        }
        if spec.sensitivity.is_some() {
            m.mark(&format!("judges.{name}.sensitivity"));
        }
        if spec.broad_triggers.is_some() {
            m.mark(&format!("judges.{name}.broad_triggers"));
        }
        layers.push((name, spec));
    }
}
