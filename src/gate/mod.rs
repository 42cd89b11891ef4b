//! The gate: what a shell command is about to do to shared state, and whether it should.
//!
//! `shell` finds the simple commands in a command line (unwrapping the programs of `wrappers`),
//! `classify` names the gated ones (git through `git`, other tools through the table in
//! `tools`, catastrophic deletes through `delete`, files written over through `overwrite`, files an
//! archiver deletes through `archived`, git's ref files deleted or written through `git_files`). `policy` rules on each in two halves:
//! `gather` collects the facts once (the target repository through `facts`, proof that the
//! code was verified since its last change through `evidence`, for which
//! `crate::transcript` reads the session file, and the gate's judge; a commit that runs only
//! after passing tests on the same line is its own evidence: `chained`), then `decide` turns them into silent, deny,
//! or ask a human, without reading anything; a commit or push that changes only documentation
//! and metadata (`not_code`) needs no evidence. `settings` holds the gate's configuration.
//! `protect` comes first: it denies actions against hookjudge itself, through the shell and the
//! agents' file-writing tools. `clean` reads what `git clean` would delete. `scratch` tells the session's own new files, which deleting loses
//! nothing of the user's. `repos` opens each repository once per hook call, for the git
//! aliases classification reads and for the facts gathered after. `outcome` is the gate's
//! answer to one command, from finding its gated actions to silent, deny or ask: the rules
//! around the rulings (the recursion guard, approvals, which repository's configuration
//! applies, how rulings combine, confinement) live there.

pub mod approval;
mod archived;
pub mod chained;
pub mod classify;
pub mod clean;
pub mod decide;
pub mod delete;
pub mod evidence;
pub mod facts;
pub mod find_select;
pub mod gather;
pub mod git;
pub mod git_files;
pub mod git_options;
pub mod glob;
mod in_place;
mod line_facts;
mod links;
pub mod not_code;
pub mod outcome;
pub mod overwrite;
mod packed;
pub mod patch;
pub mod policy;
pub mod protect;
pub mod repos;
pub mod scratch;
pub mod settings;
pub mod shell;
mod tar_members;
pub mod tools;
pub mod wrappers;

use std::path::Path;

use classify::{Class, Classified, Gated, Known, Target};
use repos::Repos;
use shell::Word;

/// How deep `!shell` git aliases are followed.
const MAX_ALIAS_SCRIPTS: usize = 3;

/// User-defined command prefixes, by class.
#[derive(Debug, Clone, Copy, Default)]
pub struct UserCommands<'a> {
    pub deploy: &'a [Vec<String>],
    pub publish: &'a [Vec<String>],
}

/// Every gated action in `command`; git aliases are read from `repos`, which keeps each
/// repository opened for the facts gathered afterwards.
pub fn find(command: &str, cwd: &Path, user: UserCommands, repos: &Repos) -> Vec<Gated> {
    let script = shell::parse(command, cwd);
    let mut found: Vec<Gated> = Vec::new();
    let mut unreadable: Vec<String> = script.incomplete.clone();
    collect(
        &script,
        command,
        user,
        repos,
        &mut found,
        &mut unreadable,
        0,
    );
    found.extend(overwrite::stray_redirects(command, &script.commands));
    let line_mentions_gated = classify::may_be_gated(command, user.deploy)
        || classify::may_be_gated(command, user.publish);
    if script.had_errors && line_mentions_gated && found.is_empty() {
        unreadable.push("does not parse".into());
    }
    // Program text computed or decoded at run time and fed to a shell: nothing on the line
    // says what it runs.
    unreadable.extend(script.unknowable.iter().cloned());
    if !unreadable.is_empty() && (line_mentions_gated || !script.unknowable.is_empty()) {
        unreadable.dedup();
        found.push(unparsed(command.to_owned(), &unreadable.join("; ")));
    }
    found
}

