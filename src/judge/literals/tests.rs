use super::*;

#[track_caller]
fn case(pattern: &str, prefixes: &[&str], suffixes: &[&str]) {
    let p = extract(pattern).unwrap();
    assert_eq!(p.prefixes.to_vec(), *prefixes, "prefixes of {pattern}");
    assert_eq!(p.suffixes.to_vec(), *suffixes, "suffixes of {pattern}");
}

#[test]
fn extracts_alternations_lowercases_and_cuts() {
    case(
        r"\b(Shall|should) I commit",
        &["shall ", "should"],
        &["commit"],
    );
    case(
        r"\b(shall|should) I\b.{0,20}\b(commit|push)",
        &["shall ", "should"],
        &["commit", "push"],
    );
    // Cuts respect character boundaries (Japanese is three bytes a character).
    case(r"コミット(します|しましょう)", &["コミ"], &["ます", "ょう"]);
}

#[test]
fn open_ended_patterns_have_no_constraint() {
    case(r"^\s*Q\d+:", &[], &[]);
    let p = extract(r".*commit").unwrap();
    assert!(p.prefixes.is_empty());
    assert_eq!(p.suffixes.to_vec(), ["commit"]);
}

#[test]
fn prefilter_rules_out_texts_without_literals() {
    let p = extract(r"\b(shall|should) I\b.{0,20}\b(commit|push)").unwrap();
    assert!(p.may_match(&TextIndex::new("so, shall i go ahead and push?")));
    assert!(!p.may_match(&TextIndex::new("i pushed it yesterday")));
    assert!(!p.may_match(&TextIndex::new("shall i make tea?")));
}

#[test]
fn text_index_finds_exactly_the_substrings() {
    let text = "the quick brown fox — コミットします";
    let index = TextIndex::new(text);
    for lit in ["quick", "ck b", "fox", "コミ", "ます", "he"] {
        assert!(index.contains(lit), "{lit}");
    }
    for lit in ["quack", "foxes", "コミュ", "zz"] {
        assert!(!index.contains(lit), "{lit}");
    }
}

fn holds(pattern: &str, text: &str, neighbours_kept: bool) -> bool {
    let condition = Condition::owned(&extract_condition(pattern).unwrap());
    let lower = text.to_lowercase();
    let mut index = TextIndex::new(&lower);
    index.set_word_neighbours_kept(neighbours_kept);
    condition.holds(&index)
}

#[test]
fn conditions_need_every_part_of_a_match_as_whole_words() {
    let bug_then_change = r"\b(crash|hang)\b[^\n]{0,120}\b(i|we)\s+(changed|added)\b";
    assert!(holds(
        bug_then_change,
        "The crash: I changed the guard.",
        true
    ));
    for quiet in [
        "changed",
        "The hangar crashed, then we changed it.",
        "a crash",
    ] {
        assert!(!holds(bug_then_change, quiet, true), "{quiet:?}");
    }
    let shipped = r"\b(merge|deploy)\b[^\n]{0,60}\b(production|staging)\b";
    assert!(!holds(shipped, "merge the introduction", true));
    assert!(holds(shipped, "Deploy it to production.", true));
    // Inner parts count too, and optional parts do not.
    let inner = r"^\s*(\$\s*)?(sudo\s+)?git\s+push\b";
    assert!(!holds(inner, "git pushed", true));
    assert!(holds(inner, "$ git push -u", true));
    assert!(holds(r"my (best )?guess", "my best guess", true));
    assert!(holds(r"my (best )?guess", "my guess", true));
    assert!(!holds(r"my (best )?guess", "my bestguess", true));
}

#[test]
fn conditions_read_the_text_as_the_speech_view_may() {
    // A masked word may become a space, so a word character next to a literal proves
    // nothing unless no mask applies.
    assert!(!holds(r"\bhang\b", "changed", true));
    assert!(holds(r"\bhang\b", "changed", false));
    // Inline code is kept without its backticks (a command) or blanked.
    assert!(holds(r"\brun git push\b", "run `git push` now", true));
    assert!(holds(r"\bthe\s+fix\b", "the `x`fix", true));
    assert!(holds(r"\(git\b", "(`git push`)", true));
    // Non-ASCII neighbours are word characters or not: either way, no constraint.
    assert!(holds(r"\bbug\b", "débug", true));
}

#[test]
fn bad_pattern_is_an_error() {
    assert!(extract("(unclosed").is_err());
}
