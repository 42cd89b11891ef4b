//! The untrusted-file filter: what of a repository file makes hookjudge stricter than the
//! layers below it, and so applies without trust; everything else is ignored, each with why.

use crate::config::{ConfigFile, Policy, Settings};

/// How strict each gate policy is. An untrusted file may move a class only to a higher rank.
/// `verify` and `guard` rank the same: for a given class they run the same checks.
pub const STRICTNESS: [(Policy, u8); 5] = [
    (Policy::Allow, 0),
    (Policy::Verify, 1),
    (Policy::Guard, 1),
    (Policy::Ask, 2),
    (Policy::Deny, 3),
];

/// The rank of `policy` in [`STRICTNESS`].
pub fn strictness(policy: Policy) -> u8 {
    STRICTNESS
        .iter()
        .find(|(p, _)| *p == policy)
        .map(|(_, rank)| *rank)
        .unwrap_or(0)
}

/// Top-level keys an untrusted file may not set, and why.
const IGNORED_SECTIONS: [(&str, &str); 6] = [
    ("boundary", "changes how the agent's commands run"),
    (
        "llm",
        "runs a program or sends the session to another endpoint",
    ),
    ("log", "moves or widens the decision log"),
    ("stop", "changes the loop breaker"),
    ("transcript", "changes how much of the session is read"),
    ("text_bytes", "changes how much of the response is judged"),
];

/// A layer cut down to what makes hookjudge stricter.
#[derive(Debug, Default)]
pub struct Filtered {
    pub file: ConfigFile,
    pub ignored: Vec<String>,
    pub applied: Vec<String>,
}

/// Keeps only what makes hookjudge stricter than `below`, the settings of the lower layers.
/// Independent of how layers merge: it reads `below` and returns a smaller layer.
pub fn stricter_only(file: ConfigFile, below: &Settings) -> Filtered {
    let mut out = Filtered {
        file: ConfigFile {
            schema: file.schema.clone(),
            ..ConfigFile::default()
        },
        ..Filtered::default()
    };
    let set: [(&str, bool); 6] = [
        ("boundary", file.boundary.is_some()),
        ("llm", file.llm.is_some()),
        ("log", file.log.is_some()),
        ("stop", file.stop.is_some()),
        ("transcript", file.transcript.is_some()),
        ("text_bytes", file.text_bytes.is_some()),
    ];
    ignore_set(&mut out.ignored, "", &set, |key| {
        IGNORED_SECTIONS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, why)| *why)
            .unwrap_or("not allowed")
    });
    if let Some(gate) = file.gate {
        out.file.gate = Some(stricter_gate(
            gate,
            below,
            &mut out.ignored,
            &mut out.applied,
        ));
    }
    if let Some(judges) = file.judges {
        let specs = below.judge_specs();
        let mut kept = indexmap::IndexMap::new();
        for (name, spec) in judges {
            let Some((_, existing)) = specs.iter().find(|(n, _)| *n == name) else {
                out.ignored.push(format!(
                    "`judges.{name}` (a new judge: its prompt and reason are text the agent reads)"
                ));
                continue;
            };
            let mut keep = crate::judge::JudgeSpec::default();
            match spec.enabled {
                Some(true) => {
                    keep.enabled = Some(true);
                    out.applied.push(format!("`judges.{name}.enabled`"));
                }
                Some(false) => out
                    .ignored
                    .push(format!("`judges.{name}.enabled` (turns a judge off)")),
                None => {}
            }
            if let Some(extra) = spec.add_triggers.filter(|t| !t.is_empty()) {
                let mut merged = existing.clone();
                merged.enabled = Some(true);
                merged.overlay(&crate::judge::JudgeSpec {
                    add_triggers: Some(extra.clone()),
                    ..Default::default()
                });
                match crate::judge::Judge::from_spec(&name, &merged) {
                    Ok(_) => {
                        keep.add_triggers = Some(extra);
                        out.applied.push(format!("`judges.{name}.add_triggers`"));
                    }
                    Err(e) => out.ignored.push(format!(
                        "`judges.{name}.add_triggers` (does not compile: {e})"
                    )),
                }
            }
            let others: [(&str, bool); 9] = [
                ("description", spec.description.is_some()),
                ("triggers", spec.triggers.is_some()),
                ("bypasses", spec.bypasses.is_some()),
                ("add_bypasses", spec.add_bypasses.is_some()),
                ("prompt", spec.prompt.is_some()),
                ("fields", spec.fields.is_some()),
                ("block_when", spec.block_when.is_some()),
                ("reason", spec.reason.is_some()),
                ("second_reading", spec.second_reading.is_some()),
            ];
            ignore_set(
                &mut out.ignored,
                &format!("judges.{name}."),
                &others,
                |_| "may weaken the judge or put text before the agent",
            );
            kept.insert(name, keep);
        }
        out.file.judges = Some(kept);
    }
    if let Some(speech) = file.speech {
        let set = [
            ("add_masks", speech.add_masks.is_some()),
            ("add_shown_headings", speech.add_shown_headings.is_some()),
        ];
        ignore_set(
            &mut out.ignored,
            "speech.",
            &set,
            |_| "hides text from the triggers",
        );
    }
    out
}

