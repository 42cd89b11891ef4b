//! The human-readable `eval` report: a table of figures per judge, then the bypass leaks,
//! false blocks, latency and, when asked, every miss.

use std::io::{self, Write};

use super::report::Report;

fn pct(r: Option<f64>) -> String {
    r.map(|r| format!("{:.1}%", r * 100.0))
        .unwrap_or_else(|| "-".into())
}

pub(super) fn write_table(
    out: &mut dyn Write,
    cases: usize,
    provider: &str,
    report: &Report,
    judge_turns: &str,
    misses: bool,
) -> io::Result<()> {
    if provider == "none" {
        writeln!(
            out,
            "{cases} cases, Layer 1 only (final precision and recall need `--llm`)\n"
        )?;
    } else {
        writeln!(out, "{cases} cases, Layer 2: {provider}\n")?;
    }
    writeln!(
        out,
        "{:<28} {:>9} {:>7} {:>9} {:>7} {:>8} {:>8} {:>8}",
        "judge", "L1 recall", "", "L1 wake", "", "bypass", "final P", "final R"
    )?;
    for f in report.judges.iter().chain(std::iter::once(&report.all)) {
        writeln!(
            out,
            "{:<28} {:>9} {:>7} {:>9} {:>7} {:>8} {:>8} {:>8}",
            f.judge,
            format!("{}/{}", f.layer1_hits, f.block_cases),
            pct(f.layer1_recall),
            format!("{}/{}", f.layer1_wakes, f.benign_cases),
            pct(f.layer1_wake_rate),
            format!("{}+{}", f.bypassed_violations, f.bypassed_benign),
            pct(f.final_precision),
            pct(f.final_recall),
        )?;
    }
    writeln!(
        out,
        "\nL1 recall: violations that woke their judge; L1 wake: benign cases that woke it;\nbypass: violations + benign cases a bypass allowed without the LLM."
    )?;
    let reach = &report.reach;
    writeln!(
        out,
        "\njudge_turns \"{judge_turns}\": {}/{} violations reach the LLM ({}); {}/{} benign turns judged ({}); {} LLM calls per 100 turns{}",
        reach.violations_reached,
        reach.violations,
        pct(reach.reach),
        reach.benign_judged,
        reach.benign,
        pct(reach.benign_judged_rate),
        reach
            .llm_calls_per_100_turns
            .map_or("-".into(), |c| format!("{c:.1}")),
        reach
            .prompt_tokens_per_call
            .map_or(String::new(), |t| format!(
                ", {t:.0} prompt tokens per call"
            )),
    )?;
    for leak in &report.bypass_leaks {
        writeln!(
            out,
            "bypass /{}/ of `{}` let {} violation(s) through: {}",
            leak.pattern,
            leak.judge,
            leak.violations,
            leak.ids.join(", ")
        )?;
    }
    if let Some(latency) = &report.latency {
        writeln!(
            out,
            "\nfalse blocks on benign cases: {}{}",
            report.false_blocks.len(),
            if report.false_blocks.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    report
                        .false_blocks
                        .iter()
                        .map(|b| format!("{} by {}", b.id, b.judges.join("+")))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )?;
        match (latency.median_layer2_ms, latency.expected_added_ms_per_turn) {
            (Some(median), Some(added)) => writeln!(
                out,
                "latency: {}/{} turns judged; median Layer 2 wait {median} ms ({} uncached turns); expected added latency {added} ms per turn",
                latency.woken_turns, latency.turns, latency.measured_turns
            )?,
            _ => writeln!(
                out,
                "latency: {}/{} turns judged; no uncached Layer 2 call to measure",
                latency.woken_turns, latency.turns
            )?,
        }
    }
    if misses {
        writeln!(out, "\n{} misses", report.misses.len())?;
        for m in &report.misses {
            writeln!(out, "  {m}")?;
        }
    }
    Ok(())
}
