#!/usr/bin/env python3
"""Runs two hookjudge binaries over the same deterministic invocations and reports every
difference in what they print and log.

    scripts/same-output.py --before OLD_BINARY --after NEW_BINARY [--jobs N] [--full]

For a change that must not change behaviour (moving modules, typing values): build both
(`cargo build` in each checkout; debug builds are fine), then run this. It exits 0 when every
invocation is identical, 1 on any difference (each shown as a unified diff), 2 on a usage or
setup error.

What it runs (2 445 invocations, 5 762 steps by default): top-level and every subcommand's
help; `gate` on every line of the four gate fixtures (2 218 lines), each in Claude Code's
PreToolUse shape and in turn Codex CLI's or Gemini CLI's (`--full`: all three shapes); `stop`
(the three agents' shapes; no LLM is reachable, so it fails open) and `judge` (plain and
`--json`) on every 50th case of `fixtures/judge-cases.jsonl` plus the first of each judge and
label (`--full`: every case); `stop` with a scripted command LLM that blocks; `check`,
`config show|check|path|schema`, `doctor`, `init` and `uninstall` (dry runs and real ones) for
each agent, `trust --list`, `approve --list`, `redact`, `completions`, `install-extras
--dry-run`, `eval` (every 40th case; `--full`: all), `replay`, `log` and `stats` (after hooks
wrote lines, and on hand-written lines in 0.1.0's format), and error cases (bad hook input,
unknown flags, a misspelled config key or value, a regex that is not one, a panic in each hook,
a hook input over the size limit).

Every invocation gets a fresh environment, built by this script at the same path for both
binaries: `SCRATCH/wK/env` (K is the worker) holding a HOME with XDG dirs, a user config whose
LLM is a closed port on 127.0.0.1 (`llm.base_url`), and for the repository scene the scene of
`tests/integration/gate_corpus.rs` (a repository two commits ahead of a bare origin, a dirty
tracked file, an untracked file, a nested repository with unpushed commits), with fixed commit
dates so commit ids are the same in every run. Between invocations the environment is copied
afresh from its template, or, when the invocation wrote nothing outside hookjudge's own dirs
(checked file by file), those dirs are emptied. Each process gets only PATH, HOME, XDG_*,
TMPDIR, TZ=UTC, LANG=C.UTF-8, COLUMNS=100 and git's fixed dates: no API key, no agent marker,
no terminal (a new session). Each binary is hard-linked to the same path
(`SCRATCH/wK/env/bin/hookjudge`) before it runs, so paths it prints (hook entries, `doctor`)
match; the two runs of one invocation follow each other. Run from inside an agent, hookjudge's
own agent detection (process ancestry) sees it in both runs alike.

Compared per invocation, step by step: stdout, stderr, exit status, and the decision-log lines
the step appended (the files under `XDG_DATA_HOME/hookjudge/logs`), after these normalisations,
the only ones (`--no-normalise` compares the raw text):

  1. ISO-8601 times (`2026-12-02T11:36:45.851Z`, with or without seconds, fraction, zone)
     -> <TS>
  2. Measured durations and clock readings in JSON: the numbers of `"timings_us"` (a number or
     an object of numbers), and of `latency_ms*`, `median_layer2_ms`,
     `expected_added_ms_per_turn`, `mean_added_ms`, `mean_added_ms_per_response`,
     `newest_mtime_ms`, `requested_ms`, `approved_ms`, `age_ms` -> <N>
  3. Durations printed for people: `<number> ms` / `<number>ms` / `<number> µs` -> <N> ms, and
     `(<number>.<digit> s)` -> (<N> s)
  4. `replay`'s progress lines before its last one (`replay: 2/6 responses judged (0.2 s)`):
     how many are printed depends on timing and thread order -> removed
  5. The current UTC date (the days the pair ran on), as in the log's file names and the
     per-day trend of `stats` (also as MM-DD) -> <TODAY>
  6. Times of day (`HH:MM` or `HH:MM:SS` at a line's start, after whitespace or a date)
     -> <HH:MM>
  7. The source location a panic names (` at src/…/file.rs:LINE`) -> ` at <SRC>`: it moves
     with the code by design
  8. Process ids (`pid 1234`) -> pid <PID>; approval ids, a hash of the command and the time
     (`[0f64c2]`) -> [<ID>]

Options: `--only REGEX` runs only the invocations whose name matches; `--list` lists them;
`--show NAME` prints one invocation's normalised output for the before binary; `--jobs N`
(default 2) runs N invocations at once, each worker in its own `SCRATCH/wK`.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = REPO_ROOT / "fixtures"
# A loopback port nothing listens on: the LLM provider is pointed here, so every call fails to
# connect at once (checked at start-up).
CLOSED_PORT = 9
GIT_DATE = "2026-01-01T00:00:00Z"
MAX_DIFF_LINES = 40
# The mtime of the files an invocation writes before a step (a day after the commits), so that
# "newest change" facts do not depend on when the step ran.
WRITTEN_MTIME = datetime(2026, 1, 2, tzinfo=timezone.utc).timestamp()
STEP_TIMEOUT = 60
# A tmpfs where there is one: resetting an environment is a copy of a few hundred small files.
# One directory per run (both binaries of a run share it, so paths in outputs match), so that
# two runs at once do not remove each other's environments.
DEFAULT_SCRATCH = (
    Path("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp") / f"hookjudge-same-output-{os.getpid()}"
)

# ---------------------------------------------------------------------------------------------
# Normalisation

NORMALISERS = [
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<TS>"),
    (re.compile(r'("timings_us":\s*)\d+'), r"\1<N>"),
    (
        re.compile(r'("timings_us":\s*)\{[^{}]*\}'),
        lambda m: m.group(1) + re.sub(r"(:\s*)\d+", r"\1<N>", m.group(0)[len(m.group(1)):]),
    ),
    (re.compile(r'("(?:latency_ms\w*|median_layer2_ms|expected_added_ms_per_turn|mean_added_ms|mean_added_ms_per_response'
                r'|newest_mtime_ms|requested_ms|approved_ms|age_ms)":\s*)-?\d+(?:\.\d+)?'), r"\1<N>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(ms|µs)\b"), r"<N> \1"),
    (re.compile(r" at src/[\w/.-]+\.rs:\d+(?::\d+)?"), " at <SRC>"),
    (re.compile(r"\bpid \d+"), "pid <PID>"),
    (re.compile(r"\[[0-9a-f]{6}\]"), "[<ID>]"),
    (re.compile(r"(?m)^replay: (\d+)/(?!\1 )\d+ responses judged \([\d.]+ s\)\n"), ""),
    (re.compile(r"\(\d+\.\d s\)"), "(<N> s)"),
]
TIME_OF_DAY = re.compile(r"(?m)(^|<TODAY> |\d{2}-\d{2} |\s)\d{2}:\d{2}(?::\d{2})?\b")


def normalise(text, days):
    for pattern, repl in NORMALISERS:
        text = pattern.sub(repl, text)
    for day in days:
        text = text.replace(day, "<TODAY>")
        text = text.replace(day[5:], "<TODAY>")  # MM-DD, as tables show it
    text = TIME_OF_DAY.sub(lambda m: m.group(1) + "<HH:MM>", text)
    return text


# ---------------------------------------------------------------------------------------------
# Scenes: the fixed environments an invocation starts from


def git(cwd, *args, env):
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def ahead_repo(root, path, origin, env):
    """A repository at `path`, pushed once to `root/origin`, then two commits ahead."""
    git(root, "init", "-q", "--bare", "-b", "main", origin, env=env)
    git(root, "init", "-q", "-b", "main", str(path), env=env)
    (path / "src").mkdir(parents=True, exist_ok=True)
    (path / "src/app.py").write_text("a\n")
    git(path, "add", ".", env=env)
    git(path, "commit", "-qm", "one", env=env)
    git(path, "remote", "add", "origin", str(root / origin), env=env)
    git(path, "push", "-q", "-u", "origin", "main", env=env)
    for line in ["b", "c"]:
        with open(path / "src/app.py", "a") as f:
            f.write(line + "\n")
        git(path, "commit", "-qam", line, env=env)


def user_config_llm():
    return {"llm": {"provider": "auto", "base_url": f"http://127.0.0.1:{CLOSED_PORT}/v1", "model": "m"}}


class Worker:
    """One scratch root `SCRATCH/wK`: its scene templates and the live environment."""

    def __init__(self, scratch, index, binaries):
        self.root = scratch / f"w{index}"
        self.env_dir = self.root / "env"
        self.templates = self.root / "templates"
        self.binaries = binaries
        if self.root.exists():
            shutil.rmtree(self.root)
        self.templates.mkdir(parents=True)
        self.fingerprints = {}
        for scene in SCENES:
            self.build(scene)
            self.fingerprints[scene] = fingerprint(self.env_dir)
            shutil.move(str(self.env_dir), str(self.templates / scene))
        self.clean = None

    def paths(self):
        e = self.env_dir
        return {
            "ENV": str(e),
            "HOME": str(e / "home"),
            "REPO": str(e / "scene/repo"),
            "SUB": str(e / "scene/repo/sub"),
            "WORK": str(e / "work"),
            "BIN": str(e / "bin/hookjudge"),
            "DATA": str(e / "home/.local/share"),
            "STATE": str(e / "home/.local/state"),
            "CONFIG": str(e / "home/.config"),
        }

    def environ(self):
        p = self.paths()
        return {
            "PATH": f"{self.env_dir / 'bin'}:/usr/bin:/bin",
            "HOME": p["HOME"],
            "XDG_CONFIG_HOME": p["CONFIG"],
            "XDG_DATA_HOME": p["DATA"],
            "XDG_STATE_HOME": p["STATE"],
            "XDG_CACHE_HOME": str(self.env_dir / "home/.cache"),
            "TMPDIR": str(self.env_dir / "tmp"),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "COLUMNS": "100",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_DATE": GIT_DATE,
            "GIT_COMMITTER_DATE": GIT_DATE,
        }

    def build(self, scene):
        e = self.env_dir
        if e.exists():
            shutil.rmtree(e)
        p = self.paths()
        for d in ["home/.config/hookjudge", "home/.local/share", "home/.local/state", "home/.cache", "tmp", "work", "bin"]:
            (e / d).mkdir(parents=True)
        (e / "home/.gitconfig").write_text(
            "[user]\n\tname = t\n\temail = t@example.org\n[init]\n\tdefaultBranch = main\n"
            "[advice]\n\tdetachedHead = false\n"
        )
        (e / "home/.config/hookjudge/config.json").write_text(json.dumps(user_config_llm(), indent=2) + "\n")
        # git for the scene's commands and for hookjudge's own calls; the binary is linked here
        # before each run.
        os.symlink(shutil.which("git") or "/usr/bin/git", e / "bin/git")
        env = self.environ()
        if scene in ("repo",):
            root = e / "scene"
            root.mkdir()
            repo = root / "repo"
            ahead_repo(root, repo, "origin.git", env)
            ahead_repo(root, repo / "sub", "suborigin.git", env)
            with open(repo / "src/app.py", "a") as f:
                f.write("dirty\n")
            (repo / "notes.txt").write_text("n\n")
            (repo / "Cargo.toml").write_text('[package]\nname = "scene"\nversion = "0.1.0"\n')
        for sample in e.rglob("*.sample"):
            sample.unlink()
        # Session files the hooks may name: a Claude Code transcript with an edit and no test
        # run, and one with a passing test run after the edit.
        (e / "work/edit-no-test.jsonl").write_text(transcript([("1", "Edit", {"file_path": f"{p['REPO']}/src/app.py", "old_string": "a", "new_string": "b"})]))
        (e / "work/edit-then-test.jsonl").write_text(
            transcript([
                ("1", "Edit", {"file_path": f"{p['REPO']}/src/app.py", "old_string": "a", "new_string": "b"}),
                ("2", "Bash", {"command": "cargo test"}),
            ])
        )
        # A command provider that blocks: the scripted judge of the integration tests.
        (e / "bin/block-llm").write_text("#!/bin/sh\ncat >/dev/null\nprintf '%s' '" + BLOCK_ANSWER.replace("'", "") + "'\n")
        (e / "bin/block-llm").chmod(0o755)

    def reset(self, scene):
        """Makes `env` a fresh copy of the scene: a copy of its template, or when the last
        invocation wrote nothing outside hookjudge's own dirs (checked file by file: path,
        size, mtime, mode), the same tree with those dirs emptied."""
        if self.clean == scene:
            return
        if self.env_dir.exists():
            shutil.rmtree(self.env_dir)
        subprocess.run(["cp", "-a", str(self.templates / scene), str(self.env_dir)], check=True)
        self.clean = scene

    def tidy(self, scene):
        """After an invocation: empties hookjudge's dirs if nothing else changed (see `reset`)."""
        self.clean = None
        if fingerprint(self.env_dir) != self.fingerprints[scene]:
            return
        for rel in OWNED:
            path = self.env_dir / rel
            if path.is_dir():
                shutil.rmtree(path)
        for rel in EMPTY:
            (self.env_dir / rel).mkdir(exist_ok=True)
        self.clean = scene

    def use(self, which):
        target = self.env_dir / "bin/hookjudge"
        tmp = self.env_dir / "bin/.hookjudge.tmp"
        os.link(self.binaries[which], tmp)
        os.replace(tmp, target)


