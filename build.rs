//! Computes the Layer 1 literal prefilters of the built-in judges (`src/judge/layer1.json`) at
//! build time, so that the quiet path of a hook call never parses a regex. See
//! `src/judge/literals.rs`.

#[path = "src/judge/literals.rs"]
#[allow(dead_code)]
mod literals;

use std::fmt::Write as _;

fn main() {
    let source = "src/judge/layer1.json";
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-changed=src/judge/literals.rs");
    let text = std::fs::read_to_string(source).expect("src/judge/layer1.json is part of the crate");
    let data: serde_json::Value =
        serde_json::from_str(&text).expect("src/judge/layer1.json is valid JSON");

    let mut entries: Vec<(String, literals::Prefilter)> = Vec::new();
    let mut add = |what: &str, patterns: &serde_json::Value| {
        for pattern in patterns.as_array().map(Vec::as_slice).unwrap_or_default() {
            let pattern = pattern.as_str().expect("patterns are strings");
            let prefilter = literals::extract(pattern)
                .unwrap_or_else(|err| panic!("{what}: bad pattern `{pattern}`: {err}"));
            entries.push((pattern.to_owned(), prefilter));
        }
    };
    add("judge_directed", &data["judge_directed"]);
    let judges = data["judges"]
        .as_object()
        .expect("layer1.json has `judges`");
    for (name, judge) in judges {
        for key in ["triggers", "broad_triggers", "bypasses"] {
            add(&format!("built-in judge `{name}` {key}"), &judge[key]);
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.dedup_by(|a, b| a.0 == b.0);

    let mut out = String::from(
        "/// Prefilters of the built-in patterns, sorted by pattern: (pattern, prefixes, suffixes).\n",
    );
    out.push_str("pub(crate) static BUILTIN_PREFILTERS: &[(&str, &[&str], &[&str])] = &[\n");
    for (pattern, p) in &entries {
        writeln!(
            out,
            "    ({pattern:?}, &{:?}, &{:?}),",
            p.prefixes, p.suffixes
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest =
        std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_prefilters.rs");
    std::fs::write(dest, out).unwrap();
}
