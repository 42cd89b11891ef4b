//! Text tables for a terminal: how wide the terminal is, and cells cut and padded by display
//! width (a CJK character or an emoji takes two columns, a combining accent none), so that a
//! long cell ends in `…` instead of pushing the rest of the line out of place.

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
}
