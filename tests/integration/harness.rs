//! One harness for every integration test: an isolated home (config, data and state dirs in a
//! temp dir), a builder for `hookjudge` invocations, and readers for the decision log.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_hookjudge");

/// A temporary home for one test: hookjudge's config, data and state dirs live inside.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home::in_dir(tempfile::tempdir().unwrap())
    }

    /// A home outside `/tmp` (in the build's own temporary folder), for what refuses a home
    /// under the temporary folders (Codex's sandbox).
    pub fn outside_tmp() -> Home {
        Home::in_dir(tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap())
    }

    fn in_dir(dir: tempfile::TempDir) -> Home {
        let home = Home { dir };
        for sub in ["config", "data", "state", "work"] {
            std::fs::create_dir_all(home.dir.path().join(sub)).unwrap();
        }
        home
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A binary of this home's own, in `~/.cargo/bin` as `cargo install` puts it.
    pub fn installed_binary(&self) -> PathBuf {
        let bin = self.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let binary = bin.join("hookjudge");
        std::fs::copy(BIN, &binary).unwrap();
        binary
    }

    /// A directory to use as the agent's `cwd` (not a git repository).
    pub fn work(&self) -> PathBuf {
        self.path().join("work")
    }

    pub fn log_dir(&self) -> PathBuf {
        self.path().join("data/hookjudge/logs")
    }

    /// Writes the user config file.
    pub fn user_config(&self, json: &str) {
        let dir = self.path().join("config/hookjudge");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.json"), json).unwrap();
    }

    /// A `hookjudge` command with this home's environment.
    pub fn cmd(&self, args: &[&str]) -> Run {
        self.cmd_of(Path::new(BIN), args)
    }

    /// [`Home::cmd`] with another copy of the binary.
    pub fn cmd_of(&self, binary: &Path, args: &[&str]) -> Run {
        let mut command = Command::new(binary);
        command
            .args(args)
            .current_dir(self.work())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_DATA_HOME", self.path().join("data"))
            .env("XDG_STATE_HOME", self.path().join("state"));
        Run {
            command,
            stdin: Vec::new(),
        }
    }

    /// Every decision log record, oldest first.
    pub fn log(&self) -> Vec<Value> {
        let mut records = Vec::new();
        let Ok(entries) = std::fs::read_dir(self.log_dir()) else {
            return records;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            for line in std::fs::read_to_string(file).unwrap().lines() {
                records.push(
                    serde_json::from_str(line)
                        .unwrap_or_else(|e| panic!("log line is not JSON ({e}): {line}")),
                );
            }
        }
        records
    }

    pub fn last_log(&self) -> Value {
        self.log().pop().expect("a decision was logged")
    }
}

pub struct Run {
    pub command: Command,
    pub stdin: Vec<u8>,
}

impl Run {
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Run {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Run {
        self.command.env(key, value);
        self
    }

    /// Runs the command as a person at a terminal does: `script` gives it a controlling
    /// terminal (a pseudo-terminal it is the foreground job of) and types `answer` on it.
    /// Stdout is the terminal's screen (the program's stdout, stderr and questions).
    pub fn on_terminal(self, answer: &str) -> Outcome {
        let mut line = vec![self.command.get_program().to_string_lossy().into_owned()];
        line.extend(
            self.command
                .get_args()
                .map(|a| a.to_string_lossy().into_owned()),
        );
        let line = shell_words::join(line);
        let mut command = Command::new("script");
        command.args(["-qec", &line, "/dev/null"]).env_clear();
        if let Some(dir) = self.command.get_current_dir() {
            command.current_dir(dir);
        }
        for (key, value) in self.command.get_envs() {
            if let Some(value) = value {
                command.env(key, value);
            }
        }
        Run {
            command,
            stdin: answer.as_bytes().to_vec(),
        }
        .output()
    }

    pub fn output(mut self) -> Outcome {
        self.command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A binary a test has just copied can be "busy" for a moment: another test thread
        // that forked while the copy was open for writing holds it until its child execs.
        let mut tries = 0;
        let mut child = loop {
            match self.command.spawn() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                spawned => break spawned.unwrap(),
            }
        };
        let mut stdin = child.stdin.take().unwrap();
        let bytes = std::mem::take(&mut self.stdin);
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        Outcome::from(output)
    }
}

