//! Git's configuration written other than through `git config`: a `core.hooksPath` appended to
//! `.git/config` or `~/.gitconfig` switches hookjudge's pre-push hook off for every later push.
//! Writes through the shell (redirects, `tee`, `sed -i`, copies, `cd .git && … >> config`) and
//! the agents' file tools are refused; reads of the same files, and `git config KEY VALUE`
//! (read key by key by the git rules), are not.

use crate::self_protection::{Agent, run_gate, setup, shell_input, write_tool};

const AGENTS: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

#[test]
fn writes_of_gits_configuration_are_refused_and_reads_are_not() {
    let (home, repo) = setup();
    std::fs::write(
        repo.work.join("evil.cfg"),
        "[core]\n\thooksPath = /dev/null\n",
    )
    .unwrap();
    let refused = [
        "printf '[core]\\n\\thooksPath = /dev/null\\n' >> .git/config",
        "echo '[core] hooksPath = /dev/null' | tee -a .git/config",
        "sed -i 's/^\\[core\\]/[core]\\n\\thooksPath = \\/dev\\/null/' .git/config",
        "cp evil.cfg .git/config",
        "cat evil.cfg > ./.git/config.worktree",
        "cd .git && cat ../evil.cfg >> config",
        "cat evil.cfg >> ~/.gitconfig",
        "mkdir -p ~/.config/git && cp evil.cfg ~/.config/git/config",
    ];
    for agent in AGENTS {
        for command in refused {
            let (decision, reason) = run_gate(&home, shell_input(agent, &repo.work, command));
            assert_eq!(decision, "deny", "{agent:?} `{command}`: {reason}");
            assert!(
                reason.contains("git config KEY VALUE"),
                "{agent:?} `{command}`: {reason}"
            );
        }
    }
    for command in [
        "cat .git/config",
        "grep -n url .git/config",
        "cp .git/config /tmp/config-backup",
        "git config user.name 'A Person'",
        "git config --get remote.origin.url",
        "sed -n 1,5p ~/.gitconfig",
        "git clone https://example.com/x.git /tmp/x-clone",
    ] {
        let (decision, reason) = run_gate(&home, shell_input(Agent::Claude, &repo.work, command));
        assert_eq!(decision, "silent", "`{command}`: {reason}");
    }
}

#[test]
fn the_agents_file_tools_cannot_write_gits_configuration() {
    let (home, repo) = setup();
    for agent in AGENTS {
        for path in [
            repo.work.join(".git/config"),
            home.path().join(".gitconfig"),
        ] {
            let input = write_tool(
                agent,
                &repo.work,
                &path,
                "[core]\n\thooksPath = /dev/null\n",
            );
            let (decision, reason) = run_gate(&home, input);
            assert_eq!(decision, "deny", "{agent:?} {}: {reason}", path.display());
        }
        let input = write_tool(agent, &repo.work, &repo.work.join("config"), "[app]\n");
        assert_eq!(run_gate(&home, input).0, "silent", "{agent:?}");
    }
}
