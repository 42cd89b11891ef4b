//! Codex CLI's own sandbox as hookjudge's boundary (`init --boundary agent` with Codex among
//! the agents): which `config.toml` takes the keys, whether Codex's sandbox can hold here, and
//! the planned change of that file (the keys themselves: [`super::settings::merge_codex_sandbox`]).
//!
//! In `workspace-write` (Codex CLI 0.169.0 on Linux, tested with the real client) a command may
//! write the working folder, `/tmp` and `$TMPDIR`; `.git` and `.codex` inside the working folder
//! stay read-only, and so does everything else. It cannot hold, and `init` refuses:
//! - where Codex's home lies under `/tmp` or `$TMPDIR` (Codex will not put its sandbox helper
//!   there, and every command fails);
//! - where one of hookjudge's anchors lies in the working folder (a binary built in the
//!   repository, a `core.hooksPath` folder in the work tree): the sandbox lets commands write it;
//! - where `codex sandbox` fails to start (no namespaces, no Landlock).
//!
//! No `approval_policy` is written: a command leaves the sandbox only by asking to
//! (`require_escalated`), which Codex puts to a person (`untrusted`, `on-request`) or refuses
//! (`never`), as the gate's questions are the person's. Only `approvals_reviewer =
//! "auto_review"` lets a model answer instead; `init` and `doctor` say so.

use std::path::{Path, PathBuf};

use super::plan::Planned;
use super::settings::{self, Scope};
use super::target::Target;
use super::{Error, ErrorKind, files};
use crate::agent::Agent;

/// Codex's config file, in its home (user scope) or in the project's `.codex` (the others).
pub fn config_path(scope: Scope, root: &Path, home: &Path) -> PathBuf {
    match scope {
        Scope::User => settings::codex_home(home).join("config.toml"),
        Scope::Project | Scope::Local => root.join(".codex/config.toml"),
    }
}

/// `$TMPDIR`, when set.
pub fn tmpdir() -> Option<PathBuf> {
    std::env::var_os("TMPDIR")
        .filter(|t| !t.is_empty())
        .map(PathBuf::from)
}

/// Why Codex's sandbox cannot hold here, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub why: String,
    pub hint: String,
}

/// What `init` writes for Codex's sandbox.
#[derive(Debug, Clone)]
pub struct CodexSandbox {
    /// The `config.toml` of the scope.
    pub config: PathBuf,
    /// hookjudge's anchors (a user's writable root holding one is refused).
    pub anchors: Vec<PathBuf>,
    /// An anchor lies under `/tmp` or `$TMPDIR`: they are taken out of the writable roots.
    pub exclude_temp: bool,
    /// What the person should know (the probe not run, …).
    pub notes: Vec<String>,
}

/// The anchors Codex's commands must not write, from [`crate::boundary::plan`]: the other
/// agents' settings in the work tree are theirs to guard (Codex's sandbox leaves them writable).
pub fn anchors(root: &Path, binary: &Path) -> Vec<crate::boundary::Anchor> {
    let plan = crate::boundary::plan(root, binary);
    let work = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    plan.read_only
        .into_iter()
        .chain(plan.missing)
        .filter(|a| {
            !Agent::ALL
                .into_iter()
                .filter(|agent| *agent != Agent::Codex)
                .any(|agent| {
                    [agent.config_dir(), agent.hook_files().project]
                        .iter()
                        .any(|rel| a.path.starts_with(work.join(rel)))
                })
        })
        .collect()
}

/// The anchors in the working folder `root` that Codex's `workspace-write` leaves writable:
/// all but those in `.git` and `.codex`.
pub fn in_workspace<'a>(
    root: &Path,
    anchors: &'a [crate::boundary::Anchor],
) -> Vec<&'a crate::boundary::Anchor> {
    let work = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    anchors
        .iter()
        .filter(|a| {
            a.path.starts_with(&work)
                && !a.path.starts_with(work.join(".git"))
                && !a.path.starts_with(work.join(".codex"))
        })
        .collect()
}

/// How `codex sandbox` went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// `codex` is not on PATH.
    NoCodex,
    Starts,
    Fails(String),
}

