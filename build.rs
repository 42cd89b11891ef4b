//! Turns the built-in Layer 1 (`src/judge/layer1.json`) into Rust statics at build time: the
//! patterns themselves, so that a hook call parses no Layer 1 JSON, and their literal
//! prefilters, so that the quiet path never parses a regex. See `src/judge/literals/`.

#[path = "src/judge/literals/mod.rs"]
#[allow(dead_code, unused_imports)]
mod literals;

use std::fmt::Write as _;

fn main() {
    link_packed_relocations();
    let source = "src/judge/layer1.json";
    println!("cargo:rerun-if-changed={source}");
    println!("cargo:rerun-if-changed=src/judge/literals");
    let text = std::fs::read_to_string(source).expect("src/judge/layer1.json is part of the crate");
    let data: serde_json::Value =
        serde_json::from_str(&text).expect("src/judge/layer1.json is valid JSON");

    let mut entries: Vec<(String, literals::Prefilter, literals::Cond)> = Vec::new();
    let mut add = |what: &str, patterns: &serde_json::Value| {
        for pattern in patterns.as_array().map(Vec::as_slice).unwrap_or_default() {
            let pattern = pattern.as_str().expect("patterns are strings");
            let prefilter = literals::extract(pattern)
                .unwrap_or_else(|err| panic!("{what}: bad pattern `{pattern}`: {err}"));
            let condition = literals::extract_condition(pattern)
                .unwrap_or_else(|err| panic!("{what}: bad pattern `{pattern}`: {err}"));
            entries.push((pattern.to_owned(), prefilter, condition));
        }
    };
    let keys = |value: &serde_json::Value, what: &str, expected: &[&str]| {
        let mut found: Vec<&str> = value
            .as_object()
            .unwrap_or_else(|| panic!("{what} is an object"))
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = expected.to_vec();
        found.sort_unstable();
        expected.sort_unstable();
        assert_eq!(found, expected, "{what}: unexpected keys");
    };
    keys(
        &data,
        "layer1.json",
        &["speech", "judge_directed", "negations", "judges"],
    );
    keys(
        &data["speech"],
        "layer1.json `speech`",
        &["commands", "shown_headings", "masks"],
    );
    add("judge_directed", &data["judge_directed"]);
    add("speech masks", &data["speech"]["masks"]);
    let judges = data["judges"]
        .as_object()
        .expect("layer1.json has `judges`");
    for (name, judge) in judges {
        keys(
            judge,
            &format!("layer1.json judge `{name}`"),
            &["triggers", "broad_triggers", "bypasses"],
        );
        for key in ["triggers", "broad_triggers", "bypasses"] {
            add(&format!("built-in judge `{name}` {key}"), &judge[key]);
        }
    }
    fn strings(value: &serde_json::Value) -> Vec<&str> {
        value
            .as_array()
            .expect("a list of patterns")
            .iter()
            .map(|p| p.as_str().expect("patterns are strings"))
            .collect()
    }
    fn string(value: &serde_json::Value) -> &str {
        value.as_str().expect("a pattern string")
    }
    // By length, then text: a lookup then compares lengths first, and most probes stop there.
    entries.sort_by(|a, b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)));
    entries.dedup_by(|a, b| a.0 == b.0);

    // The conditions' steps of all patterns in one table and their literals in one string, so
    // that the tables cost no relocations at start-up (each pattern names a range of steps).
    let mut pool = String::new();
    let mut interned = std::collections::HashMap::<String, (u32, u32)>::new();
    let mut ops: Vec<literals::Op> = Vec::new();
    let mut ranges = Vec::new();
    for (_, _, condition) in &entries {
        let start = ops.len();
        condition.flatten(&mut ops, &mut |lit| {
            *interned.entry(lit.to_owned()).or_insert_with(|| {
                pool.push_str(lit);
                ((pool.len() - lit.len()) as u32, lit.len() as u32)
            })
        });
        ranges.push((start, ops.len() - start));
    }
    // The prefix and suffix literals in one string too, each set a run of (start, length)
    // ranges in one table: a pointer per literal would be a relocation per literal.
    let mut literal_pool = String::new();
    let mut literal_at = std::collections::HashMap::<String, (u32, u32)>::new();
    let mut literal_ranges: Vec<(u32, u32)> = Vec::new();
    let mut sets = Vec::new();
    for (_, p, _) in &entries {
        let first = literal_ranges.len();
        for lit in p.prefixes.iter().chain(p.suffixes.iter()) {
            let range = *literal_at.entry(lit.to_owned()).or_insert_with(|| {
                literal_pool.push_str(lit);
                ((literal_pool.len() - lit.len()) as u32, lit.len() as u32)
            });
            literal_ranges.push(range);
        }
        sets.push((first, p.prefixes.len(), p.suffixes.len()));
    }
    let mut out = String::from(
        "/// Prefilters of the built-in patterns, sorted by pattern length, then pattern: (pattern,\n/// first range of its literals in `BUILTIN_LITERAL_RANGES`, number of prefixes, number of\n/// suffixes, first step and number of steps of its condition in `BUILTIN_CONDITION_OPS`).\n",
    );
    out.push_str("pub(crate) type BuiltinPrefilter = (&'static str, u32, u16, u16, u32, u32);\n");
    out.push_str("pub(crate) static BUILTIN_PREFILTERS: &[BuiltinPrefilter] = &[\n");
    for (((pattern, _, _), (start, len)), (first, prefixes, suffixes)) in
        entries.iter().zip(&ranges).zip(&sets)
    {
        writeln!(
            out,
            "    ({pattern:?}, {first}, {prefixes}, {suffixes}, {start}, {len}),"
        )
        .unwrap();
    }
    out.push_str("];\n");
    writeln!(
        out,
        "/// The prefix and suffix literals of the built-in patterns.\npub(crate) static BUILTIN_LITERAL_POOL: &str = {literal_pool:?};"
    )
    .unwrap();
    out.push_str("/// Each literal of `BUILTIN_PREFILTERS` as (start, length) in `BUILTIN_LITERAL_POOL`.\npub(crate) static BUILTIN_LITERAL_RANGES: &[(u32, u32)] = &[\n");
    for (start, len) in &literal_ranges {
        writeln!(out, "    ({start}, {len}),").unwrap();
    }
    out.push_str("];\n");
    writeln!(
        out,
        "/// The literals of the built-in conditions.\npub(crate) static BUILTIN_CONDITION_POOL: &str = {pool:?};"
    )
    .unwrap();
    out.push_str("/// The steps of the built-in conditions.\npub(crate) static BUILTIN_CONDITION_OPS: &[literals::Op] = &[\n");
    for op in &ops {
        let step = match op {
            literals::Op::Lit(start, len) => format!("literals::Op::Lit({start}, {len})"),
            literals::Op::All(n) => format!("literals::Op::All({n})"),
            literals::Op::Any(n) => format!("literals::Op::Any({n})"),
        };
        writeln!(out, "    {step},").unwrap();
    }
    out.push_str("];\n");
    // Each judge's patterns as indices into `BUILTIN_PREFILTERS`, which holds the sources
    // already: a second pointer per pattern would be a second relocation per pattern.
    let index: std::collections::HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, (pattern, ..))| (pattern.as_str(), i))
        .collect();
    let indices = |value: &serde_json::Value| -> Vec<u16> {
        strings(value)
            .iter()
            .map(|p| u16::try_from(index[p]).expect("fewer than 65 536 built-in patterns"))
            .collect()
    };
    out.push_str(
        "/// The built-in judges' Layer 1: (judge, triggers, broad triggers, bypasses), each pattern\n/// as its index in `BUILTIN_PREFILTERS`.\n",
    );
    out.push_str("pub(crate) type BuiltinLayer1 = (&'static str, &'static [u16], &'static [u16], &'static [u16]);\n");
    out.push_str("pub(crate) static BUILTIN_LAYER1_JUDGES: &[BuiltinLayer1] = &[\n");
    for (name, judge) in judges {
        writeln!(
            out,
            "    ({name:?}, &{:?}, &{:?}, &{:?}),",
            indices(&judge["triggers"]),
            indices(&judge["broad_triggers"]),
            indices(&judge["bypasses"])
        )
        .unwrap();
    }
    out.push_str("];\n");
    writeln!(
        out,
        "pub(crate) static BUILTIN_SPEECH_COMMANDS: &str = {:?};",
        string(&data["speech"]["commands"])
    )
    .unwrap();
    writeln!(
        out,
        "pub(crate) static BUILTIN_SPEECH_SHOWN_HEADINGS: &str = {:?};",
        string(&data["speech"]["shown_headings"])
    )
    .unwrap();
    writeln!(
        out,
        "pub(crate) static BUILTIN_SPEECH_MASKS: &[&str] = &{:?};",
        strings(&data["speech"]["masks"])
    )
    .unwrap();
    writeln!(
        out,
        "pub(crate) static BUILTIN_JUDGE_DIRECTED: &[&str] = &{:?};",
        strings(&data["judge_directed"])
    )
    .unwrap();
    writeln!(
        out,
        "pub(crate) static BUILTIN_NEGATIONS: &str = {:?};",
        string(&data["negations"])
    )
    .unwrap();
    let dest =
        std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_prefilters.rs");
    std::fs::write(dest, out).unwrap();
}

