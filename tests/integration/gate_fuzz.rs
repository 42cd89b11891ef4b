//! Garbage in, no panic out; and a command line that cannot be read reliably never passes
//! silently when it mentions a gated action.

use std::path::Path;

use hookjudge::gate::repos::Repos;

const TOKENS: [&str; 40] = [
    "git", "push", "commit", "-f", "origin", "main", ";", "&&", "||", "|", "&", "(", ")", "{", "}",
    "$(", "`", "'", "\"", "\\", "<<", "EOF", "\n", "$", "${", "}", "bash", "-c", "eval", "sudo",
    "env", "X=1", "cd", "..", "#", "*", "!", "<(", ">", "2>&1",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as usize
    }
}

fn soup(rng: &mut Rng, tokens: &[&str], n: usize) -> String {
    (0..n)
        .map(|_| tokens[rng.next() % tokens.len()])
        .collect::<Vec<_>>()
        .join(if rng.next().is_multiple_of(3) {
            ""
        } else {
            " "
        })
}

#[test]
fn garbage_never_panics_and_unreadable_gated_text_is_never_silent() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..20_000 {
        let n = 1 + rng.next() % 30;
        let text = soup(&mut rng, &TOKENS, n);
        let found = hookjudge::gate::find(
            &text,
            Path::new("/w"),
            Default::default(),
            &Repos::default(),
        );
        let script = hookjudge::gate::shell::parse(&text, Path::new("/w"));
        let unreadable = script.had_errors || !script.incomplete.is_empty();
        if unreadable
            && hookjudge::gate::classify::may_be_gated(&text, &[])
            && text.contains("push")
        {
            assert!(
                !found.is_empty(),
                "unreadable gated text passed silently: {text:?}"
            );
        }
    }
}

#[test]
fn a_push_after_quote_free_garbage_is_always_found() {
    // Quote-free and complete: a trailing `>` before the newline is a bash syntax error.
    let mut quote_free: Vec<&str> = TOKENS
        .iter()
        .copied()
        .filter(|t| {
            !matches!(
                *t,
                "'" | "\"" | "\\" | "<<" | "#" | "`" | "$(" | "${" | "(" | "{" | "<(" | "$" | ">"
            )
        })
        .collect();
    quote_free.push("> out.txt");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..5_000 {
        let n = 1 + rng.next() % 12;
        let text = format!("{}\ngit push", soup(&mut rng, &quote_free, n));
        let found = hookjudge::gate::find(
            &text,
            Path::new("/w"),
            Default::default(),
            &Repos::default(),
        );
        assert!(!found.is_empty(), "push not found in {text:?}");
    }
}

#[test]
fn deep_nesting_and_huge_input_do_not_hurt() {
    let deep = format!("{}git push{}", "$(".repeat(5000), ")".repeat(5000));
    let _ = hookjudge::gate::find(
        &deep,
        Path::new("/w"),
        Default::default(),
        &Repos::default(),
    );
    let chain = vec!["true"; 20_000].join(" && ") + " && git push";
    assert!(
        !hookjudge::gate::find(
            &chain,
            Path::new("/w"),
            Default::default(),
            &Repos::default()
        )
        .is_empty(),
        "long chains are parsed (or asked about)"
    );
    let nested = (0..10).fold("git push".to_string(), |acc, _| {
        format!("bash -c {}", shell_words::quote(&acc))
    });
    assert!(
        !hookjudge::gate::find(
            &nested,
            Path::new("/w"),
            Default::default(),
            &Repos::default()
        )
        .is_empty(),
        "too-deep bodies are asked about, not passed"
    );
}
