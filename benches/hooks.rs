//! Whole-process benchmark: the release binary timed as the agents call it (stdin JSON, a fresh
//! process per call), side by side with reference points measured in the same run: an empty
//! process, a minimal Rust binary, the article's bash Layer 1, and the `git` processes that
//! gather the gate's facts. Prints medians, spread, ratios and peak memory.
//!
//! `cargo bench --bench hooks` runs everything (transcripts up to 1 GB and a repository of
//! 50 000 commits and 20 000 files are generated in a temp dir; the first run takes minutes).
//! `cargo bench --bench hooks -- --quick` runs a small subset, to prove it still works.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_hookjudge");

struct Measured {
    name: String,
    median_ms: f64,
    p10_ms: f64,
    p90_ms: f64,
    peak_rss_kb: i64,
}

#[repr(C)]
#[derive(Default)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss: i64,
    rest: [i64; 13],
}

unsafe extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut Rusage) -> i32;
}

/// Runs `argv` once with `stdin`, returning wall time and peak RSS.
fn run_once(argv: &[&str], stdin: &[u8], env: &[(&str, &str)], cwd: &Path) -> (f64, i64) {
    let started = Instant::now();
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .envs(env.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    let _ = pipe.write_all(stdin);
    drop(pipe);
    let mut status = 0;
    let mut usage = Rusage::default();
    // SAFETY: waits for our own child; `usage` has the kernel's struct rusage layout on Linux.
    unsafe { wait4(child.id() as i32, &mut status, 0, &mut usage) };
    std::mem::forget(child);
    (started.elapsed().as_secs_f64() * 1000.0, usage.maxrss)
}

struct Case {
    name: String,
    argv: Vec<String>,
    stdin: Vec<u8>,
    env: Vec<(String, String)>,
    cwd: PathBuf,
}

/// Measures cases interleaved (A B C A B C …) so that drift hits every case alike.
fn measure(cases: &[Case], runs: usize) -> Vec<Measured> {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut peaks = vec![0i64; cases.len()];
    for c in cases {
        let argv: Vec<&str> = c.argv.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = c
            .env
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        run_once(&argv, &c.stdin, &env, &c.cwd); // warm the page cache
    }
    for _ in 0..runs {
        for (i, c) in cases.iter().enumerate() {
            let argv: Vec<&str> = c.argv.iter().map(String::as_str).collect();
            let env: Vec<(&str, &str)> = c
                .env
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let (ms, rss) = run_once(&argv, &c.stdin, &env, &c.cwd);
            times[i].push(ms);
            peaks[i] = peaks[i].max(rss);
        }
    }
    cases
        .iter()
        .zip(times)
        .zip(peaks)
        .map(|((c, mut t), peak)| {
            t.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let q = |p: f64| t[((t.len() - 1) as f64 * p).round() as usize];
            Measured {
                name: c.name.clone(),
                median_ms: q(0.5),
                p10_ms: q(0.1),
                p90_ms: q(0.9),
                peak_rss_kb: peak,
            }
        })
        .collect()
}

fn case(
    name: &str,
    argv: &[&str],
    stdin: impl Into<Vec<u8>>,
    env: &[(&str, &str)],
    cwd: &Path,
) -> Case {
    Case {
        name: name.into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        stdin: stdin.into(),
        env: env
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        cwd: cwd.to_path_buf(),
    }
}

fn print(group: &str, rows: &[Measured], floor: &str) {
    let base = rows
        .iter()
        .find(|r| r.name == floor)
        .map(|r| r.median_ms)
        .unwrap_or(f64::NAN);
    println!("\n## {group}\n");
    println!("| workload | median ms | p10–p90 ms | × {floor} | peak RSS MB |");
    println!("|---|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.3} | {:.3}–{:.3} | {:.2} | {:.1} |",
            r.name,
            r.median_ms,
            r.p10_ms,
            r.p90_ms,
            r.median_ms / base,
            r.peak_rss_kb as f64 / 1024.0
        );
    }
}

fn user_line(text: &str) -> String {
    format!(
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{}}}}}\n",
        serde_json_string(text)
    )
}

fn assistant_line(text: &str) -> String {
    format!(
        "{{\"type\":\"assistant\",\"message\":{{\"id\":\"m\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":{}}}]}}}}\n",
        serde_json_string(text)
    )
}

