//! Taking our entries out of a settings file again, and the containers `init` created for
//! them, keeping everything else.

use super::ours::ours_in;
use crate::support::jsonc;

/// Removes every handler of ours for `events`; a group left empty goes with its last handler
/// (a handler that is an element of the event's list itself goes with it),
/// and a container goes when it is empty and listed in `created` (what `init` created).
/// Containers the user had, even empty ones, stay. What `init --boundary agent` added to the
/// `sandbox` block goes too (see [`super::sandbox`]).
pub fn remove(text: &str, events: &[String], created: &[String]) -> String {
    let mut text = super::remove_sandbox(text, created);
    'again: loop {
        let Ok(parsed) = jsonc::parse(&text) else {
            return text;
        };
        let Some(hooks) = parsed.root.member("hooks").filter(|h| h.is_object()) else {
            break;
        };
        for event in events {
            let Some(array) = hooks.member(event).filter(|a| a.is_array()) else {
                continue;
            };
            if let Some(&(gi, hi)) = ours_in(&parsed, array).first() {
                // A handler listed directly (a flat list) goes as its element does.
                text = match array.elements()[gi].member("hooks") {
                    Some(handlers) if handlers.is_array() && handlers.elements().len() > 1 => {
                        jsonc::remove_element(&text, handlers, hi)
                    }
                    _ => jsonc::remove_element(&text, array, gi),
                };
                continue 'again;
            }
        }
        break;
    }
    // Deepest first, so that `hooks` can go once its events have.
    let mut created: Vec<&String> = created.iter().collect();
    created.sort_by_key(|p| std::cmp::Reverse(p.matches('.').count()));
    for path in created {
        let Ok(parsed) = jsonc::parse(&text) else {
            return text;
        };
        let (parent, key) = match path.rsplit_once('.') {
            Some(("hooks", event)) => (parsed.root.member("hooks"), event),
            None => (Some(&parsed.root), path.as_str()),
            Some(_) => continue,
        };
        let Some(parent) = parent else { continue };
        let empty = parent.member(key).is_some_and(|n| match &n.kind {
            jsonc::Kind::Object(m) => m.is_empty(),
            jsonc::Kind::Array(a) => a.is_empty(),
            jsonc::Kind::Scalar => false,
        });
        if empty {
            text = jsonc::remove_member(&text, parent, key);
        }
    }
    text
}
