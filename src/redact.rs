//! Secret redaction: nothing that looks like a credential leaves the process or reaches the
//! log. Each secret becomes `[REDACTED:<kind>]`, and the counts per kind are logged.
//!
//! The rules are high-confidence formats (after gitleaks' rule set and the token formats the
//! vendors document) plus a few context rules (URL credentials, `Authorization` headers,
//! `password=` assignments) behind filters. A rule's regex is compiled only when one of its
//! keywords occurs in the text, so ordinary text costs a few substring searches. Classes are
//! ASCII (`(?-u:\b)`) so that a token glued to CJK text is still found. Self-marking
//! placeholders (`AKIAIOSFODNN7EXAMPLE`, `${TOKEN}`, `ghp_xxxx…`) are left alone, and every
//! other copy of a detected value is redacted too.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

/// How sure a rule is: specific formats win over context rules, which win over generic ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Format = 1,
    Context = 2,
    Generic = 3,
}

struct Rule {
    kind: &'static str,
    tier: Tier,
    /// Lowercase ASCII literals; the regex runs only if one occurs.
    keywords: &'static [&'static str],
    /// The secret is the named group `s`.
    pattern: &'static str,
}

macro_rules! rule {
    ($kind:literal, $tier:ident, [$($kw:literal),+], $pattern:literal) => {
        Rule { kind: $kind, tier: Tier::$tier, keywords: &[$($kw),+], pattern: $pattern }
    };
}

