//! Work lost by being written over: which paths a command truncates or replaces, resolved from
//! its arguments whatever the program is called (`: > f`, `echo > f`, `dd of=f`,
//! `tee f </dev/null`, `install /dev/null f`, `ln -sf x f`, `sort -o f`, `cp -t dir f`,
//! `tar -xf a.tar` over the files the archive holds, `git show HEAD:f > f`). Whether a changed
//! file is there is for the repository's facts to say, as for a delete
//! ([`super::classify::Destructive::RemoveFiles`]); writing a new file loses nothing.

use std::path::{Path, PathBuf};

use super::classify::{Class, Destructive, Gated, Target};
use super::shell::{SimpleCommand, Word};
use crate::support::paths::normalize;

/// The destructive action of `cmd` writing over existing files in its repository, if any.
pub fn gated(cmd: &SimpleCommand, line: &str) -> Option<Gated> {
    let mut found = gated_paths(cmd, overwritten(cmd, line))?;
    // The command's own text leaves out its redirections: name them, as they are the effect.
    for target in cmd.writes.iter().filter_map(Word::literal) {
        found.command.push_str(&format!(" > {target}"));
    }
    Some(found)
}

/// Redirections the parsed commands do not hold (`cd src && : > app.py` attaches the `>` to
/// the whole list): read from the line's text, from every directory its commands run in.
pub fn stray_redirects(line: &str, commands: &[SimpleCommand]) -> Option<Gated> {
    let held: Vec<&str> = commands
        .iter()
        .flat_map(|c| c.writes.iter().filter_map(Word::literal))
        .collect();
    let stray: Vec<String> = redirect_targets(line, false)
        .into_iter()
        .filter(|t| !held.contains(&t.as_str()))
        .collect();
    let last = commands.last()?;
    if stray.is_empty() {
        return None;
    }
    let mut dirs: Vec<&Path> = commands.iter().filter_map(|c| c.cwd.as_deref()).collect();
    dirs.dedup();
    let paths = dirs
        .iter()
        .flat_map(|d| stray.iter().map(|t| d.join(t)))
        .collect();
    let mut found = gated_paths(last, paths)?;
    found.command = line.to_owned();
    Some(found)
}

fn gated_paths(cmd: &SimpleCommand, written: Vec<PathBuf>) -> Option<Gated> {
    let root = crate::support::paths::repo_root(cmd.cwd.as_deref()?)?;
    let paths: Vec<String> = written
        .into_iter()
        .filter(|p| p.exists())
        .filter_map(|p| {
            let rel = normalize(&p)
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .into_owned();
            Some(if rel.is_empty() { ".".to_owned() } else { rel })
        })
        .collect();
    if paths.is_empty() {
        return None;
    }
    Some(Gated {
        class: Class::Destructive,
        command: cmd.source.clone(),
        target: Target {
            dir: cmd.cwd.clone(),
            git_dir: None,
            work_tree: None,
        },
        push: None,
        destructive: Some(Destructive::RemoveFiles {
            paths,
            names: Vec::new(),
            select: None,
        }),
        what: "writes over files in the work tree".into(),
    })
}

/// How a program names the files it writes over.
#[derive(Clone, Copy)]
enum Writes {
    /// Every operand (`tee a b`).
    Operands,
    /// The last operand, when there are two or more (`install SRC DEST`); a directory there
    /// receives each source under its name, and so does the directory of `-t DIR`.
    Destination,
    /// The value of an option (`sort -o F`, `sort --output=F`).
    Option(&'static [&'static str]),
    /// `KEY=F` operands (`dd of=F`).
    Key(&'static str),
    /// The members of the archive it extracts (`tar -x`).
    Extracts,
}

/// A program's way of writing over files, the options it needs to write over anything (`ln`
/// replaces an existing file only with `-f`), and its options that take a value (not
/// operands).
struct Writer {
    program: &'static str,
    writes: Writes,
    needs: &'static [&'static str],
    valued: &'static [&'static str],
}

/// Programs by what they write over.
const WRITERS: [Writer; 8] = [
    Writer {
        program: "tee",
        writes: Writes::Operands,
        needs: &[],
        valued: &[],
    },
    Writer {
        program: "install",
        writes: Writes::Destination,
        needs: &[],
        valued: &[
            "-t",
            "-m",
            "-o",
            "-g",
            "-S",
            "--target-directory",
            "--mode",
            "--owner",
            "--group",
            "--suffix",
        ],
    },
    Writer {
        program: "ln",
        writes: Writes::Destination,
        needs: &["-f", "--force"],
        valued: &["-t", "-S", "--target-directory", "--suffix"],
    },
    Writer {
        program: "cp",
        writes: Writes::Destination,
        needs: &[],
        valued: &["-t", "-S", "--target-directory", "--suffix"],
    },
    Writer {
        program: "mv",
        writes: Writes::Destination,
        needs: &[],
        valued: &["-t", "-S", "--target-directory", "--suffix"],
    },
    Writer {
        program: "sort",
        writes: Writes::Option(&["-o", "--output"]),
        needs: &[],
        valued: &[
            "-o",
            "-k",
            "-t",
            "-S",
            "-T",
            "--output",
            "--key",
            "--field-separator",
        ],
    },
    Writer {
        program: "dd",
        writes: Writes::Key("of="),
        needs: &[],
        valued: &[],
    },
    Writer {
        program: "tar",
        writes: Writes::Extracts,
        needs: &[],
        valued: &["-f", "-C", "--file", "--directory"],
    },
];