fn serde_json_string(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// A Claude Code transcript of about `bytes` bytes whose last turn ends with `last`.
fn transcript(dir: &Path, bytes: u64, last: &str) -> PathBuf {
    let path = dir.join(format!("transcript-{bytes}.jsonl"));
    if path.exists() {
        return path;
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let filler = assistant_line(&"Earlier work on the parser and its tests. ".repeat(20));
    let mut written = 0u64;
    let mut i = 0u64;
    while written < bytes {
        let line = if i.is_multiple_of(10) {
            user_line("please continue with the next module")
        } else {
            filler.clone()
        };
        f.write_all(line.as_bytes()).unwrap();
        written += line.len() as u64;
        i += 1;
    }
    f.write_all(user_line("refactor the loader").as_bytes())
        .unwrap();
    f.write_all(assistant_line("I read the loader and its callers.").as_bytes())
        .unwrap();
    f.write_all(assistant_line(last).as_bytes()).unwrap();
    path
}

/// A repository with `commits` commits over `files` files, an upstream 5 commits behind.
fn repository(dir: &Path, commits: usize, files: usize) -> PathBuf {
    let repo = dir.join(format!("repo-{commits}-{files}"));
    if repo.join(".git").exists() {
        return repo;
    }
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    std::fs::create_dir_all(&repo).unwrap();
    git(&["init", "-q", "-b", "main"]);
    let mut fi = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut w = std::io::BufWriter::new(fi.stdin.take().unwrap());
        for c in 0..commits {
            writeln!(w, "commit refs/heads/main\nmark :{}\ncommitter B <b@example.org> {} +0000\ndata <<EOT\ncommit {c}\nEOT", c + 1, 1_600_000_000 + c).unwrap();
            if c > 0 {
                writeln!(w, "from :{c}").unwrap();
            }
            if c == 0 {
                for f in 0..files {
                    let body = format!("file {f}\n");
                    writeln!(
                        w,
                        "M 644 inline src/d{}/f{f}.txt\ndata {}\n{body}",
                        f % 100,
                        body.len()
                    )
                    .unwrap();
                }
            } else {
                let body = format!("change {c}\n");
                writeln!(
                    w,
                    "M 644 inline src/d{}/f{}.txt\ndata {}\n{body}",
                    c % 100,
                    c % files,
                    body.len()
                )
                .unwrap();
            }
        }
        writeln!(w, "done").unwrap();
    }
    assert!(fi.wait().unwrap().success());
    git(&["checkout", "-q", "-f", "main"]);
    git(&["update-ref", "refs/remotes/origin/main", "main~5"]);
    git(&["config", "remote.origin.url", "/dev/null"]);
    git(&[
        "config",
        "remote.origin.fetch",
        "+refs/heads/*:refs/remotes/origin/*",
    ]);
    git(&["config", "branch.main.remote", "origin"]);
    git(&["config", "branch.main.merge", "refs/heads/main"]);
    repo
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { 10 } else { 200 };
    let work = std::env::var_os("HOOKJUDGE_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("hookjudge-bench"));
    std::fs::create_dir_all(&work).unwrap();
    let home = work.join("home");
    for d in ["config/hookjudge", "data", "state"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    std::fs::write(
        home.join("config/hookjudge/config.json"),
        r#"{"llm": {"provider": "none"}}"#,
    )
    .unwrap();
    let env: Vec<(&str, String)> = vec![
        ("XDG_CONFIG_HOME", home.join("config").display().to_string()),
        ("XDG_DATA_HOME", home.join("data").display().to_string()),
        ("XDG_STATE_HOME", home.join("state").display().to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    // The floor: a minimal Rust binary, built here.
    let hello = work.join("hello");
    if !hello.exists() {
        std::fs::write(
            work.join("hello.rs"),
            "fn main() { println!(\"hello\"); }\n",
        )
        .unwrap();
        let ok = Command::new("rustc")
            .args(["-O", "-C", "strip=symbols", "-o"])
            .arg(&hello)
            .arg(work.join("hello.rs"))
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
    let hello = hello.display().to_string();
    let article = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/article-layer1.sh");

    println!(
        "# hookjudge whole-process benchmark ({} runs per workload{})",
        runs,
        if quick { ", quick mode" } else { "" }
    );
    println!(
        "\nmachine: {} cores; binary: {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        BIN
    );

    let quiet_text = "I read the loader and its callers. The loader reads the file, parses TOML and validates the keys against the schema; errors name the file and the line.";
    let trigger_text = "The refactor is finished. I'll push to main now.";
    let bypass_text = "All tests PASS (148 passed, 0 failed). Shall I commit?";
    let sizes: Vec<u64> = if quick {
        vec![10 << 10, 10 << 20]
    } else {
        vec![10 << 10, 10 << 20, 200 << 20, 1 << 30]
    };
    let stop_input = |t: &Path, last: &str| -> Vec<u8> {
        format!("{{\"session_id\":\"b\",\"transcript_path\":{},\"cwd\":\"/tmp\",\"hook_event_name\":\"Stop\",\"prompt_id\":\"p\",\"stop_hook_active\":false,\"last_assistant_message\":{}}}", serde_json_string(&t.display().to_string()), serde_json_string(last)).into_bytes()
    };
    let cwd = work.clone();
    let t10k = transcript(&work, 10 << 10, quiet_text);
    let mut stop_cases = vec![
        case("empty process (`true`)", &["true"], "", &env, &cwd),
        case("minimal Rust binary", &[&hello], "", &env, &cwd),
        case(
            "stop, quiet text, 10 KB transcript",
            &[BIN, "stop"],
            stop_input(&t10k, quiet_text),
            &env,
            &cwd,
        ),
        case(
            "stop, trigger (no LLM), 10 KB transcript",
            &[BIN, "stop"],
            stop_input(&t10k, trigger_text),
            &env,
            &cwd,
        ),
        case(
            "stop, bypass, 10 KB transcript",
            &[BIN, "stop"],
            stop_input(&t10k, bypass_text),
            &env,
            &cwd,
        ),
        case(
            "article bash Layer 1, quiet, 10 KB transcript",
            &["bash", article],
            stop_input(&t10k, quiet_text),
            &env,
            &cwd,
        ),
    ];
    // The heavy bash runs go last in each round: a process right after one of them starts with
    // cold caches, which would tax whichever hookjudge case happened to follow it.
    let mut heavy = vec![stop_cases.remove(5)];
    for size in &sizes[1..] {
        let t = transcript(&work, *size, quiet_text);
        let label = if *size >= 1 << 30 {
            format!("{} GB", size >> 30)
        } else {
            format!("{} MB", size >> 20)
        };
        stop_cases.push(case(
            &format!("stop, quiet text, {label} transcript"),
            &[BIN, "stop"],
            stop_input(&t, quiet_text),
            &env,
            &cwd,
        ));
        if *size <= 10 << 20 {
            heavy.push(case(
                &format!("article bash Layer 1, quiet, {label} transcript"),
                &["bash", article],
                stop_input(&t, quiet_text),
                &env,
                &cwd,
            ));
        }
    }
    stop_cases.extend(heavy);
    print(
        "Stop hook",
        &measure(&stop_cases, runs),
        "minimal Rust binary",
    );

    let gate_input = |command: &str, cwd: &Path| -> Vec<u8> {
        format!("{{\"session_id\":\"b\",\"cwd\":{},\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":{}}}}}", serde_json_string(&cwd.display().to_string()), serde_json_string(command)).into_bytes()
    };
    let mut gate_cases = vec![
        case("minimal Rust binary", &[&hello], "", &env, &cwd),
        case(
            "gate, non-gated command",
            &[BIN, "gate"],
            gate_input("ls -la && cat README.md | head -20", &cwd),
            &env,
            &cwd,
        ),
        case(
            "gate, gated, no repository work (`git commit --no-verify`)",
            &[BIN, "gate"],
            gate_input("git commit --no-verify -m x", &cwd),
            &env,
            &cwd,
        ),
    ];
    let repos: Vec<(usize, usize)> = if quick {
        vec![(1000, 200)]
    } else {
        vec![(1000, 20_000), (50_000, 20_000)]
    };
    for (commits, files) in repos {
        let repo = repository(&work, commits, files);
        let label = format!("{commits} commits, {files} files");
        gate_cases.push(case(
            &format!("gate, `git push` with full facts, {label}"),
            &[BIN, "gate"],
            gate_input("git push", &repo),
            &env,
            &repo,
        ));
        gate_cases.push(case(
            &format!(
                "git processes: `rev-list --count @{{u}}..HEAD` + `status --porcelain`, {label}"
            ),
            &[
                "sh",
                "-c",
                "git rev-list --count @{u}..HEAD >/dev/null && git status --porcelain >/dev/null",
            ],
            "",
            &env,
            &repo,
        ));
    }
    print("Gate", &measure(&gate_cases, runs), "minimal Rust binary");
}