SCENES = ["plain", "repo"]
# Where hookjudge keeps its own files (emptied between invocations), and scratch dirs.
OWNED = ["home/.local/share/hookjudge", "home/.local/state/hookjudge", "home/.cache", "tmp"]
EMPTY = ["home/.cache", "tmp"]


def fingerprint(root):
    """Every path under `root` but hookjudge's dirs and its binary, with size, mtime and mode."""
    skip = {str(root / rel) for rel in OWNED} | {str(root / "bin/hookjudge")}
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if os.path.join(dirpath, d) not in skip)
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if path in skip:
                continue
            st = os.lstat(path)
            found.append((path, st.st_size, st.st_mtime_ns, st.st_mode))
        found.extend((os.path.join(dirpath, d), "dir") for d in dirnames)
    return sorted(found, key=str)


def transcript(calls, final="Done."):
    lines = [{"type": "user", "message": {"role": "user", "content": "fix it and push"}}]
    for id_, name, input_ in calls:
        lines.append({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id_, "name": name, "input": input_}]}})
        result = {"type": "tool_result", "tool_use_id": id_, "is_error": False, "content": "test result: ok. 3 passed" if name == "Bash" else "ok"}
        lines.append({"type": "user", "message": {"content": [result]}, "toolUseResult": {}})
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": final}]}})
    return "".join(json.dumps(l) + "\n" for l in lines)


