//! `hookjudge redact`: shows what hookjudge removes from a text before an LLM or the log sees it.

use std::io::{self, Write};

use serde_json::json;

use super::{ExitStatus, UserError};
use crate::cli::RedactArgs;

/// Redacts stdin to stdout; with `--json`, prints the text and the counts per kind.
pub(super) fn redact(args: &RedactArgs) -> Result<ExitStatus, UserError> {
    let text = super::read_input(None)?;
    let redacted = crate::redact::redact(&text);
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(
            out,
            "{}",
            json!({"text": redacted.text, "counts": redacted.counts, "total": redacted.total()})
        )
    } else {
        out.write_all(redacted.text.as_bytes())
    };
    written.map_err(UserError::output)?;
    if !args.json && redacted.total() > 0 {
        let summary: Vec<String> = redacted
            .counts
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        let _ = writeln!(
            io::stderr(),
            "redacted {} secret(s) ({})",
            redacted.total(),
            summary.join(", ")
        );
    }
    Ok(ExitStatus::Success)
}