fn collect(
    script: &shell::Script,
    line: &str,
    user: UserCommands,
    repos: &Repos,
    found: &mut Vec<Gated>,
    unreadable: &mut Vec<String>,
    alias_depth: usize,
) {
    let mut known = Known {
        repos,
        deploy_commands: user.deploy,
        publish_commands: user.publish,
        aliases: git::LineAliases::default(),
        stashed: false,
        unstashed: false,
        renamed: Vec::new(),
        links: Vec::new(),
        added_remotes: Vec::new(),
    };
    for cmd in &script.commands {
        match classify::classify(cmd, &mut known) {
            Classified::Gated(gated) => found.extend(gated),
            Classified::Unreadable(why) => unreadable.push(part(line, &cmd.source, &why)),
            Classified::Script(text, gated) if alias_depth < MAX_ALIAS_SCRIPTS => {
                found.extend(gated);
                let mut inner = shell::Script::default();
                shell::parse_body(&text, cmd.cwd.clone(), cmd.depth + 1, &mut inner);
                unreadable.extend(inner.incomplete.iter().cloned());
                collect(
                    &inner,
                    line,
                    user,
                    repos,
                    found,
                    unreadable,
                    alias_depth + 1,
                );
            }
            Classified::Script(_, gated) => {
                found.extend(gated);
                unreadable.push("git aliases nested too deep".into());
            }
        }
        // Work written over (`: > f`, `dd of=f`, `cp -t dir f`): judged by its effect.
        found.extend(overwrite::gated(cmd, line));
        // Git's ref files written over (`rev-parse X > .git/refs/heads/main`).
        found.extend(git_files::ref_writes(cmd));
        found.extend(computed_target(cmd));
        // A program word that is no plain name but holds a gated one (`git${IFS}push`, or
        // `$c` split at a custom IFS): what runs depends on word splitting at run time.
        if let Some(first) = cmd.argv.first()
            && first
                .text()
                .contains(|c: char| !(c.is_ascii_alphanumeric() || "-_./+".contains(c)))
            && !first.text().contains("$(")
            && !first.text().contains('`')
            && first
                .text()
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .any(|w| tools::is_gated_program(w) || tools::is_gated_verb(w))
        {
            unreadable.push(part(
                line,
                &cmd.source,
                &format!(
                    "runs `{}`, which the shell splits at run time",
                    first.text()
                ),
            ));
        }
        // A computed program whose arguments (or the rest of the line) name a gated verb.
        if let Some(Word::Dynamic(program)) = cmd.argv.first()
            && cmd
                .argv
                .iter()
                .skip(1)
                .filter_map(Word::literal)
                .any(tools::is_gated_verb)
        {
            unreadable.push(part(
                line,
                &cmd.source,
                &format!("runs a program computed at run time (`{program}`) with a gated verb"),
            ));
        } else if let Some(Word::Dynamic(program)) = cmd.argv.first()
            && cmd.argv.len() == 1
            && (program.contains('@') || program.contains('*'))
        {
            unreadable.push(part(
                line,
                &cmd.source,
                &format!("runs whatever `{program}` holds"),
            ));
        }
    }
}

/// Git verbs that drop or move refs, stashes, files or history: a sub-verb or ref of theirs the
/// line takes from a program's output (`git stash $v`, `git branch -D "$b"`) could name any.
/// `branch` and `tag` lose something only with one of [`GIT_REF_LOSING_FLAGS`].
const GIT_VERBS_LOSING_WORK: [&str; 15] = [
    "stash",
    "branch",
    "tag",
    "reset",
    "checkout",
    "switch",
    "restore",
    "clean",
    "rm",
    "worktree",
    "update-ref",
    "symbolic-ref",
    "rebase",
    "reflog",
    "filter-branch",
];

/// The flags that make `git branch` or `git tag` delete, move or overwrite a ref.
const GIT_REF_LOSING_FLAGS: [&str; 10] = [
    "-d", "-D", "--delete", "-m", "-M", "--move", "-C", "-f", "--force", "-df",
];

/// Options whose value names something new or is a message: computed, it loses nothing
/// (`git checkout -b "fix-$(date +%s)"`, `git stash push -m "$(date)"`).
const NEW_NAME_OPTIONS: [&str; 6] = ["-b", "-c", "--create", "--orphan", "-m", "--message"];

/// A file written over, or a git verb that loses work, whose target the line takes from a
/// program's output (`f=$(git ls-files -m | head -1); : > "$f"`): what it hits is known only
/// when the line runs, so a person decides.
fn computed_target(cmd: &shell::SimpleCommand) -> Option<Gated> {
    let computed = |w: &Word| cmd.from_output.iter().any(|c| c == w.text());
    let written = cmd
        .writes
        .iter()
        .find(|w| computed(w) && !cmd.appends.contains(w));
    if let Some(target) = written {
        return Some(unparsed(
            format!("{} > {}", cmd.source, target.text()),
            &format!(
                "writes over a file whose name comes from a program's output (`{}`)",
                target.text()
            ),
        ));
    }
    if !git::is_git(cmd) {
        return None;
    }
    let at = 1 + cmd.argv[1..].iter().position(|w| {
        w.literal()
            .is_some_and(|v| GIT_VERBS_LOSING_WORK.contains(&v))
    })?;
    let verb = cmd.argv[at].text();
    let args = &cmd.argv[at + 1..];
    if matches!(verb, "branch" | "tag")
        && !args.iter().any(|w| {
            w.literal()
                .is_some_and(|f| GIT_REF_LOSING_FLAGS.contains(&f))
        })
    {
        return None;
    }
    let arg = args.iter().enumerate().find(|(i, w)| {
        computed(w)
            && !(*i > 0
                && args[i - 1]
                    .literal()
                    .is_some_and(|o| NEW_NAME_OPTIONS.contains(&o)))
    })?;
    Some(unparsed(
        cmd.source.clone(),
        &format!(
            "runs `git {verb}` on `{}`, which comes from a program's output",
            arg.1.text()
        ),
    ))
}

/// `why`, naming the part of the line it is about when that is not the whole line.
fn part(line: &str, source: &str, why: &str) -> String {
    if source.trim() == line.trim() {
        why.to_owned()
    } else {
        format!("`{}` {why}", short(source))
    }
}

fn short(text: &str) -> String {
    // The source of a command the gate could not read, in its reason.
    crate::support::text::short(text, 80)
}

fn unparsed(command: String, what: &str) -> Gated {
    Gated {
        class: Class::Unparsed,
        command,
        target: Target::default(),
        push: None,
        destructive: None,
        what: what.to_owned(),
    }
}