const RULES: &[Rule] = &[
    rule!(
        "aws-access-key-id",
        Format,
        ["akia", "asia", "abia", "acca", "a3t"],
        r"(?-u:\b)(?P<s>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})(?-u:\b)"
    ),
    rule!(
        "aws-secret-access-key",
        Context,
        ["secret_access_key", "secretaccesskey", "aws_secret"],
        r#"(?i)(?:aws_?secret_?access_?key|secretaccesskey|aws_secret)["']?\s*(?:=|:|=>)\s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#
    ),
    rule!(
        "aws-secret-access-key",
        Context,
        ["akia", "asia"],
        r#"(?:AKIA|ASIA)[A-Z0-9]{16}["']?(?:\s*[,;:=|]\s*|\s+)(?:[A-Za-z_]{1,40}["']?\s*[:=]\s*)?["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#
    ),
    rule!(
        "aws-session-token",
        Context,
        ["session_token", "sessiontoken"],
        r#"(?i)(?:aws_?session_?token|sessiontoken)["']?\s*(?:=|:|=>)\s*["']?(?P<s>[A-Za-z0-9/+=]{100,2000})"#
    ),
    rule!(
        "github-pat",
        Format,
        ["ghp_"],
        r"(?P<s>ghp_[A-Za-z0-9]{36,255})"
    ),
    rule!(
        "github-fine-grained-pat",
        Format,
        ["github_pat_"],
        r"(?P<s>github_pat_[A-Za-z0-9_]{22,255})"
    ),
    rule!(
        "github-oauth",
        Format,
        ["gho_"],
        r"(?P<s>gho_[A-Za-z0-9]{36,255})"
    ),
    rule!(
        "github-app-token",
        Format,
        ["ghu_", "ghs_"],
        r"(?P<s>(?:ghu|ghs)_[A-Za-z0-9]{36,255})"
    ),
    rule!(
        "github-refresh-token",
        Format,
        ["ghr_"],
        r"(?P<s>ghr_[A-Za-z0-9]{36,255})"
    ),
    rule!(
        "gitlab-pat",
        Format,
        ["glpat-"],
        r"(?P<s>glpat-[A-Za-z0-9_\-]{20,64}(?:\.[0-9a-z]{2}\.?[0-9a-z]{7,9})?)"
    ),
    rule!(
        "gitlab-token",
        Format,
        [
            "glptt-",
            "gldt-",
            "glrt-",
            "glcbt-",
            "glft-",
            "glsoat-",
            "gloas-",
            "glimt-",
            "glagent-",
            "gr1348941"
        ],
        r"(?P<s>(?:(?:glptt|gldt|glrt|glcbt|glft|glsoat|gloas|glimt|glagent)-|GR1348941)[A-Za-z0-9_\-]{20,64})"
    ),
    rule!(
        "openai-api-key",
        Format,
        ["t3blbkfj"],
        r"(?P<s>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,200}T3BlbkFJ[A-Za-z0-9_\-]{20,200})"
    ),
    rule!(
        "anthropic-api-key",
        Format,
        ["sk-ant-"],
        r"(?P<s>sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_\-]{80,300})"
    ),
    rule!(
        "huggingface-token",
        Format,
        ["hf_", "api_org_"],
        r"(?-u:\b)(?P<s>(?:hf_|api_org_)[A-Za-z0-9]{34})(?-u:\b)"
    ),
    rule!(
        "groq-api-key",
        Format,
        ["gsk_"],
        r"(?P<s>gsk_[A-Za-z0-9]{52})"
    ),
    rule!(
        "openrouter-api-key",
        Format,
        ["sk-or-v1-"],
        r"(?P<s>sk-or-v1-[0-9a-f]{64})"
    ),
    rule!(
        "gcp-api-key",
        Format,
        ["aiza"],
        r"(?P<s>AIza[0-9A-Za-z_\-]{35})"
    ),
    rule!(
        "google-oauth-client-secret",
        Format,
        ["gocspx-"],
        r"(?P<s>GOCSPX-[A-Za-z0-9_\-]{28})"
    ),
    rule!(
        "azure-storage-key",
        Context,
        ["accountkey=", "sharedaccesskey="],
        r"(?i)(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,128}={0,2})"
    ),
    rule!(
        "azure-ad-client-secret",
        Format,
        ["q~"],
        r"(?:^|[^A-Za-z0-9_~.\-])(?P<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})"
    ),
    rule!(
        "digitalocean-token",
        Format,
        ["_v1_"],
        r"(?P<s>(?:dop|doo|dor)_v1_[a-f0-9]{64})"
    ),
    rule!(
        "slack-token",
        Format,
        ["xox", "xapp-"],
        r"(?P<s>xox[baprse]-[0-9]{8,14}-[0-9A-Za-z\-]{8,250}|xapp-[0-9]-[A-Za-z0-9\-]{10,250})"
    ),
    rule!(
        "slack-webhook-url",
        Format,
        ["hooks.slack.com"],
        r"(?P<s>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,120})"
    ),
    rule!(
        "stripe-secret-key",
        Format,
        ["_live_", "_test_"],
        r"(?-u:\b)(?P<s>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,99})"
    ),
    rule!(
        "sendgrid-api-key",
        Format,
        ["sg."],
        r"(?P<s>SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})"
    ),
    rule!(
        "twilio-api-key",
        Format,
        ["sk"],
        r"(?-u:\b)(?P<s>SK[0-9a-fA-F]{32})(?-u:\b)"
    ),
    rule!(
        "shopify-token",
        Format,
        ["shpat_", "shpca_", "shppa_", "shpss_"],
        r"(?P<s>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})"
    ),
    rule!(
        "npm-token",
        Format,
        ["npm_"],
        r"(?-u:\b)(?P<s>npm_[A-Za-z0-9]{36})"
    ),
    rule!(
        "pypi-token",
        Format,
        ["pypi-ageichlwas5vcmc"],
        r"(?P<s>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,1000})"
    ),
    rule!(
        "vault-token",
        Format,
        ["hvs.", "hvb."],
        r"(?-u:\b)(?P<s>(?:hvs|hvb)\.[A-Za-z0-9_\-]{24,300})"
    ),
    rule!(
        "private-key",
        Format,
        ["private key"],
        r"(?P<s>-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.){16,}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)"
    ),
    rule!(
        "private-key",
        Format,
        ["private key"],
        r"(?P<s>-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\n)*[A-Za-z0-9+/=]{16,})+)"
    ),
    rule!(
        "jwt",
        Format,
        ["eyj"],
        r"(?-u:\b)(?P<s>eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})"
    ),
    rule!(
        "db-connection-password",
        Context,
        ["://"],
        r"(?i)(?-u:\b)(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb)://[^:/\s@]*:(?P<s>[^@\s/]{3,128})@"
    ),
    rule!(
        "db-connection-password",
        Context,
        ["jdbc:"],
        r"(?i)jdbc:[a-z0-9]+:[^\s]*?[?&;]password=(?P<s>[^&;\s]{3,128})"
    ),
    rule!(
        "url-credentials",
        Context,
        ["://"],
        r"(?i)(?-u:\b)(?:https?|ftps?|sftp|ssh|git|wss?)://[^:/\s@]+:(?P<s>[^@\s/]{3,128})@"
    ),
    rule!(
        "http-auth-header",
        Context,
        ["authorization"],
        r"(?i)authorization[\x22']?\s*:\s*[\x22']?(?:bearer|basic|token)\s+(?P<s>[A-Za-z0-9_\-+/=.~]{8,2048})"
    ),
    rule!(
        "http-auth-header",
        Context,
        ["x-api-key"],
        r"(?i)x-api-key[\x22']?\s*:\s*[\x22']?(?P<s>[A-Za-z0-9_\-+/=.~]{8,512})"
    ),
    rule!(
        "http-auth-header",
        Context,
        ["-u", "--user"],
        r#"(?i)curl(?-u:\b)[^\n]*?\s(?:-u|--user)\s+["']?[^:\s"']+:(?P<s>[^\s"']{3,128})"#
    ),
    rule!(
        "docker-auth",
        Context,
        ["\"auth\"", "\"identitytoken\""],
        r#"(?i)"(?:auth|identitytoken)"\s*:\s*"(?P<s>[A-Za-z0-9+/_\-.]{12,2048}={0,2})""#
    ),
    rule!(
        "cli-password",
        Context,
        ["sshpass"],
        r#"sshpass(?-u:\b)[^\n]*?\s-p\s*["']?(?P<s>[^\s"']{3,128})"#
    ),
    rule!(
        "cli-password",
        Context,
        ["mysql", "mariadb"],
        r#"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]*?\s-p["']?(?P<s>[^\s"'\-][^\s"']{2,127})"#
    ),
    rule!(
        "cli-token",
        Context,
        [
            "--token",
            "--password",
            "--passwd",
            "--api-key",
            "--auth-token",
            "--access-token",
            "--secret"
        ],
        r#"(?i)(?:^|\s)--(?:token|password|passwd|api-key|auth-token|access-token|secret)(?:=|\s+)["']?(?P<s>[^\s"'\-][^\s"']{7,255})"#
    ),
    rule!(
        "cli-password",
        Context,
        ["docker", "podman", "helm", "nerdctl", "buildah", "skopeo"],
        r#"(?-u:\b)(?:docker|podman|helm|nerdctl|buildah|skopeo)(?-u:\b)[^\n|;&]*?(?-u:\b)login(?-u:\b)[^\n|;&]*?\s-p(?:=|\s+)["']?(?P<s>[^\s"'\-][^\s"']{3,127})"#
    ),
    rule!(
        "netrc-password",
        Context,
        ["machine"],
        r"(?i)machine\s+\S+\s+login\s+\S+\s+password\s+(?P<s>\S{4,128})"
    ),
    rule!(
        "generic-password",
        Generic,
        ["pass", "pwd"],
        r#"(?i)(?:[a-z0-9_.\-]*pass(?:word|wd)?|pwd)["']?\s*(?:=|:=|=>|:)\s*["'`]?(?P<s>[^\s"'`,;]{6,128})"#
    ),
    rule!(
        "prose-password",
        Generic,
        [
            "password is",
            "password was",
            "passphrase is",
            "passphrase was",
            "passwd is",
            "pwd is"
        ],
        r#"(?i)(?:password|passphrase|passwd|pwd)\s+(?:is|was)\s*:?\s+["'`]?(?P<s>[^\s"'`,;]{6,128})"#
    ),
    rule!(
        "generic-token",
        Generic,
        ["token"],
        r#"(?i)(?:^|[^A-Za-z0-9_.\-])(?P<k>token)["']?\s*(?:=|:=|=>|:)\s*["'`]?(?P<s>[A-Za-z0-9_\-+/=.~]{16,256})"#
    ),
    rule!(
        "generic-api-secret",
        Generic,
        [
            "secret",
            "api_key",
            "apikey",
            "api-key",
            "token",
            "private_key",
            "credential",
            "_key"
        ],
        r#"(?i)(?P<k>[a-z0-9_.\-]*(?:secret[a-z0-9_]*|api_?key|apikey|api-key|access_?token|auth_?token|private_?key|credential|[a-z]+_token|[a-z]+_key))["']?\s*(?:=|:=|=>|:)\s*["'`]?(?P<s>[A-Za-z0-9_\-+/=.~!@#%^&*]{12,256})"#
    ),
];