def answer_for_every_judge(flat):
    """The combined answer of the integration tests' scripted judge (see `harness.rs`)."""
    builtins = json.loads((REPO_ROOT / "src/judge/builtins.json").read_text())
    answer = dict(flat)
    given = []
    for name, spec in builtins.items():
        if spec.get("kind") == "gate" or isinstance(flat.get(name), dict):
            continue
        fields = list((spec.get("fields") or {}).keys())
        part = {f: flat[f] for f in fields if f not in given and f in flat}
        given.extend(part.keys())
        if not part:
            part = {f: False for f in fields}
        elif "reason" in flat:
            part["reason"] = flat["reason"]
        answer[name] = part
    return json.dumps(answer)


BLOCK_ANSWER = answer_for_every_judge({"new_proposal": True, "verification_reported": False, "reason": "proposes a push"})

# ---------------------------------------------------------------------------------------------
# Invocations


class Step:
    def __init__(self, args, stdin="", cwd="WORK", env=None, write=None):
        self.args = args
        self.stdin = stdin
        self.cwd = cwd
        self.env = env or {}
        # (relative path, text) written before the step runs, with placeholders filled in.
        self.write = write or []


class Invocation:
    def __init__(self, name, steps, scene="plain"):
        self.name = name
        self.steps = steps
        self.scene = scene


def fill(text, paths):
    if isinstance(text, str):
        for key, value in paths.items():
            text = text.replace("@@" + key + "@@", value)
    return text


def claude_gate(cmd, cwd="@@REPO@@", transcript_path=""):
    return json.dumps({"session_id": "s1", "transcript_path": transcript_path, "cwd": cwd, "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": cmd, "description": "run it"}, "tool_use_id": "toolu_01"})


def codex_gate(cmd, cwd="@@REPO@@"):
    return json.dumps({"session_id": "s2", "turn_id": "t2", "transcript_path": None, "cwd": cwd, "model": "gpt-fake",
                       "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": cmd}, "tool_use_id": "call_01"})


def gemini_gate(cmd, cwd="@@REPO@@"):
    return json.dumps({"session_id": "s3", "transcript_path": "", "cwd": cwd, "hook_event_name": "BeforeTool",
                       "timestamp": "2026-12-01T10:00:00Z", "tool_name": "run_shell_command",
                       "tool_input": {"command": cmd, "description": "run it"}})


def claude_stop(text, session="s1", cwd="@@WORK@@", transcript_path="@@WORK@@/t-claude.jsonl", active=False):
    return json.dumps({"session_id": session, "transcript_path": transcript_path, "cwd": cwd, "prompt_id": "p1",
                       "permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": active,
                       "last_assistant_message": text})


def codex_stop(text, session="s2", cwd="@@WORK@@"):
    return json.dumps({"session_id": session, "turn_id": "t2", "transcript_path": None, "cwd": cwd,
                       "hook_event_name": "Stop", "model": "gpt-fake", "permission_mode": "default",
                       "stop_hook_active": False, "last_assistant_message": text})


def gemini_stop(text, session="s3", cwd="@@WORK@@"):
    return json.dumps({"session_id": session, "transcript_path": "", "cwd": cwd, "hook_event_name": "AfterAgent",
                       "timestamp": "2026-12-01T10:00:10Z", "prompt": "Please finish the task.", "prompt_response": text,
                       "stop_hook_active": False})


def read_jsonl(name):
    with open(FIXTURES / name) as f:
        return [json.loads(line) for line in f if line.strip()]


SUBCOMMANDS = ["init", "uninstall", "trust", "approve", "doctor", "config", "check", "judge", "eval", "log", "stats",
               "redact", "replay", "completions", "install-extras", "stop", "gate", "run-confined", "help"]
CONFIG_SUBCOMMANDS = ["show", "check", "path", "schema"]


def help_invocations():
    out = []
    for args in (["--help"], ["-h"], ["help"], ["--version"], ["-V"], []):
        out.append(Invocation("help/" + (" ".join(args) or "(none)"), [Step(args)]))
    for sub in SUBCOMMANDS:
        out.append(Invocation(f"help/{sub} --help", [Step([sub, "--help"]), Step([sub, "-h"]), Step(["help", sub])]))
    for sub in CONFIG_SUBCOMMANDS:
        out.append(Invocation(f"help/config {sub} --help", [Step(["config", sub, "--help"]), Step(["help", "config", sub])]))
    return out


