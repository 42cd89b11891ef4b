//! Secret redaction: realistic leaks never reach the LLM provider or the decision log, and
//! look-alike non-secrets pass unchanged. Secrets are generated here from a fixed seed, so the
//! repository holds no token-shaped strings.

use serde_json::json;

use crate::harness::{Home, answer_for_every_judge, claude_stop};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn from(&mut self, alphabet: &str, n: usize) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| a[(self.next() % a.len() as u64) as usize])
            .collect()
    }
    fn alnum(&mut self, n: usize) -> String {
        self.from(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            n,
        )
    }
    fn hex(&mut self, n: usize) -> String {
        self.from("0123456789abcdef", n)
    }
    fn upper(&mut self, n: usize) -> String {
        self.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n)
    }
    fn b64(&mut self, n: usize) -> String {
        self.from(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
            n,
        )
    }
}

/// Realistic leaks: (the secret value, the text around it).
fn leaks() -> Vec<(String, String)> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut tokens: Vec<String> = Vec::new();
    for _ in 0..2 {
        tokens.extend([
            format!("AKIA{}", r.upper(16)),
            format!("ghp_{}", r.alnum(36)),
            format!("github_pat_11{}_{}", r.alnum(20), r.alnum(59)),
            format!("gho_{}", r.alnum(36)),
            format!("ghs_{}", r.alnum(36)),
            format!("ghr_{}", r.alnum(36)),
            format!("glpat-{}", r.alnum(20)),
            format!("glrt-{}", r.alnum(20)),
            format!("sk-proj-{}T3BlbkFJ{}", r.alnum(74), r.alnum(74)),
            format!("sk-ant-api03-{}AA", r.alnum(93)),
            format!("hf_{}", r.alnum(34)),
            format!("gsk_{}", r.alnum(52)),
            format!("sk-or-v1-{}", r.hex(64)),
            format!("AIza{}", r.alnum(35)),
            format!("{}8Q~{}", r.alnum(3), r.alnum(34)),
            format!("dop_v1_{}", r.hex(64)),
            format!(
                "xoxb-{}-{}-{}",
                r.from("0123456789", 12),
                r.from("0123456789", 13),
                r.alnum(24)
            ),
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                r.upper(8),
                r.upper(10),
                r.alnum(24)
            ),
            format!("sk_live_{}", r.alnum(24)),
            format!("SG.{}.{}", r.alnum(22), r.alnum(43)),
            format!("SK{}", r.hex(32)),
            format!("shpat_{}", r.hex(32)),
            format!("npm_{}", r.alnum(36)),
            format!("pypi-AgEIcHlwaS5vcmc{}", r.alnum(70)),
            format!("hvs.{}", r.alnum(90)),
            format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", r.alnum(40), r.alnum(43)),
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n{}\n-----END OPENSSH PRIVATE KEY-----",
                r.b64(70),
                r.b64(70)
            ),
        ]);
    }
    let contexts = [
        "export TOKEN={}",
        "{{\"credentials\": \"{}\"}}",
        "The CI log printed {} right before the failure.",
        "令牌是{}です",
        "curl -H 'X-Debug: {}' https://api.internal/v1/items",
        "creds:\n  value: {}\n",
    ];
    let mut out: Vec<(String, String)> = tokens
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let ctx = if t.starts_with("-----") {
                "Here is the key file:\n{}\n"
            } else {
                contexts[i % contexts.len()]
            };
            (t.clone(), ctx.replace("{}", &t))
        })
        .collect();
    let pw = |r: &mut Rng| format!("{}#{}9", r.alnum(8), r.alnum(5));
    for _ in 0..2 {
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("DATABASE_URL=postgres://app:{p}@db.internal:5432/app"),
        ));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("git clone https://deploy:{p}@git.example.org/team/repo.git"),
        ));
        let p = r.alnum(40);
        out.push((p.clone(), format!("Authorization: Bearer {p}")));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("curl -u admin:{p} https://jenkins.internal/api/json"),
        ));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("machine api.heroku.com login me@example.org password {p}"),
        ));
        let p = pw(&mut r);
        out.push((p.clone(), format!("DB_PASSWORD={p}")));
        let p = r.alnum(32);
        out.push((p.clone(), format!("client_secret: \"{p}\"")));
        let p = format!("{}/{}", r.b64(20), r.b64(19));
        out.push((p.clone(), format!("aws_secret_access_key = {p}")));
        // Kinds a review found reaching the prompt: each generated, in its usual context.
        let p = format!("{}-{}", "GOCSPX", r.alnum(28));
        out.push((
            p.clone(),
            format!("{{\"web\": {{\"client_id\": \"x.apps.googleusercontent.com\", \"client_secret\": \"{p}\"}}}}"),
        ));
        out.push((
            p.clone(),
            format!("The OAuth secret {p} is in the console."),
        ));
        let p = format!("{}==", r.b64(86));
        out.push((
            p.clone(),
            format!("DefaultEndpointsProtocol=https;AccountName=store1;AccountKey={p};EndpointSuffix=core.windows.net"),
        ));
        let p = r.b64(44);
        out.push((
            p.clone(),
            format!("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={p}"),
        ));
        let p = format!("{}=", r.b64(31));
        out.push((
            p.clone(),
            format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{p}\"}}}}}}"),
        ));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("sshpass -p '{p}' ssh deploy@10.0.0.5 uptime"),
        ));
        let p = pw(&mut r);
        out.push((p.clone(), format!("sshpass -p{p} scp build.tgz host:/srv")));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("mysql -u root -p{p} -h db.internal app < dump.sql"),
        ));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("mysqldump -uadmin -p'{p}' shop > shop.sql"),
        ));
        let id = format!("AKIA{}", r.upper(16));
        let p = format!("{}/{}+{}", r.b64(18), r.b64(10), r.b64(10));
        out.push((
            p.clone(),
            format!("Access key ID,Secret access key\n{id},{p}"),
        ));
        out.push((p.clone(), format!("aws configure set: {id} {p}")));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("The password is {p}, it's in the vault now."),
        ));
        let p = pw(&mut r);
        out.push((
            p.clone(),
            format!("I reset it; the new passphrase was: {p}"),
        ));
        let p = format!("{}{}", r.alnum(30), r.hex(10));
        out.push((p.clone(), format!("token = \"{p}\"")));
        let p = r.alnum(40);
        out.push((p.clone(), format!("token: {p}")));
    }
    out
}

