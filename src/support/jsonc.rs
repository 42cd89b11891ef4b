//! Surgical edits to JSON text: find the byte spans of values, then insert, replace or remove
//! one member or element, leaving every other byte of the user's file as it was (indentation,
//! key order, escapes, non-ASCII text, comments).
//!
//! Settings files are JSONC in practice: Gemini CLI strips comments before parsing, editors
//! leave trailing commas, and Windows editors add a BOM and CRLF line ends. [`parse`] first
//! *blanks* comments and trailing commas into spaces of the same length, so every byte offset of
//! the blanked text is an offset in the original: serde_json then validates the blanked text
//! (with the line and column of an error) and the span scanner runs over it, while edits splice
//! into the original text. [`Encoding`] takes the BOM and CRLF off before an edit and puts them
//! back after, so inserted lines match the file's own.
//!
//! Why not `jsonc-parser`'s CST: its edits format inserted values its own way and removal is not
//! the exact inverse of insertion, while `uninstall` must restore bytes; this editor's removal
//! undoes its insertion by construction (tested), and blanking lets serde_json, already a
//! dependency, both validate and report the line and column. The editor needs four operations on
//! a known path, not a general tree; no new dependency for that.

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

/// A parsed document: the spans, and the blanked text their values are read from.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub root: Node,
    plain: String,
}

impl Parsed {
    /// The value of `node` (comments and trailing commas ignored).
    pub fn value(&self, node: &Node) -> serde_json::Value {
        serde_json::from_str(&self.plain[node.start..node.end]).unwrap_or(serde_json::Value::Null)
    }

    /// The 1-based line of byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.plain[..at].matches('\n').count() + 1
    }
}

/// Why a text is not JSON (or JSONC): serde_json's message with its line and column.
#[derive(Debug, Clone)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Validates `text` as JSONC (JSON plus `//` and `/* */` comments and trailing commas) and
/// locates its spans.
pub fn parse(text: &str) -> Result<Parsed, SyntaxError> {
    let plain = blank(text);
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&plain) {
        return Err(SyntaxError {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        });
    }
    let mut p = Scanner {
        b: plain.as_bytes(),
        i: 0,
        text: &plain,
    };
    p.ws();
    let root = p.value(0).ok_or_else(|| SyntaxError {
        line: 1,
        column: 1,
        message: "nested too deeply".into(),
    })?;
    Ok(Parsed { root, plain })
}

/// `text` with comments and trailing commas replaced by spaces (newlines kept), so that it is
/// plain JSON with every byte at its original offset. Strings are left alone.
pub fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    // The offset of the last comma outside strings, while only blanks follow it.
    let mut pending_comma: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                pending_comma = None;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for byte in &mut out[i..end] {
                    if !matches!(*byte, b'\n' | b'\r') {
                        *byte = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                pending_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = pending_comma.take() {
                    out[c] = b' ';
                }
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                pending_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced, each by an ASCII space: still UTF-8.
    String::from_utf8(out).expect("blanking keeps UTF-8")
}

/// How a file is stored, apart from its JSON: a UTF-8 byte order mark, CRLF line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Encoding {
    pub bom: bool,
    pub crlf: bool,
}

impl Encoding {
    /// Splits a file's text into its encoding and a body with `\n` line ends. CRLF is taken off
    /// only when every line ends so, so that [`Encoding::encode`] gives the same bytes back.
    pub fn decode(raw: &str) -> (Encoding, String) {
        let (bom, body) = match raw.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        let lf = body.matches('\n').count();
        let crlf = lf > 0 && body.matches("\r\n").count() == lf;
        let body = if crlf {
            body.replace("\r\n", "\n")
        } else {
            body.to_owned()
        };
        (Encoding { bom, crlf }, body)
    }

