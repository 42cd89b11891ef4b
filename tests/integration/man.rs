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

/// The synopsis line: the command as typed (`hookjudge log`), each visible option with its
/// value name, positionals, and `<COMMAND>` when it has subcommands. clap_mangen's own drops
/// the value names, names the page instead of the command, and shows hidden positionals.
fn synopsis(cmd: &clap::Command, words: &str) -> String {
    let mut parts = vec![format!("\\fB{}\\fR", roff_escape(words))];
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let value = arg
            .get_value_names()
            .map(|names| {
                names
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
        let value = format!("\\fI{}\\fR", roff_escape(&value));
        let required = arg.is_required_set();
        if arg.is_positional() {
            parts.push(if required {
                format!("<{value}>")
            } else {
                format!("[{value}]")
            });
            continue;
        }
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("\\fB\\-{s}\\fR|\\fB\\-\\-{}\\fR", roff_escape(l)),
            (None, Some(l)) => format!("\\fB\\-\\-{}\\fR", roff_escape(l)),
            (Some(s), None) => format!("\\fB\\-{s}\\fR"),
            (None, None) => continue,
        };
        let optional_value = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
        let option = if !arg.get_action().takes_values() {
            flag
        } else if optional_value {
            format!("{flag} [{value}]")
        } else {
            format!("{flag} {value}")
        };
        parts.push(if required {
            option
        } else {
            format!("[{option}]")
        });
    }
    if cmd.has_subcommands() {
        parts.push("<\\fICOMMAND\\fR>".into());
    }
    parts.join(" ")
}

fn render(cmd: clap::Command, page: &str) -> String {
    let words = if page.is_empty() {
        "hookjudge".to_string()
    } else {
        format!("hookjudge {page}")
    };
    let mut built = cmd.clone();
    built.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out).unwrap();
    let mut rendered = String::from_utf8(out).unwrap();
    let start = rendered.find(".SH SYNOPSIS\n").unwrap() + ".SH SYNOPSIS\n".len();
    let end = start + rendered[start..].find("\n.SH").unwrap();
    rendered.replace_range(start..end, &synopsis(&built, &words));
    // Subcommands without a page of their own (a page's subcommands, `help`): named as typed.
    for sub in built.get_subcommands() {
        let has_page = page.is_empty() && !sub.is_hide_set() && sub.get_name() != "help";
        if !has_page {
            rendered = rendered.replace(
                &format!(
                    "{}\\-{}(1)",
                    roff_escape(cmd.get_name()),
                    roff_escape(sub.get_name())
                ),
                &format!(
                    "\\fB{} {}\\fR",
                    roff_escape(&words),
                    roff_escape(sub.get_name())
                ),
            );
        }
    }
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
fn synopses_name_values_and_only_pages_that_exist() {
    let pages = pages();
    let names: Vec<&str> = pages
        .iter()
        .map(|(n, _)| n.trim_end_matches(".1"))
        .collect();
    for (name, page) in &pages {
        // Every `name(1)` a page refers to is a page.
        for (i, _) in page.match_indices("(1)") {
            let start = page[..i]
                .rfind(|c: char| c.is_whitespace() || c == '>')
                .map_or(0, |s| s + 1);
            let referred = page[start..i].replace("\\-", "-").replace("\\fB", "");
            assert!(
                names.contains(&referred.as_str()),
                "{name} refers to {referred}(1)"
            );
        }
    }
    let page = |n: &str| pages.iter().find(|(p, _)| p == n).unwrap().1.clone();
    let log = page("hookjudge-log.1");
    assert!(
        log.contains("\\fBhookjudge log\\fR")
            && log.contains("[\\fB\\-\\-since\\fR \\fIWHEN\\fR]")
            && log.contains("[\\fB\\-n\\fR|\\fB\\-\\-limit\\fR \\fILIMIT\\fR]"),
        "{log}"
    );
    let check = page("hookjudge-check.1");
    assert!(
        !check.contains("REMOTE"),
        "a hidden argument is shown: {check}"
    );
    assert!(
        check.contains("[\\fB\\-\\-run\\-tests\\fR [\\fICOMMAND\\fR]]"),
        "{check}"
    );
    let config = page("hookjudge-config.1");
    assert!(config.contains("\\fBhookjudge config show\\fR"), "{config}");
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