const LOOK_ALIKES: [&str; 44] = [
    "The password is correct, and the login works.",
    "The password was changed yesterday.",
    "the password is stored in the keychain",
    "token: 4096",
    "token = null",
    "the token is refreshed every hour",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "mysql -u root -p app < dump.sql",
    "sshpass -p $SSHPASS ssh host",
    "\"auth\": \"basic\"",
    "AccountKey=<your-key>",
    "Pass the token_type: bearer header along.",
    "The AWS docs use AKIAIOSFODNN7EXAMPLE as the sample access key id.",
    "export GITHUB_TOKEN=${GITHUB_TOKEN}",
    "Use a token like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the docs.",
    "password: changeme",
    "commit 3f2e9a7c1b4d5e6f708192a3b4c5d6e7f8091a2b fixed the parser",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "token_type: bearer",
    "api_version = 2024-01-01",
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer <token>",
    "Passwords must be at least 12 characters long.",
    "max_tokens: 4096",
    "PASSWORD_RESET_TIMEOUT = 3600",
    "PWD=/home/runner/work/app",
    "postgres://localhost:5432/app has no password in dev",
    "https://user@git.example.org/repo.git",
    "-----BEGIN PUBLIC KEY-----",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ user@host",
    "image digest sha256:9b2f1e3c4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c",
    "the secret is in the sauce",
    "client_id = 8f14e45fceea167a5a36dedd4bea2543",
    "integrity sha512-Qw1mK5+9dPz0bXy2Jv1sRkQ4ZlN8xM3aT7cE6gH0iU1oP2rS3tV4wX5yZ6aB7cD8",
    "api_url: https://api.example.com/v1",
    "my-password-manager is a CLI",
    "token: [REDACTED:github-pat]",
    "SECRET_KEY=your-secret-key-here",
    "The skeleton key SKIP_CHECKS is read from the environment.",
    "version 1.2.3 released at 2026-11-30T18:00:00Z",
    "xoxb-not-a-token",
    "sk_test_xxxxxxxxxxxxxxxxxxxx",
    "The JWT header is eyJhbGciOiJIUzI1NiJ9 and the payload follows.",
    "Run `git push origin main` after `cargo test` passes.",
];

