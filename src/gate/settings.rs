//! The gate's settings: a policy per class of action, the branches a force push must not
//! rewrite, what a test run is and which files it writes, which files are not code, the commands that deploy or publish,
//! and the deadline of the gate's own judge: what the config's `gate` keys resolve to (declared
//! and merged in the config's key list (`config::keys`)), with the defaults a config file starts from.

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

/// Files that are not code (`gate.not_code`): a commit or push changing only these needs no
/// test evidence. Globs from the repository root (`*` within a segment, `**` across); a `!`
/// glob is an exception (for a configured list). Not `*.txt`
/// in general: test fixtures and expected outputs, `requirements.txt` and `CMakeLists.txt`
/// are `.txt` files a test run depends on; only the usual documentation names are listed.
pub const DEFAULT_NOT_CODE: [&str; 24] = [
    "**/*.md",
    "**/*.markdown",
    "**/*.rst",
    "**/*.adoc",
    "**/README*",
    "**/NOTES*",
    "**/CONTRIBUTING*",
    "docs/**",
    "doc/**",
    "**/LICENSE*",
    "**/LICENCE*",
    "**/COPYING*",
    "**/NOTICE*",
    "**/AUTHORS*",
    "**/CHANGELOG*",
    "**/.gitignore",
    "**/.gitattributes",
    "**/*.png",
    "**/*.jpg",
    "**/*.jpeg",
    "**/*.gif",
    "**/*.svg",
    "**/*.webp",
    "**/*.ico",
];

/// The resolved `gate` settings.
#[derive(Debug, Clone)]
pub struct GateSettings {
    pub policies: Vec<(Class, Policy)>,
    pub protected_branches: Vec<String>,
    pub artifacts: Vec<String>,
    pub test_commands: String,
    pub not_code: Vec<String>,
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
            not_code: DEFAULT_NOT_CODE.iter().map(|s| s.to_string()).collect(),
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