def gate_invocations(full):
    """Every line of the gate fixtures in Claude Code's shape and, in turn, Codex CLI's or
    Gemini CLI's (`--full`: both)."""
    out = []
    turn = 0
    for fixture in ["gate-commands.jsonl", "gate-corpus-blind.jsonl", "gate-corpus-lookalikes.jsonl", "gate-adversarial.jsonl"]:
        for i, case in enumerate(read_jsonl(fixture), 1):
            cmd = case["command"]
            turn += 1
            shapes = [claude_gate, codex_gate, gemini_gate] if full else [claude_gate, (codex_gate, gemini_gate)[turn % 2]]
            steps = [Step(["gate"], shape(cmd), cwd="REPO") for shape in shapes]
            out.append(Invocation(f"gate/{fixture}:{i}", steps, scene="repo"))
    return out


def judge_cases(full):
    cases = read_jsonl("judge-cases.jsonl")
    if full:
        return list(enumerate(cases, 1))
    # Every 50th case, and the first of every judge and label, so that each judge's blocks and
    # allows are there.
    picked = {}
    seen = set()
    for i, case in enumerate(cases, 1):
        key = (case.get("judge"), case.get("expect"), tuple(case.get("labels") or []))
        if i % 50 == 1 or key not in seen:
            picked[i] = case
        seen.add(key)
    return sorted(picked.items())


def stop_judge_invocations(full):
    out = []
    for i, case in judge_cases(full):
        text = case["text"]
        t_claude = transcript([], final=text)
        steps = [
            Step(["stop"], claude_stop(text), write=[("work/t-claude.jsonl", t_claude)]),
            Step(["stop"], codex_stop(text)),
            Step(["stop"], gemini_stop(text)),
            Step(["judge", "-"], text),
            Step(["judge", "--json", "-"], text),
        ]
        out.append(Invocation(f"stop+judge/judge-cases.jsonl:{i} ({case.get('id')})", steps))
    return out


def block_config():
    return json.dumps({"llm": {"provider": "command", "command": ["block-llm"]}})


PUSH_TEXT = "The feature is implemented. I'll commit and push now."
QUIET_TEXT = "Here is the summary of the file you asked about."


def session_steps():
    """Hook calls that leave decision-log lines of every kind, for `log`, `stats` and `replay`."""
    steps = []
    for cmd in ["git push origin main", "git commit -am wip", "ls", "git push --force origin main",
                "rm -rf src", "git reset --hard HEAD~1", "cargo publish", "git push --no-verify"]:
        steps.append(Step(["gate"], claude_gate(cmd)))
        steps.append(Step(["gate"], codex_gate(cmd)))
    steps.append(Step(["gate"], claude_gate("git push", transcript_path="@@WORK@@/edit-no-test.jsonl")))
    steps.append(Step(["gate"], claude_gate("git push", transcript_path="@@WORK@@/edit-then-test.jsonl")))
    steps.append(Step(["stop"], claude_stop(PUSH_TEXT, cwd="@@REPO@@"), write=[("work/t-claude.jsonl", transcript([], final=PUSH_TEXT))]))
    steps.append(Step(["stop"], codex_stop(QUIET_TEXT, cwd="@@REPO@@")))
    steps.append(Step(["stop"], gemini_stop("All tests pass now, I fixed the bug.", cwd="@@REPO@@")))
    steps.append(Step(["check", "--no-input"], cwd="REPO"))
    return steps


REPORT_STEPS = [
    ["log"], ["log", "--json"], ["log", "--utc"], ["log", "--blocks"], ["log", "-n", "3"], ["log", "--judge", "commit"],
    ["log", "--judge", "no-such-judge"], ["log", "--repo", "all"], ["log", "--since", "2026-11-01", "--utc"],
    ["log", "--since", "nonsense"], ["stats"], ["stats", "--json"], ["stats", "--utc"], ["stats", "--repo", "all"],
    ["stats", "--since", "2026-11-01", "--utc", "--json"],
    ["replay", "--no-llm"], ["replay", "--no-llm", "--json"], ["replay", "--judge", "commit", "--no-llm"], ["replay"],
]

# Lines as 0.1.0 wrote them (`src/log/record/tests.rs`), at fixed past dates, with the repository
# path of the scene so that `log` and `stats` inside the repository count them.
OLD_LINES = [
    {"ts": "2026-11-03T09:12:00.000Z", "kind": "stop", "version": "0.1.0", "agent": "claude",
     "event": "Stop", "session": "session-3", "prompt": "p1", "cwd": "@@REPO@@",
     "stop_hook_active": False, "decision": "block", "action": "block",
     "judges": [
         {"judge": "commit", "layer1": "trigger", "pattern": "\\bpush\\b", "verdict": "violation",
          "decision": "block", "fields": {"new_proposal": True}, "reason": "proposes a push",
          "layer2": {"provider": "openai", "model": "m", "cache": "miss", "format": "json_schema", "latency_ms": 712}},
         {"judge": "scope-check", "layer1": "quiet", "pattern": None, "verdict": None,
          "decision": "allow", "fields": None, "reason": None},
         {"judge": "shallow-bugfix", "layer1": "trigger", "pattern": "fixed",
          "refused_bypass": {"bypass": "root cause", "judge_directed": "ignore previous"},
          "verdict": "fail", "decision": "allow", "fields": None, "reason": "the LLM did not answer before the deadline",
          "layer2": {"provider": "openai", "latency_ms": 10000, "failure": "timeout"}}],
     "released": [], "provider": "openai (OPENAI_API_KEY is set)", "text_bytes": 27,
     "redactions": {"github-token": 1}, "text": "Done. I'll push to main now.",
     "transcript": {"path": "/t.jsonl", "boundary": "user_turn", "scanned_bytes": 900, "giant_lines": 0, "bad_lines": 1},
     "timings_us": {"total": 1200, "transcript": 100, "layer1": 300, "layer2": 712000}, "errors": []},
    {"ts": "2026-11-03T09:13:00.000Z", "kind": "gate", "version": "0.1.0", "agent": "codex",
     "event": "PreToolUse", "session": "s", "cwd": "@@REPO@@", "command": "git push origin main",
     "action": "deny",
     "rulings": [{"class": "push", "command": "git push origin main", "decision": "deny", "decided_by": "evidence",
                  "reason": "hookjudge: no tests ran", "repo": "@@REPO@@", "facts": {"remote": "origin"},
                  "evidence": {"kind": "change_after_tests", "tool": "Edit", "last_test": None}}],
     "timings_us": 5400, "errors": [], "protect": "edits hookjudge's hook entry", "redactions": {"url-credentials": 1}},
    {"ts": "2026-11-04T10:14:00.000Z", "kind": "check", "version": "0.1.0", "cwd": "@@REPO@@",
     "command": "git push (pre-push hook)", "action": "ask", "proceed": False, "decided_by": "no terminal",
     "rulings": [{"class": "push", "command": "git push origin abc:main", "decision": "ask", "decided_by": "facts",
                  "reason": "r", "repo": None, "facts": {"refs": []}}]},
    {"ts": "2026-11-05T08:00:00.000Z", "kind": "stop", "version": "0.1.0", "agent": "gemini",
     "event": "AfterAgent", "session": "g1", "prompt": "prompt-1", "cwd": "@@REPO@@",
     "stop_hook_active": False, "decision": "allow", "action": "fail-open",
     "judges": [], "released": [], "provider": None, "text_bytes": 0, "errors": ["could not read the hook input"],
     "timings_us": {"total": 90, "transcript": 0, "layer1": 0, "layer2": 0}},
]