#[test]
fn realistic_leaks_are_redacted_by_kind() {
    let leaks = leaks();
    assert!(leaks.len() >= 90, "{} leaks", leaks.len());
    for (secret, text) in &leaks {
        let r = hookjudge::redact::redact(text);
        assert!(
            !r.text.contains(secret.as_str()),
            "leaked: {text:?} -> {:?}",
            r.text
        );
        assert!(r.text.contains("[REDACTED:"), "{}", r.text);
    }
}

#[test]
fn look_alikes_survive_unchanged() {
    let changed: Vec<String> = LOOK_ALIKES
        .iter()
        .map(|text| (text, hookjudge::redact::redact(text)))
        .filter(|(text, r)| r.text != **text)
        .map(|(text, r)| format!("{text:?} -> {:?}", r.text))
        .collect();
    assert!(
        changed.is_empty(),
        "look-alikes changed:\n{}",
        changed.join("\n")
    );
}

#[test]
fn no_leak_reaches_the_provider_or_the_log() {
    let home = Home::new();
    let seen = home.path().join("provider-stdin.txt");
    home.user_config(
        &json!({"text_bytes": 1_000_000,
                "llm": {"provider": "command", "command": ["sh", "-c", format!("cat >> {}; echo '{}'", seen.display(), answer_for_every_judge(r#"{"new_proposal": true}"#))]}})
        .to_string(),
    );
    let leaks = leaks();
    let body: Vec<&str> = leaks.iter().map(|(_, t)| t.as_str()).collect();
    let text = format!(
        "{}\n\nEverything is configured. I'll push to main now.",
        body.join("\n")
    );
    let out = home
        .cmd(&["stop"])
        .stdin(claude_stop("leaky", std::path::Path::new(""), &text, false))
        .output();
    assert_eq!(out.json()["decision"], "block");
    let sent = std::fs::read_to_string(&seen).unwrap();
    let log = std::fs::read_to_string(
        std::fs::read_dir(home.log_dir())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    assert!(
        sent.contains("[REDACTED:github-pat]"),
        "the provider saw the redacted text"
    );
    for (secret, _) in &leaks {
        // JSON escapes newlines in the log; check each line of multi-line secrets.
        for part in secret.lines().filter(|l| l.len() >= 16) {
            assert!(!sent.contains(part), "provider saw {part}");
            assert!(!log.contains(part), "log holds {part}");
        }
    }
    let record = home.last_log();
    let total: u64 = record["redactions"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert!(
        total >= leaks.len() as u64,
        "counts per kind are logged: {}",
        record["redactions"]
    );
}

#[test]
fn the_redact_command_prints_counts() {
    let home = Home::new();
    let (secret, text) = leaks().remove(1);
    let out = home.cmd(&["redact", "--json"]).stdin(&text).output();
    assert_eq!(out.code, 0);
    let v = out.json();
    assert!(!v["text"].as_str().unwrap().contains(&secret));
    assert_eq!(v["counts"]["github-pat"], 1);
}