/// Key names of generic assignments that hold identifiers or URLs, not secrets.
const NOT_SECRET_KEYS: [&str; 10] = [
    "csrf",
    "xsrf",
    "public",
    "publishable",
    "_id",
    "token_type",
    "token_url",
    "token_endpoint",
    "api_version",
    "api_url",
];
/// Generic values that are placeholders, not secrets.
const PLACEHOLDER_VALUES: [&str; 14] = [
    "password", "changeme", "changeit", "secret", "admin", "root", "test", "dummy", "null", "none",
    "true", "false", "p@ssw0rd", "example",
];

fn compiled(index: usize) -> &'static Regex {
    static CELLS: OnceLock<Vec<OnceLock<Regex>>> = OnceLock::new();
    let cells = CELLS.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    cells[index].get_or_init(|| {
        regex::RegexBuilder::new(RULES[index].pattern)
            .size_limit(32 << 20)
            .build()
            .expect("redaction rules compile (tested)")
    })
}

/// A redacted text and what was removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    /// Secrets removed, per kind.
    pub counts: BTreeMap<String, usize>,
}

impl Redacted {
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }
}

#[derive(Debug, Clone)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    tier: Tier,
}

/// Redacts every secret found in `text`.
pub fn redact(text: &str) -> Redacted {
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<Span> = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if !rule
            .keywords
            .iter()
            .any(|k| memchr::memmem::find(lower.as_bytes(), k.as_bytes()).is_some())
        {
            continue;
        }
        for caps in compiled(i).captures_iter(text) {
            let Some(secret) = caps.name("s") else {
                continue;
            };
            if rule.tier == Tier::Generic {
                let key = caps
                    .name("k")
                    .map(|k| k.as_str().to_ascii_lowercase())
                    .unwrap_or_default();
                if NOT_SECRET_KEYS.iter().any(|n| key.contains(n)) {
                    continue;
                }
            }
            let value = trim_value(secret.as_str(), rule.tier);
            if value.is_empty() || is_placeholder(value, rule) {
                continue;
            }
            found.push(Span {
                start: secret.start(),
                end: secret.start() + value.len(),
                kind: rule.kind,
                tier: rule.tier,
            });
        }
    }
    if found.is_empty() {
        return Redacted {
            text: text.to_owned(),
            counts: BTreeMap::new(),
        };
    }
    // Overlaps: the most specific tier wins, then the longest span.
    found.sort_by(|a, b| {
        a.tier
            .cmp(&b.tier)
            .then((b.end - b.start).cmp(&(a.end - a.start)))
    });
    let mut kept: Vec<Span> = Vec::new();
    for span in found {
        if !kept
            .iter()
            .any(|k| span.start < k.end && k.start < span.end)
        {
            kept.push(span);
        }
    }
    // Every other exact copy of a detected value goes too.
    let values: Vec<(String, &'static str, Tier)> = kept
        .iter()
        .filter(|s| s.end - s.start >= 8)
        .map(|s| (text[s.start..s.end].to_owned(), s.kind, s.tier))
        .collect();
    for (value, kind, tier) in values {
        for start in memchr::memmem::find_iter(text.as_bytes(), value.as_bytes()) {
            let end = start + value.len();
            if !kept.iter().any(|k| start < k.end && k.start < end) {
                kept.push(Span {
                    start,
                    end,
                    kind,
                    tier,
                });
            }
        }
    }
    kept.sort_by_key(|s| s.start);
    let mut out = String::with_capacity(text.len());
    let mut counts = BTreeMap::new();
    let mut at = 0;
    for span in kept {
        out.push_str(&text[at..span.start]);
        out.push_str("[REDACTED:");
        out.push_str(span.kind);
        out.push(']');
        *counts.entry(span.kind.to_owned()).or_insert(0) += 1;
        at = span.end;
    }
    out.push_str(&text[at..]);
    Redacted { text: out, counts }
}