def old_log_files():
    by_day = {}
    for line in OLD_LINES:
        by_day.setdefault(line["ts"][:10], []).append(json.dumps(line))
    return [(f"home/.local/share/hookjudge/logs/{day}.jsonl", "\n".join(lines) + "\n") for day, lines in by_day.items()]


def log_invocations():
    out = []
    reports = [Step(args, cwd="REPO") for args in REPORT_STEPS]
    reports_outside = [Step(args, cwd="WORK") for args in (["log"], ["stats"], ["log", "--repo", "@@REPO@@"])]
    out.append(Invocation("log/after hook calls (closed-port LLM)", session_steps() + reports + reports_outside, scene="repo"))
    blocking = [Step(["stop"], claude_stop(PUSH_TEXT, cwd="@@REPO@@", session=f"b{i}", active=i > 0),
                     write=[("work/t-claude.jsonl", transcript([], final=PUSH_TEXT))]) for i in range(4)]
    blocking += [Step(["stop"], codex_stop(PUSH_TEXT, cwd="@@REPO@@")), Step(["stop"], gemini_stop(PUSH_TEXT, cwd="@@REPO@@"))]
    blocking += [Step(["gate"], claude_gate("git push origin main"))]
    out.append(Invocation(
        "log/after blocks (scripted LLM)",
        [Step(["config", "show"], cwd="REPO", write=[("home/.config/hookjudge/config.json", block_config())])] + blocking + reports,
        scene="repo",
    ))
    first = Step(["log"], cwd="REPO", write=old_log_files())
    out.append(Invocation("log/0.1.0 lines", [first] + reports[1:] + reports_outside, scene="repo"))
    mixed = [Step(["log", "--repo", "all"], cwd="WORK", write=old_log_files())] + session_steps()[:6] + reports
    out.append(Invocation("log/0.1.0 lines and new ones", mixed, scene="repo"))
    out.append(Invocation("log/empty", [Step(["log"]), Step(["stats"]), Step(["stats", "--json"]), Step(["log", "--json"]),
                                        Step(["replay", "--no-llm"])]))
    return out


