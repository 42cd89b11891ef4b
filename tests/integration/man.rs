//! The man pages in `man/` are generated from the CLI definition and the sections in
//! `man_sections.rs`; this test fails when they drift. Regenerate them with
//! `HOOKJUDGE_UPDATE_MAN=1 cargo test --test integration man`.

use clap::CommandFactory;

use crate::man_sections::{Entry, SECTIONS};

/// Sections go before these, in the usual man page order.
const TRAILING_SECTIONS: [&str; 2] = [".SH VERSION", ".SH AUTHORS"];

/// Escapes text for a roff line: backslashes, hyphens (so `--since` is not hyphenated or
/// turned into a dash), and a leading dot or apostrophe.
fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// Markdown-style `code` in help text becomes bold, as man pages show code.
fn bold_backticks(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    let mut parts = page.split('`');
    out.push_str(parts.next().unwrap_or(""));
    let mut inside = false;
    for part in parts {
        inside = !inside;
        out.push_str(if inside { "\\fB" } else { "\\fR" });
        out.push_str(part);
    }
    assert!(!inside, "unbalanced backticks in a man page");
    out
}

fn section(title: &str, entries: &[Entry]) -> String {
    let mut out = format!(".SH \"{title}\"\n");
    for (term, meaning) in entries {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff_escape(term),
            roff_escape(meaning)
        ));
    }
    out
}

fn render(cmd: clap::Command, page: &str) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out).unwrap();
    let rendered = String::from_utf8(out).unwrap();
    let extra: String = SECTIONS
        .iter()
        .filter(|(p, _, _)| *p == page)
        .map(|(_, title, entries)| section(title, entries))
        .collect();
    let at = TRAILING_SECTIONS
        .iter()
        .filter_map(|s| rendered.find(s))
        .min()
        .unwrap_or(rendered.len());
    bold_backticks(&format!("{}{extra}{}", &rendered[..at], &rendered[at..]))
}

fn pages() -> Vec<(String, String)> {
    let root = hookjudge::cli::Cli::command().name("hookjudge");
    let mut pages = vec![("hookjudge.1".to_string(), render(root.clone(), ""))];
    for sub in root.get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        // clap names are `&'static str` without its `string` feature; a test may leak a few.
        let name: &'static str =
            Box::leak(format!("hookjudge-{}", sub.get_name()).into_boxed_str());
        pages.push((
            format!("{name}.1"),
            render(sub.clone().name(name).display_name(name), sub.get_name()),
        ));
    }
    pages
}

#[test]
fn man_pages_match_the_cli() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    if std::env::var_os("HOOKJUDGE_UPDATE_MAN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, page) in pages() {
            std::fs::write(dir.join(name), page).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (name, page) in pages() {
        if std::fs::read_to_string(dir.join(&name)).ok().as_deref() != Some(page.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "man pages out of date: {stale:?}; run `HOOKJUDGE_UPDATE_MAN=1 cargo test --test integration man`"
    );
}

#[test]
fn every_page_has_the_sections_people_look_for() {
    for (name, page) in pages() {
        for section in ["EXIT STATUS", "EXAMPLES"] {
            assert!(
                page.contains(&format!(".SH \"{section}\"")),
                "{name} has no {section} section"
            );
        }
        assert!(
            !page.contains('`'),
            "{name} prints markdown backticks literally"
        );
    }
    let (_, root) = &pages()[0];
    assert!(root.contains(".SH \"ENVIRONMENT\"") && root.contains(".SH \"FILES\""));
    assert!(root.contains("\\fBhookjudge log \\-\\-blocks \\-\\-since 2d\\fR"));
    // Every subcommand has its own entry in the table, so a new command cannot ship bare.
    let root_cmd = hookjudge::cli::Cli::command();
    for sub in root_cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        assert!(
            SECTIONS.iter().any(|(p, _, _)| *p == sub.get_name()),
            "no man sections for `{}`",
            sub.get_name()
        );
    }
}
