//! Text for a terminal: how wide the terminal is; cells cut and padded by display width (a CJK
//! character or an emoji takes two columns, a combining accent none), so that a long cell ends
//! in `…` instead of pushing the rest of the line out of place; and messages for a person
//! wrapped at word boundaries ([`fill`]), so that a terminal never breaks a word in two.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Used when neither `COLUMNS` nor the terminal says otherwise (output to a pipe or a file).
pub const DEFAULT_WIDTH: usize = 80;
/// Narrower than this, tables stop shrinking and lines may wrap.
pub const MIN_WIDTH: usize = 60;

/// The width to lay tables out for: `COLUMNS` when set (as shells and `ls` do), else the
/// terminal's width when stdout is one, else [`DEFAULT_WIDTH`].
pub fn width() -> usize {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let from_terminal = || {
        let term = console::Term::stdout();
        term.is_term()
            .then(|| term.size_checked())
            .flatten()
            .map(|(_rows, cols)| usize::from(cols))
            .filter(|&c| c > 0)
    };
    from_env
        .or_else(from_terminal)
        .unwrap_or(DEFAULT_WIDTH)
        .max(MIN_WIDTH)
}

/// Whether to colour stdout: only on a terminal, and never when `NO_COLOR` is set and not
/// empty (no-color.org) or `TERM` is `dumb`.
pub fn colour_stdout() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    !no_color && !dumb && console::Term::stdout().is_term()
}

