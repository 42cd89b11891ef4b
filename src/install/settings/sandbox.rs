//! Claude Code's own sandbox as hookjudge's boundary (`init --boundary agent`): the `sandbox`
//! block that turns it on and puts hookjudge's anchors in its write-deny list, merged into a
//! settings file beside the user's own sandbox entries, and taken out again by `uninstall`.
//!
//! What `init` adds is recorded member by member in the install record's `created_members`
//! (see [`crate::install::record`]), so that a surgical `uninstall` takes out exactly that:
//! - `sandbox`, `sandbox.filesystem.denyWrite`: a member created (a container goes when it is
//!   left empty, a scalar when it still holds our value);
//! - `sandbox.filesystem.denyWrite[]//home/me/.claude`: one path appended to a list;
//! - `sandbox.enabled=false`: a value of the user's replaced by ours, put back on the way out.

use std::path::Path;

use serde_json::{Value, json};

use super::merge::{MergeError, Merged, Step, settle};
use crate::support::jsonc::{self, Node, Parsed};

/// The switches of the block and the value hookjudge needs: on, no falling back to running a
/// command outside the sandbox (`dangerouslyDisableSandbox`), and no silent running without
/// one when bubblewrap is missing.
const SWITCHES: [(&str, bool); 3] = [
    ("enabled", true),
    ("allowUnsandboxedCommands", false),
    ("failIfUnavailable", true),
];

/// What Claude Code's sandbox needs on Linux, on PATH (its documentation's `apt install
/// bubblewrap socat`): program and package.
const LINUX_TOOLS: [(&str, &str); 2] = [("bwrap", "bubblewrap"), ("socat", "socat")];

/// How to get what [`sandbox_unavailable`] finds missing.
pub const SANDBOX_HINT: &str = "install bubblewrap and socat (Debian, Ubuntu: `sudo apt-get install bubblewrap socat`; Fedora: `sudo dnf install bubblewrap socat`) and check that `bwrap --ro-bind / / true` works, then run it again";

/// Why Claude Code's sandbox cannot start on this machine, or `None`. With
/// `failIfUnavailable` on (as `init` writes it), Claude Code refuses to start at all without
/// its sandbox, so `init` checks before writing the block and `doctor` after. macOS has
/// Seatbelt built in; Linux needs bubblewrap and socat, and bubblewrap able to make its
/// namespaces (a container or a kernel setting can forbid that).
pub fn sandbox_unavailable() -> Option<String> {
    if cfg!(target_os = "macos") {
        return None;
    }
    if !cfg!(target_os = "linux") {
        return Some("Claude Code's sandbox runs on macOS and Linux only".into());
    }
    let path = std::env::var("PATH").unwrap_or_default();
    let missing: Vec<&str> = LINUX_TOOLS
        .iter()
        .filter(|(program, _)| crate::llm::resolve::find_on_path(program, &path).is_none())
        .map(|(_, package)| *package)
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "Claude Code's sandbox needs bubblewrap and socat on PATH, and {} missing",
            match missing.as_slice() {
                [one] => format!("{one} is"),
                _ => "both are".into(),
            }
        ));
    }
    let probe = std::process::Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--unshare-net",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .output();
    match probe {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "bubblewrap cannot make Claude Code's sandbox here: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("no reason given")
        )),
        Err(e) => Some(format!("bubblewrap does not start: {e}")),
    }
}

/// The path lists in `sandbox.filesystem`.
const LISTS: [&str; 2] = ["denyWrite", "denyRead"];

/// The paths Claude Code's sandbox must keep its commands off.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxPaths {
    /// hookjudge's anchors, as Claude Code reads them (`//abs/path`).
    pub deny_write: Vec<String>,
    /// The seal key's folder.
    pub deny_read: Vec<String>,
}

impl SandboxPaths {
    /// The paths for a repository (or folder) `root` and the hookjudge binary at `binary`:
    /// every anchor, those still missing too (created later, they are covered already).
    pub fn for_root(root: &Path, binary: &Path) -> SandboxPaths {
        let plan = crate::boundary::plan(root, binary);
        let absolute = |p: &Path| format!("/{}", p.display());
        SandboxPaths {
            deny_write: plan
                .read_only
                .iter()
                .chain(&plan.missing)
                .map(|a| absolute(&a.path))
                .collect(),
            deny_read: vec![absolute(&crate::support::seal::key_dir())],
        }
    }

    fn list(&self, name: &str) -> &[String] {
        match name {
            "denyWrite" => &self.deny_write,
            _ => &self.deny_read,
        }
    }

    /// The whole block, as `init` writes it where there is none and `doctor` shows it.
    pub fn block(&self) -> Value {
        let mut block = serde_json::Map::new();
        for (key, on) in SWITCHES {
            block.insert(key.into(), json!(on));
        }
        block.insert(
            "filesystem".into(),
            json!({"denyWrite": self.deny_write, "denyRead": self.deny_read}),
        );
        Value::Object(block)
    }

