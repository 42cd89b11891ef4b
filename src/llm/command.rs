//! The `command` provider: any program that reads the framed prompt on stdin and prints the
//! answer, with presets for the Codex CLI and Claude Code's `claude -p`.
//!
//! The child runs in its own process group with the recursion guard set (an agent CLI would
//! otherwise run its own Stop hook, which is us), and the whole group is killed when the
//! deadline passes, so a hanging CLI costs at most the hook's deadline.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Failure;

/// Argv of the `codex` preset: non-interactive exec, prompt from stdin, low reasoning effort.
pub fn codex_preset(model: Option<&str>) -> Vec<String> {
    let mut argv: Vec<String> = [
        "codex",
        "exec",
        "--skip-git-repo-check",
        "-c",
        "model_reasoning_effort=\"low\"",
    ]
    .map(String::from)
    .into();
    if let Some(model) = model {
        argv.extend(["--model".to_string(), model.to_string()]);
    }
    argv.push("-".into());
    argv
}

/// Argv of the `claude` preset: print mode with a Haiku-class model, prompt from stdin.
pub fn claude_preset(model: Option<&str>) -> Vec<String> {
    [
        "claude",
        "-p",
        "--model",
        model.unwrap_or("haiku"),
        "--output-format",
        "text",
    ]
    .map(String::from)
    .into()
}

/// Runs `argv` with `input` on stdin and returns its stdout, killing it at `deadline`.
pub fn run(argv: &[String], input: &str, deadline: Instant) -> Result<String, Failure> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| Failure::Config("`llm.command` is empty".into()))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .env("HOOKJUDGE_ACTIVE", "1")
        .env("STOP_HOOK_LLM_JUDGE_ACTIVE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Failure::Missing(format!("`{program}` is not on PATH")),
        _ => Failure::Process(format!("cannot start `{program}`: {e}")),
    })?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    // The readers report through channels, so that waiting for them is bounded by the
    // deadline too: a grandchild that keeps a pipe open must not outlive it.
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.by_ref().take(4 << 20).read_to_end(&mut buf);
        let _ = out_tx.send(buf);
    });
    let (err_tx, err_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.by_ref().take(64 << 10).read_to_end(&mut buf);
        let _ = err_tx.send(buf);
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                let _ = child.wait();
                // The readers end once the group is gone; don't wait for grandchildren that
                // escaped the group and hold the pipes.
                return Err(Failure::Timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                return Err(Failure::Process(format!(
                    "cannot wait for `{program}`: {e}"
                )));
            }
        }
    };
    let _ = writer.join();
    let remaining = || deadline.saturating_duration_since(Instant::now());
    let Ok(stdout) = out_rx.recv_timeout(remaining()) else {
        // The program exited, but something it started still holds its output open.
        kill_group(&mut child);
        return Err(Failure::Timeout);
    };
    let stderr = err_rx
        .recv_timeout(remaining().max(Duration::from_millis(10)))
        .unwrap_or_default();
    if !status.success() {
        let first = String::from_utf8_lossy(&stderr)
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_owned();
        return Err(Failure::Process(format!(
            "`{program}` exited with {status}{}",
            if first.is_empty() {
                String::new()
            } else {
                format!(": {first}")
            }
        )));
    }
    Ok(String::from_utf8_lossy(&stdout).into_owned())
}

#[cfg(unix)]
fn kill_group(child: &mut std::process::Child) {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    // SAFETY: kill(2) with a negative pid signals the process group we created for the child.
    unsafe {
        kill(-(child.id() as i32), SIGKILL);
    }
    let _ = child.kill();
}

#[cfg(not(unix))]
fn kill_group(child: &mut std::process::Child) {
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn passes_stdin_and_returns_stdout() {
        let out = run(
            &sh("tr a-z A-Z"),
            "hello",
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out, "HELLO");
    }

    #[test]
    fn sets_the_recursion_guard() {
        let out = run(
            &sh("cat >/dev/null; echo $HOOKJUDGE_ACTIVE"),
            "",
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.trim(), "1");
    }

    #[test]
    fn a_hanging_group_is_killed_at_the_deadline() {
        let started = Instant::now();
        // The shell and its child sleep both belong to the group.
        let err = run(
            &sh("sleep 30 & sleep 30"),
            "",
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(matches!(err, Failure::Timeout));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_grandchild_holding_stdout_does_not_outlast_the_deadline() {
        let started = Instant::now();
        // The shell exits at once; the background sleep keeps stdout open for 30 s.
        let err = run(
            &sh("sleep 30 & echo '{}'"),
            "",
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(matches!(err, Failure::Timeout), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn missing_programs_and_failures_are_explained() {
        let err = run(
            &["hookjudge-no-such-program".into()],
            "",
            Instant::now() + Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(matches!(err, Failure::Missing(_)), "{err}");
        let err = run(
            &sh("echo broken >&2; exit 3"),
            "",
            Instant::now() + Duration::from_secs(5),
        )
        .unwrap_err();
        assert!(err.to_string().contains("broken"), "{err}");
    }

    #[test]
    fn presets_read_the_prompt_from_stdin() {
        assert_eq!(codex_preset(None).last().map(String::as_str), Some("-"));
        assert!(claude_preset(None).contains(&"haiku".to_string()));
    }
}