def repo_invocations():
    out = []
    r = lambda *args, **kw: Step(list(args), cwd=kw.pop("cwd", "REPO"), **kw)
    out.append(Invocation("check/repo", [r("check", "--no-input"), r("check", "--json"), r("check", "--commit", "--no-input"),
                                         r("check", "--commit", "--json"), r("check", "--push", "--json"),
                                         r("check", "--no-input", cwd="SUB"), r("check", "--no-input", cwd="WORK"),
                                         r("check", "--yes", "--json"), r("log", "--json")], scene="repo"))
    out.append(Invocation("check/pre-push", [r("check", "--pre-push", "origin", "@@ENV@@/scene/origin.git",
                                               stdin="refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 2222222222222222222222222222222222222222\n"),
                                             r("log", "--json")], scene="repo"))
    cfg = [r("config", "show"), r("config", "show", "--json"), r("config", "check"), r("config", "path"),
           r("config", "schema"), r("config", "schema", "--write"), r("config", "show", cwd="WORK")]
    out.append(Invocation("config/repo", cfg, scene="repo"))
    out.append(Invocation("doctor/repo", [r("doctor"), r("doctor", "--json"), r("doctor", cwd="WORK")], scene="repo"))
    for agent in ["claude", "codex", "gemini", "qwen", "droid", "opencode", "all"]:
        steps = [r("init", "--agent", agent, "--dry-run"), r("init", "--agent", agent, "--dry-run", "--scope", "project"),
                 r("init", "--agent", agent, "--dry-run", "--scope", "user"), r("init", "--agent", agent, "--dry-run", "--git-hook", "--require"),
                 r("uninstall", "--agent", agent, "--dry-run")]
        out.append(Invocation(f"init/dry-run {agent}", steps, scene="repo"))
    for agent in ["claude", "codex", "gemini"]:
        other = {"claude": "codex", "codex": "gemini", "gemini": "claude"}[agent]
        steps = [r("init", "--agent", agent), r("init", "--agent", agent), r("init", "--agent", agent, "--git-hook"),
                 r("uninstall", "--agent", agent, "--dry-run"), r("uninstall", "--agent", agent),
                 r("init", "--agent", agent, "--scope", "project", "--dry-run"), r("init", "--agent", other, "--dry-run"),
                 r("doctor"), r("doctor", "--json"), r("config", "show"), r("config", "check"), r("trust", "--list"),
                 Step(["cat", ".hookjudge.json"], cwd="REPO"),
                 r("gate", stdin={"claude": claude_gate, "codex": codex_gate, "gemini": gemini_gate}[agent]("git push origin main")),
                 r("stop", stdin={"claude": claude_stop, "codex": codex_stop, "gemini": gemini_stop}[agent](PUSH_TEXT, cwd="@@REPO@@"),
                   write=[("work/t-claude.jsonl", transcript([], final=PUSH_TEXT))]),
                 r("check", "--json"), r("log", "--json")]
        out.append(Invocation(f"init/{agent}", steps, scene="repo"))
    out.append(Invocation("init/outside a repository", [r("init", "--dry-run", cwd="WORK"), r("init", "--dry-run", "--force", cwd="WORK"),
                                                        r("uninstall", "--dry-run", cwd="WORK")], scene="repo"))
    out.append(Invocation("init/all then files", [r("init", "--agent", "all", "--git-hook"),
                                                  Step(["sh", "-c", "for f in .claude/settings.local.json .codex/hooks.json .gemini/settings.json .qwen/settings.json .factory/settings.json .git/hooks/pre-push .git/info/exclude; do echo \"== $f\"; cat \"$f\"; done; ls -A .opencode 2>&1"], cwd="REPO"),
                                                  r("doctor")], scene="repo"))
    out.append(Invocation("trust+approve", [r("trust", "--list"), r("approve", "--list"), r("trust"), r("trust", "--revoke"),
                                            r("approve"), r("gate", stdin=codex_gate("git push origin main")), r("approve", "--list")], scene="repo"))
    out.append(Invocation("install-extras", [r("install-extras", "--dry-run"), r("install-extras", "--dry-run", "--prefix", "@@ENV@@/prefix")], scene="repo"))
    out.append(Invocation("completions", [Step(["completions", sh]) for sh in ["bash", "zsh", "fish", "elvish", "powershell"]]))
    secret = "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB and https://user:hunter2@example.org/x AKIAIOSFODNN7EXAMPLE\n"
    out.append(Invocation("redact", [Step(["redact"], secret), Step(["redact", "--json"], secret), Step(["redact"], "")]))
    # `gate` with session evidence, in the repository and in its nested one, and per agent.
    ev = []
    for t in ["edit-no-test.jsonl", "edit-then-test.jsonl"]:
        for cmd in ["git push", "git commit -am x", "cd sub && git push", "git -C sub push"]:
            ev.append(Step(["gate"], claude_gate(cmd, transcript_path="@@WORK@@/" + t)))
    out.append(Invocation("gate/evidence", ev + [Step(["log", "--json"], cwd="REPO")], scene="repo"))
    files = []
    for tool, inp in [("Edit", {"file_path": "@@REPO@@/src/app.py", "old_string": "a", "new_string": "b"}),
                      ("Write", {"file_path": "@@HOME@@/.claude/settings.json", "content": "{}"}),
                      ("Write", {"file_path": "@@REPO@@/.hookjudge.json", "content": "{}"}),
                      ("Edit", {"file_path": "@@CONFIG@@/hookjudge/config.json", "old_string": "a", "new_string": "b"}),
                      ("Read", {"file_path": "@@REPO@@/src/app.py"})]:
        files.append(Step(["gate"], json.dumps({"session_id": "s1", "cwd": "@@REPO@@", "hook_event_name": "PreToolUse",
                                                "tool_name": tool, "tool_input": inp})))
        files.append(Step(["gate"], json.dumps({"session_id": "s3", "cwd": "@@REPO@@", "hook_event_name": "BeforeTool",
                                                "tool_name": "write_file" if tool != "Read" else "read_file",
                                                "tool_input": {"file_path": inp["file_path"], "content": "x"}})))
    out.append(Invocation("gate/file tools", files, scene="repo"))
    # Other agents' input shapes.
    shapes = [
        {"sessionId": "c1", "cwd": "@@REPO@@", "toolName": "bash", "toolArgs": json.dumps({"command": "git push origin main"})},
        {"conversation_id": "cu1", "cursor_version": "1.0", "hook_event_name": "beforeShellExecution", "command": "git push origin main", "workspace_roots": ["@@REPO@@"]},
        {"hookName": "PreToolUse", "taskId": "k1", "workspaceRoots": ["@@REPO@@"], "preToolUse": {"toolName": "execute_command", "parameters": {"command": "git push origin main"}}},
        {"event": "PreToolUse", "session_id": "cr1", "cwd": "@@REPO@@", "tool_name": "bash", "tool_input": {"command": "git push origin main"}},
        {"hook_event_name": "PreToolUse", "session_id": "q1", "cwd": "@@REPO@@", "tool_name": "run_shell_command", "tool_input": {"command": "git push origin main"}},
        {"hook_event_name": "PreToolUse", "session_id": "d1", "cwd": "@@REPO@@", "tool_name": "Execute", "tool_input": {"command": "git push origin main"}},
        {"hook_event_name": "PreToolUse", "session_id": "a1", "cwd": "@@REPO@@", "tool_name": "Bash", "tool_input": {"command": ["git", "push", "origin", "main"]}},
    ]
    out.append(Invocation("gate/other agents", [Step(["gate"], json.dumps(s)) for s in shapes]
                          + [Step(["gate", "--agent", a], claude_gate("git push origin main")) for a in ["codex", "gemini", "qwen", "copilot", "cursor", "cline", "crush", "opencode"]],
                          scene="repo"))
    return out


def eval_invocations(full):
    """`eval` on the judge cases: every 40th (`--full`: all of them; a debug build takes about
    30 s per run over the 6 436 cases)."""
    cases = read_jsonl("judge-cases.jsonl")
    sample = "".join(json.dumps(c) + "\n" for i, c in enumerate(cases) if full or i % 40 == 0)
    small = "".join(json.dumps(c) + "\n" for c in cases[:8])
    cases = "@@WORK@@/cases.jsonl"
    steps = [Step(["eval", cases], write=[("work/cases.jsonl", sample)]), Step(["eval", cases, "--json"]),
             Step(["eval", cases, "--misses"]), Step(["eval", cases, "--judge-turns", "lexicon"]),
             Step(["eval", "@@WORK@@/small.jsonl", "--llm", "-j", "1"], write=[("work/small.jsonl", small)]),
             Step(["eval", "@@WORK@@/small.jsonl", "--llm", "-j", "1", "--json"]),
             Step(["eval", "@@WORK@@/nope.jsonl"]), Step(["eval", "@@WORK@@/bad.jsonl"], write=[("work/bad.jsonl", "{not json\n")])]
    return [Invocation("eval", steps)]