/// Words of a line that can make it write over a file (beyond `>`), for the gate's quiet
/// path: a line with none of them and no `>` cannot.
const QUIET_PATH_WORDS: [&str; 10] = [
    "tee", "install", "ln", "sort", "dd", "tar", "zip", "sed", "python", "python3",
];

/// Whether `line` may write over an existing file: a word of [`QUIET_PATH_WORDS`], or a `>`
/// whose target exists. Cheap: no parsing, a stat per redirection.
pub fn may_overwrite(line: &str, cwd: &Path) -> bool {
    let words = || line.split(|c: char| c.is_whitespace() || ";&|()".contains(c));
    if words().any(|w| QUIET_PATH_WORDS.contains(&w.rsplit('/').next().unwrap_or(w))) {
        return true;
    }
    // After a `cd` the target is relative to another directory: read it with the line.
    if words().any(|w| w == "cd" || w == "pushd") && line.contains('>') {
        return true;
    }
    // A target the line computes (`: > "$f"`) may be any file: read the line.
    redirect_targets(line, false)
        .iter()
        .any(|t| t.contains(['$', '`']) || cwd.join(t).exists())
}

/// The paths (absolute) `cmd` writes over; `line` is the whole command line, whose `>>`
/// targets are appended to, not written over.
pub fn overwritten(cmd: &SimpleCommand, line: &str) -> Vec<PathBuf> {
    let Some(cwd) = cmd.cwd.as_deref() else {
        return Vec::new();
    };
    // Appends are read from the command itself (a script's command is not in `line`) and
    // from the line's text (a `>>` the parser attached to a whole list).
    let appended = redirect_targets(line, true);
    let appends = |t: &&str| {
        cmd.appends.iter().any(|a| a.literal() == Some(t)) || appended.iter().any(|a| a == t)
    };
    let mut out: Vec<PathBuf> = cmd
        .writes
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with("/dev/") && !appends(t))
        .map(|t| cwd.join(t))
        .collect();
    let Some(program) = cmd.program() else {
        return out;
    };
    out.extend(super::in_place::emptied(cmd, cwd));
    let Some(&Writer {
        writes,
        needs,
        valued,
        ..
    }) = WRITERS.iter().find(|w| w.program == program)
    else {
        return out;
    };
    let Some(words) = cmd.argv[1..]
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<&str>>>()
    else {
        return out; // a computed argument: the delete checks read those
    };
    let has = |options: &[&str]| {
        words.iter().any(|w| {
            options.iter().any(|o| {
                *w == *o
                    || w.starts_with(&format!("{o}="))
                    || (o.len() == 2
                        && !w.starts_with("--")
                        && w.starts_with('-')
                        && w.contains(&o[1..]))
            })
        })
    };
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .enumerate()
        .filter(|(i, w)| {
            let value_of_option = *i > 0 && valued.contains(&words[i - 1]);
            !w.starts_with('-') && !value_of_option
        })
        .map(|(_, w)| w)
        .collect();
    match writes {
        Writes::Operands if program == "tee" && has(&["-a", "--append"]) => {}
        Writes::Operands => out.extend(operands.iter().map(|o| cwd.join(o))),
        Writes::Destination => {
            if program == "ln" && !has(needs) {
                return out;
            }
            let target_dir = option_value(&words, &["-t", "--target-directory"]);
            let (sources, dest): (&[&str], Option<&str>) = match (target_dir, operands.split_last())
            {
                (Some(dir), _) => (&operands[..], Some(dir)),
                (None, Some((last, sources))) if !sources.is_empty() => (sources, Some(*last)),
                _ => (&[], None),
            };
            if let Some(dest) = dest {
                let dest = cwd.join(dest);
                if dest.is_dir() || target_dir.is_some() {
                    out.extend(
                        sources
                            .iter()
                            .filter_map(|s| Path::new(s).file_name())
                            .map(|name| dest.join(name)),
                    );
                } else {
                    out.push(dest);
                }
            }
        }
        Writes::Option(options) => {
            if let Some(file) = option_value(&words, options)
                && !operands.contains(&file)
            {
                out.push(cwd.join(file));
            }
        }
        Writes::Key(key) => out.extend(
            words
                .iter()
                .filter_map(|w| w.strip_prefix(key))
                .filter(|f| !f.starts_with("/dev/"))
                .map(|f| cwd.join(f)),
        ),
        Writes::Extracts => out.extend(extracted(&words, cwd)),
    }
    out
}