    pub fn encode(&self, body: &str) -> String {
        let body = if self.crlf {
            body.replace('\n', "\r\n")
        } else {
            body.to_owned()
        };
        if self.bom {
            format!("\u{feff}{body}")
        } else {
            body
        }
    }
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
            let root = parse(original).unwrap().root;
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
            let root = parse(&added).unwrap().root;
            assert_eq!(remove_member(&added, &root, "hooks"), original);
        }
    }

    #[test]
    fn append_and_remove_elements() {
        let original = "{\n  \"a\": [\n    1,\n    2\n  ]\n}";
        let root = parse(original).unwrap().root;
        let added = append_element(original, root.member("a").unwrap(), &json!({"k": 3}));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&added).unwrap()["a"][2]["k"],
            3
        );
        assert!(
            added.contains("    2,\n    {\n      \"k\": 3\n    }\n  ]"),
            "{added}"
        );
        let root = parse(&added).unwrap().root;
        assert_eq!(
            remove_element(&added, root.member("a").unwrap(), 2),
            original
        );
        let empty = "{\"a\": []}";
        let root = parse(empty).unwrap().root;
        let one = append_element(empty, root.member("a").unwrap(), &json!(1));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&one).unwrap()["a"],
            json!([1])
        );
    }

    #[test]
    fn empty_objects_and_escapes() {
        let original = "{}";
        let root = parse(original).unwrap().root;
        let added = insert_member(original, &root, "k", &json!(true));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&added).unwrap()["k"],
            true
        );
        let tricky = r#"{"a\"b": "}]\\", "c": [ ]}"#;
        let root = parse(tricky).unwrap().root;
        assert_eq!(
            root.member("a\"b").unwrap().end - root.member("a\"b").unwrap().start,
            r#""}]\\""#.len()
        );
        assert!(root.member("c").unwrap().is_array());
    }
}

#[cfg(test)]
mod jsonc_tests {
    use super::*;
    use serde_json::json;

    const JSONC: &str = "{\n  // the user's model\n  \"model\": \"pro\", /* a \"quoted\" } comment */\n  \"url\": \"http://x//y\",\n  \"list\": [1, 2,],\n}\n";

    #[test]
    fn comments_and_trailing_commas_are_blanked_in_place() {
        let plain = blank(JSONC);
        assert_eq!(plain.len(), JSONC.len());
        let v: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(
            v["url"], "http://x//y",
            "`//` inside a string is not a comment"
        );
        assert_eq!(v["list"], json!([1, 2]));
        let parsed = parse(JSONC).unwrap();
        let list = parsed.root.member("list").unwrap();
        assert_eq!(parsed.value(list), json!([1, 2]));
        assert_eq!(parsed.line_of(list.start), 5);
    }

    #[test]
    fn insert_then_remove_keeps_comments_byte_for_byte() {
        let parsed = parse(JSONC).unwrap();
        let added = insert_member(JSONC, &parsed.root, "hooks", &json!({"Stop": []}));
        assert!(added.contains("// the user's model"), "{added}");
        let again = parse(&added).unwrap();
        assert_eq!(
            again.value(again.root.member("hooks").unwrap()),
            json!({"Stop": []})
        );
        assert_eq!(remove_member(&added, &again.root, "hooks"), JSONC);
    }

    #[test]
    fn syntax_errors_have_a_line_and_column() {
        let e = parse("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3), "{}", e.message);
        assert!(
            parse("{\"a\": [1,,]}").is_err(),
            "two commas are not a trailing comma"
        );
    }

    #[test]
    fn bom_and_crlf_round_trip() {
        let raw = "\u{feff}{\r\n  \"a\": 1\r\n}\r\n";
        let (enc, body) = Encoding::decode(raw);
        assert_eq!(
            enc,
            Encoding {
                bom: true,
                crlf: true
            }
        );
        assert_eq!(body, "{\n  \"a\": 1\n}\n");
        assert_eq!(enc.encode(&body), raw);
        let mixed = "{\r\n\"a\": 1\n}";
        let (enc, body) = Encoding::decode(mixed);
        assert!(!enc.crlf, "mixed line ends are left as they are");
        assert_eq!(enc.encode(&body), mixed);
    }
}