/// The probe, as a person runs it.
pub const PROBE: &str = "codex sandbox -c 'sandbox_mode=\"workspace-write\"' -- true";

/// Runs `true` in Codex's `workspace-write` sandbox in `dir`, with the `codex` on PATH.
pub fn probe(dir: &Path) -> Probe {
    let path = std::env::var("PATH").unwrap_or_default();
    let Some(codex) = crate::llm::resolve::find_on_path("codex", &path) else {
        return Probe::NoCodex;
    };
    let out = std::process::Command::new(codex)
        .args([
            "sandbox",
            "-c",
            "sandbox_mode=\"workspace-write\"",
            "--",
            "true",
        ])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Probe::Starts,
        Ok(out) => Probe::Fails(
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("no reason given")
                .trim()
                .to_owned(),
        ),
        Err(e) => Probe::Fails(format!("`codex` does not start: {e}")),
    }
}

/// Why Codex's home cannot hold its sandbox, if it cannot: under the temporary folders.
pub fn home_refusal(codex_home: &Path) -> Option<Refusal> {
    let real = codex_home
        .canonicalize()
        .unwrap_or_else(|_| codex_home.to_path_buf());
    let tmp = tmpdir();
    let under = |p: &Path| settings::under_temp(p, tmp.as_deref());
    (under(codex_home) || under(&real)).then(|| Refusal {
        why: format!(
            "Codex's home `{}` is under the temporary folder, where Codex will not put its sandbox helper, so every command in its sandbox would fail",
            codex_home.display()
        ),
        hint: "set `CODEX_HOME` to a folder outside `/tmp` and `$TMPDIR` (or unset it, for `~/.codex`), then run it again".into(),
    })
}

/// What `init --boundary agent` writes for Codex in `t`, or why it cannot hold.
pub fn prepare(t: &Target, binary: &Path) -> Result<CodexSandbox, Refusal> {
    if let Some(refusal) = home_refusal(&settings::codex_home(&t.home)) {
        return Err(refusal);
    }
    let config = config_path(t.scope, &t.root, &t.home);
    if t.scope == Scope::Local && t.tracked(&config) {
        return Err(Refusal {
            why: format!(
                "`{}` is committed in this repository, so a local install would change everyone's Codex settings",
                t.shown(&config)
            ),
            hint: "use `--scope user` (Codex's sandbox for you in every project), or `--scope project` to change the committed file for the team".into(),
        });
    }
    let anchors = anchors(&t.root, binary);
    if t.scope != Scope::User {
        let writable = in_workspace(&t.root, &anchors);
        if !writable.is_empty() {
            let list: Vec<String> = writable
                .iter()
                .map(|a| format!("{} `{}`", a.what, a.path.display()))
                .collect();
            return Err(Refusal {
                why: format!(
                    "Codex's sandbox lets commands write the working folder, and it holds {}",
                    list.join(", ")
                ),
                hint: "move them out of the repository (`cargo install hookjudge` puts the binary in `~/.cargo/bin`; point `core.hooksPath` outside the work tree), then run it again; or set `{\"boundary\": {\"mode\": \"landlock\"}}` in your own config".into(),
            });
        }
    }
    let mut notes = Vec::new();
    match probe(&t.root) {
        Probe::Starts => {}
        Probe::NoCodex => notes.push(format!(
            "`codex` is not on PATH, so whether Codex's sandbox starts here was not tried; once it is, `{PROBE}` tries it (`hookjudge doctor` does too)"
        )),
        Probe::Fails(why) => {
            return Err(Refusal {
                why: format!(
                    "Codex's sandbox does not start here ({why}), so with `sandbox_mode = \"workspace-write\"` every command Codex runs would fail"
                ),
                hint: format!(
                    "run `{PROBE}` to see why (Codex's sandbox needs user namespaces for its bubblewrap, or Landlock), then run it again"
                ),
            });
        }
    }
    let tmp = tmpdir();
    let exclude_temp = anchors
        .iter()
        .any(|a| settings::under_temp(&a.path, tmp.as_deref()));
    Ok(CodexSandbox {
        config,
        anchors: anchors.into_iter().map(|a| a.path).collect(),
        exclude_temp,
        notes,
    })
}

