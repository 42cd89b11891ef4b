//! Loading the ladder: built-in defaults < user file < repository file < `--config` file,
//! each file parsed ([`crate::config::file`]), its patterns checked
//! ([`crate::config::patterns`]), a repository file the user has not trusted cut down to what
//! makes hookjudge stricter ([`crate::config::trust`]), then merged ([`crate::config::layers`]).
//! Relative paths in a file are relative to that file.

use std::path::Path;

use crate::config::layers::{Layer, LayerKind};
use crate::config::{ConfigFile, Error, ErrorKind, Settings};

impl Settings {
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
                    let file = crate::config::parse(&text).map_err(|e| Error {
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
}

/// Checks the regexes `file` (at `path`) sets, before it is merged.
fn check_patterns(file: &ConfigFile, path: &Path) -> Result<(), Error> {
    crate::config::patterns::check(file).map_err(|kind| Error {
        path: Some(path.to_path_buf()),
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LayerKind, REPO_FILE, default_log_dir};
    use crate::judge;
    use std::path::Path;

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