fn stricter_gate(
    gate: crate::config::GateFile,
    below: &Settings,
    ignored: &mut Vec<String>,
    applied: &mut Vec<String>,
) -> crate::config::GateFile {
    let current = &below.gate;
    let mut keep = crate::config::GateFile::default();
    // The class policies as declared (see `crate::config::keys`).
    for (class, wanted) in gate.class_policies() {
        let Some(wanted) = wanted else { continue };
        let now = current.policy(class);
        if wanted == now {
            continue;
        }
        if strictness(wanted) > strictness(now) {
            keep.set_class_policy(class, Some(wanted));
            applied.push(format!("`gate.{}`", class.name()));
        } else {
            ignored.push(format!(
                "`gate.{}` (would change `{}` to `{}`, which is not stricter)",
                class.name(),
                policy_name(now),
                policy_name(wanted)
            ));
        }
    }
    if let Some(branches) = gate.protected_branches {
        let removed: Vec<&String> = current
            .protected_branches
            .iter()
            .filter(|b| !branches.contains(b))
            .collect();
        if !removed.is_empty() {
            let names: Vec<String> = removed.iter().map(|b| format!("`{b}`")).collect();
            ignored.push(format!(
                "removing {} from `gate.protected_branches`",
                names.join(", ")
            ));
        }
        let mut union = current.protected_branches.clone();
        union.extend(
            branches
                .into_iter()
                .filter(|b| !current.protected_branches.contains(b)),
        );
        if union != current.protected_branches {
            applied.push("`gate.protected_branches` (added branches)".into());
        }
        keep.protected_branches = Some(union);
    }
    // A configured command only adds a class to what it matches (the classifier keeps its own
    // reading), so these may come from an untrusted file.
    if let Some(deploy) = gate.deploy_commands.filter(|d| !d.is_empty()) {
        applied.push("`gate.deploy_commands`".into());
        keep.deploy_commands = Some(deploy);
    }
    if let Some(publish) = gate.publish_commands.filter(|d| !d.is_empty()) {
        applied.push("`gate.publish_commands`".into());
        keep.publish_commands = Some(publish);
    }
    let evidence = [
        ("artifacts", gate.artifacts.is_some()),
        ("add_artifacts", gate.add_artifacts.is_some()),
        ("test_commands", gate.test_commands.is_some()),
        ("timeout_ms", gate.timeout_ms.is_some()),
    ];
    ignore_set(
        ignored,
        "gate.",
        &evidence,
        |_| "decides what counts as verification",
    );
    keep
}

/// Notes in `ignored` each of `keys` the file sets (`(key, set)`), as `` `{prefix}{key}` ``
/// with why it is not applied.
fn ignore_set(
    ignored: &mut Vec<String>,
    prefix: &str,
    keys: &[(&str, bool)],
    why: impl Fn(&str) -> &'static str,
) {
    for (key, _) in keys.iter().filter(|(_, set)| *set) {
        ignored.push(format!("`{prefix}{key}` ({})", why(key)));
    }
}

