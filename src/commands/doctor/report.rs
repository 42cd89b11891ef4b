//! The doctor's report: one [`Check`] per thing looked at, each problem with the command that
//! fixes it, printed as lines (wrapped to the terminal's width) or as JSON.

use std::io::Write;

use serde::Serialize;
use serde_json::json;

use crate::support::term::fill;

/// Where a detail starts: the mark, the name column and a space.
const DETAIL_COLUMN: usize = 29;

/// One thing looked at, and what to do when it is wrong.
#[derive(Debug, Serialize)]
pub(super) struct Check {
    pub name: String,
    pub ok: bool,
    /// Worth knowing, and not a problem (counts as ok).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub info: bool,
    /// Works, but not as well as it could: shown with its fix, and not a problem (counts as
    /// ok, so the exit code stays 0).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warning: bool,
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
        info: false,
        warning: false,
        detail: detail.into(),
        fix: if ok { None } else { fix },
    }
}

/// A note: not a problem, and not simply "ok" either.
pub(super) fn info(name: impl Into<String>, detail: impl Into<String>) -> Check {
    Check {
        info: true,
        ..check(name, true, detail, None)
    }
}

/// Something that works but deserves attention: its fix is shown, the exit code stays 0.
pub(super) fn warning(
    name: impl Into<String>,
    detail: impl Into<String>,
    fix: impl Into<String>,
) -> Check {
    Check {
        warning: true,
        fix: Some(fix.into()),
        ..check(name, true, detail, None)
    }
}

/// How many of `checks` are problems.
pub(super) fn problems(checks: &[Check]) -> usize {
    checks.iter().filter(|c| !c.ok).count()
}

/// Prints the report, as JSON with `json`; the marks in colour with `colour`; details wrap
/// under their check's name to fit `width` columns.
pub(super) fn render(
    out: &mut dyn Write,
    checks: &[Check],
    json: bool,
    colour: bool,
    width: usize,
) -> std::io::Result<()> {
    let problems = problems(checks);
    if json {
        return writeln!(out, "{}", json!({"ok": problems == 0, "checks": checks}));
    }
    for c in checks {
        let (mark, code) = match (c.ok, c.info, c.warning) {
            (false, _, _) => ("!! ", "31"),
            (true, _, true) => ("?? ", "33"),
            (true, true, false) => ("-- ", "2"),
            (true, false, false) => ("ok ", "32"),
        };
        let head = format!("{mark} {:<24} ", c.name);
        let detail_indent = " ".repeat(DETAIL_COLUMN);
        let lines = laid_out(&format!("{head}{}", c.detail), width, &detail_indent);
        // The mark leads the first line, as `head` laid it out: only its colour is added.
        let (mark, rest) = match lines[0].strip_prefix(mark) {
            Some(rest) => (mark, rest),
            None => ("", lines[0].as_str()),
        };
        let painted = crate::support::term::paint(mark, code, colour);
        writeln!(out, "{painted}{rest}")?;
        for line in &lines[1..] {
            writeln!(out, "{line}")?;
        }
        if let Some(fix) = &c.fix {
            for line in laid_out(&format!("    fix: {fix}"), width, "         ") {
                writeln!(out, "{line}")?;
            }
        }
    }
    let warnings = checks.iter().filter(|c| c.warning).count();
    if problems == 0 && warnings == 0 {
        writeln!(out, "\nall good")
    } else if problems == 0 {
        writeln!(
            out,
            "\nnothing broken; {warnings} warning(s) (`??`), each with what would improve it"
        )
    } else {
        writeln!(
            out,
            "\n{problems} problem(s); each comes with the command that fixes it"
        )
    }
}

/// `text` in lines for the report: its first line filled to `width` (see [`fill`]), the lines
/// after it under `indent`. What follows the first line break is a block to copy (the JSON to
/// paste into a settings file): its lines are kept as they are, however long.
fn laid_out(text: &str, width: usize, indent: &str) -> Vec<String> {
    let (prose, block) = match text.split_once('\n') {
        Some((prose, block)) => (prose, Some(block)),
        None => (text, None),
    };
    let mut lines = fill(prose, width, indent);
    lines.extend(
        block
            .into_iter()
            .flat_map(str::lines)
            .map(|line| format!("{indent}{line}")),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_details_wrap_under_the_name() {
        let detail = "word ".repeat(60);
        let mut out = Vec::new();
        render(
            &mut out,
            &[check("name", false, detail.trim(), Some("x ".repeat(80)))],
            false,
            false,
            80,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(
            text.lines()
                .nth(1)
                .unwrap()
                .starts_with(&" ".repeat(DETAIL_COLUMN))
        );
    }

    #[test]
    fn a_block_after_the_prose_keeps_its_lines() {
        let fix = format!(
            "{}add this:\n{{\n  \"a\": [\n    \"{}\"\n  ]\n}}",
            "word ".repeat(30),
            "p".repeat(120)
        );
        let mut out = Vec::new();
        render(
            &mut out,
            &[check("name", false, "x", Some(fix))],
            false,
            false,
            80,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let open = lines.iter().position(|l| l.trim() == "{").unwrap();
        assert!(
            lines[..open].iter().all(|l| l.chars().count() <= 80),
            "{text}"
        );
        assert_eq!(lines[open], "         {");
        assert_eq!(lines[open + 2].trim(), format!("\"{}\"", "p".repeat(120)));
        assert_eq!(lines[open + 4], "         }");
    }
}
