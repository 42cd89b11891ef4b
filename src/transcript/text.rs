//! How a line's strings are kept while it is parsed: free text whole on ordinary lines and cut
//! on giant ones, tool outputs by their two ends, and fields whose type varies between versions
//! read leniently (a value of another type is skipped, not an error that loses the line).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Bytes of free text a giant line keeps (enough for the markers that tell a harness prompt).
pub(super) const HEAD_BYTES: usize = 256;

/// Bytes kept from each end of a tool's output (the status lines are at one end or the other).
const OUTPUT_END_BYTES: usize = 4096;

/// Free text of a line (assistant text, prompts): [`String`] on ordinary lines, [`Head`] on
/// giant ones.
pub(super) trait Text: for<'de> Deserialize<'de> + fmt::Debug {
    /// Whether the text is whole (an ordinary line), so that it may be collected.
    const WHOLE: bool;
    fn as_str(&self) -> &str;
}

impl Text for String {
    const WHOLE: bool = true;
    fn as_str(&self) -> &str {
        self
    }
}

/// The first [`HEAD_BYTES`] of a string, cut back to a character boundary.
#[derive(Debug, Default)]
pub(super) struct Head(String);

impl Text for Head {
    const WHOLE: bool = false;
    fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Head {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Head, D::Error> {
        struct HeadVisitor;
        impl Visitor<'_> for HeadVisitor {
            type Value = Head;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Head, E> {
                Ok(Head(super::head(v, HEAD_BYTES).to_owned()))
            }
        }
        deserializer.deserialize_str(HeadVisitor)
    }
}

/// A string field that may hold another type: `Some` only for a string. The other values are
/// skipped without being held.
#[derive(Debug, Default)]
pub(super) struct LooseStr(pub(super) Option<String>);

impl LooseStr {
    pub(super) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A tool's output: whole when short, else its first and last [`OUTPUT_END_BYTES`] joined by a
/// line `…`. Not a string (an object, for instance): empty.
#[derive(Debug, Default)]
pub(super) struct Output(pub(super) String);

impl<'de> Deserialize<'de> for LooseStr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LooseStr, D::Error> {
        deserializer
            .deserialize_any(Lenient(|v: &str| v.to_owned()))
            .map(LooseStr)
    }
}

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Output, D::Error> {
        let ends = |v: &str| {
            if v.len() <= 2 * OUTPUT_END_BYTES {
                return v.to_owned();
            }
            let mut head = OUTPUT_END_BYTES;
            while !v.is_char_boundary(head) {
                head -= 1;
            }
            let mut tail = v.len() - OUTPUT_END_BYTES;
            while !v.is_char_boundary(tail) {
                tail += 1;
            }
            format!("{}\n…\n{}", &v[..head], &v[tail..])
        };
        deserializer
            .deserialize_any(Lenient(ends))
            .map(|s| Output(s.unwrap_or_default()))
    }
}

/// A string, or an array of items (a message's content in Claude Code and Gemini CLI).
#[derive(Debug)]
pub(super) enum TextOr<T, B> {
    Text(T),
    Items(Vec<B>),
}

impl<'de, T: Deserialize<'de>, B: Deserialize<'de>> Deserialize<'de> for TextOr<T, B> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextOrVisitor<T, B>(PhantomData<(T, B)>);
        impl<'de, T: Deserialize<'de>, B: Deserialize<'de>> Visitor<'de> for TextOrVisitor<T, B> {
            type Value = TextOr<T, B>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(de::value::StrDeserializer::new(v)).map(TextOr::Text)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(TextOr::Items(items))
            }
        }
        deserializer.deserialize_any(TextOrVisitor(PhantomData))
    }
}

/// Keeps a string through `keep`; skips any other value.
struct Lenient<F>(F);

impl<'de, F: FnOnce(&str) -> String> Visitor<'de> for Lenient<F> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some((self.0)(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Probe {
        head: Head,
        loose: Vec<LooseStr>,
        output: Output,
    }

    #[test]
    fn strings_are_cut_and_other_types_skipped() {
        let long = "é".repeat(300);
        let out = "o".repeat(10_000);
        let json = serde_json::json!({
            "head": long,
            "loose": ["a", 1, {"x": [1, 2]}, null, true],
            "output": format!("START{out}END"),
        });
        let p: Probe = serde_json::from_value(json).unwrap();
        assert!(p.head.as_str().len() <= HEAD_BYTES && long.starts_with(p.head.as_str()));
        let loose: Vec<Option<&str>> = p.loose.iter().map(LooseStr::get).collect();
        assert_eq!(loose, [Some("a"), None, None, None, None]);
        assert!(p.output.0.starts_with("START") && p.output.0.ends_with("END"));
        assert!(p.output.0.len() < 2 * OUTPUT_END_BYTES + 10);
        let p: Output = serde_json::from_str(r#"{"content": "x"}"#).unwrap();
        assert_eq!(p.0, "");
    }
}
