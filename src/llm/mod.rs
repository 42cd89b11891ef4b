//! Layer 2: the LLM judge. Picks a provider, frames the text, calls the model within the hook's
//! deadline, parses the answer into the judge's fields and caches the result briefly.
//!
//! Nothing here decides block or allow: it returns fields or a failure, and the judge's rule
//! and the caller's failure direction do the rest (the Stop hook fails open, the gate asks a
//! human). Provider detection runs only when a judge has triggered, never on the quiet path.

pub mod answer;
pub mod cache;
pub mod command;
pub mod frame;
pub mod http;
pub mod memory;
pub mod params;
pub mod resolve;
pub mod second_reading;

use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use crate::judge::Judge;
use crate::judge::evaluate::{
    Answer, Answers, CacheUse, Layer2, Layer2Call, Question, Recheck, Rereads,
};
use crate::judge::layer2::FailureKind;
pub use http::ResponseFormat;
pub use resolve::{Backend, Resolution};

/// Which LLM provider Layer 2 uses (`llm.provider`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The first that is configured or available: explicit settings, an API key in the
    /// environment, `codex` or `claude` on PATH, a local Ollama. By default, this.
    #[default]
    Auto,
    /// Layer 1 only: triggers are recorded as unjudged and allowed.
    None,
    /// Any OpenAI-compatible chat-completions endpoint.
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
    /// A program that reads the prompt on stdin and prints the answer (`llm.command`).
    Command,
    /// The Codex CLI in non-interactive exec mode.
    Codex,
    /// Claude Code's `claude -p` with a Haiku-class model.
    Claude,
}

/// The resolved `llm` settings.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    pub provider: ProviderKind,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    pub command: Option<Vec<String>>,
    /// The deadline of one hook call's LLM work.
    pub timeout_ms: u64,
    /// How long a verdict is reused for the same judge, model and text.
    pub cache_seconds: u64,
    /// `None` picks automatically (and remembers what a server accepts).
    pub response_format: Option<ResponseFormat>,
}

impl Default for LlmSettings {
    fn default() -> LlmSettings {
        LlmSettings {
            provider: ProviderKind::Auto,
            base_url: None,
            model: None,
            api_key_env: None,
            command: None,
            timeout_ms: 10_000,
            cache_seconds: 120,
            response_format: None,
        }
    }
}

/// Why an LLM call gave no usable answer.
#[derive(Debug, Clone)]
pub enum Failure {
    Timeout,
    Http { status: u16, body: String },
    Connect(String),
    Unparseable(String),
    Missing(String),
    Process(String),
    Config(String),
}

impl Failure {
    /// The failure's kind, as logged and counted.
    pub fn kind(&self) -> FailureKind {
        match self {
            Failure::Timeout => FailureKind::Timeout,
            Failure::Http { .. } => FailureKind::Http,
            Failure::Connect(_) => FailureKind::Connect,
            Failure::Unparseable(_) => FailureKind::Unparseable,
            Failure::Missing(_) => FailureKind::Missing,
            Failure::Process(_) => FailureKind::Process,
            Failure::Config(_) => FailureKind::Config,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Timeout => write!(f, "the LLM did not answer before the deadline"),
            Failure::Http { status, body } => {
                write!(f, "the LLM server answered HTTP {status}: {body}")
            }
            Failure::Connect(e) => write!(f, "cannot reach the LLM server: {e}"),
            Failure::Unparseable(e) => write!(f, "unusable answer: {e}"),
            Failure::Missing(e) => write!(f, "{e}"),
            Failure::Process(e) => write!(f, "{e}"),
            Failure::Config(e) => write!(f, "{e}"),
        }
    }
}

/// Layer 2 backed by a real LLM: one per hook call, sharing one deadline.
pub struct LlmJudge {
    settings: LlmSettings,
    state_dir: PathBuf,
    deadline: Instant,
    resolution: OnceLock<Resolution>,
    /// The user's latest request (redacted), framed as context for every judge; read from
    /// `request_source` on first need when the caller gave a source instead of the text.
    request: OnceLock<Option<String>>,
    request_source: Option<RequestSource>,
    /// Why `request_source` gave no request, for the log.
    request_error: OnceLock<std::io::Error>,
}

/// The request as prompts carry it: redacted, and none when it is blank.
fn redacted_request(request: Option<&str>) -> Option<String> {
    request
        .filter(|r| !r.trim().is_empty())
        .map(|r| crate::redact::redact(r).text)
}

/// Where the user's request can be read when a judge first needs it (a file the quiet path
/// should not open).
pub type RequestSource = Box<dyn Fn() -> std::io::Result<Option<String>> + Send + Sync>;

impl LlmJudge {
    pub fn new(settings: &LlmSettings, state_dir: PathBuf, started: Instant) -> LlmJudge {
        LlmJudge {
            settings: settings.clone(),
            state_dir,
            deadline: started + std::time::Duration::from_millis(settings.timeout_ms),
            resolution: OnceLock::new(),
            request: OnceLock::new(),
            request_source: None,
            request_error: OnceLock::new(),
        }
    }