/// Links the binary with packed relative relocations (`DT_RELR`, `-z pack-relative-relocs`)
/// where the linker and the C library support them. Every hook call is a fresh process whose
/// start-up applies one relocation per pointer in the binary's static data (about 25 000, most
/// of them in tables of strings); the packed form is a bitmap the loader walks in a fraction of
/// the instructions, and the table of relocations it replaces no longer has to be read from
/// disk. The option is tried on a small program first and that program is run: a linker that
/// does not know the option, or a C library older than glibc 2.36 (which would ignore the
/// packed table and crash at start), keeps the ordinary relocations. Cross builds keep them
/// too, since the target's C library cannot be tried here.
fn link_packed_relocations() {
    const FLAG: &str = "-Wl,-z,pack-relative-relocs";
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
    {
        return;
    }
    let out = std::path::PathBuf::from(var("OUT_DIR"));
    let source = out.join("relr_check.rs");
    let program = out.join("relr_check");
    // A table of string slices: each slice's pointer is a relative relocation, so a loader that
    // skipped the packed table would hand `main` dangling pointers.
    let check = "static WORDS: &[&str] = &[\"packed\", \"relative\", \"relocations\"];\n\
                 fn main() {\n\
                     let words = std::hint::black_box(WORDS);\n\
                     let joined = words.join(\" \");\n\
                     std::process::exit(if joined == \"packed relative relocations\" { 0 } else { 1 });\n\
                 }\n";
    if std::fs::write(&source, check).is_err() {
        return;
    }
    let mut rustc = std::process::Command::new(std::env::var_os("RUSTC").unwrap_or("rustc".into()));
    rustc
        .arg("--edition=2021")
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .arg("-C")
        .arg(format!("link-arg={FLAG}"));
    // The same linker and flags the crate is built with.
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        rustc.arg("-C").arg(format!("linker={linker}"));
    }
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    rustc.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    let linked = rustc
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let packed = linked
        && std::process::Command::new(&program)
            .status()
            .is_ok_and(|s| s.success());
    if packed {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}
