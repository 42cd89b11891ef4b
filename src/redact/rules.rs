//! The secret rules: each a kind, how sure it is, the keywords that must occur for its regex
//! to run, and the regex, whose group `s` is the secret. Regexes are compiled on first need.

use std::sync::OnceLock;

use regex::Regex;

/// How sure a rule is: specific formats win over context rules, which win over generic ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tier {
    Format = 1,
    Context = 2,
    Generic = 3,
}

/// One secret format, or one context a secret appears in.
pub(super) struct Rule {
    /// What the secret is: it replaces it as `[REDACTED:<kind>]` and is counted under it.
    pub(super) kind: &'static str,
    pub(super) tier: Tier,
    /// Lowercase ASCII literals; the regex runs only if one occurs.
    pub(super) keywords: &'static [&'static str],
    /// The secret is the named group `s`.
    pub(super) pattern: &'static str,
}

macro_rules! rule {
    ($kind:literal, $tier:ident, [$($kw:literal),+], $pattern:literal) => {
        Rule { kind: $kind, tier: Tier::$tier, keywords: &[$($kw),+], pattern: $pattern }
    };
}

pub(super) const RULES: &[Rule] = &[
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

/// The regex of `RULES[index]`, compiled on its first call.
pub(super) fn compiled(index: usize) -> &'static Regex {
    static CELLS: OnceLock<Vec<OnceLock<Regex>>> = OnceLock::new();
    let cells = CELLS.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    cells[index].get_or_init(|| {
        regex::RegexBuilder::new(RULES[index].pattern)
            .size_limit(32 << 20)
            .build()
            .expect("redaction rules compile (tested)")
    })
}
