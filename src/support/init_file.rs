//! The repository file `init` writes (`.hookjudge.json`), as each version wrote it: a file
//! holding exactly that is hookjudge's own, trusted as written and no work of the user's.

use serde_json::Value;

/// The repository file's name, at the repository root.
pub const REPO_FILE: &str = ".hookjudge.json";

/// What `init` has written as the whole repository file, by version. A file holding exactly
/// one of these (as JSON, whitespace aside) is recognised as ours and trusted.
pub const INIT_WRITTEN: [&str; 3] = [
    // 0.1
    r#"{"llm": {"provider": "auto"}, "stop": {"max_blocks_per_judge": 1, "max_blocks_per_prompt": 2}, "gate": {}, "judges": {}}"#,
    // since trust exists
    r#"{"gate": {}, "judges": {}}"#,
    // with `$schema` naming the git-ignored schema file, which clones lack
    r#"{"$schema": "./.hookjudge/schema.json", "gate": {}, "judges": {}}"#,
];

/// Whether `text` holds only what some version of `init` wrote.
pub fn is_init_written(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    INIT_WRITTEN
        .iter()
        .any(|known| serde_json::from_str::<Value>(known).ok().as_ref() == Some(&value))
}
