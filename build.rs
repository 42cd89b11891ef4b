//! Computes the Layer 1 literal prefilters of the built-in judges at build time, so that the
//! quiet path of a hook call never parses a regex. See `src/judge/literals.rs`.

#[path = "src/judge/literals.rs"]
#[allow(dead_code)]
mod literals;

use std::fmt::Write as _;

fn main() {
    let source = "src/judge/builtins.json";
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-changed=src/judge/literals.rs");
    let text =
        std::fs::read_to_string(source).expect("src/judge/builtins.json is part of the crate");
    let judges: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).expect("src/judge/builtins.json is valid JSON");

    let mut entries: Vec<(String, literals::Prefilter)> = Vec::new();
    for (name, judge) in &judges {
        for key in ["triggers", "bypasses"] {
            let patterns = judge[key].as_array().map(Vec::as_slice).unwrap_or_default();
            for pattern in patterns {
                let pattern = pattern.as_str().expect("patterns are strings");
                let prefilter = literals::extract(pattern).unwrap_or_else(|err| {
                    panic!("built-in judge `{name}`: bad {key} pattern `{pattern}`: {err}")
                });
                entries.push((pattern.to_owned(), prefilter));
            }
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
