//! In-process micro-benchmarks (criterion) of the pieces every hook call pays for: Layer 1 on a
//! 4 KB text, the transcript tail, redaction, the Layer 2 overhead around the provider, the
//! gate's evidence scan of a Gemini session, shell parsing and repository facts.
//!
//! `cargo bench --bench micro` for figures; `cargo bench --bench micro -- --test` runs each
//! once (CI uses that to prove they still build and run).

use std::hint::black_box;
use std::io::Write;
use std::path::Path;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

use hookjudge::gate::repos::Repos;
use hookjudge::judge::Judge;
use hookjudge::judge::evaluate::{Answer, Layer2, NoLayer2, Panel, evaluate};

const QUIET: &str = "I read the loader and its callers. The loader reads the file, parses TOML and validates the keys against the schema; errors name the file and the line. ";
/// Quiet, but full of words the lexicons hold inside other words ("hang" in "changed",
/// "production" in "introduction"): the prefilter must still rule every pattern out.
const QUIET_COMMON_WORDS: &str = "I reworded the introduction and the install section of the README; the examples are unchanged. The layout changed: the tables are reformatted and the headings keep their order. ";
const TRIGGER: &str = "The refactor is finished and the docs are updated. I'll push to main now.";

fn text_4k(tail: &str) -> String {
    let mut t = QUIET.repeat(4096 / QUIET.len());
    t.push_str(tail);
    t
}

fn judges() -> Panel {
    Panel::builtin()
}

/// A Layer 2 whose provider answers instantly: what remains is hookjudge's own work.
struct InstantProvider;

impl Layer2 for InstantProvider {
    fn ask(&self, judge: &Judge, text: &str) -> Answer {
        let prompt =
            hookjudge::llm::frame::frame(judge, text, None, &hookjudge::llm::frame::nonce());
        black_box(&prompt);
        let raw = r#"{"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false, "reason": "r"}"#;
        match hookjudge::llm::answer::parse(raw, judge, text) {
            Ok(p) => Answer::Fields {
                fields: p.fields,
                reason: p.reason,
                meta: Default::default(),
            },
            Err(cause) => Answer::Failed {
                cause: cause.to_string(),
                meta: Default::default(),
            },
        }
    }
}

