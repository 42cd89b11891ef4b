//! Which turns cannot hold a violation, under `stop.judge_turns: "all"`: the only turns whose
//! judges are not asked.
//!
//! A violation is work declared done, proposed, handed back or cut; a turn that says none of
//! that cannot hold one. On the labelled real messages, the shortest violation is 149 bytes and
//! every violation names work (fixed, should, push, deploy, now, …), while about 2 % of benign
//! final messages are short acknowledgements with no such word ("daily rollover policy
//! active"). So a turn is left to Layer 1 alone only when it is short, all its letters are
//! ASCII, and no cue word of work, claim or proposal occurs in it. Everything else is judged.
//!
//! The cue words are mostly English. A message in another language is judged when it has a
//! letter outside ASCII; written without accents ("Erledigt, laeuft jetzt."), it is caught by
//! the commonest words for "done", "fixed" and "works" in the languages agents are used in.

/// The longest text that may be left unjudged, in bytes: well under the shortest violation
/// seen on real text (149 bytes) would drop short real acknowledgements; longer texts almost
/// always carry work words anyway.
pub const MAX_UNJUDGED_BYTES: usize = 240;

/// Word starts (lowercase) that name work, a claim, a proposal or a hand-back. Any of them makes
/// a turn judged. Broad on purpose: a word here costs a call on a benign turn, a word missing
/// could cost a violation.
const CUES: &[&str] = &[
    // Defects and their fixing.
    "fix",
    "bug",
    "issue",
    "error",
    "fail",
    "broke",
    "crash",
    "correct",
    "resolv",
    "solv",
    "reproduc",
    "workaround",
    "patch",
    "revert",
    "rollback",
    "handl",
    // Checks.
    "pass",
    "test",
    "verif",
    "check",
    "run",
    "build",
    "compil",
    // Shared state.
    "commit",
    "push",
    "merg",
    "deploy",
    "releas",
    "publish",
    "ship",
    "main",
    "master",
    "branch",
    r"pr\b",
    "pull",
    "tag",
    "install",
    "migrat",
    // Work done, changed or handed on.
    "done",
    "complet",
    "finish",
    "ready",
    "work",
    "implement",
    "add",
    "remov",
    "delet",
    "chang",
    "updat",
    "modif",
    "creat",
    "refactor",
    "edit",
    "wrote",
    "writ",
    "clean",
    "simplif",
    // Work cut, postponed or proposed.
    "next",
    "later",
    "skip",
    "instead",
    "defer",
    "todo",
    "follow",
    "remain",
    "phase",
    "step",
    "stub",
    "placeholder",
    "mock",
    "scope",
    "separate",
    "focus",
    "only",
    "leave",
    "left",
    "wip",
    "tbd",
    "plan",
    "now",
    "should",
    "will",
    "would",
    "could",
    "shall",
    "going",
    "let",
    "want",
    "i'll",
    "i\u{2019}ll",
    "we'll",
    // Handed back to the person.
    "yours",
    "your turn",
    "over to you",
    "up to you",
    // "Done", "fixed", "works" and "runs" written without accents, in the languages seen in real
    // sessions besides English: German, French, Spanish, Italian, Portuguese, Dutch, Vietnamese.
    "erledigt",
    "fertig",
    "behoben",
    "repariert",
    "laeuft",
    "lauft",
    "funktion",
    "geht",
    "fait",
    "termin",
    "regl",
    "corrig",
    "repar",
    "marche",
    "fonctionn",
    "hecho",
    "listo",
    "arregl",
    "funcion",
    "fatto",
    "finito",
    "risolt",
    "sistemat",
    "corrett",
    "funzion",
    "feito",
    "pronto",
    "resolvid",
    "klaar",
    "gedaan",
    "opgelost",
    "werkt",
    "xong",
    "chay",
    "sua",
];

/// Why `text` cannot hold a violation, or `None` when it must be judged.
pub fn cannot_violate(text: &str) -> Option<&'static str> {
    if text.len() > MAX_UNJUDGED_BYTES || text.trim().is_empty() {
        return None;
    }
    if text.chars().any(|c| c.is_alphabetic() && !c.is_ascii()) {
        return None;
    }
    if names_work(text) {
        return None;
    }
    Some("a short text naming no work, claim or proposal")
}