#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Outcome {
    fn from(o: Output) -> Outcome {
        Outcome {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Outcome {
    /// Stdout as a person reads it once wrapped lines are joined: each run of spaces and line
    /// breaks one space (messages wrap to the terminal's width, 80 columns in a pipe).
    pub fn unwrapped(&self) -> String {
        self.stdout.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Stdout parsed as one JSON object (hook output).
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {:?}", self.stdout))
    }

    #[track_caller]
    /// Exit 0 and no decision; at most the once-per-session notice that no LLM judges.
    pub fn assert_allow_without_llm(&self) {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        if self.stdout.trim().is_empty() {
            return;
        }
        let v = self.json();
        assert!(
            v.as_object().is_some_and(|o| o.len() == 1)
                && v["systemMessage"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("hookjudge is not judging: no LLM")),
            "expected no output but the no-LLM notice: {}",
            self.stdout
        );
    }

    pub fn assert_silent_allow(&self) {
        assert_eq!(
            (self.code, self.stdout.as_str()),
            (0, ""),
            "expected exit 0 and no output; stderr: {}",
            self.stderr
        );
    }
}

/// A Claude Code transcript line for a user prompt.
pub fn user_line(text: &str) -> String {
    serde_json::json!({"type":"user","uuid":format!("u-{}", text.len()),"message":{"role":"user","content":text}}).to_string()
}

/// A Claude Code transcript line for one assistant text block.
pub fn assistant_line(uuid: &str, text: &str) -> String {
    serde_json::json!({"type":"assistant","uuid":uuid,"message":{"id":format!("msg-{uuid}"),"role":"assistant","model":"claude-opus",
        "content":[{"type":"text","text":text}]}})
    .to_string()
}

/// A Claude Code transcript line for a tool result.
pub fn tool_result_line(content: &str) -> String {
    serde_json::json!({"type":"user","uuid":"tr","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":content}]},
        "toolUseResult":{"stdout":content}})
    .to_string()
}

/// Claude Code `Stop` input.
pub fn claude_stop(session: &str, transcript: &Path, last: &str, active: bool) -> String {
    serde_json::json!({"session_id":session,"transcript_path":transcript,"cwd":"/nonexistent","prompt_id":"p1",
        "permission_mode":"default","hook_event_name":"Stop","stop_hook_active":active,"last_assistant_message":last,
        "background_tasks":[],"session_crons":[]})
    .to_string()
}

/// A config whose LLM is a command (a real child process) that answers every question with
/// the fields of `flat`: a combined answer giving each field of `flat` to the first built-in
/// response judge that has it (`new_proposal` is the commit judge's) and every field false to a
/// judge given none, with `flat` itself at the top level too for the gate's single-judge prompt.
pub fn command_llm_config(flat: &str) -> String {
    let answer = answer_for_every_judge(flat);
    serde_json::json!({"llm": {"provider": "command", "command": ["sh", "-c", format!("cat >/dev/null; printf '%s' '{answer}'")]}}).to_string()
}

/// `config` (a user config's JSON) with `stop.judge_turns: "lexicon"`: only the judges Layer 1
/// wakes are asked, as in 0.1.
pub fn lexicon(config: &str) -> String {
    let mut config: Value = serde_json::from_str(config).expect("a JSON config");
    config["stop"]["judge_turns"] = Value::String("lexicon".into());
    config.to_string()
}

/// `flat`'s fields, and a part for every built-in response judge (see [`command_llm_config`]);
/// a judge named in `flat` with an object keeps that object as its part.
pub fn answer_for_every_judge(flat: &str) -> String {
    let flat: serde_json::Map<String, Value> = serde_json::from_str(flat).expect("a JSON object");
    let builtins: serde_json::Map<String, Value> = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src/judge/builtins.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut answer = flat.clone();
    let mut given: Vec<String> = Vec::new();
    for (name, spec) in builtins {
        // A judge's own part in `flat` stands as given.
        if spec["kind"] == "gate" || flat.get(&name).is_some_and(Value::is_object) {
            continue;
        }
        let fields = spec["fields"].as_object().cloned().unwrap_or_default();
        let mut part: serde_json::Map<String, Value> = fields
            .keys()
            .filter(|f| !given.contains(f))
            .filter_map(|f| flat.get(f).map(|v| (f.clone(), v.clone())))
            .collect();
        given.extend(part.keys().cloned());
        if part.is_empty() {
            part = fields
                .keys()
                .map(|f| (f.clone(), Value::Bool(false)))
                .collect();
        } else if let Some(reason) = flat.get("reason") {
            part.insert("reason".into(), reason.clone());
        }
        answer.insert(name, Value::Object(part));
    }
    Value::Object(answer).to_string()
}

