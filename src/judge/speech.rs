//! What the agent says, as opposed to what it shows.
//!
//! Layer 1 triggers read the *speech view* of a response: the response without the parts that
//! only display material (fenced code, logs and diffs, quoted lines, changelog headings, inline
//! code, and word senses such as `position: fixed` or "release notes" that name no action), so
//! that "### Fixed" in a pasted changelog or `git push` inside a log does not wake a judge. Two
//! things survive on purpose: a command line addressed to the user (a shared-state command such
//! as `git push -u origin main` in a fenced block or in inline code is an instruction, not a
//! display), and everything outside code, which is where the agent speaks.
//!
//! The rules are data (`layer1.json`, key `speech`); each mask has a literal prefilter, so a
//! text compiles only the masks whose words it contains.

use std::sync::OnceLock;

use regex::Regex;

use super::literals::{Prefilter, TextIndex};

/// The speech-view rules of `layer1.json`.
#[derive(Debug)]
pub struct SpeechRules {
    /// A line (or inline code span) that is a shared-state command addressed to the user.
    pub commands: &'static str,
    /// A heading that labels displayed material (changelog sections, versions).
    pub shown_headings: &'static str,
    /// Word senses that name no defect and no action; removed before triggers run.
    pub masks: &'static [&'static str],
}

struct Compiled {
    commands: Regex,
    shown_headings: Regex,
    masks: Vec<(Prefilter, OnceLock<Regex>, &'static str)>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let rules = &super::builtin_layer1().speech;
        let build = |p: &str| {
            regex::RegexBuilder::new(p)
                .case_insensitive(true)
                .build()
                .expect("built-in speech rules compile (tested)")
        };
        Compiled {
            commands: build(rules.commands),
            shown_headings: build(rules.shown_headings),
            masks: rules
                .masks
                .iter()
                .map(|m| (super::builtin_prefilter(m), OnceLock::new(), *m))
                .collect(),
        }
    })
}

/// Whether `line` is a shared-state command addressed to the user.
fn is_command(line: &str) -> bool {
    compiled().commands.is_match(line)
}

fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The speech view of `text` (see the module docs); `index` is `text` lowercased and indexed.
pub fn speech_view(text: &str, index: &TextIndex) -> String {
    let rules = compiled();
    let lines: Vec<&str> = text.lines().collect();
    // A response cut to its last bytes can start inside a code block: an odd number of fences
    // whose first is a bare closing fence means the text before it is code.
    let fences: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| is_fence(l))
        .collect();
    let mut in_fence = fences.len() % 2 == 1 && matches!(fences.first(), Some(&"```" | &"~~~"));
    let mut out = String::with_capacity(text.len());
    for line in &lines {
        let trimmed = line.trim();
        if is_fence(trimmed) {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        let shown = if in_fence {
            !is_command(trimmed)
        } else {
            trimmed.starts_with('>')
                || trimmed.starts_with("@@")
                || trimmed.starts_with("+++")
                || trimmed.starts_with("--- ")
                || (trimmed.starts_with('#') && rules.shown_headings.is_match(trimmed))
        };
        if !shown {
            push_without_inline_code(&mut out, line);
        }
        out.push('\n');
    }
    for (prefilter, regex, source) in &rules.masks {
        if !prefilter.may_match(index) {
            continue;
        }
        let regex = regex.get_or_init(|| {
            regex::RegexBuilder::new(source)
                .case_insensitive(true)
                .build()
                .expect("built-in masks compile (tested)")
        });
        if regex.is_match(&out) {
            out = regex.replace_all(&out, " ").into_owned();
        }
    }
    out
}

/// Appends `line` with its inline code spans blanked, except spans that are commands.
fn push_without_inline_code(out: &mut String, line: &str) {
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let code = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        if is_command(code) {
            out.push_str(code);
        } else {
            out.push(' ');
        }
        rest = &rest[open + 2 + len..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> String {
        let lower = text.to_lowercase();
        speech_view(text, &TextIndex::new(&lower))
    }

    #[test]
    fn code_logs_quotes_and_changelog_headings_are_shown_not_said() {
        let v = view(
            "I looked at the log.\n```\nerror: fixed width overflow\n$ cargo test\n```\n> we should push today\n### Fixed\n- `position: fixed` header\nDone.",
        );
        assert!(v.contains("I looked at the log."));
        assert!(v.contains("Done."));
        for gone in [
            "overflow",
            "cargo test",
            "push today",
            "### Fixed",
            "position",
        ] {
            assert!(!v.contains(gone), "{gone:?} in {v:?}");
        }
    }

    #[test]
    fn commands_addressed_to_the_user_survive() {
        let v = view(
            "To upload:\n```bash\ngit add -A\ngit push -u origin main\n```\nThen run `npm publish`.",
        );
        assert!(v.contains("git push -u origin main"), "{v:?}");
        assert!(v.contains("npm publish"), "{v:?}");
        assert!(!v.contains("git add"), "{v:?}");
    }

    #[test]
    fn a_text_cut_inside_a_code_block_starts_as_code() {
        let v = view("fixed the bug in line 3\n```\nPlease paste this into your notes.");
        assert!(!v.contains("fixed the bug"), "{v:?}");
        assert!(v.contains("Please paste"), "{v:?}");
        // A block opened at the end and never closed is code from there on.
        let v = view("Please paste this.\n```rust\nfn fixed() {}");
        assert!(
            v.contains("Please paste") && !v.contains("fn fixed"),
            "{v:?}"
        );
    }

    #[test]
    fn masks_remove_senses_that_name_no_defect_or_action() {
        let v = view("The fixed header now has a fixed width. Release notes are updated.");
        assert!(!v.to_lowercase().contains("fixed"), "{v:?}");
        assert!(!v.to_lowercase().contains("release"), "{v:?}");
        assert!(v.contains("now has a"), "{v:?}");
    }
}
