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
//! The rules are data (`layer1.json`, key `speech`), and users add masks and shown headings of
//! their own ([`UserRules`], config key `speech`). Each mask and each user heading has a literal
//! prefilter, so a text compiles only the rules whose words it contains; the built-in command
//! and heading regexes are compiled each on the first line that needs it.

use std::sync::OnceLock;

use regex::Regex;

use super::literals::{Prefilter, TextIndex};
use super::{Pattern, PatternError};

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

/// The user's additions to the speech view (config key `speech`), read like the built-in rules
/// of the same names. Empty by default, and then nothing beyond the built-in rules runs.
#[derive(Debug, Default)]
pub struct UserRules {
    /// Word senses removed from the speech view after the built-in masks.
    masks: Vec<Pattern>,
    /// Lines (trimmed) that label displayed material, as the built-in shown headings do.
    shown_headings: Vec<Pattern>,
}

/// A user rule that is not a regex or does not compile, with what it is.
#[derive(Debug, Clone)]
pub struct RuleError {
    /// Which list the rule is in: `speech mask` or `shown heading`.
    pub what: &'static str,
    pub pattern: String,
    pub error: PatternError,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} pattern `{}` {}", self.what, self.pattern, self.error)
    }
}

impl std::error::Error for RuleError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// What a user mask is, in messages.
pub const MASK: &str = "speech mask";
/// What a user shown heading is, in messages.
pub const SHOWN_HEADING: &str = "shown heading";

impl UserRules {
    /// No user rules.
    pub const NONE: UserRules = UserRules {
        masks: Vec::new(),
        shown_headings: Vec::new(),
    };

    /// Prepares the user's `masks` and `shown_headings` (regexes, matched case-insensitively),
    /// parsing each for its literals; none is compiled until a text needs it.
    pub fn new(masks: &[String], shown_headings: &[String]) -> Result<UserRules, RuleError> {
        let prepare = |sources: &[String], what| {
            sources
                .iter()
                .map(|source| {
                    Pattern::new(source).map_err(|error| RuleError {
                        what,
                        pattern: source.clone(),
                        error,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(UserRules {
            masks: prepare(masks, MASK)?,
            shown_headings: prepare(shown_headings, SHOWN_HEADING)?,
        })
    }
}

/// Compiles a built-in speech rule (they are tested to compile).
fn builtin_regex(source: &str) -> Regex {
    regex::RegexBuilder::new(source)
        .case_insensitive(true)
        .build()
        .expect("built-in speech rules compile (tested)")
}

/// The built-in command regex, compiled on first need (a text with no code never needs it).
fn commands() -> &'static Regex {
    static COMMANDS: OnceLock<Regex> = OnceLock::new();
    COMMANDS.get_or_init(|| builtin_regex(super::builtin_layer1().speech.commands))
}

/// The built-in shown-heading regex, compiled on first need (a text with no heading never
/// needs it).
fn shown_headings() -> &'static Regex {
    static SHOWN_HEADINGS: OnceLock<Regex> = OnceLock::new();
    SHOWN_HEADINGS.get_or_init(|| builtin_regex(super::builtin_layer1().speech.shown_headings))
}

/// A built-in mask: its prefilter from the build, and its regex once a text needs it.
struct BuiltinMask {
    prefilter: Prefilter,
    regex: OnceLock<Regex>,
    source: &'static str,
}

fn builtin_masks() -> &'static [BuiltinMask] {
    static MASKS: OnceLock<Vec<BuiltinMask>> = OnceLock::new();
    MASKS.get_or_init(|| {
        super::builtin_layer1()
            .speech
            .masks
            .iter()
            .map(|source| BuiltinMask {
                prefilter: super::builtin_prefilter(source),
                regex: OnceLock::new(),
                source,
            })
            .collect()
    })
}

/// Whether a mask, built-in or `user`, may blank words of the text `index` holds: without one,
/// the speech view blanks no word character.
pub fn masks_may_apply(index: &TextIndex, user: &UserRules) -> bool {
    builtin_masks().iter().any(|m| m.prefilter.may_match(index))
        || user.masks.iter().any(|m| m.may_match(index))
}

/// Whether `line` is a shared-state command addressed to the user.
fn is_command(line: &str) -> bool {
    commands().is_match(line)
}

fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The speech view of `text` (see the module docs) under the built-in rules and `user`'s;
/// `index` is `text` lowercased and indexed. Fails only when a user rule the text needs does
/// not compile.
pub fn speech_view(text: &str, index: &TextIndex, user: &UserRules) -> Result<String, RuleError> {
    let headings = UserHeadings::of(text, index, user)?;
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
                || (trimmed.starts_with('#') && shown_headings().is_match(trimmed))
                || headings.label(trimmed)?
        };
        if !shown {
            push_without_inline_code(&mut out, line);
        }
        out.push('\n');
    }
    for mask in builtin_masks() {
        if !mask.prefilter.may_match(index) {
            continue;
        }
        let regex = mask.regex.get_or_init(|| builtin_regex(mask.source));
        if regex.is_match(&out) {
            out = regex.replace_all(&out, " ").into_owned();
        }
    }
    for mask in user.masks.iter().filter(|m| m.may_match(index)) {
        let found = mask.find_all(&out).map_err(|error| RuleError {
            what: MASK,
            pattern: mask.source.to_string(),
            error,
        })?;
        if !found.is_empty() {
            out = blanked(&out, &found);
        }
    }
    Ok(out)
}