fn layer1(c: &mut Criterion) {
    let mut g = c.benchmark_group("layer1");
    let quiet = text_4k("");
    let trigger = text_4k(TRIGGER);
    g.throughput(Throughput::Bytes(quiet.len() as u64));
    // A fresh judge set per iteration: every hook call starts cold, with nothing compiled.
    g.bench_function("quiet 4 KB (cold judges)", |b| {
        b.iter_batched(
            judges,
            |js| evaluate(black_box(&quiet), &js, &NoLayer2),
            BatchSize::SmallInput,
        )
    });
    let common = QUIET_COMMON_WORDS.repeat(4096 / QUIET_COMMON_WORDS.len());
    g.bench_function("quiet 4 KB with common lexicon words (cold judges)", |b| {
        b.iter_batched(
            judges,
            |js| evaluate(black_box(&common), &js, &NoLayer2),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("trigger 4 KB (cold judges, no LLM)", |b| {
        b.iter_batched(
            judges,
            |js| evaluate(black_box(&trigger), &js, &NoLayer2),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("build the five judges", |b| b.iter(judges));
    g.finish();
}

fn layer2_overhead(c: &mut Criterion) {
    let js = judges();
    let trigger = text_4k(TRIGGER);
    let dir = tempfile::tempdir().unwrap();
    c.bench_function(
        "layer2 overhead, 4 KB (redact + frame + parse + rule + log line)",
        |b| {
            b.iter(|| {
                let redacted = hookjudge::redact::redact(black_box(&trigger));
                let eval = evaluate(&redacted.text, &js, &InstantProvider);
                let mut record = hookjudge::log::StopRecord::new();
                record.judges = eval.outcomes.into_iter().map(Into::into).collect();
                record.text = Some(redacted.text);
                let line = hookjudge::log::Record::Stop(record);
                hookjudge::log::append(
                    dir.path(),
                    hookjudge::support::time::Timestamp::now(),
                    &line,
                )
                .unwrap();
            })
        },
    );
}

fn redaction(c: &mut Criterion) {
    let mut g = c.benchmark_group("redact");
    let plain = text_4k("");
    let leaky = text_4k(&format!(
        "export GITHUB_TOKEN=ghp_{} and postgres://app:Zq8#vLp2Rt9w@db:5432/x",
        "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    ));
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.bench_function("4 KB, no secrets", |b| {
        b.iter(|| hookjudge::redact::redact(black_box(&plain)))
    });
    g.bench_function("4 KB, two secrets", |b| {
        b.iter(|| hookjudge::redact::redact(black_box(&leaky)))
    });
    g.finish();
}

fn transcript(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let line = |role: &str, text: &str| -> String {
        match role {
            "user" => serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}).to_string(),
            _ => serde_json::json!({"type": "assistant", "uuid": text.len().to_string(), "message": {"id": "m", "content": [{"type": "text", "text": text}]}}).to_string(),
        }
    };
    let filler = line("assistant", &QUIET.repeat(8));
    let mut written = 0;
    let mut i = 0;
    while written < 10 << 20 {
        let l = if i % 10 == 0 {
            line("user", "continue")
        } else {
            filler.clone()
        };
        writeln!(f, "{l}").unwrap();
        written += l.len();
        i += 1;
    }
    writeln!(
        f,
        "{}\n{}",
        line("user", "refactor the loader"),
        line("assistant", TRIGGER)
    )
    .unwrap();
    drop(f);
    c.bench_function("transcript tail of a 10 MB transcript", |b| {
        b.iter(|| hookjudge::transcript::turn_text(black_box(&path), Default::default()).unwrap())
    });
}

/// The gate's evidence scan over a 10 MB Gemini CLI session (records in the real 0.61 shape)
/// with no test run, so the whole file is read: the worst case for a gated command.
fn gemini_session(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let output = format!(
        "<untrusted_context>\nOutput: {}\nProcess Group PGID: 7\n</untrusted_context>",
        QUIET.repeat(24)
    );
    let mut written = 0;
    let mut i = 0;
    while written < 10 << 20 {
        let id = format!("run_shell_command__run_shell_command_{i}_0");
        let result = serde_json::json!([{"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": output}}}]);
        let lines = [
            serde_json::json!({"id": format!("m{i}"), "type": "gemini", "content": "", "thoughts": [], "model": "gemini-2.5-flash"}),
            serde_json::json!({"$set": {"lastUpdated": "2026-12-01T09:30:57.291Z"}}),
            serde_json::json!({"id": format!("m{i}"), "type": "gemini", "content": "", "thoughts": [], "model": "gemini-2.5-flash",
                "toolCalls": [{"id": id, "name": "run_shell_command", "args": {"command": "ls -la", "description": "run"},
                "result": result, "status": "success", "resultDisplay": "…", "displayName": "Shell"}]}),
            serde_json::json!({"id": format!("u{i}"), "type": "user", "content": result}),
        ];
        for l in lines {
            let l = l.to_string();
            writeln!(f, "{l}").unwrap();
            written += l.len() + 1;
        }
        i += 1;
    }
    drop(f);
    let tests = hookjudge::gate::evidence::TestCommands::new(
        hookjudge::gate::evidence::DEFAULT_TEST_COMMANDS,
    );
    c.bench_function(
        "gate evidence: 10 MB Gemini session, no test run (full scan)",
        |b| {
            b.iter(|| {
                hookjudge::gate::evidence::transcript_tests(
                    black_box(&path),
                    &tests,
                    Default::default(),
                )
            })
        },
    );
}

fn shell(c: &mut Criterion) {
    let cmd = "git add -A && git commit -m \"$(cat <<'EOF'\nFix the loader\nEOF\n)\" && cd sub && sudo -u me env X=1 bash -c 'git push origin main'";
    c.bench_function("shell parse + classify (commit idiom)", |b| {
        b.iter(|| {
            hookjudge::gate::find(
                black_box(cmd),
                Path::new("/w"),
                Default::default(),
                &Repos::default(),
            )
        })
    });
}

fn repo_facts(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "b")
            .env("GIT_AUTHOR_EMAIL", "b@example.org")
            .env("GIT_COMMITTER_NAME", "b")
            .env("GIT_COMMITTER_EMAIL", "b@example.org")
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    run(&["init", "-q", "-b", "main"]);
    for i in 0..200 {
        std::fs::write(
            dir.path().join(format!("f{}.txt", i % 50)),
            format!("{i}\n"),
        )
        .unwrap();
        run(&["add", "."]);
        run(&["commit", "-qm", &format!("c{i}")]);
    }
    run(&["update-ref", "refs/remotes/origin/main", "main~5"]);
    run(&["config", "branch.main.remote", "origin"]);
    run(&["config", "branch.main.merge", "refs/heads/main"]);
    let target = hookjudge::gate::classify::Target {
        dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    c.bench_function(
        "repo facts: open + push facts + status (200 commits, 50 files)",
        |b| {
            b.iter(|| {
                let repo = hookjudge::gate::facts::Repo::open(&target, dir.path()).unwrap();
                let facts = repo.push_facts(&Default::default()).unwrap();
                let changes = repo.changes().unwrap();
                black_box((facts, changes))
            })
        },
    );
}

criterion_group!(
    benches,
    layer1,
    layer2_overhead,
    redaction,
    transcript,
    gemini_session,
    shell,
    repo_facts
);
criterion_main!(benches);