/// `-o F`, `-oF`, `--output F`, `--output=F`.
fn option_value<'a>(words: &[&'a str], options: &[&str]) -> Option<&'a str> {
    for (i, w) in words.iter().enumerate() {
        for o in options {
            if *w == *o {
                return words.get(i + 1).copied();
            }
            if let Some(v) = w.strip_prefix(&format!("{o}=")) {
                return Some(v);
            }
            if o.len() == 2 && !o.starts_with("--") && w.starts_with(o) && w.len() > 2 {
                return Some(&w[2..]);
            }
        }
    }
    None
}

/// What `tar -x…` writes: the members of the archive (plain or compressed, see
/// [`super::tar_members`]), under `-C DIR` or the working directory; for an archive it cannot
/// list (missing, corrupt, an unknown compression), the whole directory it extracts into.
fn extracted(words: &[&str], cwd: &Path) -> Vec<PathBuf> {
    let mode = words.first().copied().unwrap_or("");
    let extracts = words.iter().any(|w| *w == "--extract" || *w == "--get")
        || (!mode.starts_with("--")
            && mode
                .trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_alphabetic())
            && mode.contains('x'))
        || words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('x'));
    if !extracts {
        return Vec::new();
    }
    let dir = cwd.join(option_value(words, &["-C", "--directory"]).unwrap_or("."));
    let archive = option_value(words, &["--file"]).or_else(|| {
        // `-xf A`, `xzf A`, `-x -f A`: the word after the cluster holding `f`.
        words
            .iter()
            .position(|w| {
                !w.starts_with("--")
                    && w.contains('f')
                    && w.chars().all(|c| c == '-' || c.is_ascii_alphabetic())
            })
            .and_then(|i| words.get(i + 1).copied())
    });
    match archive.and_then(|a| super::tar_members::members(&cwd.join(a))) {
        Some(members) => members.into_iter().map(|m| dir.join(m)).collect(),
        None => vec![dir],
    }
}

/// The targets of `>`-style redirections in a line's text: those that write over
/// (`appending` false: `>`, `>|`, `&>`) or those that append (`appending` true: `>>`, `&>>`).
fn redirect_targets(line: &str, appending: bool) -> Vec<String> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'>' {
            i += 1;
            continue;
        }
        let appends = bytes.get(i + 1) == Some(&b'>');
        let mut rest = &line[i + 1 + usize::from(appends)..];
        rest = rest.strip_prefix('|').unwrap_or(rest);
        i += 1 + usize::from(appends);
        if rest.starts_with('&') || appends != appending {
            continue; // `>&2`, or the other kind
        }
        let target: String = rest
            .trim_start()
            .chars()
            .take_while(|c| !c.is_whitespace() && !";&|()<>".contains(*c))
            .filter(|c| !matches!(c, '"' | '\''))
            .collect();
        if !target.is_empty() && !target.starts_with("/dev/") {
            out.push(target);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::shell;

    fn written(line: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let script = shell::parse(line, dir.path());
        let mut out: Vec<String> = script
            .commands
            .iter()
            .flat_map(|c| overwritten(c, line))
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn each_form_names_the_files_it_writes_over() {
        for (line, expected) in [
            (": > f", vec!["f"]),
            ("echo > f", vec!["f"]),
            ("git show HEAD:f > f", vec!["f"]),
            ("dd if=/dev/zero of=f bs=1 count=0", vec!["f"]),
            ("tee f </dev/null", vec!["f"]),
            ("install /dev/null f", vec!["f"]),
            ("ln -sf x f", vec!["f"]),
            ("sort -o f g", vec!["f"]),
            ("sort --output=f g", vec!["f"]),
            ("mv -t src f", vec!["src/f"]),
            ("cp -t src a b", vec!["src/a", "src/b"]),
            ("cp a src", vec!["src/a"]),
            ("mv -f a f", vec!["f"]),
            ("install -m 644 a f", vec!["f"]),
            ("sort -k 2 -o f g", vec!["f"]),
            ("tar -xzf missing.tar.gz", vec![""]),
            ("tar -xf a.tar -C src", vec!["src"]),
        ] {
            assert_eq!(written(line), expected, "{line}");
        }
    }

    #[test]
    fn appending_reading_and_new_links_write_over_nothing() {
        for line in [
            "echo x >> f",
            "cmd 2>&1",
            "cmd > /dev/null",
            "ln -s x f",
            "sort -o f f",
            "tar -tf a.tar",
            "tar -czf a.tgz src",
            "tee -a f",
        ] {
            assert_eq!(written(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn the_quiet_path_lets_through_only_lines_that_may_write_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert!(may_overwrite("echo > f", dir.path()));
        assert!(may_overwrite("dd of=g", dir.path()));
        assert!(!may_overwrite("echo > new", dir.path()));
        assert!(!may_overwrite("ls -la", dir.path()));
        assert!(!may_overwrite("pytest >> f", dir.path()));
    }
}
