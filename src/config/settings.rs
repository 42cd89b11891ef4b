//! The effective settings after all layers, and what is built from them: the judges (their
//! specs merged onto the built-ins) and the speech-view rules. The values come from the key
//! declarations (see [`crate::config::keys`]): their defaults, then each layer merged on top.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::config::layers::Sources;
use crate::config::{Error, ErrorKind};
use crate::gate::settings::GateSettings;
use crate::judge::evaluate::{JudgeTurns, Panel, SecondReading};
use crate::judge::speech::{self, UserRules};
use crate::judge::{self, Judge, JudgeSpec};
use crate::llm::LlmSettings;
use crate::support::dirs;
use crate::transcript;

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
    pub second_reading: SecondReading,
    pub log_dir: PathBuf,
    pub log_text: bool,
    pub log_retention_days: u32,
    pub transcript: transcript::Options,
    pub llm: LlmSettings,
    pub gate: GateSettings,
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
    /// The built-in judges, parsed once when first needed (the trust filter of a repository
    /// file needs them, and so do the judges built later).
    builtins: OnceLock<Vec<(String, JudgeSpec)>>,
}

impl Settings {
    /// Settings with no file applied: each key's declared default, or (for the `llm`,
    /// `transcript` and `gate` keys) the default of the options that hold it.
    pub fn defaults() -> Settings {
        let mut settings = Settings {
            // Placeholders: the declared defaults are set below.
            text_bytes: 0,
            max_blocks_per_judge: 0,
            max_blocks_per_prompt: 0,
            judge_turns: JudgeTurns::default(),
            second_reading: SecondReading::default(),
            log_dir: PathBuf::new(),
            log_text: false,
            log_retention_days: 0,
            boundary: crate::boundary::Mode::default(),
            boundary_hide_credentials: false,
            // Options whose owners give their defaults.
            transcript: transcript::Options::default(),
            llm: LlmSettings::default(),
            gate: GateSettings::default(),
            speech: SpeechSettings::default(),
            // What loading records.
            judge_layers: Vec::new(),
            files: Vec::new(),
            repo_report: None,
            sources: Sources::default(),
            builtins: OnceLock::new(),
        };
        settings.apply_defaults();
        settings
    }

    /// The built-in judges' specs, parsed on first use.
    pub fn builtin_specs(&self) -> &[(String, JudgeSpec)] {
        self.builtins.get_or_init(judge::builtin_specs)
    }

    /// Judge specs after merging every layer onto the built-ins, in order: built-ins first,
    /// then new judges as first named.
    pub fn judge_specs(&self) -> Vec<(String, JudgeSpec)> {
        let mut specs = self.builtin_specs().to_vec();
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
            second_reading: self.second_reading,
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

/// Where the decision log goes when no config says otherwise.
pub fn default_log_dir() -> PathBuf {
    dirs::data_dir().join("logs")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Layer, LayerKind, REPO_FILE};

    #[test]
    fn an_untrusted_repository_file_parses_the_built_in_judges_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(REPO_FILE);
        std::fs::write(
            &file,
            r#"{"judges": {"commit": {"add_triggers": ["\\bship it\\b"]}}}"#,
        )
        .unwrap();
        let layers = [Layer {
            kind: LayerKind::Repository,
            path: file,
        }];
        let s = Settings::load_layers(&layers).unwrap();
        assert!(s.repo_report.is_some(), "the file is not trusted");
        // The trust filter read the built-ins into these settings; the judges reuse them.
        let parsed = s
            .builtins
            .get()
            .expect("the filter parsed the built-ins")
            .as_ptr();
        assert!(!s.judges(&[]).unwrap().is_empty());
        assert_eq!(s.builtin_specs().as_ptr(), parsed);
        assert!(
            Settings::defaults().builtins.get().is_none(),
            "parsed only when needed"
        );
    }
}