def judge_extra_invocations():
    r = Step
    return [Invocation("judge/options", [
        r(["judge", "--no-llm", "-"], PUSH_TEXT), r(["judge", "--judge", "commit", "-"], PUSH_TEXT),
        r(["judge", "--judge", "nope", "-"], PUSH_TEXT), r(["judge", "@@WORK@@/text.txt"], write=[("work/text.txt", PUSH_TEXT)]),
        r(["judge", "--request", "@@WORK@@/req.txt", "--json", "@@WORK@@/text.txt"], write=[("work/req.txt", "please push it")]),
        r(["judge", "--transcript", "@@WORK@@/edit-no-test.jsonl", "--no-llm", "--json", "-"], "All tests pass."),
        r(["judge", "@@WORK@@/missing.txt"]), r(["judge", "-"], ""),
        r(["judge", "--json", "-"], PUSH_TEXT, env={}, write=[("home/.config/hookjudge/config.json", block_config())]),
        r(["judge", "-"], PUSH_TEXT),
    ])]


def error_invocations():
    out = []
    bad_inputs = ["", "{", "not json", "[]", "null", '{"hook_event_name": 5}', '{"hook_event_name":"Unknown"}',
                  '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":5}}',
                  '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}',
                  '{"hook_event_name":"Stop"}', '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push"},"cwd":"/nonexistent"}',
                  b"\xff\xfe"]
    for hook in ["gate", "stop"]:
        steps = [Step([hook], s, cwd="REPO") for s in bad_inputs]
        steps += [Step([hook, "--bogus"], claude_gate("git push") if hook == "gate" else claude_stop(PUSH_TEXT), cwd="REPO"),
                  Step([hook, "--agent", "nobody"], "{}", cwd="REPO"), Step([hook, "--hook-timeout", "x"], "{}", cwd="REPO"),
                  Step([hook], (claude_gate("git push") if hook == "gate" else claude_stop(PUSH_TEXT)) , cwd="REPO",
                       env={"HOOKJUDGE_DEBUG_PANIC": hook}),
                  Step([hook], b" " * (64 << 20) + b"{}", cwd="REPO"),
                  Step(["log", "--json"], cwd="REPO")]
        out.append(Invocation(f"errors/{hook} input", steps, scene="repo"))
    flags = [["--bogus"], ["nosuch"], ["log", "--bogus"], ["stats", "-x"], ["config"], ["config", "nosuch"],
             ["check", "--push", "--commit"], ["check", "--yes", "--no-input"], ["completions"], ["completions", "tcsh"],
             ["init", "--agent", "nobody"], ["init", "--scope", "galaxy"], ["eval"], ["replay", "-j", "0"], ["log", "-n", "x"],
             ["trust", "--list", "--revoke"], ["doctor", "--bogus"], ["judge", "--bogus"]]
    out.append(Invocation("errors/flags", [Step(f) for f in flags]))
    configs = {
        "misspelled key": '{"stop": {"max_blocks": 3}}',
        "misspelled nested key": '{"judges": {"commit": {"trigers": ["x"]}}}',
        "misspelled value": '{"llm": {"provider": "antropic"}}',
        "bad regex": '{"gate": {"test_commands": ["("]}}',
        "not json": '{"llm": ',
        "comments and trailing commas": '{\n  // a comment\n  "llm": {"provider": "none",},\n}',
        "bad gate class": '{"gate": {"push": "sometimes"}}',
        "unknown judge": '{"judges": {"mine": {"sensitivity": "high"}}}',
    }
    for name, text in configs.items():
        for where, path, extra in [("user", "home/.config/hookjudge/config.json", []),
                                   ("repository", "scene/repo/.hookjudge.json", []),
                                   ("--config", "work/explicit.json", ["--config", "@@WORK@@/explicit.json"])]:
            steps = [Step(extra + ["config", "check"], cwd="REPO", write=[(path, text)]), Step(extra + ["config", "show"], cwd="REPO"),
                     Step(extra + ["doctor"], cwd="REPO"), Step(extra + ["gate"], claude_gate("git push origin main"), cwd="REPO"),
                     Step(extra + ["stop"], claude_stop(PUSH_TEXT, cwd="@@REPO@@"), cwd="REPO",
                          write=[("work/t-claude.jsonl", transcript([], final=PUSH_TEXT))]),
                     Step(extra + ["judge", "-"], PUSH_TEXT, cwd="REPO"), Step(extra + ["check", "--json"], cwd="REPO"),
                     Step(["log", "--json"], cwd="REPO")]
            out.append(Invocation(f"errors/config {name} ({where})", steps, scene="repo"))
    out.append(Invocation("errors/HOOKJUDGE_CONFIG", [
        Step(["config", "show"], env={"HOOKJUDGE_CONFIG": "@@WORK@@/env.json"}, write=[("work/env.json", '{"text_bytes": 100}')]),
        Step(["config", "check"], env={"HOOKJUDGE_CONFIG": "@@WORK@@/missing.json"}),
        Step(["gate"], claude_gate("git push"), env={"HOOKJUDGE_CONFIG": "@@WORK@@/missing.json"}),
    ], scene="repo"))
    out.append(Invocation("errors/inside an agent", [
        Step(["uninstall"], cwd="REPO", env={"CLAUDECODE": "1"}), Step(["trust"], cwd="REPO", env={"GEMINI_CLI": "1"}),
        Step(["approve"], cwd="REPO", env={"CODEX_SANDBOX": "seatbelt"}), Step(["check", "--json"], cwd="REPO", env={"CLAUDECODE": "1"}),
        Step(["stop"], claude_stop(PUSH_TEXT), env={"HOOKJUDGE_ACTIVE": "1"}),
    ], scene="repo"))
    return out


def all_invocations(full):
    return (help_invocations() + repo_invocations() + eval_invocations(full) + judge_extra_invocations() + log_invocations()
            + error_invocations() + gate_invocations(full) + stop_judge_invocations(full))


# ---------------------------------------------------------------------------------------------
# Running


def log_snapshot(env_dir):
    logs = env_dir / "home/.local/share/hookjudge/logs"
    snap = {}
    if logs.is_dir():
        for f in sorted(logs.iterdir()):
            if f.is_file():
                snap[f.name] = f.read_bytes()
    return snap


