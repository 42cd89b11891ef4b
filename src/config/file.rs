//! One config file, read: JSON with the keys of [`crate::config::keys`], where an unknown key
//! is an error that names the key's path (a typo must never silently disable a guard), with a
//! "did you mean" when a known key is close.

use crate::config::{ConfigFile, ParseError};

/// Parses one config file, naming the key path of any error.
pub fn parse(text: &str) -> Result<ConfigFile, ParseError> {
    // Read as the agents read their settings: comments and trailing commas allowed. Plain JSON
    // (the usual file) is parsed as it is, with no copy; only a file that fails is blanked (in
    // place, so line and column stay right) and parsed again.
    match parse_json(text) {
        Ok(file) => Ok(file),
        Err(first) => {
            let plain = crate::support::jsonc::blank(text);
            if plain == text {
                Err(first)
            } else {
                parse_json(&plain)
            }
        }
    }
}

/// [`parse`] of plain JSON.
fn parse_json(text: &str) -> Result<ConfigFile, ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let file: ConfigFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let message = crate::support::suggest::did_you_mean(&e.into_inner().to_string());
        let key = (!path.is_empty() && path != ".").then_some(path);
        ParseError { key, message }
    })?;
    de.end().map_err(|e| ParseError {
        key: None,
        message: e.to_string(),
    })?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_name_their_path() {
        let err = parse(r#"{"judges": {"commit": {"trigers": ["x"]}}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("at `judges.commit.trigers`") && err.contains("unknown field `trigers`"),
            "{err}"
        );
        let err = parse(r#"{"stop": {"max_blocks": 3}}"#).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("stop.max_blocks"), "{err}");
        let err = parse(r#"{"llm": {"provider": "nonesuch"}}"#).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("llm.provider"), "{err}");
        assert_eq!(parse("{} x").unwrap_err().key, None);
        assert!(parse("{").is_err());
        assert!(parse(r#"{"llm": {"provider": "none"}, "$schema": "x"}"#).is_ok());
    }
}
