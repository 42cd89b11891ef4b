//! Files emptied in place by programs that edit rather than write: `sed -i d f` (a script that
//! deletes every line) and interpreter code that opens a file for writing
//! (`python3 -c "open('f', 'w')"`, `Path('f').write_text(…)`). What they write over is judged
//! like a `>` redirection's target.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use super::shell::{SimpleCommand, Word};

/// `sed` scripts that delete every line: the file is left empty.
const SED_EMPTIES: [&str; 4] = ["d", "1,$d", ",$d", "/.*/d"];

/// Interpreters whose `-c` code is read for files it opens for writing.
const INTERPRETERS: [&str; 3] = ["python", "python3", "python2"];

/// The files `cmd` empties or writes over in place, absolute.
pub fn emptied(cmd: &SimpleCommand, cwd: &Path) -> Vec<PathBuf> {
    let Some(words) = cmd.argv[1..]
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<&str>>>()
    else {
        return Vec::new();
    };
    match cmd.program() {
        Some("sed") => sed(&words, cwd),
        Some(p) if INTERPRETERS.contains(&p) => python(&words, cwd),
        _ => Vec::new(),
    }
}

fn sed(words: &[&str], cwd: &Path) -> Vec<PathBuf> {
    let in_place = words.iter().any(|w| {
        w.starts_with("--in-place")
            || (w.starts_with('-') && !w.starts_with("--") && w[1..].starts_with('i'))
            || (w.starts_with('-') && !w.starts_with("--") && w.len() == 3 && w.ends_with('i'))
    });
    if !in_place {
        return Vec::new();
    }
    let mut scripts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "-e" || w == "--expression" {
            scripts.extend(words.get(i + 1).copied());
            i += 2;
            continue;
        }
        if !w.starts_with('-') {
            operands.push(w);
        }
        i += 1;
    }
    if scripts.is_empty() && !operands.is_empty() {
        scripts.push(operands.remove(0));
    }
    let empties = scripts
        .iter()
        .any(|s| SED_EMPTIES.contains(&s.trim().trim_end_matches(';')));
    if !empties {
        return Vec::new();
    }
    operands.iter().map(|o| cwd.join(o)).collect()
}

fn python(words: &[&str], cwd: &Path) -> Vec<PathBuf> {
    let Some(code) = words
        .iter()
        .position(|w| *w == "-c")
        .and_then(|i| words.get(i + 1))
    else {
        return Vec::new();
    };
    static WRITES: OnceLock<Regex> = OnceLock::new();
    let writes = WRITES.get_or_init(|| {
        Regex::new(
            r#"(?x)
            \bopen\(\s*['"]([^'"]+)['"]\s*,\s*(?:mode\s*=\s*)?['"][wx]
            | \bPath\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*write_(?:text|bytes)\("#,
        )
        .expect("valid")
    });
    writes
        .captures_iter(code)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| cwd.join(m.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;

    fn names(line: &str) -> Vec<String> {
        let script = shell::parse(line, Path::new("/w"));
        emptied(&script.commands[0], Path::new("/w"))
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn emptying_in_place_names_the_file() {
        for line in [
            "sed -i d notes.txt",
            "sed -i '1,$d' notes.txt",
            "sed -i.bak -e d notes.txt",
            "python3 -c \"open('notes.txt', 'w')\"",
            "python3 -c \"open('notes.txt', mode='wb').write(b'')\"",
            "python -c \"from pathlib import Path; Path('notes.txt').write_text('')\"",
        ] {
            assert_eq!(names(line), ["/w/notes.txt"], "{line}");
        }
    }

    #[test]
    fn edits_reads_and_appends_are_not_emptying() {
        for line in [
            "sed -i 's/a/b/' notes.txt",
            "sed -n d notes.txt",
            "sed d notes.txt",
            "python3 -c \"open('notes.txt').read()\"",
            "python3 -c \"open('notes.txt', 'a').write('x')\"",
            "python3 script.py notes.txt",
        ] {
            assert_eq!(names(line), Vec::<String>::new(), "{line}");
        }
    }
}
