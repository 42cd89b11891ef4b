//! The global part of a git command line: `-C`, `-c`, `--config-env`, `--git-dir`,
//! `--work-tree`, configuration from the environment, and alias expansion (from the command
//! line, from earlier in the line, and from the repository's and the user's git config).

use std::path::PathBuf;

use super::opts;
use crate::gate::classify::Target;
use crate::gate::repos::Repos;
use crate::gate::shell::{SimpleCommand, Word};

/// How many alias expansions are followed (git itself stops at loops).
const MAX_ALIAS_DEPTH: usize = 8;

/// Aliases defined by earlier commands of the same line (`git config alias.ship push`), and
/// `help.autocorrect` set there (it makes git run the command an unknown one resembles).
#[derive(Debug, Clone, Default)]
pub struct LineAliases(pub Vec<(String, String)>);

/// A git command, read.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    pub target: Target,
    /// `-c`/`--config-env`/`GIT_CONFIG_*` pairs, lower-cased keys, in order.
    pub config: Vec<(String, String)>,
    /// The subcommand and its words, after alias expansion; `None` for `git` alone or `--help`.
    pub verb: Option<Word>,
    pub args: Vec<Word>,
    /// A global option or alias step could not be read (a computed value).
    pub unreadable: Option<String>,
    /// A `!shell` alias: the command it runs.
    pub shell_alias: Option<String>,
}

impl Invocation {
    pub(super) fn config_value(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the global part of a git command line and expands aliases (those of the repository
/// read from `repos`, which opens it once for the whole hook call).
pub fn read(cmd: &SimpleCommand, line: &LineAliases, repos: &Repos) -> Invocation {
    let mut inv = Invocation {
        target: Target {
            dir: cmd.cwd.clone(),
            git_dir: env_path(cmd, "GIT_DIR"),
            work_tree: env_path(cmd, "GIT_WORK_TREE"),
        },
        ..Invocation::default()
    };
    env_config(cmd, &mut inv);
    let program = cmd.program().unwrap_or("git");
    let mut words: Vec<Word> = cmd.argv[1..].to_vec();
    if let Some(verb) = program.strip_prefix("git-") {
        words.insert(0, Word::Literal(verb.to_owned()));
    }
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let Some(arg) = word.literal() else {
            inv.verb = Some(word.clone());
            inv.args = words[i + 1..].to_vec();
            return inv;
        };
        if !arg.starts_with('-') {
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg, None),
        };
        if matches!(
            name,
            "-h" | "--help" | "-v" | "--version" | "--html-path" | "--man-path" | "--info-path"
        ) {
            return inv; // git prints and exits
        }
        let value = if opts::GLOBAL_VALUE_OPTIONS.contains(&name) && inline.is_none() {
            i += 1;
            match words.get(i) {
                Some(Word::Literal(v)) => Some(v.clone()),
                Some(Word::Dynamic(src)) => {
                    inv.unreadable = Some(format!("`{name} {src}` is computed at run time"));
                    None
                }
                None => None,
            }
        } else {
            inline
        };
        let base = inv.target.dir.clone();
        match (name, value) {
            ("-C", Some(v)) => {
                inv.target.dir = Some(resolve(&base, &v));
            }
            ("--git-dir", Some(v)) => inv.target.git_dir = Some(resolve(&base, &v)),
            ("--work-tree", Some(v)) => inv.target.work_tree = Some(resolve(&base, &v)),
            ("-c", Some(v)) => {
                let (k, val) = v.split_once('=').unwrap_or((&v, "true"));
                inv.config.push((k.to_ascii_lowercase(), val.to_owned()));
            }
            ("--config-env", Some(v)) => {
                // `--config-env=key=ENVVAR`: the value comes from the environment.
                let (k, var) = v.split_once('=').unwrap_or((&v, ""));
                let val = cmd
                    .env_var(var)
                    .and_then(Word::literal)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("${var}"));
                inv.config.push((k.to_ascii_lowercase(), val));
            }
            _ => {}
        }
        i += 1;
    }
    let mut words: Vec<Word> = words.split_off(i.min(words.len()));
    // Aliases: a built-in always wins; otherwise the command line, this line's `git config
    // alias.…`, then the repository's and the user's config.
    for _ in 0..MAX_ALIAS_DEPTH {
        let Some(Word::Literal(verb)) = words.first().cloned() else {
            break;
        };
        if opts::is_builtin(verb.as_str()) {
            break;
        }
        let key = format!("alias.{}", verb.to_ascii_lowercase());
        let in_line = || {
            line.0
                .iter()
                .rev()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
        };
        let found = inv
            .config_value(&key)
            .map(str::to_owned)
            .or_else(in_line)
            .or_else(|| config_alias(&inv.target, &key, repos));
        let Some(expansion) = found else {
            // Another config file named by the environment may define the alias.
            if let Some((name, file)) = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"]
                .iter()
                .find_map(|n| cmd.env_var(n).map(|w| (n, w.text().to_owned())))
                .filter(|(_, f)| !f.is_empty() && f != "/dev/null")
            {
                inv.unreadable = Some(format!(
                    "`{verb}` is no git command and may be an alias in `{file}` (`{name}`)"
                ));
            } else if autocorrects(&inv, line, repos) {
                inv.unreadable = Some(format!(
                    "`{verb}` is no git command, and with `help.autocorrect` set git runs the command it resembles instead"
                ));
            }
            break;
        };
        if let Some(shell) = expansion.strip_prefix('!') {
            let rest: Vec<&str> = words[1..].iter().map(Word::text).collect();
            inv.shell_alias = Some(format!("{shell} {}", rest.join(" ")).trim().to_owned());
            inv.verb = None;
            return inv;
        }
        let Ok(mut parts) = shell_words::split(&expansion) else {
            inv.unreadable = Some(format!("the alias `{verb}` does not parse"));
            break;
        };
        // An alias may start with global options (`-c x=y push`): keep only the command.
        while parts.first().is_some_and(|p| p.starts_with('-')) {
            let p = parts.remove(0);
            if p == "-c" && !parts.is_empty() {
                let v = parts.remove(0);
                let (k, val) = v.split_once('=').unwrap_or((&v, "true"));
                inv.config.push((k.to_ascii_lowercase(), val.to_owned()));
            }
        }
        let tail = words.split_off(1);
        words = parts.into_iter().map(Word::Literal).chain(tail).collect();
    }
    let mut iter = words.into_iter();
    inv.verb = iter.next();
    inv.args = iter.collect();
    inv
}

