//! Every config key, declared once: its name, what a file holds, its JSON Schema shape, how a
//! layer merges it onto the settings, its default and its description. The file structs, the
//! merge, `config show`, the defaults and `config schema` are all expanded from this list (see
//! [`crate::config::declare`] for how a line reads). Adding a key is one line here and, when
//! the config owns its value, a field on [`Settings`].
//!
//! The order is the file order: serde's "expected one of" lists it, and `config show` prints
//! the keys in it (a gate class policy after its section's other keys, see
//! [`Shown::Later`](crate::config::declare::Shown::Later)).

use std::path::PathBuf;

use crate::boundary::Mode;
use crate::config::layers::{Layer, Merge, apply_judges};
use crate::config::settings::{Settings, default_log_dir};
use crate::gate::settings::Policy;
use crate::judge::evaluate::{JudgeTurns, SecondReading};
use crate::llm::{ProviderKind, ResponseFormat};

config_keys! {
    top {
        /// editors' schema pointer; ignored by hookjudge
        schema as "$schema": String [string] => ignored();
        /// bytes of the response (its end) that the judges read
        text_bytes: usize [positive] => set(text_bytes) = 4000;
    }

    /// the Stop hook's loop breaker
    section stop: StopFile {
        /// blocks one judge may give per user prompt before the loop breaker releases
        max_blocks_per_judge: u32 [integer] => set(max_blocks_per_judge) = 1;
        /// blocks all judges together may give per user prompt
        max_blocks_per_prompt: u32 [integer] => set(max_blocks_per_prompt) = 2;
        /// which turns the LLM judges: all (every turn that could hold a violation, all judges
        /// in one call) or lexicon (only judges Layer 1's patterns wake; fewer calls, less
        /// reach)
        judge_turns: JudgeTurns [judge_turns] => set(judge_turns) = JudgeTurns::default();
        /// whether a block the LLM finds is read a second time, in one more call, before it
        /// stands: off, marked (the blocks of judges marked second_reading, the two bugfix
        /// judges built in) or blocks (every block); a block stands only when the agent's own
        /// words uphold it
        second_reading: SecondReading [second_reading] => set(second_reading) = SecondReading::default();
    }

    /// the decision log
    section log: LogFile {
        /// where the decision log goes (relative to this file); by default the platform data
        /// dir's `logs`
        dir: PathBuf [string, machine] => relative(log_dir) = default_log_dir();
        /// whether the (redacted) judged text is logged
        text: bool [boolean] => set(log_text) = true;
        /// days of day files to keep; older ones are deleted once a day; 0 keeps all
        retention_days: u32 [integer] => set(log_retention_days) = 30;
    }

    /// how much of a session transcript is read
    section transcript: TranscriptFile {
        /// bytes of a transcript read from its end at most
        max_scan_bytes: u64 [integer] => set(transcript.max_scan_bytes);
        /// transcript lines longer than this are streamed: their structure is read, their text
        /// is not collected
        max_line_bytes: usize [integer] => set(transcript.max_line_bytes);
    }

    /// the LLM of Layer 2
    section llm: LlmFile {
        /// which LLM judges the triggered texts: auto picks the first configured or available;
        /// none is Layer 1 only
        provider: ProviderKind [provider] => set(llm.provider);
        /// the endpoint of an openai or anthropic provider
        base_url: String [string] => set(llm.base_url);
        /// the model name the provider is asked for
        model: String [string] => set(llm.model);
        /// the environment variable holding the API key
        api_key_env: String [string] => set(llm.api_key_env);
        /// a program and its arguments that read the prompt on stdin and print the answer
        /// (provider command)
        command: Vec<String> [strings] => set(llm.command);
        /// the deadline of one hook call's LLM work, in milliseconds
        timeout_ms: u64 [integer] => set(llm.timeout_ms);
        /// how long a verdict is reused for the same judge, model and text
        cache_seconds: u64 [integer] => set(llm.cache_seconds);
        /// how a JSON answer is requested; unset picks automatically and remembers what a
        /// server accepts
        response_format: ResponseFormat [response_format] => set(llm.response_format);
    }

    /// the PreToolUse gate for Bash commands
    section gate: GateFile {
        /// `git commit`
        commit: Policy [policy] => class(Commit);
        /// `git push`
        push: Policy [policy] => class(Push);
        /// publishing a package or a release
        publish: Policy [policy] => class(Publish);
        /// deploying
        deploy: Policy [policy] => class(Deploy);
        /// skipping the repository's hooks (`--no-verify`)
        hook_bypass as "hook-bypass": Policy [policy] => class(HookBypass);
        /// operations that may lose work
        destructive: Policy [policy] => class(Destructive);
        /// `rm -rf` of `/`, the home directory, a repository or its `.git`
        catastrophic: Policy [policy] => class(Catastrophic);
        /// a command line the gate cannot read
        unparsed: Policy [policy] => class(Unparsed);
        /// branches a force push must never rewrite (`*` matches within a segment)
        protected_branches: Vec<String> [strings] => set(gate.protected_branches);
        /// files test runs write (globs); replaces the defaults
        artifacts: Vec<String> [strings] => set(gate.artifacts);
        /// files test runs write (globs); added to the defaults
        add_artifacts: Vec<String> [strings] => add_to(gate.artifacts, "gate.artifacts");
        /// a regex over a command line that recognises a test run in the transcript
        test_commands: String [string] => set(gate.test_commands);
        /// files that are not code (globs; `!` for exceptions): a commit or push changing only
        /// these needs no test evidence; replaces the defaults
        not_code: Vec<String> [strings] => set(gate.not_code);
        /// files that are not code (globs; `!` for exceptions); added to the defaults
        add_not_code: Vec<String> [strings] => add_to(gate.not_code, "gate.not_code");
        /// command prefixes that deploy (e.g. `./scripts/deploy.sh`, `make deploy`)
        deploy_commands: Vec<String> [strings] => append_words(gate.deploy_commands);
        /// command prefixes that publish (e.g. `./scripts/release.sh`, `make release`)
        publish_commands: Vec<String> [strings] => append_words(gate.publish_commands);
        /// the deadline of the gate's own judge call, in milliseconds
        timeout_ms: u64 [integer] => set(gate.timeout_ms);
    }

    judges;

    /// the speech view Layer 1 triggers read: what the agent says, not what it shows
    section speech: SpeechFile {
        /// word senses that name no defect and no action (Rust regex, case-insensitive),
        /// removed from the text before any trigger reads it; added to the built-in masks
        add_masks: Vec<String> [strings] => append(speech.masks);
        /// regexes (case-insensitive) over a trimmed line that labels displayed material, such
        /// as a report's own section headings; such a line is not read by the triggers; added
        /// to the built-in ones
        add_shown_headings: Vec<String> [strings] => append(speech.shown_headings);
    }

    /// the operating-system boundary that keeps the agent's commands off hookjudge's files
    section boundary: BoundaryFile {
        /// how the agent's commands are kept off hookjudge's own files: off (only the gate
        /// reads the command line), landlock (each shell command runs under `hookjudge
        /// run-confined`, Linux), agent (the agent's own sandbox; `hookjudge doctor` prints
        /// Claude Code's settings for it)
        mode: Mode [boundary_mode] => set(boundary) = Mode::default();
        /// with `landlock`: confined commands that the gate did not let through as a push,
        /// publish or deploy (or a person approved) see no publishing credentials (SSH keys
        /// and agent, git credential stores, gh, npm, cargo, PyPI, docker, kube, cloud, and
        /// those written into git's configuration)
        hide_credentials: bool [boolean] => set(boundary_hide_credentials) = true;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::config::LayerKind;
    use crate::config::schema::schema;
    use crate::config::show::sourced;

    /// Two different values a key of this JSON Schema shape accepts, for a lower and a higher
    /// layer.
    fn two_values(shape: &Value) -> (Value, Value) {
        if let Some(variants) = shape["enum"].as_array() {
            return (variants[0].clone(), variants[1].clone());
        }
        match shape["type"].as_str() {
            Some("integer") => (json!(3), json!(5)),
            Some("boolean") => (json!(true), json!(false)),
            Some("string") => (json!("lower"), json!("upper")),
            Some("array") => (json!(["lower"]), json!(["upper"])),
            other => panic!("no test values for a {other:?}"),
        }
    }

    /// `value` at the dotted `path` of a config file.
    fn file_with(path: &str, value: Value) -> Value {
        match path.split_once('.') {
            Some((section, leaf)) => json!({ section: { leaf: value } }),
            None => json!({ path: value }),
        }
    }

    #[test]
    fn one_declaration_drives_the_schema_config_show_and_the_merge() {
        let schema = schema();
        let defaults = Settings::defaults();
        let shown_defaults = sourced(&defaults);
        let dir = tempfile::tempdir().unwrap();
        let (lower, upper) = (dir.path().join("lower.json"), dir.path().join("upper.json"));
        let layers = [
            Layer {
                kind: LayerKind::User,
                path: lower.clone(),
            },
            Layer {
                kind: LayerKind::Explicit,
                path: upper.clone(),
            },
        ];
        let declared = keys();
        assert!(declared.len() > 30, "every key is declared");
        for key in &declared {
            let path = key.path;
            // The schema: the declared shape and doc, and the default `config show` prints.
            let pointer = match path.split_once('.') {
                Some((section, leaf)) => format!("/properties/{section}/properties/{leaf}"),
                None => format!("/properties/{path}"),
            };
            let property = schema.pointer(&pointer).unwrap_or_else(|| panic!("{path}"));
            assert_eq!(property["description"], json!(key.description()), "{path}");
            assert!(key.description().len() > 10, "`{path}` has a doc");
            let mut shape = property.clone();
            shape.as_object_mut().unwrap().remove("description");
            let default = shape.as_object_mut().unwrap().remove("default");
            assert_eq!(shape, (key.shape)(), "{path}");
            let row = shown_defaults.iter().find(|(k, _, _)| k == path);
            match (row, default) {
                (Some((_, value, layer)), Some(default)) => {
                    assert_eq!(*value, default, "{path}");
                    assert!(layer.is_none(), "{path} is a default");
                }
                (Some((_, value, _)), None) => {
                    assert!(value.is_null() || key.machine_default, "{path}: {value}")
                }
                (None, default) => {
                    assert!(default.is_none(), "{path}");
                    assert!(
                        matches!(key.rule, "add_to" | "ignored"),
                        "`{path}` is missing from config show"
                    );
                }
            }
            if key.rule == "ignored" {
                continue;
            }
            // The merge: a higher layer's value wins, or is added, per the declared rule, and
            // `config show` credits that layer.
            let (a, b) = two_values(&(key.shape)());
            std::fs::write(&lower, file_with(path, a.clone()).to_string()).unwrap();
            std::fs::write(&upper, file_with(path, b.clone()).to_string()).unwrap();
            let merged = Settings::load_layers(&layers).unwrap();
            let rows = sourced(&merged);
            let (_, value, layer) = rows
                .iter()
                .find(|(k, _, _)| k == key.sets)
                .unwrap_or_else(|| panic!("{path} sets {}", key.sets));
            assert_eq!(layer.map(|l| &l.path), Some(&upper), "{path}");
            let both = |a: &Value, b: &Value| {
                let mut list = a.as_array().unwrap().clone();
                list.extend(b.as_array().unwrap().iter().cloned());
                json!(list)
            };
            let expected = match key.rule {
                "set" | "class" => b.clone(),
                "relative" => json!(dir.path().join(b.as_str().unwrap())),
                "append" | "append_words" => both(&a, &b),
                "add_to" => {
                    let (_, below, _) = shown_defaults
                        .iter()
                        .find(|(k, _, _)| k == key.sets)
                        .unwrap();
                    both(&both(below, &a), &b)
                }
                rule => panic!("`{path}`: no expectation for the rule `{rule}`"),
            };
            assert_eq!(*value, expected, "{path} ({})", key.rule);
        }
    }
}
