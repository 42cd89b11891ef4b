use super::rules::{RULES, compiled};
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
    let text = "REDIS_PASSWORD=Zq8#vLp2Rt9w\nlater the error said: auth failed for Zq8#vLp2Rt9w";
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
