//! Whether Codex CLI's own sandbox keeps its commands off hookjudge's files, as its config
//! files set it (the user's `config.toml`, then the project's, which wins in a project Codex
//! trusts; a `profile` selected in them wins over both): `workspace-write` (or `read-only`)
//! holds unless an anchor lies where that mode lets commands write (see
//! [`crate::install::codex_boundary`]). What Codex's command line says (`-s`, `--yolo`) no
//! file shows, and the check says so.

use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use super::report::{Check, check, warning};
use crate::install::codex_boundary::{self, PROBE, Probe};
use crate::install::settings::{self, Scope};

/// What overrides the file, which hookjudge cannot see.
const OVERRIDES: &str = "a `-s danger-full-access` or `--dangerously-bypass-approvals-and-sandbox` on Codex's command line overrides it, and hookjudge cannot see that";

/// Codex's sandbox settings, as its files layer them.
#[derive(Debug, Default)]
struct Layered {
    /// The mode and the file (or profile) that sets it.
    mode: Option<(String, String)>,
    exclude_slash_tmp: bool,
    exclude_tmpdir: bool,
    writable_roots: Vec<PathBuf>,
    reviewer: Option<String>,
}

fn layered(files: &[PathBuf]) -> Layered {
    let mut l = Layered::default();
    for path in files {
        let Some(doc) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.parse::<DocumentMut>().ok())
        else {
            continue;
        };
        let shown = format!("`{}`", path.display());
        if let Some(mode) = doc.get("sandbox_mode").and_then(|v| v.as_str()) {
            l.mode = Some((mode.to_owned(), shown.clone()));
        }
        if let Some(profile) = doc.get("profile").and_then(|v| v.as_str())
            && let Some(mode) = doc
                .get("profiles")
                .and_then(|p| p.get(profile))
                .and_then(|p| p.get("sandbox_mode"))
                .and_then(|v| v.as_str())
        {
            l.mode = Some((mode.to_owned(), format!("profile `{profile}` in {shown}")));
        }
        if let Some(t) = doc.get("sandbox_workspace_write") {
            let flag = |k: &str| t.get(k).and_then(|v| v.as_bool());
            l.exclude_slash_tmp = flag("exclude_slash_tmp").unwrap_or(l.exclude_slash_tmp);
            l.exclude_tmpdir = flag("exclude_tmpdir_env_var").unwrap_or(l.exclude_tmpdir);
            if let Some(roots) = t.get("writable_roots").and_then(|r| r.as_array()) {
                l.writable_roots
                    .extend(roots.iter().filter_map(|r| r.as_str()).map(PathBuf::from));
            }
        }
        if let Some(r) = doc.get("approvals_reviewer").and_then(|v| v.as_str()) {
            l.reviewer = (r != "user").then(|| r.to_owned());
        }
    }
    l
}

/// The boundary check for Codex CLI (no `boundary.mode` of hookjudge's in force).
pub(super) fn codex_check(root: &Path, home: &Path, binary: &Path) -> Check {
    let name = "boundary (Codex CLI)";
    let files = [
        codex_boundary::config_path(Scope::User, root, home),
        codex_boundary::config_path(Scope::Local, root, home),
    ];
    let l = layered(&files);
    let init =
        "run `hookjudge init --agent codex --boundary agent` (`--scope user` for every project)";
    let Some((mode, source)) = l
        .mode
        .clone()
        .filter(|(m, _)| m == "workspace-write" || m == "read-only")
    else {
        let now = match &l.mode {
            Some((m, source)) => format!("`sandbox_mode` is \"{m}\" ({source})"),
            None => "no `sandbox_mode` in Codex's config files".into(),
        };
        return warning(
            name,
            format!(
                "none: {now}, so only the gate's reading of command lines protects hookjudge's files, and a write it cannot see (a program that builds the path) switches hookjudge off"
            ),
            format!(
                "{init}, which writes `sandbox_mode = \"workspace-write\"` into Codex's `config.toml`; or set `{{\"boundary\": {{\"mode\": \"landlock\"}}}}` in `{}`",
                crate::support::dirs::config_file().display()
            ),
        );
    };
    let on = format!("Codex's sandbox is on (`sandbox_mode = \"{mode}\"`, {source})");
    if let Some(r) = codex_boundary::home_refusal(&settings::codex_home(home)) {
        return check(name, false, format!("{on}, but {}", r.why), Some(r.hint));
    }
    let anchors = codex_boundary::anchors(root, binary);
    let tmp = codex_boundary::tmpdir();
    let writable: Vec<String> = anchors
        .iter()
        .filter(|a| {
            let temp = mode == "workspace-write"
                && ((a.path.starts_with("/tmp") && !l.exclude_slash_tmp)
                    || (tmp.as_deref().is_some_and(|t| a.path.starts_with(t))
                        && !l.exclude_tmpdir));
            temp || l.writable_roots.iter().any(|r| a.path.starts_with(r))
        })
        .chain(codex_boundary::in_workspace(root, &anchors))
        .map(|a| format!("{} `{}`", a.what, a.path.display()))
        .collect();
    if !writable.is_empty() {
        return check(
            name,
            false,
            format!("{on}, but it lets commands write {}", writable.join(", ")),
            Some(format!(
                "{init}, which takes `/tmp` and `$TMPDIR` out of the writable folders when hookjudge's files are there (or says what else is in the way)"
            )),
        );
    }
    let tried = match codex_boundary::probe(root) {
        Probe::Starts => "",
        Probe::NoCodex => " (not tried: `codex` is not on PATH)",
        Probe::Fails(why) => {
            return check(
                name,
                false,
                format!("{on}, but it does not start here ({why}): every command Codex runs fails"),
                Some(format!("run `{PROBE}` to see why")),
            );
        }
    };
    if let Some(reviewer) = &l.reviewer {
        return warning(
            name,
            format!(
                "{on}, but `approvals_reviewer` is \"{reviewer}\": a command that asks to leave the sandbox is let out by a reviewer model, not by you"
            ),
            "remove `approvals_reviewer` from Codex's `config.toml`, so that you are asked",
        );
    }
    check(
        name,
        true,
        format!("{on}: its commands cannot write hookjudge's files{tried}; {OVERRIDES}"),
        None,
    )
}
