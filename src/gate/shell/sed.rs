//! GNU sed runs shell commands: `e COMMAND` runs COMMAND, a bare `e` runs the pattern space,
//! and the `e` flag of `s///e` runs the substitution's result. The script (the first operand,
//! or each `-e`/`--expression`) is read just enough to find them: addresses, the `s` and `y`
//! commands' delimited parts, and the commands that take the rest of their line.

use super::{SimpleCommand, Word};

/// What a sed script runs through the shell.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Runs {
    /// `e COMMAND`: a command line written in the script.
    Line(String),
    /// `e` alone or `s///e`: whatever the input makes of the pattern space.
    PatternSpace,
}

/// The scripts `sed` is given on its command line: `None` for one computed at run time.
fn scripts(cmd: &SimpleCommand) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut explicit = false;
    let mut first_operand: Option<Option<String>> = None;
    let mut words = cmd.argv[1..].iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if matches!(text, "-e" | "--expression") {
            explicit = true;
            out.push(words.next().and_then(Word::literal).map(str::to_owned));
        } else if let Some(s) = text.strip_prefix("--expression=") {
            explicit = true;
            out.push(word.literal().map(|_| s.to_owned()));
        } else if matches!(text, "-f" | "--file" | "-l" | "--line-length") {
            explicit |= text.starts_with("-f") || text == "--file";
            words.next();
        } else if text.starts_with('-') && text.len() > 1 {
            explicit |= text.starts_with("--file=");
        } else if first_operand.is_none() {
            first_operand = Some(word.literal().map(str::to_owned));
        }
    }
    if !explicit {
        out.extend(first_operand);
    }
    out
}

/// What `cmd` (a `sed`) runs through the shell; `Err` when its script is computed and it may.
pub(super) fn runs(cmd: &SimpleCommand) -> Result<Vec<Runs>, String> {
    let mut out = Vec::new();
    for script in scripts(cmd) {
        match script {
            Some(text) => out.extend(read(&text)),
            None => return Err("`sed` runs a script computed at run time".into()),
        }
    }
    Ok(out)
}

/// The shell commands a sed script runs.
fn read(script: &str) -> Vec<Runs> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let to_line_end = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>()
    };
    let to_separator = |i: &mut usize| {
        while *i < chars.len() && !matches!(chars[*i], ';' | '\n' | '}') {
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || matches!(c, ';' | '{' | '}' | '!') {
            i += 1;
            continue;
        }
        if c == '#' {
            to_line_end(&mut i);
            continue;
        }
        // Addresses: line numbers, `$`, `first~step`, ranges, and `/regex/` or `\cregexc`.
        if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '+') {
            i += 1;
            continue;
        }
        if c == '/' || c == '\\' {
            let delimiter = if c == '\\' {
                i += 1;
                chars.get(i).copied().unwrap_or('/')
            } else {
                '/'
            };
            i = delimited(&chars, i + 1, delimiter);
            while i < chars.len() && matches!(chars[i], 'I' | 'M') {
                i += 1;
            }
            continue;
        }
        i += 1;
        match c {
            'e' => {
                let line = to_line_end(&mut i).trim().to_owned();
                out.push(if line.is_empty() {
                    Runs::PatternSpace
                } else {
                    Runs::Line(line)
                });
            }
            'a' | 'i' | 'c' | 'r' | 'R' | 'w' | 'W' => {
                to_line_end(&mut i);
            }
            's' | 'y' => {
                let Some(&delimiter) = chars.get(i) else {
                    break;
                };
                i = delimited(&chars, i + 1, delimiter);
                i = delimited(&chars, i, delimiter);
                if c == 's' {
                    // Flags, up to a `w FILE` flag (whose name runs to the line's end).
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}' | '#') {
                        match chars[i] {
                            'e' => out.push(Runs::PatternSpace),
                            'w' => {
                                to_line_end(&mut i);
                                break;
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                }
            }
            // Labels, exit codes, versions and line lengths run to the next separator.
            'b' | 't' | 'T' | ':' | 'q' | 'Q' | 'l' | 'L' | 'v' => to_separator(&mut i),
            _ => {}
        }
    }
    out
}

/// The index just past the next unescaped `delimiter` from `start`.
fn delimited(chars: &[char], start: usize, delimiter: char) -> usize {
    let mut i = start;
    while i < chars.len() {
        if chars[i] == '\\' {
            i += 2;
            continue;
        }
        if chars[i] == delimiter {
            return i + 1;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_e_command_and_the_e_flag_run_shell_commands() {
        assert_eq!(read("e git push"), [Runs::Line("git push".into())]);
        assert_eq!(
            read("1e git push origin main\np"),
            [Runs::Line("git push origin main".into())]
        );
        assert_eq!(read("/x/e"), [Runs::PatternSpace]);
        assert_eq!(read("s/.*/git push/e"), [Runs::PatternSpace]);
        assert_eq!(read("s|a;b|c|ge"), [Runs::PatternSpace]);
        assert_eq!(read("$!{e date\n}"), [Runs::Line("date".into())]);
    }

    #[test]
    fn ordinary_scripts_run_nothing() {
        for script in [
            "s/foo/bar/g",
            "s/e/E/g; /^$/d",
            "/^#/d;s/a/b/w e.txt",
            "1,5p",
            "a\\\nappended text with e",
            "i inserted e line",
            "y/abc/xyz/",
            "/start/,/end/{s/x/y/;p}",
            ":loop\nN;b loop",
            "# comment with e\np",
            "\\%regex%d",
        ] {
            assert_eq!(read(script), [], "{script}");
        }
    }
}
