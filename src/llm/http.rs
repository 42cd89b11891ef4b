//! The HTTP providers: OpenAI-compatible chat completions (OpenAI, Groq, Cerebras, OpenRouter,
//! Ollama, llama.cpp, vLLM, LM Studio) and Anthropic's Messages API.
//!
//! Every request is bounded by the hook's deadline (connect and read included). For OpenAI-
//! compatible servers the answer is constrained with a JSON schema where the server supports
//! it; llama-cpp-python rejects OpenAI's `json_schema` form with an error but accepts its own
//! `json_object` + `schema` form, so a rejection falls back once and the working form is
//! remembered per server and model.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Failure;
use super::frame::Prompt;

/// How an OpenAI-compatible request asks for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// OpenAI's `{"type":"json_schema", …}`.
    JsonSchema,
    /// `{"type":"json_object","schema":…}` (llama-cpp-python constrains output to the schema).
    JsonObject,
    /// No `response_format` at all.
    None,
}

impl ResponseFormat {
    pub fn name(self) -> &'static str {
        match self {
            ResponseFormat::JsonSchema => "json_schema",
            ResponseFormat::JsonObject => "json_object",
            ResponseFormat::None => "none",
        }
    }

    fn body(self, schema: &Value) -> Option<Value> {
        match self {
            ResponseFormat::JsonSchema => Some(
                json!({"type": "json_schema", "json_schema": {"name": "verdict", "strict": true, "schema": schema}}),
            ),
            ResponseFormat::JsonObject => Some(json!({"type": "json_object", "schema": schema})),
            ResponseFormat::None => None,
        }
    }

    /// The next form to try after the server rejected this one.
    pub fn fallback(self) -> Option<ResponseFormat> {
        match self {
            ResponseFormat::JsonSchema => Some(ResponseFormat::JsonObject),
            ResponseFormat::JsonObject => Some(ResponseFormat::None),
            ResponseFormat::None => None,
        }
    }
}

/// Sends a chat-completions request and returns the message content; a failure comes with the
/// body that was sent, so that the caller can tell which parameter a server refused.
/// A provider's answer: its text and, when the server reports usage, the prompt's tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub prompt_tokens: Option<u64>,
}

pub fn openai(
    base_url: &str,
    model: &str,
    api_key: Option<&str>,
    prompt: &Prompt,
    format: ResponseFormat,
    omit: &[String],
    deadline: Instant,
) -> Result<Reply, (Failure, Value)> {
    let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
    let mut body = json!({
        "model": model,
        "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
    });
    for (name, value) in super::params::optional_for(model, omit) {
        // A combined answer needs room for every judge's part; reasoning models keep theirs.
        let value = if name == "max_completion_tokens" && !super::params::is_reasoning_model(model)
        {
            json!(prompt.answer_tokens)
        } else {
            value
        };
        body[name] = value;
    }
    if let Some(rf) = format.body(&prompt.schema) {
        body["response_format"] = rf;
    }
    let mut headers = Vec::new();
    if let Some(key) = api_key {
        headers.push(("Authorization", format!("Bearer {key}")));
    }
    let response = post(&url, &headers, &body, deadline).map_err(|f| (f, body))?;
    let prompt_tokens = response["usage"]["prompt_tokens"].as_u64();
    response["choices"][0]["message"]["content"]
        .as_str()
        .map(|text| Reply {
            text: text.to_owned(),
            prompt_tokens,
        })
        .ok_or_else(|| {
            (
                Failure::Unparseable(format!(
                    "no `choices[0].message.content` in the response: {}",
                    excerpt(&response.to_string())
                )),
                Value::Null,
            )
        })
}

/// Sends a Messages API request and returns the text of the answer.
pub fn anthropic(
    base_url: &str,
    model: &str,
    api_key: Option<&str>,
    prompt: &Prompt,
    deadline: Instant,
) -> Result<Reply, Failure> {
    let url = format!("{}/v1/messages", base_url.trim_end_matches('/'));
    let body = json!({
        "model": model,
        "max_tokens": prompt.answer_tokens,
        "temperature": 0,
        "system": prompt.system,
        "messages": [{"role": "user", "content": anthropic_content(prompt)}],
    });
    let mut headers = vec![("anthropic-version", "2023-06-01".to_string())];
    if let Some(key) = api_key {
        headers.push(("x-api-key", key.to_string()));
    }
    let response = post(&url, &headers, &body, deadline)?;
    let text: Vec<&str> = response["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    if text.is_empty() {
        return Err(Failure::Unparseable(format!(
            "no text content in the response: {}",
            excerpt(&response.to_string())
        )));
    }
    // Cached and freshly cached input count as prompt tokens too.
    let usage = &response["usage"];
    let prompt_tokens = [
        "input_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .iter()
    .filter_map(|k| usage[*k].as_u64())
    .reduce(|a, b| a + b);
    Ok(Reply {
        text: text.join("\n"),
        prompt_tokens,
    })
}

/// The user message's content: with a static part, two text blocks, the first marked for
/// Anthropic's prompt cache (the judges' tasks repeat from turn to turn; the turn does not).
fn anthropic_content(prompt: &Prompt) -> Value {
    if prompt.static_len == 0 || prompt.static_len >= prompt.user.len() {
        return json!(prompt.user);
    }
    let (fixed, turn) = prompt.user.split_at(prompt.static_len);
    json!([
        {"type": "text", "text": fixed, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": turn},
    ])
}

fn post(
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
    deadline: Instant,
) -> Result<Value, Failure> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    if remaining.is_zero() {
        return Err(Failure::Timeout);
    }
    let loopback = url.starts_with("http://127.")
        || url.starts_with("http://localhost")
        || url.starts_with("http://[::1]");
    let mut config = ureq::Agent::config_builder()
        .timeout_global(Some(remaining.max(Duration::from_millis(1))))
        .http_status_as_error(false);
    if loopback {
        // A proxy from the environment must never see traffic meant for this machine.
        config = config.proxy(None);
    }
    let agent: ureq::Agent = config.build().into();
    let mut request = agent.post(url);
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let mut response = request.send_json(body).map_err(transport)?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(4 << 20)
        .read_to_string()
        .map_err(transport)?;
    if status >= 400 {
        return Err(Failure::Http {
            status,
            body: excerpt(&text),
        });
    }
    serde_json::from_str(&text).map_err(|e| {
        Failure::Unparseable(format!(
            "the response body is not JSON ({e}): {}",
            excerpt(&text)
        ))
    })
}

fn transport(e: ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout,
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            Failure::Timeout
        }
        other => Failure::Connect(other.to_string()),
    }
}

/// Whether an HTTP error looks like a rejection of the `response_format` we sent.
pub fn rejects_format(failure: &Failure) -> bool {
    match failure {
        Failure::Http { status, body } if (400..600).contains(status) => {
            let body = body.to_ascii_lowercase();
            ["response_format", "json_schema", "json_object", "schema"]
                .iter()
                .any(|w| body.contains(w))
        }
        _ => false,
    }
}

fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 200 {
        format!("{}…", one_line.chars().take(200).collect::<String>())
    } else {
        one_line
    }
}