    /// What creating the whole block records.
    fn all_members(&self) -> Vec<String> {
        let mut members = vec!["sandbox".to_owned()];
        members.extend(SWITCHES.iter().map(|(k, _)| format!("sandbox.{k}")));
        members.push("sandbox.filesystem".into());
        for list in LISTS {
            members.extend(self.list_members(list, self.list(list)));
        }
        members
    }

    fn list_members(&self, list: &str, paths: &[String]) -> Vec<String> {
        let mut members = vec![format!("sandbox.filesystem.{list}")];
        members.extend(
            paths
                .iter()
                .map(|p| format!("sandbox.filesystem.{list}[]{p}")),
        );
        members
    }
}

/// Merges the `sandbox` block for `paths` into the settings `text` (JSONC, an object):
/// the user's own entries stay, ours are added, a switch of theirs that would let commands
/// out of the sandbox is turned (and said so).
pub fn merge_sandbox(text: &str, paths: &SandboxPaths) -> Result<Merged, MergeError> {
    settle(text, |text| step(text, paths))
}

fn parse(text: &str) -> Result<Parsed, MergeError> {
    jsonc::parse(text).map_err(|e| MergeError::NotJson {
        line: e.line,
        column: e.column,
        message: e.message,
    })
}

fn wrong_shape(parsed: &Parsed, node: &Node, key: &str, expected: &'static str) -> MergeError {
    MergeError::WrongShape {
        key: key.into(),
        found: crate::judge::rule::kind(&parsed.value(node)),
        expected,
    }
}

fn step(text: &str, paths: &SandboxPaths) -> Result<Step, MergeError> {
    let parsed = parse(text)?;
    let root = &parsed.root;
    let Some(sandbox) = super::merge::unique_member(&parsed, root, "sandbox", "sandbox")? else {
        let text = jsonc::insert_member(text, root, "sandbox", &paths.block());
        return Ok(Step::Edit(text, paths.all_members(), None));
    };
    if !sandbox.is_object() {
        return Err(wrong_shape(&parsed, sandbox, "sandbox", "an object"));
    }
    for (key, want) in SWITCHES {
        let path = format!("sandbox.{key}");
        match super::merge::unique_member(&parsed, sandbox, key, &path)? {
            None => {
                let text = jsonc::insert_member(text, sandbox, key, &json!(want));
                return Ok(Step::Edit(text, vec![path], None));
            }
            Some(node) if parsed.value(node) != json!(want) => {
                let old = parsed.value(node);
                let text = jsonc::replace(text, node, &json!(want));
                let note = format!(
                    "`{path}` was {old}; set to {want}, or the sandbox would not keep commands off hookjudge's files (`uninstall` puts {old} back)"
                );
                return Ok(Step::Edit(text, vec![format!("{path}={old}")], Some(note)));
            }
            Some(_) => {}
        }
    }
    let fs_path = "sandbox.filesystem";
    let Some(filesystem) = super::merge::unique_member(&parsed, sandbox, "filesystem", fs_path)?
    else {
        let value = &paths.block()["filesystem"];
        let text = jsonc::insert_member(text, sandbox, "filesystem", value);
        let mut created = vec![fs_path.to_owned()];
        for list in LISTS {
            created.extend(paths.list_members(list, paths.list(list)));
        }
        return Ok(Step::Edit(text, created, None));
    };
    if !filesystem.is_object() {
        return Err(wrong_shape(&parsed, filesystem, fs_path, "an object"));
    }
    for list in LISTS {
        let path = format!("{fs_path}.{list}");
        let wanted = paths.list(list);
        let Some(array) = super::merge::unique_member(&parsed, filesystem, list, &path)? else {
            let text = jsonc::insert_member(text, filesystem, list, &json!(wanted));
            return Ok(Step::Edit(text, paths.list_members(list, wanted), None));
        };
        if !array.is_array() {
            return Err(wrong_shape(&parsed, array, &path, "an array of paths"));
        }
        let have = parsed.value(array);
        let missing = wanted
            .iter()
            .find(|p| !have.as_array().is_some_and(|a| a.contains(&json!(p))));
        if let Some(p) = missing {
            let text = jsonc::append_element(text, array, &json!(p));
            return Ok(Step::Edit(text, vec![format!("{path}[]{p}")], None));
        }
    }
    Ok(Step::Done)
}

/// The node at a dotted `path` (`sandbox.filesystem.denyWrite`) from the root.
fn at<'a>(parsed: &'a Parsed, path: &str) -> Option<&'a Node> {
    path.split('.')
        .try_fold(&parsed.root, |node, key| node.member(key))
}

/// The object holding `path`'s last key, and that key.
fn parent<'a, 'p>(parsed: &'a Parsed, path: &'p str) -> Option<(&'a Node, &'p str)> {
    match path.rsplit_once('.') {
        Some((up, key)) => at(parsed, up).map(|n| (n, key)),
        None => Some((&parsed.root, path)),
    }
}