/// A scripted HTTP server on 127.0.0.1 (a free port) standing in for an LLM API. It answers
/// each request with what `respond` returns for the parsed request, records every request, and
/// stops when dropped.
pub struct FakeLlm {
    pub url: String,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<Recorded>>>,
    pub max_in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    addr: std::net::SocketAddr,
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The prompt's user text, from an OpenAI (last message) or Anthropic request (one string
    /// or text blocks).
    pub fn prompt(&self) -> String {
        let messages = self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let Some(last) = messages.last() else {
            return String::new();
        };
        match &last["content"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .concat(),
            _ => String::new(),
        }
    }

    /// The judges a combined prompt asks, each with its field names, in order.
    pub fn judges_asked(&self) -> Vec<(String, Vec<String>)> {
        judges_in_prompt(&self.prompt())
    }

    /// A combined answer to this request: `parts[judge]` for the judges it names, every field
    /// false for the others.
    pub fn answer(&self, parts: Value) -> String {
        combined_answer(&self.prompt(), parts)
    }
}

/// The judges a combined prompt asks (`Judge "name"` headers), each with its field names.
pub fn judges_in_prompt(prompt: &str) -> Vec<(String, Vec<String>)> {
    let mut judges: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_fields = false;
    for line in prompt.lines() {
        if let Some(name) = line
            .strip_prefix("Judge \"")
            .and_then(|r| r.strip_suffix('"'))
        {
            judges.push((name.to_owned(), Vec::new()));
            in_fields = false;
        } else if line == "Fields:" {
            in_fields = true;
        } else if in_fields && let Some(field) = line.strip_prefix("- \"") {
            let name = field.split('"').next().unwrap_or_default().to_owned();
            if let Some(last) = judges.last_mut() {
                last.1.push(name);
            }
        } else {
            in_fields = false;
        }
    }
    judges
}

/// A combined answer to `prompt`: `parts[judge]` for the judges it names, every field false for
/// the others.
pub fn combined_answer(prompt: &str, parts: Value) -> String {
    let mut answer = serde_json::Map::new();
    for (judge, fields) in judges_in_prompt(prompt) {
        let part = parts.get(&judge).cloned().unwrap_or_else(|| {
            let mut all_false: serde_json::Map<String, Value> = fields
                .iter()
                .map(|f| (f.clone(), Value::Bool(false)))
                .collect();
            all_false.insert("reason".into(), Value::String("nothing to flag".into()));
            Value::Object(all_false)
        });
        answer.insert(judge, part);
    }
    Value::Object(answer).to_string()
}

/// What the fake server sends back: status, body, and a delay before answering.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: std::time::Duration,
}

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply {
            status: 200,
            body: body.to_string(),
            delay: std::time::Duration::ZERO,
        }
    }
    /// An OpenAI chat completion whose message content is `content`.
    pub fn chat(content: &str) -> Reply {
        Reply::ok(
            serde_json::json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}),
        )
    }
}

impl FakeLlm {
    pub fn start(respond: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> FakeLlm {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::{Arc, Mutex};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let respond = Arc::new(respond);
        {
            let (requests, stop, in_flight, max_in_flight) = (
                requests.clone(),
                stop.clone(),
                in_flight.clone(),
                max_in_flight.clone(),
            );
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, respond, in_flight, max_in_flight) = (
                        requests.clone(),
                        respond.clone(),
                        in_flight.clone(),
                        max_in_flight.clone(),
                    );
                    std::thread::spawn(move || {
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        max_in_flight.fetch_max(now, Ordering::SeqCst);
                        serve(stream, &requests, respond.as_ref());
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            });
        }
        FakeLlm {
            url: format!("http://{addr}"),
            requests,
            max_in_flight,
            stop,
            addr,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.addr);
    }
}

fn serve(
    mut stream: std::net::TcpStream,
    requests: &std::sync::Mutex<Vec<Recorded>>,
    respond: &(dyn Fn(&Recorded) -> Reply + Send + Sync),
) {
    use std::io::{BufRead, BufReader, Read};
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() || request_line.is_empty() {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.trim_end().split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let recorded = Recorded {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    requests.lock().unwrap().push(recorded.clone());
    let reply = respond(&recorded);
    std::thread::sleep(reply.delay);
    let response = format!(
        "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
        reply.status,
        reply.body.len(),
        reply.body
    );
    let _ = stream.write_all(response.as_bytes());
}
