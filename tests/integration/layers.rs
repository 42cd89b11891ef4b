//! The crate's layers, as `src/lib.rs` lists them: every `crate::` path outside tests points to
//! the module's own layer or one listed above it, and every top-level module is listed. A new
//! import that climbs a layer fails here with the file, the path and what to do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer list of `src/lib.rs`: `//! N. \`name\`: …`, bottom first.
fn layers() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let item = Regex::new(r"^//! \d+\. `([a-z_]+)`").unwrap();
    lib.lines()
        .filter_map(|l| item.captures(l).map(|c| c[1].to_owned()))
        .collect()
}

/// The files compiled outside tests, with their module path (`gate/evidence/mod.rs` →
/// `["gate", "evidence"]`). Files that hold only tests (`tests.rs`) are left out.
fn sources(dir: &Path, out: &mut Vec<(PathBuf, Vec<String>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            let rel = path.strip_prefix(src()).unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            out.push((path, module));
        }
    }
}

/// The code of a file before its tests, without comments.
fn code(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or_default();
    before_tests
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file's code names: `crate::a::…`, each item of `crate::{a, b::c}`,
/// and `super::` paths that climb out of the file's top-level module.
fn targets(code: &str, module: &[String]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let path = Regex::new(r"\bcrate::([a-z_][a-z0-9_]*)").unwrap();
    for c in path.captures_iter(code) {
        found.push((c[1].to_owned(), c[0].to_owned()));
    }
    let group = Regex::new(r"\bcrate::\{([^}]*)\}").unwrap();
    let first = Regex::new(r"^\s*([a-z_][a-z0-9_]*)").unwrap();
    for c in group.captures_iter(code) {
        for item in c[1].split(',') {
            if let Some(m) = first.captures(item) {
                found.push((m[1].to_owned(), format!("crate::{{{}}}", item.trim())));
            }
        }
    }
    let supers = Regex::new(r"\b((?:super::)+)([a-z_][a-z0-9_]*)").unwrap();
    for c in supers.captures_iter(code) {
        let up = c[1].matches("super").count();
        // `mod.rs` files are their folder's module: `super` from `gate/mod.rs` is the crate.
        if up >= module.len() {
            found.push((c[2].to_owned(), c[0].to_owned()));
        }
    }
    found
}

#[test]
fn every_import_points_to_its_own_layer_or_one_below() {
    let layers = layers();
    assert!(layers.len() > 5, "src/lib.rs lists no layers");
    let rank: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut wrong = Vec::new();
    for (path, module) in &files {
        let Some(top) = module.first() else { continue };
        if top == "main" {
            continue;
        }
        let Some(&own) = rank.get(top.as_str()) else {
            wrong.push(format!(
                "{}: top-level module `{top}` is not in the layer list of src/lib.rs",
                path.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap();
        for (target, spelled) in targets(&code(&text), module) {
            match rank.get(target.as_str()) {
                Some(&to) if to > own => wrong.push(format!(
                    "{}: `{spelled}` climbs from layer {} `{top}` to layer {} `{target}`",
                    path.display(),
                    own + 1,
                    to + 1,
                )),
                _ => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers of src/lib.rs (move the shared piece down into the lower \
         layer, or the importing code up; change the list only if the layers themselves change):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layer_list_names_exactly_the_top_level_modules() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared = Regex::new(r"(?m)^pub mod ([a-z_]+);").unwrap();
    let mut modules: Vec<String> = declared
        .captures_iter(&lib)
        .map(|c| c[1].to_owned())
        .collect();
    let mut listed = layers();
    modules.sort();
    listed.sort();
    assert_eq!(
        modules, listed,
        "`pub mod` in src/lib.rs and its layer list"
    );
}

#[test]
fn an_import_that_climbs_is_found() {
    let module = vec!["support".to_owned(), "paths".to_owned()];
    let code = code(
        "use crate::{gate::x, support::y};\n// crate::hook in a comment\nfn f() { crate::log::z(); super::super::agent::w(); }\n#[cfg(test)]\nuse crate::commands;",
    );
    let named: Vec<String> = targets(&code, &module).into_iter().map(|t| t.0).collect();
    assert!(named.contains(&"gate".to_owned()), "{named:?}");
    assert!(named.contains(&"log".to_owned()), "{named:?}");
    assert!(named.contains(&"agent".to_owned()), "{named:?}");
    assert!(!named.contains(&"hook".to_owned()), "{named:?}");
    assert!(!named.contains(&"commands".to_owned()), "{named:?}");
}
