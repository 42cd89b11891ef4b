//! Surgical edits to JSON text: find the byte spans of values, then insert, replace or remove
//! one member or element, leaving every other byte of the user's file as it was (indentation,
//! key order, escapes, non-ASCII text).
//!
//! The text must already be valid JSON (check it with serde_json first, which also gives the
//! line and column of an error); this scanner only locates spans.

/// A JSON value and its byte span in the text.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// Members: key (unescaped), the key's start offset, and the value.
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

impl Node {
    pub fn member(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }

    pub fn elements(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.kind, Kind::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self.kind, Kind::Array(_))
    }
}

/// Locates the spans of a valid JSON document.
pub fn parse(text: &str) -> Option<Node> {
    let mut p = Scanner {
        b: text.as_bytes(),
        i: 0,
        text,
    };
    p.ws();
    let node = p.value(0)?;
    Some(node)
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > 256 {
            return None;
        }
        let start = self.i;
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    if self.b.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        break;
                    }
                    let key_start = self.i;
                    self.string()?;
                    let key: String = serde_json::from_str(&self.text[key_start..self.i]).ok()?;
                    self.ws();
                    (self.b.get(self.i) == Some(&b':')).then_some(())?;
                    self.i += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    members.push((key, key_start, v));
                    if self.separator(b'}')? {
                        break;
                    }
                }
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Object(members),
                })
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.b.get(self.i) == Some(&b']') {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    if self.separator(b']')? {
                        break;
                    }
                }
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Array(items),
                })
            }
            b'"' => {
                self.string()?;
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Scalar,
                })
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
                (self.i > start).then_some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Scalar,
                })
            }
        }
    }

    /// After an item: `,` (more follow, `false`) or the closing bracket (`true`).
    fn separator(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let closed = match self.b.get(self.i) {
            Some(b',') => false,
            Some(c) if *c == close => true,
            _ => return None,
        };
        self.i += 1;
        Some(closed)
    }

    fn string(&mut self) -> Option<()> {
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
        None
    }
}

/// The file's indentation unit (the leading whitespace of its first indented line), or `None`
/// for a file on one line.
pub fn indent_unit(text: &str) -> Option<String> {
    text.lines().skip(1).find_map(|line| {
        let ws: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        (!ws.is_empty()).then_some(ws)
    })
}