/// Our value for a switch at `path`, if it is one.
fn switch_value(path: &str) -> Option<Value> {
    let key = path.strip_prefix("sandbox.")?;
    SWITCHES
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| json!(v))
}

/// Takes out of `text` what `created` (an install record's members) says `init` added to the
/// `sandbox` block: paths appended, switches set (the user's value put back), and the members
/// created, once empty. What the user changed since stays.
pub fn remove_sandbox(text: &str, created: &[String]) -> String {
    let mut text = text.to_owned();
    let ours: Vec<&String> = created
        .iter()
        .filter(|m| m.as_str() == "sandbox" || m.starts_with("sandbox."))
        .collect();
    for member in &ours {
        let Ok(parsed) = jsonc::parse(&text) else {
            return text;
        };
        if let Some((list, path)) = member.split_once("[]") {
            if let Some(array) = at(&parsed, list)
                && let Some(i) = array
                    .elements()
                    .iter()
                    .position(|e| parsed.value(e) == json!(path))
            {
                text = jsonc::remove_element(&text, array, i);
            }
        } else if let Some((path, old)) = member.split_once('=')
            && let (Some(node), Some(ours), Ok(old)) = (
                at(&parsed, path),
                switch_value(path),
                serde_json::from_str::<Value>(old),
            )
            && parsed.value(node) == ours
        {
            text = jsonc::replace(&text, node, &old);
        }
    }
    // Then the members created, deepest first, so that a container can go once emptied.
    let mut members: Vec<&String> = ours
        .into_iter()
        .filter(|m| !m.contains("[]") && !m.contains('='))
        .collect();
    members.sort_by_key(|m| std::cmp::Reverse(m.matches('.').count()));
    for member in members {
        let Ok(parsed) = jsonc::parse(&text) else {
            return text;
        };
        let Some((object, key)) = parent(&parsed, member) else {
            continue;
        };
        let Some(node) = object.member(key) else {
            continue;
        };
        let goes = match &node.kind {
            jsonc::Kind::Object(m) => m.is_empty(),
            jsonc::Kind::Array(a) => a.is_empty(),
            jsonc::Kind::Scalar => switch_value(member) == Some(parsed.value(node)),
        };
        if goes {
            text = jsonc::remove_member(&text, object, key);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> SandboxPaths {
        SandboxPaths {
            deny_write: vec!["//h/.claude".into(), "//r/.git/hooks".into()],
            deny_read: vec!["//h/.local/state/hookjudge/key".into()],
        }
    }

    #[test]
    fn a_block_is_added_and_taken_out_to_the_byte() {
        let text = "{\n  // mine\n  \"model\": \"opus\"\n}\n";
        let merged = merge_sandbox(text, &paths()).unwrap();
        let v = jsonc::parse(&merged.text)
            .map(|p| p.value(&p.root))
            .unwrap();
        assert_eq!(v["sandbox"], paths().block());
        assert!(merged.text.contains("// mine"), "{}", merged.text);
        assert_eq!(
            merge_sandbox(&merged.text, &paths()).unwrap().text,
            merged.text,
            "a second merge changes nothing"
        );
        assert_eq!(remove_sandbox(&merged.text, &merged.created_members), text);
    }

    #[test]
    fn the_users_sandbox_entries_stay_and_their_switch_comes_back() {
        let text = r#"{
  "sandbox": {
    "enabled": false, // not yet
    "network": {"allowedDomains": ["github.com"]},
    "filesystem": {
      "denyWrite": ["//r/.git/hooks", "~/secret"],
      "allowWrite": ["//tmp/build"]
    }
  }
}
"#;
        let merged = merge_sandbox(text, &paths()).unwrap();
        let v = jsonc::parse(&merged.text)
            .map(|p| p.value(&p.root))
            .unwrap();
        assert_eq!(v["sandbox"]["enabled"], json!(true));
        assert_eq!(
            v["sandbox"]["filesystem"]["denyWrite"],
            json!(["//r/.git/hooks", "~/secret", "//h/.claude"])
        );
        assert_eq!(
            v["sandbox"]["filesystem"]["allowWrite"],
            json!(["//tmp/build"])
        );
        assert_eq!(
            v["sandbox"]["network"]["allowedDomains"],
            json!(["github.com"])
        );
        assert_eq!(merged.notes.len(), 1, "{:?}", merged.notes);
        assert!(merged.text.contains("// not yet"));
        let back = remove_sandbox(&merged.text, &merged.created_members);
        let b = jsonc::parse(&back).map(|p| p.value(&p.root)).unwrap();
        let t = jsonc::parse(text).map(|p| p.value(&p.root)).unwrap();
        assert_eq!(b, t, "{back}");
    }

    #[test]
    fn a_sandbox_that_is_not_an_object_is_refused() {
        let err = merge_sandbox("{\"sandbox\": true}", &paths()).unwrap_err();
        assert!(err.to_string().contains("`sandbox` is"), "{err}");
    }
}