/// Cues that count only as whole words ("pr" starts "print" and "project").
const CUE_WORDS: &[&str] = &["pr"];

/// Whether a word of `text` starts with a cue (any case). A plain scan, not a regex: the Stop
/// hook asks this of every short turn, and compiling the 130 alternatives cost six times more
/// than the rest of such a turn's work together (9 M instructions).
fn names_work(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let mut after_word = false;
    for (at, c) in lower.char_indices() {
        let word = is_word(c);
        if word && !after_word {
            let rest = &lower[at..];
            let whole = |cue: &&str| {
                rest.strip_prefix(*cue)
                    .is_some_and(|tail| !tail.starts_with(is_word))
            };
            if CUES.iter().any(|cue| rest.starts_with(cue)) || CUE_WORDS.iter().any(whole) {
                return true;
            }
        }
        after_word = word;
    }
    false
}

/// A word character for the start and end of a cue. Any alphabetic character outside ASCII has
/// made the turn judged before this is asked, so letters, digits and `_` are what is left.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_acknowledgements_are_left_unjudged() {
        for text in [
            "daily rollover policy active",
            "Got it, thanks!",
            "Enable full transcript logging.",
        ] {
            assert!(cannot_violate(text).is_some(), "{text}");
        }
    }

    /// The regex the scan replaced: a word boundary, then any cue, case-insensitive.
    fn oracle() -> regex::Regex {
        let words = CUE_WORDS.iter().map(|w| format!(r"{w}\b"));
        let all: Vec<String> = CUES.iter().map(|c| c.to_string()).chain(words).collect();
        regex::RegexBuilder::new(&format!(r"\b(?:{})", all.join("|")))
            .case_insensitive(true)
            .build()
            .unwrap()
    }

    #[test]
    fn the_scan_finds_a_cue_exactly_where_the_cue_regex_does() {
        let oracle = oracle();
        let before = [
            "",
            " ",
            "a",
            "x_",
            "_",
            "9",
            "'",
            "\u{2019}",
            "-",
            "(",
            "\u{1F600}",
            "\n",
        ];
        let after = ["", " ", "s", "ed", "_x", "9", ".", "'s", "\u{2019}"];
        let mut cues: Vec<String> = CUES
            .iter()
            .chain(CUE_WORDS)
            .map(|c| c.to_string())
            .collect();
        cues.extend(cues.clone().iter().map(|c| c.to_uppercase()));
        cues.extend(
            [
                "Pr",
                "pR",
                "prs",
                "print",
                "p",
                "i\u{2019}l",
                "over to",
                "FiX",
            ]
            .map(String::from),
        );
        let mut checked = 0;
        for cue in &cues {
            for b in before {
                for a in after {
                    let text = format!("{b}{cue}{a}");
                    assert_eq!(names_work(&text), oracle.is_match(&text), "{text:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        for text in [
            "daily rollover policy active",
            "Got it, thanks!",
            "see PR #12",
            "npr.",
            "a_pr b",
        ] {
            assert_eq!(names_work(text), oracle.is_match(text), "{text:?}");
        }
    }

    #[test]
    fn work_claims_proposals_and_other_languages_are_judged() {
        for text in [
            "Fixed! The glyphs show correctly.",
            "That should prevent the long tap selection.",
            "Pushed to main.",
            "I'll deploy it tomorrow.",
            "Corrigido, está funcionando.",
            // Other languages written without accents, and a short hand-back.
            "Fatto, ora il caricamento funziona.",
            "Erledigt, laeuft jetzt.",
            "Regle, la page charge.",
            "Da xong, gio chay on roi.",
            "Frontend is yours.",
            "Listo, ya funciona.",
            "",
            &"A quiet sentence with nothing in it. ".repeat(8),
        ] {
            assert_eq!(cannot_violate(text), None, "{text}");
        }
    }
}
