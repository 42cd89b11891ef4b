//! Removing wrapper programs (the table in `wrappers`) from a command, keeping the
//! assignments, directories and script options they carry.

use std::path::PathBuf;

use super::{SimpleCommand, Word};
use crate::gate::wrappers;

/// Removes wrapper programs (the table in `wrappers`), collecting the command lines some of
/// them hand to a shell (`su -c '…'`, `watch …`).
pub(super) fn unwrap_wrappers(cmd: &mut SimpleCommand, bodies: &mut Vec<String>) {
    for _ in 0..8 {
        let Some(program) = cmd.program().map(str::to_owned) else {
            return;
        };
        let first = cmd.argv.get(1).and_then(Word::literal).map(str::to_owned);
        let Some(wrapper) = wrappers::wrapper(&program, first.as_deref()) else {
            return;
        };
        // `su root -c '…'`: a script option may come after the operands.
        if !wrapper.script_options.is_empty()
            && let Some(body) = script_option_anywhere(wrapper, &cmd.argv[1..])
        {
            if let Word::Literal(body) = body {
                bodies.push(body);
            }
            cmd.argv.truncate(1);
            return;
        }
        let mut i = if wrapper.sub.is_some() { 2 } else { 1 };
        let mut chdir: Option<String> = None;
        let mut operands_left = wrapper.operands;
        while let Some(word) = cmd.argv.get(i) {
            // `env HOME="$HOME" cmd`: an assignment with a computed value is still one.
            if program == "env"
                && let Word::Dynamic(src) = word
                && let Some((k, v)) = src.split_once('=')
                && assignment(&format!("{k}=")).is_some()
            {
                cmd.env.push((k.to_owned(), Word::Dynamic(v.to_owned())));
                i += 1;
                continue;
            }
            let Some(arg) = word.literal().map(str::to_owned) else {
                break;
            };
            if arg == "--" {
                i += 1;
                break;
            }
            if program == "env" && !arg.starts_with('-') && arg.contains('=') {
                let (k, v) = arg.split_once('=').expect("contains =");
                cmd.env.push((k.to_owned(), Word::Literal(v.to_owned())));
                i += 1;
                continue;
            }
            if !arg.starts_with('-') || arg == "-" {
                if operands_left > 0 {
                    operands_left -= 1;
                    i += 1;
                    continue;
                }
                break;
            }
            if program == "env" && matches!(arg.as_str(), "-S" | "--split-string") {
                // `env -S 'git push'`: the string is split into the command.
                if let Some(Word::Literal(s)) = cmd.argv.get(i + 1).cloned() {
                    let words: Vec<Word> = shell_words::split(&s)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Word::Literal)
                        .collect();
                    cmd.argv.splice(i..i + 2, words);
                    continue;
                }
            }
            // The option's name and whether its value is attached (`-uroot`, `--user=root`).
            let (takes, script_opt, attached) = option_shape(wrapper, &arg);
            let value = match attached {
                Some(v) => Some(Word::Literal(v)),
                None if takes || script_opt => {
                    i += 1;
                    cmd.argv.get(i).cloned()
                }
                None => None,
            };
            if program == "env" && matches!(arg.as_str(), "-C" | "--chdir") {
                chdir = value.as_ref().and_then(Word::literal).map(str::to_owned);
            }
            if script_opt {
                match value {
                    Some(Word::Literal(body)) => bodies.push(body),
                    Some(Word::Dynamic(_)) | None => {}
                }
                // The command is the script; the rest are operands (a user, a file).
                cmd.argv.truncate(1);
                return;
            }
            i += 1;
        }
        if wrapper.joins && i < cmd.argv.len() {
            let joined: Vec<&str> = cmd.argv[i..].iter().map(Word::text).collect();
            bodies.push(joined.join(" "));
            cmd.argv.truncate(1);
            return;
        }
        if program == "sg"
            && let Some(Word::Literal(body)) = cmd.argv.get(i)
        {
            bodies.push(body.clone());
            cmd.argv.truncate(1);
            return;
        }
        if i >= cmd.argv.len() {
            return;
        }
        cmd.argv.drain(..i);
        // `sudo VAR=1 cmd` and friends: assignments after a wrapper still reach the command.
        while let Some((k, v)) = cmd
            .argv
            .first()
            .and_then(Word::literal)
            .and_then(assignment)
        {
            cmd.env.push((k, Word::Literal(v)));
            cmd.argv.remove(0);
        }
        if let Some(dir) = chdir {
            cmd.cwd = cmd
                .cwd
                .take()
                .map(|c| c.join(&dir))
                .or(Some(PathBuf::from(dir)));
        }
    }
}

/// The value of a script option (`-c '…'`, `--command=…`) anywhere among `args`.
fn script_option_anywhere(wrapper: &wrappers::Wrapper, args: &[Word]) -> Option<Word> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(arg) = word.literal() else {
            i += 1;
            continue;
        };
        if arg == "--" {
            return None;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            let (takes, script, attached) = option_shape(wrapper, arg);
            if script {
                return attached
                    .map(Word::Literal)
                    .or_else(|| args.get(i + 1).cloned());
            }
            if takes && attached.is_none() {
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// (takes a value, its value is a script, the value when attached) for one option word.
fn option_shape(wrapper: &wrappers::Wrapper, arg: &str) -> (bool, bool, Option<String>) {
    if let Some(long) = arg.strip_prefix("--") {
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (long, None),
        };
        let script = wrapper.script_options.contains(&name);
        return (wrappers::takes_value(wrapper, name), script, inline);
    }
    // A cluster of short options: the first that takes a value takes the rest of the cluster,
    // or the next word (`sudo -iu root`, `su -lc 'cmd'`).
    let letters: Vec<char> = arg[1..].chars().collect();
    for (k, c) in letters.iter().enumerate() {
        let name = c.to_string();
        let script = wrapper.script_options.contains(&name.as_str());
        if script || wrappers::takes_value(wrapper, &name) {
            let rest: String = letters[k + 1..].iter().collect();
            return (true, script, (!rest.is_empty()).then_some(rest));
        }
    }
    (false, false, None)
}

/// `NAME=value` with a valid variable name.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::gate::shell::{Word, parse};

    #[test]
    fn wrappers_and_env_prefixes() {
        let s = parse(
            "HUSKY=0 sudo -u me env GIT_DIR=/r timeout -s KILL 10 nice -n 5 git push",
            Path::new("/w"),
        );
        let c = s.commands.last().unwrap();
        assert_eq!(
            c.argv.iter().map(Word::text).collect::<Vec<_>>(),
            ["git", "push"]
        );
        assert_eq!(c.env_var("HUSKY"), Some(&Word::Literal("0".into())));
        assert_eq!(c.env_var("GIT_DIR"), Some(&Word::Literal("/r".into())));
    }

    #[test]
    fn wrappers_from_the_table() {
        for line in [
            "setsid git push",
            "flock .lock git push",
            "strace -f -o /dev/null git push",
            "sudo -iu root git push",
            "runuser -u root -- git push",
            "unshare -r git push",
            "taskset -c 0 git push",
            "npx -y git push",
            "uv run --with x git push",
        ] {
            let s = parse(line, Path::new("/w"));
            let last = s.commands.last().unwrap();
            assert_eq!(
                last.argv.iter().map(Word::text).collect::<Vec<_>>(),
                ["git", "push"],
                "{line}"
            );
        }
    }
}
