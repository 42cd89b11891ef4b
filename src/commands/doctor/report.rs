//! The doctor's report: one [`Check`] per thing looked at, each problem with the command that
//! fixes it, printed as lines or as JSON.

use std::io::Write;

use serde::Serialize;
use serde_json::json;

/// One thing looked at, and what to do when it is wrong.
#[derive(Debug, Serialize)]
pub(super) struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// A check; the fix is kept only when it is a problem.
pub(super) fn check(
    name: impl Into<String>,
    ok: bool,
    detail: impl Into<String>,
    fix: Option<String>,
) -> Check {
    Check {
        name: name.into(),
        ok,
        detail: detail.into(),
        fix: if ok { None } else { fix },
    }
}

/// How many of `checks` are problems.
pub(super) fn problems(checks: &[Check]) -> usize {
    checks.iter().filter(|c| !c.ok).count()
}

/// Prints the report, as JSON with `json`.
pub(super) fn render(out: &mut dyn Write, checks: &[Check], json: bool) -> std::io::Result<()> {
    let problems = problems(checks);
    if json {
        return writeln!(out, "{}", json!({"ok": problems == 0, "checks": checks}));
    }
    for c in checks {
        writeln!(
            out,
            "{} {:<24} {}",
            if c.ok { "ok " } else { "!! " },
            c.name,
            c.detail
        )?;
        if let Some(fix) = &c.fix {
            writeln!(out, "    fix: {fix}")?;
        }
    }
    if problems == 0 {
        writeln!(out, "\nall good")
    } else {
        writeln!(
            out,
            "\n{problems} problem(s); each comes with the command that fixes it"
        )
    }
}