/// The leading whitespace of the line containing byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Renders `value` to sit at the indentation of `base` (pretty with `unit`, or compact).
pub fn render(value: &serde_json::Value, unit: Option<&str>, base: &str) -> String {
    let Some(unit) = unit else {
        return value.to_string();
    };
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut ser).expect("JSON values serialise");
    let pretty = String::from_utf8(out).expect("serde_json writes UTF-8");
    pretty
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.to_owned()
            } else {
                format!("{base}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Adds `"key": value` as the last member of `object`.
pub fn insert_member(text: &str, object: &Node, key: &str, value: &serde_json::Value) -> String {
    let unit = indent_unit(text);
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let outer = line_indent(text, object.start);
    let inner = match (&unit, members.first()) {
        (_, Some((_, key_start, _))) => line_indent(text, *key_start),
        (Some(u), None) => format!("{outer}{u}"),
        (None, None) => String::new(),
    };
    let key_json = serde_json::Value::String(key.to_owned()).to_string();
    let rendered = render(value, unit.as_deref(), &inner);
    let sep = if unit.is_some() { "\n" } else { "" };
    let colon = if unit.is_some() { ": " } else { ":" };
    match members.last() {
        Some((_, _, last)) => format!(
            "{},{sep}{inner}{key_json}{colon}{rendered}{}",
            &text[..last.end],
            &text[last.end..]
        ),
        None => {
            let close = object.end - 1;
            format!(
                "{}{sep}{inner}{key_json}{colon}{rendered}{sep}{outer}{}",
                &text[..object.start + 1],
                &text[close..]
            )
        }
    }
}

/// Appends `value` as the last element of `array`.
pub fn append_element(text: &str, array: &Node, value: &serde_json::Value) -> String {
    let unit = indent_unit(text);
    let items = array.elements();
    let outer = line_indent(text, array.start);
    let inner = match (&unit, items.first()) {
        (_, Some(first)) => line_indent(text, first.start),
        (Some(u), None) => format!("{outer}{u}"),
        (None, None) => String::new(),
    };
    let rendered = render(value, unit.as_deref(), &inner);
    let sep = if unit.is_some() { "\n" } else { "" };
    match items.last() {
        Some(last)
            if text[..last.start].ends_with('\n')
                || text[last.start - 1..last.start].trim().is_empty() =>
        {
            format!(
                "{},{sep}{inner}{rendered}{}",
                &text[..last.end],
                &text[last.end..]
            )
        }
        Some(last) => format!("{},{rendered}{}", &text[..last.end], &text[last.end..]),
        None => format!(
            "{}{sep}{inner}{rendered}{sep}{outer}{}",
            &text[..array.start + 1],
            &text[array.end - 1..]
        ),
    }
}

/// Replaces a value in place.
pub fn replace(text: &str, node: &Node, value: &serde_json::Value) -> String {
    let unit = indent_unit(text);
    let base = line_indent(text, node.start);
    format!(
        "{}{}{}",
        &text[..node.start],
        render(value, unit.as_deref(), &base),
        &text[node.end..]
    )
}

/// Removes the member `key` of `object`, with its separator.
pub fn remove_member(text: &str, object: &Node, key: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let Some(index) = members.iter().position(|(k, _, _)| k == key) else {
        return text.to_owned();
    };
    let spans: Vec<(usize, usize)> = members.iter().map(|(_, ks, v)| (*ks, v.end)).collect();
    remove_span(text, &spans, index, object)
}

/// Removes element `index` of `array`, with its separator.
pub fn remove_element(text: &str, array: &Node, index: usize) -> String {
    let spans: Vec<(usize, usize)> = array.elements().iter().map(|n| (n.start, n.end)).collect();
    remove_span(text, &spans, index, array)
}

fn remove_span(text: &str, spans: &[(usize, usize)], index: usize, container: &Node) -> String {
    let (start, end) = spans[index];
    if index > 0 {
        // From the end of the previous item: removes `,<ws>item` exactly as it was inserted.
        let prev_end = spans[index - 1].1;
        format!("{}{}", &text[..prev_end], &text[end..])
    } else if spans.len() > 1 {
        let next_start = spans[1].0;
        format!("{}{}", &text[..start], &text[next_start..])
    } else {
        // The only item: the container becomes empty, keeping its brackets.
        format!(
            "{}{}",
            &text[..container.start + 1],
            &text[container.end - 1..]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn insert_then_remove_restores_the_bytes() {
        for original in [
            "{\n   \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n   \"model\": \"opus\"\n}\n",
            "{\n\t\"x\": 1\n}",
            "{\"x\":1,\"名前\":\"値\"}",
        ] {
            let root = parse(original).unwrap();
            let added = insert_member(
                original,
                &root,
                "hooks",
                &json!({"Stop": [{"hooks": [{"type": "command"}]}]}),
            );
            let v: serde_json::Value = serde_json::from_str(&added).unwrap();
            assert_eq!(
                v["hooks"]["Stop"][0]["hooks"][0]["type"], "command",
                "{added}"
            );
            let root = parse(&added).unwrap();
            assert_eq!(remove_member(&added, &root, "hooks"), original);
        }
    }

    #[test]
    fn append_and_remove_elements() {
        let original = "{\n  \"a\": [\n    1,\n    2\n  ]\n}";
        let root = parse(original).unwrap();
        let added = append_element(original, root.member("a").unwrap(), &json!({"k": 3}));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&added).unwrap()["a"][2]["k"],
            3
        );
        assert!(
            added.contains("    2,\n    {\n      \"k\": 3\n    }\n  ]"),
            "{added}"
        );
        let root = parse(&added).unwrap();
        assert_eq!(
            remove_element(&added, root.member("a").unwrap(), 2),
            original
        );
        let empty = "{\"a\": []}";
        let root = parse(empty).unwrap();
        let one = append_element(empty, root.member("a").unwrap(), &json!(1));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&one).unwrap()["a"],
            json!([1])
        );
    }

    #[test]
    fn empty_objects_and_escapes() {
        let original = "{}";
        let root = parse(original).unwrap();
        let added = insert_member(original, &root, "k", &json!(true));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&added).unwrap()["k"],
            true
        );
        let tricky = r#"{"a\"b": "}]\\", "c": [ ]}"#;
        let root = parse(tricky).unwrap();
        assert_eq!(
            root.member("a\"b").unwrap().end - root.member("a\"b").unwrap().start,
            r#""}]\\""#.len()
        );
        assert!(root.member("c").unwrap().is_array());
    }
}
