//! The gate's settings: a policy per class of action, the branches a force push must not
//! rewrite, what a test run is and which files it writes, the commands that deploy or publish,
//! and the deadline of the gate's own judge. `GateFile` is the `gate` section as a config file
//! writes it; `GateSettings` is what the layers resolve to (merged in `config_source`).

use serde::Deserialize;

use super::classify::Class;
use super::evidence;

/// What the gate does with each class of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Stay silent: the agent's own permission rules apply.
    Allow,
    /// Silent when the code was verified since its last change; otherwise the judge or a human.
    Verify,
    /// Always ask a human.
    Ask,
    /// Always deny.
    Deny,
    /// Deny only when something would be lost (destructive operations).
    Guard,
}

/// The `gate` section.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateFile {
    pub commit: Option<Policy>,
    pub push: Option<Policy>,
    pub publish: Option<Policy>,
    pub deploy: Option<Policy>,
    #[serde(rename = "hook-bypass")]
    pub hook_bypass: Option<Policy>,
    pub destructive: Option<Policy>,
    /// `rm -rf` of `/`, the home directory, a repository or its `.git`. By default, `deny`.
    pub catastrophic: Option<Policy>,
    pub unparsed: Option<Policy>,
    /// Branches a force push must never rewrite (`*` matches within a segment).
    pub protected_branches: Option<Vec<String>>,
    /// Files test runs write; replaces the defaults.
    pub artifacts: Option<Vec<String>>,
    /// Files test runs write; added to the defaults.
    pub add_artifacts: Option<Vec<String>>,
    /// A regex over a command line that recognises a test run.
    pub test_commands: Option<String>,
    /// Command prefixes that deploy (e.g. `./scripts/deploy.sh`, `make deploy`).
    pub deploy_commands: Option<Vec<String>>,
    /// Command prefixes that publish (e.g. `./scripts/release.sh`, `make release`).
    pub publish_commands: Option<Vec<String>>,
    /// The deadline of the gate's own judge call.
    pub timeout_ms: Option<u64>,
}

/// The resolved `gate` settings.
#[derive(Debug, Clone)]
pub struct GateSettings {
    pub policies: Vec<(Class, Policy)>,
    pub protected_branches: Vec<String>,
    pub artifacts: Vec<String>,
    pub test_commands: String,
    pub deploy_commands: Vec<Vec<String>>,
    pub publish_commands: Vec<Vec<String>>,
    pub timeout_ms: u64,
}

impl Default for GateSettings {
    fn default() -> GateSettings {
        GateSettings {
            policies: vec![
                (Class::Commit, Policy::Verify),
                (Class::Push, Policy::Verify),
                (Class::Publish, Policy::Verify),
                (Class::Deploy, Policy::Ask),
                (Class::HookBypass, Policy::Deny),
                (Class::Destructive, Policy::Guard),
                (Class::Catastrophic, Policy::Deny),
                (Class::Unparsed, Policy::Ask),
            ],
            protected_branches: vec!["main".into(), "master".into(), "release/*".into()],
            artifacts: evidence::DEFAULT_ARTIFACTS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            test_commands: evidence::DEFAULT_TEST_COMMANDS.to_string(),
            deploy_commands: Vec::new(),
            publish_commands: Vec::new(),
            timeout_ms: 8000,
        }
    }
}

impl GateSettings {
    pub fn policy(&self, class: Class) -> Policy {
        self.policies
            .iter()
            .find(|(c, _)| *c == class)
            .map(|(_, p)| *p)
            .unwrap_or(Policy::Ask)
    }
}
