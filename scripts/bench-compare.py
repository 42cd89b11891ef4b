#!/usr/bin/env python3
"""Side-by-side hook timings of two hookjudge builds, in one interleaved run.

    scripts/bench-compare.py OLD_BINARY NEW_BINARY [ROUNDS]

Builds a minimal Rust binary as the floor (with `rustc -O`), then runs, interleaved round by
round (floor, old, new, …) so that drift on a noisy machine hits them alike: the quiet Stop hook
on a 10 KB Claude Code transcript (a short acknowledgement under the default `judge_turns:
"all"`, quiet text under `"lexicon"`), and the gate on a command that is not gated. An LLM is
configured, as in real use (with none, the Stop hook tells the person so instead of staying
quiet); it is an address nothing answers, and no quiet path calls it. Prints the
median and 10th-90th percentiles of each, and its ratio to the floor measured in the same run.
`cargo bench --bench hooks` measures one build against its reference points; this script is for
"did this change move the hook figures", e.g. a commit against its parent (build each with
`cargo build --release` in its own checkout first).

`HOOKJUDGE_COMPARE=gate` (or `stop`) runs only that hook's rows: a slow Stop call just before
a gate call leaves colder caches behind it, which shows in the gate's figure.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    work = tempfile.mkdtemp(prefix="hookjudge-compare-")
    floor = os.path.join(work, "minimal")
    src = os.path.join(work, "minimal.rs")
    with open(src, "w") as f:
        f.write('use std::io::Read;\nfn main() { let mut s = String::new(); let _ = std::io::stdin().read_to_string(&mut s); }\n')
    subprocess.run(["rustc", "-O", "-o", floor, src], check=True)

    home = os.path.join(work, "home")
    os.makedirs(home)
    transcript = os.path.join(work, "t.jsonl")
    with open(transcript, "w") as f:
        line = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Reading the module layout and the tests. " * 4}]}}
        f.write(json.dumps({"type": "user", "message": {"role": "user", "content": "Tidy the README wording."}}) + "\n")
        while f.tell() < 10_000:
            f.write(json.dumps(line) + "\n")
    # The acknowledgement ends a turn of its own: a new request, then the short answer.
    ack_text = "Sure, that sounds good."
    ack_transcript = os.path.join(work, "ack.jsonl")
    with open(transcript) as src, open(ack_transcript, "w") as f:
        f.write(src.read())
        f.write(json.dumps({"type": "user", "message": {"role": "user", "content": "ok thanks, that is all for now"}}) + "\n")
        f.write(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": ack_text}]}}) + "\n")

    def stop_input(path, message):
        return json.dumps({"session_id": "bench", "transcript_path": path, "cwd": work, "hook_event_name": "Stop",
                           "stop_hook_active": False, "last_assistant_message": message})
    quiet = stop_input(transcript, "I reworded the introduction and the install section of the README; the examples are unchanged.")
    ack = stop_input(ack_transcript, ack_text)
    gate = json.dumps({"session_id": "bench", "transcript_path": transcript, "cwd": work, "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls -la src && cat README.md | head -20"}})
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_DATA_HOME=os.path.join(home, ".data"), XDG_STATE_HOME=os.path.join(home, ".state"))
    def with_config(judge_turns):
        path = os.path.join(work, f"config-{judge_turns}.json")
        with open(path, "w") as f:
            json.dump({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
                       "stop": {"judge_turns": judge_turns}}, f)
        return dict(env, HOOKJUDGE_CONFIG=path)
    env_all, env_lexicon = with_config("all"), with_config("lexicon")
    cases = [("minimal Rust binary", [floor], ack, env)]
    only = os.environ.get("HOOKJUDGE_COMPARE", "")
    for label, binary in (("old", old), ("new", new)):
        stop = [binary, "stop", "--agent", "claude"]
        if only != "gate":
            cases.append((f"{label}: stop, acknowledgement, all", stop, ack, env_all))
            cases.append((f"{label}: stop, quiet text, lexicon", stop, quiet, env_lexicon))
        if only != "stop":
            cases.append((f"{label}: gate, not gated", [binary, "gate", "--agent", "claude"], gate, env))
    times = {label: [] for label, _, _, _ in cases}
    for _ in range(rounds):
        for label, argv, stdin, case_env in cases:
            start = time.perf_counter()
            out = subprocess.run(argv, input=stdin.encode(), stdout=subprocess.PIPE, env=case_env)
            times[label].append((time.perf_counter() - start) * 1000)
            if out.returncode != 0 or out.stdout.strip():
                sys.exit(f"{label}: expected a silent exit 0, got {out.returncode} {out.stdout[:200]!r}")
    base = statistics.median(times["minimal Rust binary"])
    print(f"{rounds} interleaved rounds; ratios to the minimal Rust binary of the same run")
    print(f"{'workload':45s} {'median ms':>10s} {'p10-p90 ms':>14s} {'ratio':>7s}")
    for label, _, _, _ in cases:
        t = sorted(times[label])
        p10, p90 = t[len(t) // 10], t[(len(t) * 9) // 10]
        med = statistics.median(t)
        print(f"{label:45s} {med:10.3f} {p10:6.3f}-{p90:<7.3f} {med / base:7.2f}")


if __name__ == "__main__":
    main()