fn policy_name(policy: Policy) -> String {
    serde_json::to_value(policy)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filtered(json: &str) -> Filtered {
        stricter_only(crate::config::parse(json).unwrap(), &Settings::defaults())
    }

    #[test]
    fn only_stricter_gate_classes_survive() {
        let f = filtered(
            r#"{"gate": {"push": "allow", "commit": "ask", "hook-bypass": "allow", "destructive": "verify", "deploy": "deny"}}"#,
        );
        let gate = f.file.gate.unwrap();
        assert_eq!(gate.push, None);
        assert_eq!(gate.hook_bypass, None);
        assert_eq!(gate.commit, Some(Policy::Ask));
        assert_eq!(gate.deploy, Some(Policy::Deny));
        assert_eq!(gate.destructive, None, "guard to verify is not stricter");
        assert_eq!(f.ignored.len(), 3, "{:?}", f.ignored);
        assert!(f.ignored.iter().any(|i| i.contains("`gate.push`")));
        let f = filtered(r#"{"gate": {"catastrophic": "ask", "publish_commands": ["make ship"]}}"#);
        assert!(
            f.ignored[0].contains("`gate.catastrophic`"),
            "{:?}",
            f.ignored
        );
        assert_eq!(
            f.file.gate.unwrap().publish_commands.unwrap(),
            ["make ship"]
        );
    }

    #[test]
    fn programs_endpoints_logs_and_new_judges_are_ignored() {
        let f = filtered(
            r#"{"llm": {"provider": "command", "command": ["sh", "-c", "x"]}, "log": {"dir": "/tmp"},
                "judges": {"evil": {"triggers": ["."], "prompt": "p", "fields": {"a": "b"}, "block_when": "a", "reason": "run curl"},
                           "commit": {"enabled": false, "add_bypasses": ["."], "add_triggers": ["\\bship it\\b"], "reason": "r", "second_reading": true}},
                "gate": {"test_commands": "true", "add_artifacts": ["README.md"], "protected_branches": ["dev"], "deploy_commands": ["make ship"]},
                "speech": {"add_masks": ["\\bpush\\b"], "add_shown_headings": ["."]}}"#,
        );
        assert!(f.file.llm.is_none() && f.file.log.is_none());
        let judges = f.file.judges.unwrap();
        assert!(!judges.contains_key("evil"));
        let commit = &judges["commit"];
        assert_eq!(commit.enabled, None);
        assert_eq!(commit.add_bypasses, None);
        assert_eq!(commit.reason, None);
        assert_eq!(commit.second_reading, None);
        assert_eq!(
            commit.add_triggers.as_deref(),
            Some(&[r"\bship it\b".to_string()][..])
        );
        let gate = f.file.gate.unwrap();
        assert!(gate.test_commands.is_none() && gate.add_artifacts.is_none());
        assert_eq!(
            gate.protected_branches.unwrap(),
            ["main", "master", "release/*", "dev"]
        );
        assert_eq!(gate.deploy_commands.unwrap(), ["make ship"]);
        assert!(f.file.speech.is_none());
        for key in [
            "`speech.add_masks`",
            "`speech.add_shown_headings`",
            "`llm`",
            "`log`",
            "`judges.evil`",
            "`judges.commit.enabled`",
            "`judges.commit.add_bypasses`",
            "`judges.commit.second_reading`",
            "`gate.test_commands`",
        ] {
            assert!(
                f.ignored.iter().any(|i| i.contains(key)),
                "{key}: {:?}",
                f.ignored
            );
        }
    }

    #[test]
    fn a_trigger_that_does_not_compile_is_ignored_not_fatal() {
        let f = filtered(r#"{"judges": {"commit": {"add_triggers": ["(unclosed"]}}}"#);
        assert_eq!(f.file.judges.unwrap()["commit"].add_triggers, None);
        assert!(f.ignored[0].contains("does not compile"), "{:?}", f.ignored);
    }

    #[test]
    fn the_strictness_table_orders_every_policy() {
        for policy in [
            Policy::Allow,
            Policy::Verify,
            Policy::Guard,
            Policy::Ask,
            Policy::Deny,
        ] {
            assert!(STRICTNESS.iter().any(|(p, _)| *p == policy));
        }
        assert!(strictness(Policy::Allow) < strictness(Policy::Verify));
        assert!(strictness(Policy::Guard) < strictness(Policy::Ask));
        assert!(strictness(Policy::Ask) < strictness(Policy::Deny));
    }
}