/// Redacts every string inside `value` in place (keys stay); returns the counts per kind.
pub fn redact_json(value: &mut serde_json::Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                let r = redact(s);
                if r.total() > 0 {
                    for (kind, n) in r.counts {
                        *counts.entry(kind).or_insert(0) += n;
                    }
                    *s = r.text;
                }
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            serde_json::Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    counts
}

/// Unquoted generic values must not keep trailing sentence punctuation.
fn trim_value(value: &str, tier: Tier) -> &str {
    if tier == Tier::Format {
        value
    } else {
        value.trim_end_matches(['.', ',', ')', ']', '}', '>'])
    }
}

fn is_placeholder(value: &str, rule: &Rule) -> bool {
    let lower = value.to_ascii_lowercase();
    let marks = [
        "example",
        "redacted",
        "placeholder",
        "your_",
        "your-",
        "<",
        ">",
        "${",
        "{{",
        "$(",
        "%(",
        "***",
        "...",
        "xxxxxx",
    ];
    if marks.iter().any(|m| lower.contains(m)) {
        return true;
    }
    if rule.kind != "private-key"
        && value.len() <= 100
        && (has_run_of_same(value, 6) || has_sequence(&lower, 8))
    {
        return true;
    }
    if rule.tier != Tier::Format {
        let bare = lower.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if value.starts_with(['$', '/', '~', '%']) || value.starts_with("./") {
            return true;
        }
        if value
            .chars()
            .all(|c| c.is_ascii_alphabetic() || "_.-".contains(c))
            || value.chars().all(|c| c.is_ascii_digit())
        {
            return true;
        }
        if PLACEHOLDER_VALUES.contains(&bare) {
            return true;
        }
        if rule.tier == Tier::Generic && entropy(value) < 3.0 {
            return true;
        }
        // A bare `token` key names many harmless things: only a random-looking value counts.
        if rule.kind == "generic-token" && (entropy(value) < 3.5 || !has_letter_and_digit(value)) {
            return true;
        }
    }
    false
}