    /// Frames the user's latest request with every prompt, as context. It is redacted here,
    /// like the judged text, before the cache key, the provider or anything else sees it.
    pub fn with_request(mut self, request: Option<&str>) -> LlmJudge {
        self.request = OnceLock::from(redacted_request(request));
        self
    }

    /// Like [`LlmJudge::with_request`], with the request read from `source` only when the first
    /// judge is asked: text that wakes no judge costs no read.
    pub fn with_request_from(mut self, source: RequestSource) -> LlmJudge {
        self.request_source = Some(source);
        self
    }

    /// The user's request, reading it from its source on first need.
    fn request(&self) -> Option<&str> {
        self.request
            .get_or_init(
                || match self.request_source.as_ref().map(|source| source()) {
                    Some(Ok(read)) => redacted_request(read.as_deref()),
                    Some(Err(e)) => {
                        // This closure runs once, so the cell is still empty.
                        let _ = self.request_error.set(e);
                        None
                    }
                    None => None,
                },
            )
            .as_deref()
    }

    /// Why the request could not be read from its source, once a judge asked for it.
    pub fn request_error(&self) -> Option<&std::io::Error> {
        self.request_error.get()
    }

    /// The provider in use, resolving it on first need.
    pub fn resolution(&self) -> &Resolution {
        self.resolution.get_or_init(|| {
            resolve::resolve(&self.settings, &self.state_dir, &resolve::process_env)
        })
    }

    /// The resolution if one was made (judges triggered).
    pub fn resolved(&self) -> Option<&Resolution> {
        self.resolution.get()
    }

    /// Sends `prompt` to `backend` and returns the model's raw answer, learning on the way what
    /// an OpenAI-compatible server refuses. `meta` gets the format used and the prompt's tokens.
    fn send(
        &self,
        backend: &Backend,
        prompt: &frame::Prompt,
        meta: &mut Layer2Call,
    ) -> Result<String, Failure> {
        let reply = match backend {
            Backend::OpenAi {
                missing_key: Some(variable),
                ..
            }
            | Backend::Anthropic {
                missing_key: Some(variable),
                ..
            } => return Err(Failure::Config(missing_key_cause(variable))),
            Backend::OpenAi {
                base_url,
                model,
                api_key,
                ..
            } => {
                let memory = resolve::FormatMemory::new(&self.state_dir, base_url, model);
                let mut format = self
                    .settings
                    .response_format
                    .or_else(|| memory.recall())
                    .unwrap_or(ResponseFormat::JsonSchema);
                let automatic = self.settings.response_format.is_none();
                let refusals = params::RefusedMemory::new(&self.state_dir, base_url, model);
                let mut omit = refusals.recall();
                loop {
                    match http::openai(
                        base_url,
                        model,
                        api_key.as_deref(),
                        prompt,
                        format,
                        &omit,
                        self.deadline,
                    ) {
                        // Each refused parameter is dropped once and remembered.
                        Err((f, sent)) if params::refused(&f, &sent).is_some() => {
                            let param = params::refused(&f, &sent).expect("checked");
                            omit.push(param.to_owned());
                            if let Err(e) = refusals.remember(&omit) {
                                meta.memory_error = Some(e.to_string());
                            }
                            meta.param_refused = Some(omit.clone());
                        }
                        Err((f, _))
                            if automatic
                                && http::rejects_format(&f)
                                && format.fallback().is_some() =>
                        {
                            meta.format_rejected = Some(format.name().to_owned());
                            format = format.fallback().expect("checked");
                        }
                        result => {
                            meta.format = Some(format.name().to_owned());
                            if result.is_ok()
                                && automatic
                                && let Err(e) = memory.remember(format)
                            {
                                meta.memory_error = Some(e.to_string());
                            }
                            break result.map_err(|(f, _)| f)?;
                        }
                    }
                }
            }
            Backend::Anthropic {
                base_url,
                model,
                api_key,
                ..
            } => http::anthropic(base_url, model, api_key.as_deref(), prompt, self.deadline)?,
            Backend::Command { argv, .. } => http::Reply {
                // Commands get one plain prompt: system and user text together.
                text: command::run(argv, &prompt.user, self.deadline)?,
                prompt_tokens: None,
            },
        };
        meta.prompt_tokens_estimated = Some(reply.prompt_tokens.is_none());
        meta.prompt_tokens = Some(
            reply
                .prompt_tokens
                .unwrap_or(((prompt.system.len() + prompt.user.len()) / 4) as u64),
        );
        Ok(reply.text)
    }

    fn call(
        &self,
        backend: &Backend,
        judge: &Judge,
        text: &str,
        meta: &mut Layer2Call,
    ) -> Result<answer::Parsed, Failure> {
        let prompt = frame::frame(judge, text, self.request(), &frame::nonce());
        let raw = self.send(backend, &prompt, meta)?;
        answer::parse(&raw, judge, text).map_err(|e| Failure::Unparseable(e.to_string()))
    }

