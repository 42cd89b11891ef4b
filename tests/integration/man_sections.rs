//! The man page sections that clap cannot derive from the CLI definition: EXIT STATUS,
//! ENVIRONMENT, FILES and EXAMPLES, per page, as data. `man.rs` renders them into the pages.

/// One entry of a section: a term (a command line, a variable, a path, an exit code) and what
/// it means. Backticks mark code, as in the `--help` text; they become bold in the page.
pub type Entry = (&'static str, &'static str);

/// Exit codes shared by the commands that work for a person (not the hooks).
const EXIT_COMMON: &[Entry] = &[
    ("0", "Done."),
    (
        "2",
        "The command could not do its work (bad arguments, unreadable config or log); the message says what to do next.",
    ),
];

/// Commands that ask the person at the terminal before they weaken hookjudge.
const EXIT_PERSON: &[Entry] = &[
    ("0", "Done."),
    ("1", "You declined on the terminal; nothing changed."),
    (
        "2",
        "Nothing changed: the command could not do its work, or it needed your terminal (no terminal, not run in front of it, or inside an agent's tool); the message says what to do next.",
    ),
];

const ENVIRONMENT: &[Entry] = &[
    (
        "HOOKJUDGE_CONFIG",
        "A config file to apply on top of the others, like `--config`.",
    ),
    (
        "OPENAI_API_KEY, ANTHROPIC_API_KEY",
        "API keys the `auto` provider looks for; `llm.api_key_env` names another variable.",
    ),
    (
        "HOOKJUDGE_ACTIVE",
        "Set to 1 in the environment of every LLM call; a hook started with it set does nothing, so an agent CLI used as judge does not judge itself.",
    ),
    (
        "XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME",
        "Where the user config, the decision log and the loop breaker's state live (see FILES).",
    ),
    (
        "TZ",
        "The time zone `log`, `stats` and `replay` show times in (unless `--utc`).",
    ),
    (
        "COLUMNS",
        "The width `log` and `stats` lay their tables out for; by default the terminal's, or 80.",
    ),
];

const FILES: &[Entry] = &[
    (
        "~/.config/hookjudge/config.json",
        "The user config (under `XDG_CONFIG_HOME`).",
    ),
    (
        ".hookjudge.json",
        "The repository config, found from the working directory up; it overrides the user config.",
    ),
    (
        "~/.local/share/hookjudge/logs/decisions-YYYY-MM-DD.jsonl",
        "The decision log, one JSON line per decision and one file per UTC day (`log.dir`); files older than `log.retention_days` (30) are deleted.",
    ),
    (
        "~/.local/state/hookjudge/",
        "The loop breaker's ledger and the LLM answer cache.",
    ),
    (
        ".claude/settings.json, .claude/settings.local.json, .codex/hooks.json, .gemini/settings.json",
        "The agent settings `init` adds its hook entries to.",
    ),
];

