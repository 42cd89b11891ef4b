//! Layered configuration: built-in defaults < user file < repository file < `--config` file.
//!
//! Every file is JSON with the same keys. Unknown keys are errors that name the key's path,
//! because a typo must never silently disable a guard. Layers merge key by key; judges merge
//! per judge (see [`JudgeSpec::overlay`]). Relative paths in a file are relative to that file.
//! The repository file applies in full only when the user trusted its content; otherwise only
//! what makes hookjudge stricter applies (see [`crate::config::trust`]).

pub mod check;
pub mod error;
pub mod patterns;
pub mod schema;
pub mod source;
pub mod trust;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;

pub use crate::config::error::{Error, ErrorKind, ParseError};
pub use crate::config::source::{Layer, LayerKind, Sources};
use crate::judge::evaluate::{JudgeTurns, Panel};
use crate::judge::speech::{self, UserRules};
use crate::judge::{self, Judge, JudgeSpec};
use crate::llm::{LlmSettings, ProviderKind, ResponseFormat};
use crate::transcript;

pub use crate::gate::settings::{GateFile, GateSettings, Policy};

/// The repository config file's name, at the repository root.
pub const REPO_FILE: &str = ".hookjudge.json";
use crate::support::dirs::{self, CONFIG_ENV};
use crate::support::paths::repo_root;

/// One config file as written. Every key is optional; the defaults are those of
/// [`Settings::defaults`], which `config schema` shows next to each key's description.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Editors' schema pointer; ignored.
    #[serde(rename = "$schema")]
    pub schema: Option<String>,
    /// Bytes of the response (its end) that the judges read.
    pub text_bytes: Option<usize>,
    pub stop: Option<StopFile>,
    pub log: Option<LogFile>,
    pub transcript: Option<TranscriptFile>,
    pub llm: Option<LlmFile>,
    pub gate: Option<GateFile>,
    /// Judges by name: changes to built-ins, or new judges.
    pub judges: Option<IndexMap<String, JudgeSpec>>,
    pub speech: Option<SpeechFile>,
    pub boundary: Option<BoundaryFile>,
}

/// The `boundary` section: how the agent's commands are kept off hookjudge's own files.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryFile {
    /// `off`, `landlock` (hookjudge runs each shell command confined) or `agent` (the
    /// agent's own sandbox). By default, `off`.
    pub mode: Option<crate::boundary::Mode>,
    /// Whether confined commands the gate did not let through as a push, publish or deploy
    /// see no publishing credentials. By default, `true`.
    pub hide_credentials: Option<bool>,
}