def run_invocation(worker, inv, which):
    """The invocation's transcript for binary `which`, and the UTC days it ran on."""
    worker.reset(inv.scene)
    worker.use(which)
    paths = worker.paths()
    base_env = worker.environ()
    days = {datetime.now(timezone.utc).strftime("%Y-%m-%d")}
    out = []
    before = log_snapshot(worker.env_dir)
    for n, step in enumerate(inv.steps, 1):
        for rel, text in step.write:
            target = worker.env_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(fill(text, paths))
            os.utime(target, (WRITTEN_MTIME, WRITTEN_MTIME))
        args = [fill(a, paths) for a in step.args]
        program = paths["BIN"] if args[:1] not in (["cat"], ["sh"]) else args.pop(0)
        env = dict(base_env)
        env.update({k: fill(v, paths) for k, v in step.env.items()})
        stdin = fill(step.stdin, paths)
        stdin = stdin.encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
        t0 = time.monotonic()
        try:
            p = subprocess.run([program, *args], input=stdin, capture_output=True, env=env,
                               cwd=paths[step.cwd], timeout=STEP_TIMEOUT, start_new_session=True)
            stdout, stderr, code = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            stdout, stderr, code = e.stdout or b"", e.stderr or b"", "timeout"
        except OSError as e:
            stdout, stderr, code = b"", str(e).encode(), "not started"
        slow = time.monotonic() - t0
        if slow > 5:
            print(f"  slow step ({slow:.0f} s): {inv.name}: {' '.join(args)}", file=sys.stderr, flush=True)
        after = log_snapshot(worker.env_dir)
        logged = []
        for name in sorted(set(before) | set(after)):
            old, new = before.get(name, b""), after.get(name, b"")
            if new.startswith(old):
                added = new[len(old):]
                if added:
                    logged.append(f"+ {name}\n" + added.decode("utf-8", "replace"))
            else:
                logged.append(f"~ {name} rewritten or removed:\n" + new.decode("utf-8", "replace"))
        before = after
        shown = " ".join(args if program != paths["BIN"] else ["hookjudge", *args])
        out.append(f"### step {n}: {shown}\n")
        if step.stdin:
            out.append(f"(stdin: {len(stdin)} bytes)\n")
        out.append(f"--- exit: {code}\n--- stdout:\n{stdout.decode('utf-8', 'replace')}\n--- stderr:\n{stderr.decode('utf-8', 'replace')}\n")
        out.append("--- log:\n" + "".join(logged) + "\n")
    days.add(datetime.now(timezone.utc).strftime("%Y-%m-%d"))
    worker.tidy(inv.scene)
    return "".join(out), days


def compare(worker, inv, raw):
    a, days_a = run_invocation(worker, inv, "before")
    b, days_b = run_invocation(worker, inv, "after")
    if not raw:
        days = sorted(days_a | days_b)
        a, b = normalise(a, days), normalise(b, days)
    if a == b:
        return None
    diff = list(difflib.unified_diff(display_lines(a), display_lines(b), "before", "after", lineterm="", n=2))
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"… {len(diff) - MAX_DIFF_LINES} more diff lines"]
    return "\n".join(diff)


def display_lines(text):
    """Lines to diff for people: long JSON lines broken after each member, so that a diff shows
    the member that differs (the comparison itself is of the whole text)."""
    lines = []
    for line in text.splitlines():
        lines.extend(re.sub(r',(?=")', ",\n", line).splitlines() if len(line) > 160 else [line])
    return lines


def die(message):
    print(f"same-output: {message}", file=sys.stderr)
    sys.exit(2)


def port_is_closed(port):
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) != 0


def main():
    ap = argparse.ArgumentParser(description="Compare two hookjudge binaries' outputs and logs.")
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path)
    ap.add_argument("--scratch", type=Path, default=DEFAULT_SCRATCH,
                    help="where the environments are made (the same path for both binaries)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="every judge case, not a sample")
    ap.add_argument("--only", help="only the invocations whose name matches this regex")
    ap.add_argument("--list", action="store_true", help="list the invocations and exit")
    ap.add_argument("--show", help="print the normalised output of the invocation of this exact name (before binary)")
    ap.add_argument("--no-normalise", action="store_true", help="compare raw text")
    opts = ap.parse_args()

    invocations = all_invocations(opts.full)
    if opts.only:
        only = re.compile(opts.only)
        invocations = [i for i in invocations if only.search(i.name)]
    if opts.list:
        for inv in invocations:
            print(f"{inv.name}  ({len(inv.steps)} steps)")
        print(f"{len(invocations)} invocations")
        return 0
    if not opts.before or not (opts.after or opts.show):
        ap.error("--before and --after are required")
    if not port_is_closed(CLOSED_PORT):
        die(f"something listens on 127.0.0.1:{CLOSED_PORT}; the LLM must be unreachable")
    bins = opts.scratch / "bins"
    if bins.exists():
        shutil.rmtree(bins)
    bins.mkdir(parents=True)
    binaries = {}
    for which, path in (("before", opts.before), ("after", opts.after or opts.before)):
        if not path.is_file():
            die(f"no binary at {path}")
        binaries[which] = bins / which
        shutil.copy2(path, binaries[which])

    started = time.monotonic()
    if opts.show:
        worker = Worker(opts.scratch, 0, binaries)
        inv = next((i for i in invocations if i.name == opts.show), None)
        if inv is None:
            die(f"no invocation named {opts.show!r} (see --list)")
        text, days = run_invocation(worker, inv, "before")
        print(text if opts.no_normalise else normalise(text, sorted(days)))
        return 0

    jobs = max(1, opts.jobs)
    workers = [Worker(opts.scratch, k, binaries) for k in range(jobs)]
    free = list(workers)
    lock = threading.Lock()
    steps = sum(len(i.steps) for i in invocations)
    print(f"{len(invocations)} invocations ({steps} steps, each run by both binaries), {jobs} at once", flush=True)

    done = [0]

    def task(inv):
        with lock:
            worker = free.pop()
        try:
            return inv, compare(worker, inv, opts.no_normalise)
        finally:
            with lock:
                free.append(worker)
                done[0] += 1
                if done[0] % 500 == 0:
                    print(f"  {done[0]}/{len(invocations)} ({time.monotonic() - started:.0f} s)", flush=True)

    differences = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for inv, diff in pool.map(task, invocations):
            if diff is not None:
                differences.append((inv, diff))
    for inv, diff in differences:
        print(f"\n=== DIFFERENT: {inv.name}\n{diff}")
    elapsed = time.monotonic() - started
    print(f"\n{len(invocations)} invocations ({steps} steps), {len(invocations) - len(differences)} identical, "
          f"{len(differences)} different, in {elapsed:.0f} s")
    for inv, _ in differences[:50]:
        print(f"  different: {inv.name}")
    shutil.rmtree(bins, ignore_errors=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