fn has_letter_and_digit(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_alphabetic()) && value.chars().any(|c| c.is_ascii_digit())
}

fn has_run_of_same(value: &str, n: usize) -> bool {
    let bytes = value.as_bytes();
    bytes.windows(n).any(|w| w.iter().all(|b| *b == w[0]))
}

fn has_sequence(lower: &str, n: usize) -> bool {
    lower
        .as_bytes()
        .windows(n)
        .any(|w| w.windows(2).all(|p| p[1] == p[0] + 1))
}

/// Shannon entropy in bits per character.
fn entropy(value: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        for i in 0..RULES.len() {
            compiled(i);
        }
        let kinds: std::collections::BTreeSet<&str> = RULES.iter().map(|r| r.kind).collect();
        assert!(kinds.len() >= 30, "{} kinds", kinds.len());
    }

    /// A random-looking value, generated (no secret-shaped literal in the source).
    fn generated(seed: u64, len: usize) -> String {
        let alphabet = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(x >> 33) as usize % alphabet.len()] as char
            })
            .collect()
    }

    #[test]
    fn command_line_secrets_are_redacted() {
        for seed in 1..20 {
            let value = generated(seed, 24);
            for line in [
                format!("cargo publish --token {value}"),
                format!("cargo publish --token={value}"),
                format!("docker login -u me -p {value} && git push"),
                format!("podman login --username me -p {value} registry"),
                format!("SECRET_KEY={value} git push"),
                format!("export STRIPE_KEY={value}"),
                format!("DEPLOY_TOKEN={value} make deploy"),
                format!("gh auth login --password '{value}'"),
            ] {
                let out = redact(&line).text;
                assert!(
                    !out.contains(&value),
                    "{seed}: `{line}` kept its secret: {out}"
                );
            }
        }
        for line in [
            "git push --token-file ~/.t",
            "cargo publish --token $TOKEN",
            "PRIMARY_KEY=id cargo run",
            "docker login -u me --password-stdin",
        ] {
            assert_eq!(redact(line).text, line, "changed");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let text = "The loader reads the config, and the token bucket refills every second. Password rules: 12 characters.";
        let r = redact(text);
        assert_eq!((r.text.as_str(), r.total()), (text, 0));
    }

    #[test]
    fn tokens_glued_to_cjk_text_are_found() {
        let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
        let r = redact(&format!("令牌是{token}です"));
        assert_eq!(r.text, "令牌是[REDACTED:github-pat]です");
    }

    #[test]
    fn placeholders_survive() {
        for text in [
            "AKIAIOSFODNN7EXAMPLE",
            "export GITHUB_TOKEN=${GITHUB_TOKEN}",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "password: changeme",
            "api_key = <your-api-key-here>",
        ] {
            assert_eq!(redact(text).total(), 0, "{text}");
        }
    }

    #[test]
    fn every_copy_of_a_value_is_redacted() {
        let text =
            "REDIS_PASSWORD=Zq8#vLp2Rt9w\nlater the error said: auth failed for Zq8#vLp2Rt9w";
        let r = redact(text);
        assert!(!r.text.contains("Zq8#vLp2Rt9w"), "{}", r.text);
        assert_eq!(r.counts.get("generic-password"), Some(&2));
    }

    #[test]
    fn specific_rules_win_over_generic_ones() {
        let key = format!(
            "sk-proj-{}T3BlbkFJ{}",
            "Ab12Cd34Ef56Gh78Ij90Kl", "Mn12Op34Qr56St78Uv90Wx"
        );
        let r = redact(&format!("OPENAI_API_KEY={key}"));
        assert_eq!(r.counts.keys().collect::<Vec<_>>(), ["openai-api-key"]);
    }
}