/// Additions to the speech view that Layer 1 triggers read (see [`crate::judge::speech`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeechFile {
    /// Word senses that name no defect and no action, removed before triggers run; appended to
    /// the lists of the layers below.
    pub add_masks: Option<Vec<String>>,
    /// Lines that label displayed material (a report's own section headings); appended.
    pub add_shown_headings: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopFile {
    /// Blocks one judge may give per user prompt before the loop breaker releases.
    pub max_blocks_per_judge: Option<u32>,
    /// Blocks all judges together may give per user prompt.
    pub max_blocks_per_prompt: Option<u32>,
    /// Which turns go to the LLM: `all` that could hold a violation, or `lexicon`.
    pub judge_turns: Option<JudgeTurns>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogFile {
    /// Where the decision log goes. By default, the platform data dir's `logs`.
    pub dir: Option<PathBuf>,
    /// Whether the (redacted) judged text is logged.
    pub text: Option<bool>,
    /// Days of day files to keep; older ones are deleted once a day. 0 keeps all.
    pub retention_days: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptFile {
    /// Bytes of a transcript read from its end at most.
    pub max_scan_bytes: Option<u64>,
    /// Lines longer than this are streamed: their structure is read, their text is not collected.
    pub max_line_bytes: Option<usize>,
}

/// The LLM used by Layer 2 (see [`LlmSettings`] for the defaults).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmFile {
    pub provider: Option<ProviderKind>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub command: Option<Vec<String>>,
    pub timeout_ms: Option<u64>,
    pub cache_seconds: Option<u64>,
    pub response_format: Option<ResponseFormat>,
}

/// The user's additions to the speech view, as regex sources (checked when each file loads).
#[derive(Debug, Clone, Default)]
pub struct SpeechSettings {
    /// `speech.add_masks` of every layer.
    pub masks: Vec<String>,
    /// `speech.add_shown_headings` of every layer.
    pub shown_headings: Vec<String>,
}

/// The effective settings after all layers.
#[derive(Debug, Clone)]
pub struct Settings {
    pub text_bytes: usize,
    pub max_blocks_per_judge: u32,
    pub max_blocks_per_prompt: u32,
    pub judge_turns: JudgeTurns,
    pub log_dir: PathBuf,
    pub log_text: bool,
    pub log_retention_days: u32,
    pub transcript: transcript::Options,
    pub llm: LlmSettings,
    pub gate: GateSettings,
    /// Judge specs after merging, in order: built-ins first, then new ones as first named.
    /// The `judges` sections of the files, in layer order; merged onto the built-ins by
    /// [`Settings::judge_specs`] only when judges are needed (the gate's quiet path is not).
    pub judge_layers: Vec<(String, JudgeSpec)>,
    /// The user's speech-view rules, every layer's appended in layer order.
    pub speech: SpeechSettings,
    /// `boundary.mode`.
    pub boundary: crate::boundary::Mode,
    /// `boundary.hide_credentials`.
    pub boundary_hide_credentials: bool,
    /// The files that were found and applied, lowest layer first.
    pub files: Vec<PathBuf>,
    /// What was ignored of a repository file that is not trusted (see [`crate::config::trust`]).
    pub repo_report: Option<crate::config::trust::Report>,
    /// The layer that set each key (see [`Sources`]).
    pub sources: Sources,
}

impl Settings {
    /// Settings with no file applied.
    pub fn defaults() -> Settings {
        Settings {
            text_bytes: 4000,
            max_blocks_per_judge: 1,
            max_blocks_per_prompt: 2,
            judge_turns: JudgeTurns::default(),
            log_dir: default_log_dir(),
            log_text: true,
            log_retention_days: 30,
            transcript: transcript::Options::default(),
            llm: LlmSettings::default(),
            gate: GateSettings::default(),
            judge_layers: Vec::new(),
            speech: SpeechSettings::default(),
            boundary: crate::boundary::Mode::default(),
            boundary_hide_credentials: true,
            files: Vec::new(),
            repo_report: None,
            sources: Sources::default(),
        }
    }

    /// Loads every layer that applies to work in `cwd`. `explicit` is `--config`, else
    /// `HOOKJUDGE_CONFIG` is read.
    pub fn load(cwd: &Path, explicit: Option<&Path>) -> Result<Settings, Error> {
        Settings::load_layers(&Settings::layers(cwd, explicit))
    }

    /// Merges `layers`, lowest first, onto the defaults. A missing file is skipped unless it
    /// was named explicitly; a repository file that is not named explicitly too passes the
    /// trust filter first (see [`crate::config::trust`]).
    pub fn load_layers(layers: &[Layer]) -> Result<Settings, Error> {
        let mut settings = Settings::defaults();
        let named = |path: &Path| {
            layers
                .iter()
                .any(|l| l.kind == LayerKind::Explicit && l.path == path)
        };
        for layer in layers {
            let path = &layer.path;
            let base = path.parent().unwrap_or(Path::new("."));
            match std::fs::read_to_string(path) {
                // Someone else's text until the user trusts it (see `trust`).
                Ok(text) if layer.kind == LayerKind::Repository && !named(path) => {
                    let filtered = crate::config::trust::repo_layer(path, &text, &settings);
                    if let Some(file) = filtered.file {
                        check_patterns(&file, path)?;
                        settings.apply(file, base, layer);
                        settings.files.push(path.clone());
                    }
                    settings.repo_report = filtered.report;
                }
                Ok(text) => {
                    let file = parse(&text).map_err(|e| Error {
                        path: Some(path.clone()),
                        kind: ErrorKind::Parse(e),
                    })?;
                    check_patterns(&file, path)?;
                    settings.apply(file, base, layer);
                    settings.files.push(path.clone());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named(path) => {}
                Err(e) => {
                    return Err(Error {
                        path: Some(path.clone()),
                        kind: ErrorKind::Read(e),
                    });
                }
            }
        }
        settings.validate()?;
        Ok(settings)
    }

    /// Checks the values no parser checks, naming the key and the file that set it. Only a
    /// value some layer set is checked: the defaults are known good.
    fn validate(&self) -> Result<(), Error> {
        if let Some(layer) = self.sources.of("gate.test_commands")
            && let Err(e) = regex::Regex::new(&self.gate.test_commands)
        {
            return Err(Error {
                path: Some(layer.path.clone()),
                kind: ErrorKind::Invalid {
                    key: "gate.test_commands".into(),
                    message: format!("not a valid regex, so no test run would be recognised: {e}"),
                },
            });
        }
        Ok(())
    }

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

    /// Judge specs after merging every layer onto the built-ins, in order: built-ins first,
    /// then new judges as first named.
    pub fn judge_specs(&self) -> Vec<(String, JudgeSpec)> {
        let mut specs = judge::builtin_specs();
        for (name, spec) in &self.judge_layers {
            match specs.iter_mut().find(|(n, _)| n == name) {
                Some((_, existing)) => existing.overlay(spec),
                None => specs.push((name.clone(), spec.clone())),
            }
        }
        specs
    }

    /// Builds the enabled response judges (those that read the agent's final message), or only
    /// those named in `only` (which must exist and be response judges).
    pub fn judges(&self, only: &[String]) -> Result<Vec<Judge>, Error> {
        let specs: Vec<(String, JudgeSpec)> = self
            .judge_specs()
            .into_iter()
            .filter(|(_, spec)| spec.kind.unwrap_or_default() == judge::Kind::Response)
            .collect();
        if let Some(unknown) = only
            .iter()
            .find(|n| !specs.iter().any(|(name, _)| name == *n))
        {
            return Err(Error {
                path: None,
                kind: ErrorKind::UnknownJudge {
                    name: unknown.clone(),
                    known: specs.iter().map(|(n, _)| n.clone()).collect(),
                    gate: *unknown == judge::GATE_JUDGE,
                },
            });
        }
        let mut judges = Vec::new();
        for (name, spec) in &specs {
            if !only.is_empty() && !only.contains(name) {
                continue;
            }
            let built = Judge::from_spec(name, spec).map_err(|e| self.judge_error(e))?;
            judges.extend(built);
        }
        Ok(judges)
    }

    /// The enabled response judges (or only those named in `only`, see [`Settings::judges`])
    /// with the user's speech-view rules: what judging a response needs.
    pub fn panel(&self, only: &[String]) -> Result<Panel, Error> {
        Ok(Panel {
            judges: self.judges(only)?,
            speech: self.speech_rules()?,
            judge_turns: self.judge_turns,
        })
    }

    /// The user's speech-view rules, prepared. Each file's rules were checked when it loaded,
    /// so an error here names the merged list and the last file that added to it.
    fn speech_rules(&self) -> Result<UserRules, Error> {
        let s = &self.speech;
        UserRules::new(&s.masks, &s.shown_headings).map_err(|e| {
            let key = if e.what == speech::MASK {
                "speech.add_masks"
            } else {
                "speech.add_shown_headings"
            };
            Error {
                path: self.sources.of(key).map(|l| l.path.clone()),
                kind: ErrorKind::Invalid {
                    key: key.into(),
                    message: e.to_string(),
                },
            }
        })
    }

    /// The judge the gate asks whether the session shows verification, unless it is disabled.
    /// A definition that does not build is an error: the gate then leaves the decision to a human.
    pub fn gate_judge(&self) -> Result<Option<Judge>, Error> {
        let specs = self.judge_specs();
        let Some((name, spec)) = specs.iter().find(|(n, _)| n == judge::GATE_JUDGE) else {
            return Ok(None);
        };
        if spec.kind != Some(judge::Kind::Gate) {
            return Err(self.judge_error(judge::Error {
                judge: name.clone(),
                kind: judge::ErrorKind::WrongKind(judge::Kind::Gate),
            }));
        }
        Judge::from_spec(name, spec).map_err(|e| self.judge_error(e))
    }

    fn judge_error(&self, error: judge::Error) -> Error {
        Error {
            path: self.files.last().cloned(),
            kind: ErrorKind::Judge {
                error: Box::new(error),
                files: self.files.clone(),
            },
        }
    }
}

/// Checks the regexes `file` (at `path`) sets, before it is merged.
fn check_patterns(file: &ConfigFile, path: &Path) -> Result<(), Error> {
    crate::config::patterns::check(file).map_err(|kind| Error {
        path: Some(path.to_path_buf()),
        kind,
    })
}

/// Where the decision log goes when no config says otherwise.
pub fn default_log_dir() -> PathBuf {
    dirs::data_dir().join("logs")
}

/// Parses one config file, naming the key path of any error.
pub fn parse(text: &str) -> Result<ConfigFile, ParseError> {
    // Read as the agents read their settings: comments and trailing commas allowed. Plain JSON
    // (the usual file) is parsed as it is, with no copy; only a file that fails is blanked (in
    // place, so line and column stay right) and parsed again.
    match parse_json(text) {
        Ok(file) => Ok(file),
        Err(first) => {
            let plain = crate::support::jsonc::blank(text);
            if plain == text {
                Err(first)
            } else {
                parse_json(&plain)
            }
        }
    }
}

/// [`parse`] of plain JSON.
fn parse_json(text: &str) -> Result<ConfigFile, ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let file: ConfigFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let message = crate::support::suggest::did_you_mean(&e.into_inner().to_string());
        let key = (!path.is_empty() && path != ".").then_some(path);
        ParseError { key, message }
    })?;
    de.end().map_err(|e| ParseError {
        key: None,
        message: e.to_string(),
    })?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_name_their_path() {
        let err = parse(r#"{"judges": {"commit": {"trigers": ["x"]}}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("at `judges.commit.trigers`") && err.contains("unknown field `trigers`"),
            "{err}"
        );
        let err = parse(r#"{"stop": {"max_blocks": 3}}"#).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("stop.max_blocks"), "{err}");
        let err = parse(r#"{"llm": {"provider": "nonesuch"}}"#).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("llm.provider"), "{err}");
        assert_eq!(parse("{} x").unwrap_err().key, None);
        assert!(parse("{").is_err());
        assert!(parse(r#"{"llm": {"provider": "none"}, "$schema": "x"}"#).is_ok());
    }

    #[test]
    fn layers_apply_in_order_and_judges_merge() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join(REPO_FILE),
            r#"{"text_bytes": 100, "log": {"dir": "logs-here"}, "judges": {"commit": {"add_triggers": ["\\bship it\\b"]}, "scope-check": {"enabled": false}}}"#,
        )
        .unwrap();
        let explicit = dir.path().join("top.json");
        std::fs::write(&explicit, r#"{"text_bytes": 200}"#).unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let s = Settings::load(&sub, Some(&explicit)).unwrap();
        assert_eq!(s.text_bytes, 200);
        // The repository file is not trusted: only what makes hookjudge stricter applies.
        assert_eq!(s.log_dir, default_log_dir());
        let report = s
            .repo_report
            .as_ref()
            .expect("the untrusted file is reported");
        assert!(
            report.ignored.iter().any(|i| i.contains("`log`"))
                && report
                    .ignored
                    .iter()
                    .any(|i| i.contains("`judges.scope-check.enabled`")),
            "{:?}",
            report.ignored
        );
        let judges = s.judges(&[]).unwrap();
        let names: Vec<&str> = judges.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "commit",
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction",
                "unverified-claim"
            ]
        );
        assert!(
            judges[0]
                .triggers
                .iter()
                .any(|p| p.source == r"\bship it\b")
        );
        assert!(
            s.judges(&["nonesuch".into()])
                .unwrap_err()
                .to_string()
                .contains("no judge `nonesuch`")
        );
    }

    #[test]
    fn the_gate_judge_is_apart_from_the_response_judges() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        let load = |json: &str| {
            std::fs::write(&file, json).unwrap();
            Settings::load(dir.path(), Some(&file)).unwrap()
        };
        let s = load(r#"{"judges": {"commit": {"enabled": false}}}"#);
        assert!(
            s.judges(&[])
                .unwrap()
                .iter()
                .all(|j| j.kind == judge::Kind::Response)
        );
        assert_eq!(
            s.gate_judge().unwrap().unwrap().name,
            judge::GATE_JUDGE,
            "disabling the Stop `commit` judge leaves the gate's judge"
        );
        let err = s
            .judges(&[judge::GATE_JUDGE.into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("session activity for the gate"), "{err}");

        let s = load(r#"{"judges": {"gate-verification": {"enabled": false}}}"#);
        assert!(s.gate_judge().unwrap().is_none());
        let s = load(r#"{"judges": {"gate-verification": {"fields": {}}}}"#);
        let err = s.gate_judge().unwrap_err().to_string();
        assert!(
            err.contains("judge `gate-verification` has no `fields`"),
            "{err}"
        );
        let s = load(r#"{"judges": {"gate-verification": {"kind": "response"}}}"#);
        let err = s.gate_judge().unwrap_err().to_string();
        assert!(err.contains("`kind` must be `gate`"), "{err}");
    }

    #[test]
    fn a_judge_pattern_that_is_not_a_regex_does_not_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        // Replaced by the layer above, the bad pattern is still a typo in this file.
        std::fs::write(
            &file,
            r#"{"judges": {"commit": {"add_bypasses": ["ok", "(unclosed"]}}}"#,
        )
        .unwrap();
        let err = Settings::load(dir.path(), Some(&file)).unwrap_err();
        assert_eq!(err.path.as_deref(), Some(file.as_path()));
        assert_eq!(err.key(), Some("judges.commit.add_bypasses[1]"));
        assert!(
            err.detail().starts_with(
                "at `judges.commit.add_bypasses[1]`: judge `commit`: bypass pattern `(unclosed`"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_speech_rule_that_is_not_a_regex_does_not_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        std::fs::write(&file, r#"{"speech": {"add_masks": ["ok", "(unclosed"]}}"#).unwrap();
        let err = Settings::load(dir.path(), Some(&file)).unwrap_err();
        assert_eq!(err.path.as_deref(), Some(file.as_path()));
        assert_eq!(err.key(), Some("speech.add_masks[1]"));
        assert!(
            err.detail().starts_with(
                "at `speech.add_masks[1]`: speech mask pattern `(unclosed` is not a valid regex"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_bad_test_commands_regex_does_not_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        std::fs::write(&file, r#"{"gate": {"test_commands": "cargo (test"}}"#).unwrap();
        let err = Settings::load(dir.path(), Some(&file)).unwrap_err();
        assert_eq!(err.path.as_deref(), Some(file.as_path()));
        assert_eq!(err.key(), Some("gate.test_commands"));
        assert!(
            err.detail()
                .starts_with("at `gate.test_commands`: not a valid regex"),
            "{err}"
        );
        std::fs::write(
            &file,
            r#"{"gate": {"test_commands": "cargo (test|nextest)"}}"#,
        )
        .unwrap();
        let s = Settings::load(dir.path(), Some(&file)).unwrap();
        assert_eq!(s.gate.test_commands, "cargo (test|nextest)");
    }

    #[test]
    fn an_explicit_file_is_labelled_explicit_inside_or_outside_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        let kinds = |cwd: &Path| -> Vec<LayerKind> {
            Settings::layers(cwd, Some(&file))
                .into_iter()
                .map(|l| l.kind)
                .collect()
        };
        assert_eq!(kinds(dir.path()), [LayerKind::User, LayerKind::Explicit]);
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert_eq!(
            kinds(dir.path()),
            [LayerKind::User, LayerKind::Repository, LayerKind::Explicit]
        );
    }

    #[test]
    fn a_missing_explicit_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = Settings::load(dir.path(), Some(&dir.path().join("nope.json"))).unwrap_err();
        assert!(err.to_string().contains("cannot read it"), "{err}");
    }
}