/// The user's shown headings whose literals a text contains.
struct UserHeadings<'u>(Vec<&'u Pattern>);

impl<'u> UserHeadings<'u> {
    fn of(text: &str, index: &TextIndex, user: &'u UserRules) -> Result<Self, RuleError> {
        let candidates: Vec<&Pattern> = user
            .shown_headings
            .iter()
            .filter(|p| p.may_match(index))
            .collect();
        for heading in &candidates {
            // A pattern is narrowed to the characters of the first text it reads: reading the
            // whole text first gives every line a regex that covers it (one compile, not one
            // per distinct set of characters).
            heading.find(text).map_err(|e| heading_failed(heading, e))?;
        }
        Ok(UserHeadings(candidates))
    }

    /// Whether the trimmed line `trimmed` matches one of the headings.
    fn label(&self, trimmed: &str) -> Result<bool, RuleError> {
        for heading in &self.0 {
            if heading
                .matches(trimmed)
                .map_err(|e| heading_failed(heading, e))?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

fn heading_failed(heading: &Pattern, error: PatternError) -> RuleError {
    RuleError {
        what: SHOWN_HEADING,
        pattern: heading.source.to_string(),
        error,
    }
}

/// `text` with each of the `spans` (in order, not overlapping) replaced by a space, as the
/// built-in masks are.
fn blanked(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in spans {
        out.push_str(&text[at..start]);
        out.push(' ');
        at = end;
    }
    out.push_str(&text[at..]);
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
        speech_view(text, &TextIndex::new(&lower), &UserRules::NONE).unwrap()
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

    fn user_rules(masks: &[&str], headings: &[&str]) -> UserRules {
        let owned = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        UserRules::new(&owned(masks), &owned(headings)).unwrap()
    }

    fn view_with(text: &str, user: &UserRules) -> String {
        let lower = text.to_lowercase();
        speech_view(text, &TextIndex::new(&lower), user).unwrap()
    }

    const REPORT: &str = "Updated the Fixed Asset Register export.\n### Resolved\n- duplicate invoices\n**Resolved:** two\nDone.";

    #[test]
    fn user_masks_and_shown_headings_are_shown_not_said() {
        let said = view(REPORT);
        assert!(
            said.contains("Fixed Asset Register") && said.contains("### Resolved"),
            "{said:?}"
        );
        let user = user_rules(
            &[r"\bfixed asset register\b"],
            &[r"^#+\s*resolved$", r"^\*\*resolved:\*\*"],
        );
        let v = view_with(REPORT, &user);
        assert!(!v.to_lowercase().contains("fixed"), "{v:?}");
        assert!(!v.to_lowercase().contains("resolved"), "{v:?}");
        for kept in ["Updated the", "export.", "- duplicate invoices", "Done."] {
            assert!(v.contains(kept), "{kept:?} not in {v:?}");
        }
        // A heading pattern reads whole trimmed lines, and a line that only mentions the word
        // is still said.
        let v = view_with("  ### Resolved  \nI resolved it.", &user);
        assert!(v.contains("I resolved it.") && !v.contains("###"), "{v:?}");
    }

    #[test]
    fn a_user_rule_whose_words_are_absent_is_never_compiled() {
        let user = user_rules(&[r"\bfixed asset register\b"], &[r"^#+\s*resolved$"]);
        let text = "### Fixed\nThe fixed header now has a fixed width.";
        let lower = text.to_lowercase();
        let index = TextIndex::new(&lower);
        assert!(!masks_may_apply(&TextIndex::new("no masked words"), &user));
        let v = speech_view(text, &index, &user).unwrap();
        assert!(!v.to_lowercase().contains("fixed"), "{v:?}");
        assert!(
            user.masks
                .iter()
                .chain(&user.shown_headings)
                .all(|p| !p.is_compiled()),
            "a rule was compiled for a text without its words"
        );
        view_with(REPORT, &user);
        assert!(
            user.masks
                .iter()
                .chain(&user.shown_headings)
                .all(|p| p.is_compiled())
        );
    }

    #[test]
    fn a_user_mask_blanks_every_match_and_only_them() {
        let user = user_rules(&[r"\bpush (notif|alert)s?\b"], &[]);
        let v = view_with(
            "Push alerts and push notifs are on; I'll push tonight. Ünïcode push alert.",
            &user,
        );
        assert_eq!(
            v, "  and   are on; I'll push tonight. Ünïcode  .\n",
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