/// Whether git would run the command closest to an unknown one (`git pus` as `git push`):
/// `help.autocorrect` from the command line, this line's `git config`, or the repository's
/// and the user's config, set to anything but its values that only suggest.
fn autocorrects(inv: &Invocation, line: &LineAliases, repos: &Repos) -> bool {
    const KEY: &str = "help.autocorrect";
    let value = inv
        .config_value(KEY)
        .map(str::to_owned)
        .or_else(|| {
            line.0
                .iter()
                .rev()
                .find(|(k, _)| k == KEY)
                .map(|(_, v)| v.clone())
        })
        .or_else(|| config_alias(&inv.target, KEY, repos));
    value.is_some_and(|v| {
        !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off" | "never" | "show"
        )
    })
}

/// `alias.<name>` from the target repository's config (which includes the user's). A
/// repository that does not open defines no alias: gathering its facts reports why.
fn config_alias(target: &Target, key: &str, repos: &Repos) -> Option<String> {
    let opened = repos.named(target)?;
    let repo = opened.as_ref().as_ref().ok()?;
    let config = repo.repo.config_snapshot();
    config.string(key).map(|v| v.to_string())
}

/// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` and `GIT_CONFIG_PARAMETERS`.
fn env_config(cmd: &SimpleCommand, inv: &mut Invocation) {
    let count = cmd
        .env_var("GIT_CONFIG_COUNT")
        .and_then(Word::literal)
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(0);
    for n in 0..count.min(64) {
        if let Some(k) = cmd
            .env_var(&format!("GIT_CONFIG_KEY_{n}"))
            .and_then(Word::literal)
        {
            let v = cmd
                .env_var(&format!("GIT_CONFIG_VALUE_{n}"))
                .map(Word::text)
                .unwrap_or("");
            inv.config.push((k.to_ascii_lowercase(), v.to_owned()));
        }
    }
    if let Some(params) = cmd.env_var("GIT_CONFIG_PARAMETERS") {
        for part in shell_words::split(params.text()).unwrap_or_default() {
            let (k, v) = part.split_once('=').unwrap_or((&part, "true"));
            inv.config.push((k.to_ascii_lowercase(), v.to_owned()));
        }
    }
}

fn env_path(cmd: &SimpleCommand, name: &str) -> Option<PathBuf> {
    cmd.env_var(name)
        .and_then(Word::literal)
        .map(|v| resolve(&cmd.cwd, v))
}

fn resolve(base: &Option<PathBuf>, path: &str) -> PathBuf {
    match base {
        Some(b) if !path.starts_with('/') => b.join(path),
        _ => PathBuf::from(path),
    }
}

/// Aliases (and `help.autocorrect`) a command defines for later commands of the line:
/// `git config [--global] alias.x v`, typed out or reached through an alias (`git c alias.x v`
/// after `git config alias.c config`), from the command already read.
pub(super) fn defined_alias(inv: &Invocation) -> Option<(String, String)> {
    if inv.verb.as_ref().and_then(Word::literal) != Some("config") {
        return None;
    }
    let words: Vec<&str> = inv.args.iter().filter_map(Word::literal).collect();
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-') && *w != "set")
        .collect();
    match operands.as_slice() {
        [key, value, ..]
            if key.to_ascii_lowercase().starts_with("alias.")
                || key.eq_ignore_ascii_case("help.autocorrect") =>
        {
            Some((key.to_ascii_lowercase(), (*value).to_owned()))
        }
        _ => None,
    }
}