/// Codex's `config.toml` with the sandbox keys merged in, or why not.
pub fn plan_config(t: &Target, cs: &CodexSandbox) -> Result<(Planned, Vec<String>), Error> {
    let real = files::resolve(&cs.config);
    let old = files::read(&real)?;
    files::check_writable(&real)?;
    let merged =
        settings::merge_codex_sandbox(old.as_deref().unwrap_or(""), &cs.anchors, cs.exclude_temp)
            .map_err(|e| Error::new(&real, ErrorKind::CodexConfig(e)))?;
    let mut notes = merged.notes;
    notes.extend(cs.notes.iter().cloned());
    if let Some(reviewer) = reviewer(&merged.text) {
        notes.push(format!(
            "`approvals_reviewer` is \"{reviewer}\": a command that asks to leave Codex's sandbox is approved or denied by a reviewer model, not by you; remove it to be asked yourself"
        ));
    }
    notes.push(
        "Codex's sandbox holds unless Codex is started with `-s danger-full-access`, `--dangerously-bypass-approvals-and-sandbox` (`--yolo`) or a profile that turns it off: the command line wins over this file, and hookjudge cannot see it".into(),
    );
    let mut what = "Codex's sandbox on (`sandbox_mode = \"workspace-write\"`)".to_owned();
    if cs.exclude_temp {
        what.push_str("; `/tmp` and `$TMPDIR` not writable, since hookjudge's files are there");
    }
    Ok((
        Planned {
            name: t.shown(&cs.config),
            path: real,
            old,
            new: merged.text,
            what,
            record: true,
            created_members: merged.created_members,
            has_ours_before: false,
            only_stricter: true,
            change: String::new(),
            executable: false,
        },
        notes,
    ))
}

/// The `approvals_reviewer` of a Codex config, when it is not the person (`user`).
pub fn reviewer(text: &str) -> Option<String> {
    let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    doc.get("approvals_reviewer")
        .and_then(|v| v.as_str())
        .filter(|r| *r != "user")
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::{Anchor, Create};

    fn anchor(path: &str) -> Anchor {
        Anchor {
            path: PathBuf::from(path),
            what: "x",
            create: Create::Nothing,
        }
    }

    #[test]
    fn only_anchors_outside_git_and_codex_in_the_work_tree_are_writable() {
        let all = [
            anchor("/w/.git/config"),
            anchor("/w/.codex"),
            anchor("/w/target/debug"),
            anchor("/w/.githooks"),
            anchor("/home/me/.codex"),
            anchor("/wx/bin"),
        ];
        let writable: Vec<&Path> = in_workspace(Path::new("/w"), &all)
            .iter()
            .map(|a| a.path.as_path())
            .collect();
        assert_eq!(
            writable,
            [Path::new("/w/target/debug"), Path::new("/w/.githooks")]
        );
    }

    #[test]
    fn a_codex_home_under_the_temporary_folder_is_refused() {
        assert!(home_refusal(Path::new("/tmp/h/.codex")).is_some());
        assert!(home_refusal(Path::new("/nonexistent-home-x/.codex")).is_none());
    }

    #[test]
    fn a_reviewer_other_than_the_person_is_named() {
        assert_eq!(
            reviewer("approvals_reviewer = \"auto_review\"\n").as_deref(),
            Some("auto_review")
        );
        assert_eq!(reviewer("approvals_reviewer = \"user\"\n"), None);
        assert_eq!(reviewer("model = \"o3\"\n"), None);
    }

    #[test]
    fn each_scope_has_its_config_file() {
        let (root, home) = (Path::new("/r"), Path::new("/h"));
        assert_eq!(
            config_path(Scope::Local, root, home),
            Path::new("/r/.codex/config.toml")
        );
        assert_eq!(
            config_path(Scope::Project, root, home),
            Path::new("/r/.codex/config.toml")
        );
        assert!(config_path(Scope::User, root, home).ends_with("config.toml"));
    }
}