/// `(page, section, entries)`; the page is the subcommand's name, `""` for `hookjudge` itself.
pub const SECTIONS: &[(&str, &str, &[Entry])] = &[
    (
        "",
        "EXIT STATUS",
        &[
            ("0", "Done, allowed, or nothing needs attention."),
            (
                "1",
                "A block (`judge`), or something that needs attention (`check`, `doctor`).",
            ),
            (
                "2",
                "The command could not do its work. The hook entries `stop` and `gate` always exit 0 and answer on stdout.",
            ),
        ],
    ),
    ("", "ENVIRONMENT", ENVIRONMENT),
    ("", "FILES", FILES),
    (
        "",
        "EXAMPLES",
        &[
            (
                "hookjudge init",
                "Install the hooks in this repository for the agents whose folders exist.",
            ),
            (
                "hookjudge doctor",
                "Check the installation and the LLM, with the fix for each problem.",
            ),
            (
                "hookjudge log --blocks --since 2d",
                "Blocks, releases, denies and asks of the last two days.",
            ),
            (
                "hookjudge stats --since 2026-11-01",
                "Wake rates, outcomes and a per-day trend since local midnight of 1 November.",
            ),
            (
                "hookjudge completions bash > ~/.local/share/bash-completion/completions/hookjudge",
                "Install bash completions.",
            ),
        ],
    ),
    (
        "stop",
        "EXIT STATUS",
        &[(
            "0",
            "Always. A block is the JSON on stdout; any failure lets the turn end (fail-open), is logged and is noted for the human.",
        )],
    ),
    (
        "stop",
        "EXAMPLES",
        &[(
            "echo '{\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"Shall I push?\"}' | hookjudge stop --agent claude",
            "What the Stop hook answers for a response (the agent normally calls it).",
        )],
    ),
    (
        "gate",
        "EXIT STATUS",
        &[(
            "0",
            "Always. A deny or an ask is the JSON on stdout; silence leaves the agent's own permission rules in force. When it cannot decide, a human does (fail-safe).",
        )],
    ),
    (
        "gate",
        "EXAMPLES",
        &[(
            "echo '{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push\"},\"cwd\":\".\"}' | hookjudge gate --agent claude",
            "What the gate says about a push from here.",
        )],
    ),
    ("init", "EXIT STATUS", EXIT_PERSON),
    (
        "init",
        "EXAMPLES",
        &[
            (
                "hookjudge init --dry-run",
                "Print the changes as a diff and write nothing.",
            ),
            (
                "hookjudge init --agent all --git-hook",
                "Install for Claude Code, Codex CLI and Gemini CLI, and the git pre-push hook.",
            ),
        ],
    ),
    ("uninstall", "EXIT STATUS", EXIT_PERSON),
    (
        "uninstall",
        "EXAMPLES",
        &[(
            "hookjudge uninstall --git-hook",
            "Remove the hook entries and the pre-push hook.",
        )],
    ),
    (
        "doctor",
        "EXIT STATUS",
        &[
            ("0", "Everything checked is in order."),
            (
                "1",
                "Problems were found; each is printed with the command that fixes it.",
            ),
            ("2", "The check itself could not run."),
        ],
    ),
    (
        "doctor",
        "EXAMPLES",
        &[(
            "hookjudge doctor --online",
            "Also make one LLM call and report the answer and its latency.",
        )],
    ),
    ("config", "EXIT STATUS", EXIT_COMMON),
    ("config", "FILES", FILES),
    (
        "config",
        "EXAMPLES",
        &[
            (
                "hookjudge config show",
                "Every effective value with the file it comes from.",
            ),
            (
                "hookjudge config schema > hookjudge.schema.json",
                "A JSON Schema of the config, for editors.",
            ),
        ],
    ),
    (
        "trust",
        "EXIT STATUS",
        &[
            ("0", "Trusted, revoked or listed."),
            ("1", "You declined on the terminal; nothing changed."),
            (
                "2",
                "Nothing was trusted: no terminal to ask on, not run in front of it, run inside an agent's tool, or the file is missing or not valid config.",
            ),
        ],
    ),
    (
        "trust",
        "EXAMPLES",
        &[
            (
                "hookjudge trust",
                "Show what this repository's `.hookjudge.json` would change once trusted, and ask.",
            ),
            (
                "hookjudge trust --list",
                "The trusted files, and whether each still holds the trusted content.",
            ),
            (
                "hookjudge trust --revoke",
                "Make this repository's file count as untrusted again.",
            ),
        ],
    ),
    (
        "approve",
        "EXIT STATUS",
        &[
            ("0", "Approved, or nothing waits for approval."),
            ("1", "You declined on the terminal."),
            (
                "2",
                "Nothing was approved: no terminal, run inside an agent's tool, or no waiting command has that id.",
            ),
        ],
    ),
    (
        "approve",
        "EXAMPLES",
        &[
            (
                "hookjudge approve",
                "In your own terminal: choose a command the gate held back for Codex or Gemini, and approve one run of it.",
            ),
            (
                "hookjudge approve --list",
                "The commands waiting, with their repository and why they were held back.",
            ),
        ],
    ),
    (
        "check",
        "EXIT STATUS",
        &[
            (
                "0",
                "Clear, or confirmed (on the terminal, or with `--yes`).",
            ),
            (
                "1",
                "Something needs attention and it was declined, or there was no terminal to ask on.",
            ),
            (
                "2",
                "The check could not run (for example outside a git work tree).",
            ),
        ],
    ),
    (
        "check",
        "EXAMPLES",
        &[
            (
                "hookjudge check",
                "Before a push: the branch, what would be pushed, the evidence, the verdict.",
            ),
            (
                "hookjudge check --commit --no-input",
                "For scripts: never ask, exit 1 when something needs attention.",
            ),
            (
                "hookjudge check --yes",
                "Proceed although something needs attention; the approval is logged.",
            ),
        ],
    ),
    (
        "judge",
        "EXIT STATUS",
        &[
            ("0", "Allow."),
            ("1", "Block: at least one judge found a violation."),
            ("2", "Error."),
        ],
    ),
    (
        "judge",
        "EXAMPLES",
        &[
            (
                "echo 'Shall I push to main?' | hookjudge judge --no-llm",
                "Layer 1 only: which judges the text wakes.",
            ),
            (
                "hookjudge judge --judge commit --json response.txt",
                "One judge, with the LLM, as JSON.",
            ),
        ],
    ),
    ("eval", "EXIT STATUS", EXIT_COMMON),
    (
        "eval",
        "EXAMPLES",
        &[(
            "hookjudge eval fixtures/judge-cases.jsonl --misses",
            "Layer 1 recall and wake rate per judge, and every case it gets wrong.",
        )],
    ),
    (
        "log",
        "EXIT STATUS",
        &[
            ("0", "Done, also when nothing is logged."),
            ("2", "Bad arguments or an unreadable log."),
        ],
    ),
    (
        "log",
        "ENVIRONMENT",
        &[
            (
                "TZ",
                "The time zone times are shown in, and `--since` dates are read in (unless `--utc`).",
            ),
            (
                "COLUMNS",
                "The width the table is laid out for; by default the terminal's, or 80. Long cells end in an ellipsis.",
            ),
        ],
    ),
    ("log", "FILES", &[FILES[2]]),
    (
        "log",
        "EXAMPLES",
        &[
            ("hookjudge log", "The last 20 decisions, local time."),
            (
                "hookjudge log --since 2026-12-01 --utc",
                "Everything since midnight UTC of 1 December.",
            ),
            (
                "hookjudge log --judge commit --json",
                "The raw records in which the commit judge woke.",
            ),
        ],
    ),
    (
        "stats",
        "EXIT STATUS",
        &[
            ("0", "Done, also when nothing is logged."),
            ("2", "Bad arguments or an unreadable log."),
        ],
    ),
    (
        "stats",
        "ENVIRONMENT",
        &[
            ("TZ", "The time zone days are counted in (unless `--utc`)."),
            (
                "COLUMNS",
                "The width the text is laid out for; by default the terminal's, or 80.",
            ),
        ],
    ),
    ("stats", "FILES", &[FILES[2]]),
    (
        "stats",
        "EXAMPLES",
        &[
            (
                "hookjudge stats --since 7d",
                "The last week: outcomes per response, per judge, of the LLM and of the gate, and per day.",
            ),
            (
                "hookjudge stats --json",
                "The same figures as one JSON object.",
            ),
        ],
    ),
    ("redact", "EXIT STATUS", EXIT_COMMON),
    (
        "redact",
        "EXAMPLES",
        &[(
            "hookjudge redact --json < response.txt",
            "What would be removed before an LLM call, with counts per kind.",
        )],
    ),
    (
        "replay",
        "EXIT STATUS",
        &[
            ("0", "Done, also when nothing is logged or nothing changed."),
            ("2", "Bad arguments, an unknown judge or an unreadable log."),
        ],
    ),
    ("replay", "FILES", &[FILES[2]]),
    (
        "replay",
        "EXAMPLES",
        &[
            (
                "hookjudge replay --no-llm",
                "After a pattern edit: which Layer 1 outcomes change.",
            ),
            (
                "hookjudge replay --since 7d --jobs 8",
                "Re-judge last week's responses with the LLM, 8 at a time.",
            ),
        ],
    ),
    ("completions", "EXIT STATUS", EXIT_COMMON),
    (
        "completions",
        "EXAMPLES",
        &[
            (
                "hookjudge completions bash > ~/.local/share/bash-completion/completions/hookjudge",
                "bash (bash-completion loads it on demand).",
            ),
            (
                "hookjudge completions zsh > ~/.zfunc/_hookjudge",
                "zsh, with ~/.zfunc in fpath.",
            ),
            (
                "hookjudge completions fish > ~/.config/fish/completions/hookjudge.fish",
                "fish.",
            ),
        ],
    ),
    ("install-extras", "EXIT STATUS", EXIT_COMMON),
    (
        "install-extras",
        "EXAMPLES",
        &[
            (
                "hookjudge install-extras",
                "After `cargo install`: the man pages in ~/.cargo/share/man (next to ~/.cargo/bin), the completions for bash, zsh and fish under ~/.local/share.",
            ),
            (
                "hookjudge install-extras --prefix /usr/local",
                "For every user (run it with the rights to write there).",
            ),
        ],
    ),
];
