//! Checks of a loaded config that loading does not make: judge definitions that do not build,
//! artifact globs that are not globs (a pattern that is not a regex does not load at all, see
//! [`crate::config::patterns`]). Each problem names the exact key (`gate.add_artifacts[1]`), the
//! file that sets it, and what to run next, so that every command that reads the config can
//! report it the same way.

use std::path::PathBuf;

use serde_json::Value;

use crate::config::Settings;
use crate::judge::Judge;

/// One problem in the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key at fault, as a path (`gate.add_artifacts[0]`).
    pub key: String,
    /// The file that sets it, when one does.
    pub file: Option<PathBuf>,
    pub message: String,
}

impl Problem {
    /// What to do next: the key, the file, and the command that checks the fix.
    pub fn hint(&self) -> String {
        let place = match &self.file {
            Some(f) => format!(" in `{}`", f.display()),
            None => String::new(),
        };
        format!(
            "fix `{}`{place}, then run `hookjudge config show` to check it",
            self.key
        )
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

/// The config files' values, lowest layer first.
fn file_values(settings: &Settings) -> Vec<(PathBuf, Value)> {
    settings
        .files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            Some((f.clone(), serde_json::from_str(&text).ok()?))
        })
        .collect()
}

/// The key and file of the highest layer whose list `section.{lists}` holds `value`.
fn locate(
    files: &[(PathBuf, Value)],
    section: &[&str],
    lists: &[&str],
    value: &str,
) -> Option<(String, PathBuf)> {
    for (file, v) in files.iter().rev() {
        let node = section.iter().fold(v, |n, k| &n[*k]);
        for list in lists {
            if let Some(i) = node[*list]
                .as_array()
                .and_then(|a| a.iter().position(|x| x == value))
            {
                return Some((format!("{}.{list}[{i}]", section.join(".")), file.clone()));
            }
        }
    }
    None
}

/// Every problem found, in a stable order.
pub fn problems(settings: &Settings) -> Vec<Problem> {
    let files = file_values(settings);
    let mut found = Vec::new();
    for (name, spec) in settings.judge_specs() {
        let Err(e) = Judge::from_spec(&name, &spec) else {
            continue;
        };
        let file = files
            .iter()
            .rev()
            .find(|(_, v)| !v["judges"][&name].is_null())
            .map(|(f, _)| f.clone());
        found.push(Problem {
            key: format!("judges.{name}"),
            file,
            message: e.to_string(),
        });
    }
    for glob in &settings.gate.artifacts {
        if let Err(e) = crate::gate::glob::check(glob) {
            let (key, file) = locate(&files, &["gate"], &["artifacts", "add_artifacts"], glob)
                .map(|(k, f)| (k, Some(f)))
                .unwrap_or(("gate.artifacts".into(), None));
            found.push(Problem {
                key,
                file,
                message: format!("{e}, so it never matches"),
            });
        }
    }
    for glob in &settings.gate.not_code {
        let pattern = glob.strip_prefix('!').unwrap_or(glob);
        if let Err(e) = crate::gate::glob::check(pattern) {
            let (key, file) = locate(&files, &["gate"], &["not_code", "add_not_code"], glob)
                .map(|(k, f)| (k, Some(f)))
                .unwrap_or(("gate.not_code".into(), None));
            found.push(Problem {
                key,
                file,
                message: format!("{e}, so it never matches"),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_names_its_key_and_file() {
        let dir = tempfile::tempdir().unwrap();
        // An explicit file is applied in full; a repository file would need the user's trust.
        let file = dir.path().join("explicit.json");
        std::fs::write(
            &file,
            r#"{"judges": {"mine": {"triggers": ["fine"]}}, "gate": {"add_artifacts": ["ok/*.xml", "bad/[x"], "not_code": ["*.md", "!bad/[y"]}}"#,
        )
        .unwrap();
        let settings = Settings::load(dir.path(), Some(&file)).unwrap();
        let found = problems(&settings);
        let keys: Vec<&str> = found.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            ["judges.mine", "gate.add_artifacts[1]", "gate.not_code[1]"]
        );
        assert!(
            found[0].message.contains("judge `mine` has no"),
            "{}",
            found[0]
        );
        assert!(
            found
                .iter()
                .all(|p| p.file.as_deref() == Some(file.as_path()))
        );
        assert!(
            found[0].hint().contains("fix `judges.mine` in `")
                && found[0].hint().contains("hookjudge config show"),
            "{}",
            found[0].hint()
        );
        assert!(problems(&Settings::defaults()).is_empty());
    }
}