/// `text` in the ANSI colour `code` (`32` green, `31` red, `2` dim) when `on`.
pub fn paint(text: &str, code: &str, on: bool) -> String {
    if on {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// How many terminal columns `text` takes.
pub fn display_width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` on one line (runs of whitespace become one space), cut to at most `width` columns with
/// a trailing `…` when it is longer.
pub fn truncate(text: &str, width: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if display_width(&flat) <= width {
        return flat;
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in flat.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `text` cut to `width` columns, then padded with spaces to exactly `width`.
pub fn cell(text: &str, width: usize) -> String {
    let mut out = truncate(text, width);
    let pad = width.saturating_sub(display_width(&out));
    out.extend(std::iter::repeat_n(' ', pad));
    out
}

/// `text` wrapped at spaces into lines of at most `width` columns; lines after the first start
/// with `indent`. The first line keeps its own spacing (alignment); a word longer than a line
/// is cut with `…`.
pub fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = text.trim_end();
    loop {
        let prefix = if lines.is_empty() { "" } else { indent };
        let room = width.saturating_sub(display_width(prefix)).max(1);
        if display_width(rest) <= room {
            lines.push(format!("{prefix}{rest}"));
            return lines;
        }
        let mut used = 0;
        let mut cut = None;
        for (i, c) in rest.char_indices() {
            used += c.width().unwrap_or(0);
            if used > room {
                break;
            }
            if c == ' ' && !rest[..i].trim().is_empty() {
                cut = Some(i);
            }
        }
        let (line, next) = match cut {
            Some(i) => (rest[..i].trim_end().to_owned(), &rest[i..]),
            None => {
                let end = rest
                    .trim_start()
                    .find(' ')
                    .map_or(rest.len(), |i| i + (rest.len() - rest.trim_start().len()));
                (truncate(&rest[..end], room), &rest[end..])
            }
        };
        lines.push(format!("{prefix}{line}"));
        rest = next.trim_start();
        if rest.is_empty() {
            return lines;
        }
    }
}

/// `text` as lines of at most `width` columns, for a person to read: the one wrapping rule of
/// hookjudge's messages. Each line of `text` is wrapped on its own, and its continuation lines
/// start with `indent`. A line breaks only at spaces outside backticks, so a command or a path
/// written as `…` and a word longer than a line are never cut: such a token gets a line of its
/// own, which may then be longer than `width` (a terminal wraps it, and it still reads and copies
/// whole). The spacing inside a line (alignment) is kept.
pub fn fill(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for (i, (gap, token)) in tokens(paragraph.trim_end()).into_iter().enumerate() {
            if i > 0 && display_width(&line) + display_width(gap) + display_width(token) > width {
                lines.push(std::mem::take(&mut line));
                line.push_str(indent);
            } else {
                line.push_str(gap);
            }
            line.push_str(token);
        }
        lines.push(line);
    }
    lines
}

/// `text` split into its tokens, each with the spaces before it. Spaces inside backticks belong
/// to the token, unless the backticks are unbalanced (then they quote nothing).
fn tokens(text: &str) -> Vec<(&str, &str)> {
    let quoting = text.matches('`').count().is_multiple_of(2);
    let mut out = Vec::new();
    let mut in_code = false;
    let mut gap_start = 0;
    let mut token_start = None;
    for (i, c) in text.char_indices() {
        if c == '`' && quoting {
            in_code = !in_code;
        }
        let space = c == ' ' && !in_code;
        match (space, token_start) {
            (false, None) => token_start = Some(i),
            (true, Some(start)) => {
                out.push((&text[gap_start..start], &text[start..i]));
                gap_start = i;
                token_start = None;
            }
            _ => {}
        }
    }
    match token_start {
        Some(start) => out.push((&text[gap_start..start], &text[start..])),
        None if gap_start < text.len() || out.is_empty() => out.push((&text[gap_start..], "")),
        None => {}
    }
    out
}

/// `text` written to `out` as [`fill`] lays it out for the terminal's [`width`].
pub fn say(out: &mut dyn std::io::Write, text: &str, indent: &str) -> std::io::Result<()> {
    for line in fill(text, width(), indent) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_by_display_width_and_pads() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("a  b\n c", 10), "a b c");
        assert_eq!(truncate("abcdefghij", 5), "abcd…");
        // Each of these takes two columns: four fit in 9 with the ellipsis.
        let wide = truncate("漢字漢字漢字漢字", 9);
        assert_eq!(wide, "漢字漢字…");
        assert_eq!(display_width(&wide), 9);
        assert_eq!(cell("ab", 4), "ab  ");
        assert_eq!(display_width(&cell("漢字漢字漢字", 7)), 7);
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn wraps_at_spaces_with_an_indent() {
        assert_eq!(
            wrap("one two three four", 9, "  "),
            ["one two", "  three", "  four"]
        );
        assert_eq!(wrap("short", 80, "  "), ["short"]);
        assert_eq!(wrap("", 80, "  "), [""]);
        assert_eq!(wrap("  a     b", 80, "  "), ["  a     b"], "spacing kept");
        assert!(
            wrap("x abcdefghijklmnop", 8, "  ")
                .iter()
                .all(|l| display_width(l) <= 8)
        );
    }

    #[test]
    fn fills_at_spaces_and_keeps_quoted_commands_and_long_words_whole() {
        assert_eq!(
            fill("note: one two three four", 12, "      "),
            ["note: one", "      two", "      three", "      four"]
        );
        // A command in backticks is one token, even with spaces inside.
        assert_eq!(
            fill("run `hookjudge doctor --online` now", 20, "  "),
            ["run", "  `hookjudge doctor --online`", "  now"]
        );
        // A word longer than the line keeps a line of its own, uncut.
        let path = format!("/{}", "p".repeat(40));
        assert_eq!(
            fill(&format!("in {path} here"), 20, "  "),
            ["in".to_owned(), format!("  {path}"), "  here".to_owned()]
        );
        // Alignment on a line is kept; each line of the text is filled on its own.
        assert_eq!(
            fill("  created    a.json  (x)\nnext: y", 80, "  "),
            ["  created    a.json  (x)", "next: y"]
        );
        // Unbalanced backticks quote nothing.
        assert_eq!(fill("a `b c d", 5, ""), ["a `b", "c d"]);
        assert_eq!(fill("", 80, "  "), [""]);
        // Every line fits when no token is too long for it.
        let text = "word ".repeat(100);
        assert!(
            fill(&text, 30, "    ")
                .iter()
                .all(|l| display_width(l) <= 30)
        );
    }
}