    /// One call for every judge of `question`: each judge's result, in order; a judge whose
    /// part is unusable gets its own failure.
    fn call_all(
        &self,
        backend: &Backend,
        question: &Question,
        turn: &frame::Turn,
        meta: &mut Layer2Call,
    ) -> Result<Vec<Result<answer::Parsed, Failure>>, Failure> {
        let prompt = frame::frame_panel(question.judges, turn, &frame::nonce());
        let raw = self.send(backend, &prompt, meta)?;
        let parts = answer::parse_panel(&raw, question.judges, question.text)
            .map_err(|e| Failure::Unparseable(e.to_string()))?;
        Ok(parts
            .into_iter()
            .map(|part| part.map_err(|e| Failure::Unparseable(e.to_string())))
            .collect())
    }
}

/// Why no request was sent: the key's variable is unset, and a request without it would only
/// come back refused.
pub fn missing_key_cause(variable: &str) -> String {
    format!(
        "`{variable}` is not set or empty, so no request was sent; set `{variable}`, or name the variable that holds the key in `llm.api_key_env`"
    )
}

impl Layer2 for LlmJudge {
    fn ask(&self, judge: &Judge, text: &str) -> Answer {
        let Some(backend) = &self.resolution().backend else {
            return Answer::Unjudged;
        };
        let mut meta = Layer2Call {
            provider: Some(backend.provider().to_owned()),
            model: Some(backend.model()),
            ..Layer2Call::default()
        };
        let key = cache::key(judge, backend, text, self.request());
        if let Some(hit) = cache::get(&self.state_dir, &key, self.settings.cache_seconds) {
            meta.cache = Some(CacheUse::Hit);
            meta.latency_ms = Some(0);
            return Answer::Fields {
                fields: hit.fields,
                reason: hit.reason,
                meta,
            };
        }
        meta.cache = Some(CacheUse::Miss);
        let started = Instant::now();
        let result = self.call(backend, judge, text, &mut meta);
        meta.latency_ms = Some(started.elapsed().as_millis() as u64);
        match result {
            Ok(parsed) => {
                cache::put(&self.state_dir, &key, &parsed, self.settings.cache_seconds);
                Answer::Fields {
                    fields: parsed.fields,
                    reason: parsed.reason,
                    meta,
                }
            }
            Err(failure) => {
                meta.failure = Some(failure.kind());
                Answer::Failed {
                    cause: failure.to_string(),
                    meta,
                }
            }
        }
    }

    fn available(&self) -> bool {
        self.resolution().backend.is_some()
    }

    fn reread(&self, recheck: &Recheck) -> Option<Rereads> {
        second_reading::ask(self, recheck)
    }

    fn ask_all(&self, question: &Question) -> Answers {
        let unjudged = || Answers {
            answers: question.judges.iter().map(|_| Answer::Unjudged).collect(),
            calls: 0,
        };
        let Some(backend) = &self.resolution().backend else {
            return unjudged();
        };
        let mut meta = Layer2Call {
            provider: Some(backend.provider().to_owned()),
            model: Some(backend.model()),
            shared_by: Some(question.judges.len() as u32),
            ..Layer2Call::default()
        };
        let turn = frame::Turn {
            text: question.text,
            request: self.request(),
            facts: question.facts,
            hints: question.hints,
        };
        let key = cache::panel_key(question.judges, backend, &turn);
        let ttl = self.settings.cache_seconds;
        if let Some(parts) = cache::get_panel(&self.state_dir, &key, question.judges, ttl) {
            meta.cache = Some(CacheUse::Hit);
            meta.latency_ms = Some(0);
            let answers = parts
                .into_iter()
                .map(|p| Answer::Fields {
                    fields: p.fields,
                    reason: p.reason,
                    meta: meta.clone(),
                })
                .collect();
            return Answers { answers, calls: 0 };
        }
        meta.cache = Some(CacheUse::Miss);
        let started = Instant::now();
        let result = self.call_all(backend, question, &turn, &mut meta);
        meta.latency_ms = Some(started.elapsed().as_millis() as u64);
        let answers = match result {
            Ok(parts) => {
                let whole: Vec<(&str, &answer::Parsed)> = question
                    .judges
                    .iter()
                    .zip(&parts)
                    .filter_map(|(j, p)| p.as_ref().ok().map(|p| (j.name.as_str(), p)))
                    .collect();
                // Only a whole answer is kept: a judge that failed is asked again next time.
                if whole.len() == parts.len() {
                    cache::put_panel(&self.state_dir, &key, &whole, ttl);
                }
                parts
                    .into_iter()
                    .map(|part| match part {
                        Ok(parsed) => Answer::Fields {
                            fields: parsed.fields,
                            reason: parsed.reason,
                            meta: meta.clone(),
                        },
                        Err(failure) => failed(failure, &meta),
                    })
                    .collect()
            }
            Err(failure) => question
                .judges
                .iter()
                .map(|_| failed(failure.clone(), &meta))
                .collect(),
        };
        Answers { answers, calls: 1 }
    }
}

/// A judge's failed answer, with the call's facts and the failure's kind.
fn failed(failure: Failure, meta: &Layer2Call) -> Answer {
    let mut meta = meta.clone();
    meta.failure = Some(failure.kind());
    Answer::Failed {
        cause: failure.to_string(),
        meta,
    }
}
