//! The machinery that turns the one list of config keys (see [`crate::config::keys`]) into
//! everything else: the file structs serde reads (their field order is the order serde's
//! "expected one of" lists), the merge of a layer onto the settings, the rows of `config show`,
//! the declared defaults, and the table the JSON Schema is built from. A key is written once,
//! in `keys.rs`; nothing here names a key.
//!
//! A key reads `/// doc` `field [as "name"]: FileType [shape] => rule(place) [= default];`:
//! - the doc lines, joined with spaces, are its description in the schema;
//! - `FileType` is what a config file holds (every key is optional in a file);
//! - `shape` names a function of [`shapes`], its JSON Schema type (`machine` after it: the
//!   default depends on the machine, so the schema gives none);
//! - `rule(place)` is how a layer's value lands on [`Settings`](crate::config::Settings) and
//!   how `config show` prints it (see [`merge_rule`] and [`show_rule`]);
//! - `= default` is the value with no file, for a key whose place the config owns; a key whose
//!   place is a lower layer's options (`llm`, `transcript`, `gate`) takes that `Default`.
//!
//! For example `/// the model name the provider is asked for`
//! `model: String [string] => set(llm.model);` is the `llm.model` key: a string in a file, a
//! `{"type": "string"}` in the schema, replacing `Settings::llm.model` when a layer sets it,
//! shown as that value, with `LlmSettings`' default. A gate class policy (`class(Push)`) is
//! described by [`POLICY_DOC`], what the policies mean; its doc lines are for the reader here.

use serde_json::{Value, json};

/// The description of every class policy key (`gate.commit`, …): what the policies mean.
pub const POLICY_DOC: &str = "what the gate does with this class: allow (stay silent), verify (silent when the code was verified since its last change), ask (a human decides), deny, guard (deny only when something would be lost)";

/// One declared key, as the schema and the tests read it.
pub struct Key {
    /// Its dotted path in a config file (`gate.hook-bypass`).
    pub path: &'static str,
    /// Its JSON Schema type, without description or default.
    pub shape: fn() -> Value,
    /// Its doc lines as written.
    pub doc: &'static [&'static str],
    /// Whether its default depends on the machine (a path under the user's home).
    pub machine_default: bool,
    /// The name of its merge rule (`set`, `append`, `class`, …; see [`merge_rule`]).
    pub rule: &'static str,
    /// The key `config show` credits when a layer sets this one: itself, or the key whose list
    /// it adds to (`gate.add_artifacts` sets `gate.artifacts`).
    pub sets: &'static str,
}

impl Key {
    /// The doc lines joined: the description the schema gives.
    pub fn description(&self) -> String {
        let lines: Vec<&str> = self.doc.iter().map(|l| l.trim()).collect();
        lines.join(" ")
    }

    /// The section the key is in, or `None` at the top level.
    pub fn section(&self) -> Option<&'static str> {
        self.path.split_once('.').map(|(section, _)| section)
    }
}

/// One section of a config file (`stop`, `gate`, …) and what it holds.
pub struct Section {
    pub name: &'static str,
    pub doc: &'static [&'static str],
}

impl Section {
    pub fn description(&self) -> String {
        let lines: Vec<&str> = self.doc.iter().map(|l| l.trim()).collect();
        lines.join(" ")
    }
}

/// How a key appears in `config show`.
pub enum Shown {
    /// In declaration order.
    Now(Value),
    /// After the section's other keys, ordered by the rank (a class policy: in the order the
    /// layers last set the policies, which is the order [`GateSettings::policies`] keeps).
    ///
    /// [`GateSettings::policies`]: crate::gate::settings::GateSettings::policies
    Later(usize, Value),
    /// Not shown: the key adds to another one, or is not a setting (`$schema`).
    Hidden,
}

/// A section's rows in `config show` order: [`Shown::Now`] ones as declared, then the
/// [`Shown::Later`] ones by rank.
pub fn section_value(rows: Vec<(&'static str, Shown)>) -> Value {
    let mut now = serde_json::Map::new();
    let mut later = Vec::new();
    for (name, shown) in rows {
        match shown {
            Shown::Now(value) => {
                now.insert(name.to_owned(), value);
            }
            Shown::Later(rank, value) => later.push((rank, name, value)),
            Shown::Hidden => {}
        }
    }
    later.sort_by_key(|(rank, _, _)| *rank);
    for (_, name, value) in later {
        now.insert(name.to_owned(), value);
    }
    Value::Object(now)
}

/// The JSON Schema types a key may have.
pub mod shapes {
    use super::*;

    pub fn integer() -> Value {
        json!({"type": "integer", "minimum": 0})
    }
    pub fn positive() -> Value {
        json!({"type": "integer", "minimum": 1})
    }
    pub fn boolean() -> Value {
        json!({"type": "boolean"})
    }
    pub fn string() -> Value {
        json!({"type": "string"})
    }
    pub fn strings() -> Value {
        json!({"type": "array", "items": {"type": "string"}})
    }
    pub fn policy() -> Value {
        json!({"enum": ["allow", "verify", "ask", "deny", "guard"]})
    }
    pub fn provider() -> Value {
        json!({"enum": ["auto", "none", "openai", "anthropic", "command", "codex", "claude"]})
    }
    pub fn judge_turns() -> Value {
        json!({"enum": ["all", "lexicon"]})
    }
    pub fn second_reading() -> Value {
        json!({"enum": ["off", "marked", "blocks"]})
    }
    pub fn response_format() -> Value {
        json!({"enum": ["json_schema", "json_object", "none"]})
    }
    pub fn boundary_mode() -> Value {
        json!({"enum": ["off", "landlock", "agent"]})
    }
}

/// The dotted path of a key: `field`, `field as "name"`, `section . field [as "name"]`.
macro_rules! key_path {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident as $rename:literal) => {
        $rename
    };
    ($section:ident . $field:ident) => {
        concat!(stringify!($section), ".", stringify!($field))
    };
    ($section:ident . $field:ident as $rename:literal) => {
        concat!(stringify!($section), ".", $rename)
    };
}

/// A key's name inside its section (`hook-bypass`).
macro_rules! key_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident as $rename:literal) => {
        $rename
    };
}

/// How one layer's value `$v` of the key `$key` lands on the settings `$s` (its relative
/// paths relative to `$base`), recorded in the merge `$m` as set by this layer.
macro_rules! merge_rule {
    // The layer's value replaces the one below.
    (set($($place:ident).+) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        $s.$($place).+ = $v.into();
        $m.mark($key);
    }};
    // A path: relative to the file that sets it; replaces the one below.
    (relative($($place:ident).+) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        $s.$($place).+ = $base.join($v);
        $m.mark($key);
    }};
    // A list appended to the lists of the layers below.
    (append($($place:ident).+) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        $s.$($place).+.extend($v);
        $m.mark($key);
    }};
    // Command lines appended, each split into words as a shell would (kept whole when it
    // does not split).
    (append_words($($place:ident).+) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        for command in $v {
            let words = shell_words::split(&command).unwrap_or_else(|_| vec![command]);
            $s.$($place).+.push(words);
        }
        $m.mark($key);
    }};
    // A list added to another key's list (`add_artifacts` to `artifacts`): that key is the
    // one set.
    (add_to($($place:ident).+, $other:literal) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        $s.$($place).+.extend($v);
        $m.mark($other);
    }};
    // The gate's policy for one class of action.
    (class($class:ident) $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        use crate::gate::classify::Class;
        $s.gate.policies.retain(|(c, _)| *c != Class::$class);
        $s.gate.policies.push((Class::$class, $v));
        $m.mark($key);
    }};
    // Read and ignored.
    (ignored() $m:ident, $s:ident, $v:ident, $base:ident, $key:expr) => {{
        let _ = $v;
    }};
}

/// How the key with `rule` shows in `config show`, read from the settings `$s`.
macro_rules! show_rule {
    (set($($place:ident).+) $s:ident) => {
        $crate::config::declare::Shown::Now(serde_json::json!($s.$($place).+))
    };
    (relative($($place:ident).+) $s:ident) => {
        $crate::config::declare::Shown::Now(serde_json::json!($s.$($place).+))
    };
    (append($($place:ident).+) $s:ident) => {
        $crate::config::declare::Shown::Now(serde_json::json!($s.$($place).+))
    };
    (append_words($($place:ident).+) $s:ident) => {{
        let joined: Vec<String> = $s.$($place).+.iter().map(|words| words.join(" ")).collect();
        $crate::config::declare::Shown::Now(serde_json::json!(joined))
    }};
    (add_to($($t:tt)*) $s:ident) => {
        $crate::config::declare::Shown::Hidden
    };
    (class($class:ident) $s:ident) => {{
        use crate::gate::classify::Class;
        let policies = &$s.gate.policies;
        match policies.iter().position(|(c, _)| *c == Class::$class) {
            Some(rank) => $crate::config::declare::Shown::Later(rank, serde_json::json!(policies[rank].1)),
            None => $crate::config::declare::Shown::Hidden,
        }
    }};
    (ignored() $s:ident) => {
        $crate::config::declare::Shown::Hidden
    };
}

/// Sets a declared default on the settings `$s`; a key with none keeps its owner's `Default`.
macro_rules! default_rule {
    ($rule:ident($($place:ident).+ $(, $x:tt)*) $s:ident = $default:expr) => {
        $s.$($place).+ = $default;
    };
    ($rule:ident($($arg:tt)*) $s:ident) => {};
}

/// The class policies a gate file sets, as a list: the gate's map from class to key.
macro_rules! class_of {
    (class($class:ident) $list:ident, $value:expr) => {
        $list.push((crate::gate::classify::Class::$class, $value));
    };
    ($rule:ident($($arg:tt)*) $list:ident, $value:expr) => {};
}

/// Sets the file field of the class policy `$class` to `$value` (see [`class_of`]).
macro_rules! set_class {
    (class($c:ident) $field:expr, $class:ident, $value:ident) => {
        if $class == crate::gate::classify::Class::$c {
            $field = $value;
        }
    };
    ($rule:ident($($arg:tt)*) $field:expr, $class:ident, $value:ident) => {};
}

/// The doc lines of a key: its own, except a class policy's, which is what the policies mean.
macro_rules! doc_of {
    (class($class:ident) [$($doc:literal),*]) => {
        &[$crate::config::declare::POLICY_DOC]
    };
    ($rule:ident($($arg:tt)*) [$($doc:literal),*]) => {
        &[$($doc),*]
    };
}

/// The key a layer setting this one is credited with (see [`Key::sets`]).
macro_rules! sets_of {
    (add_to($($place:ident).+, $other:literal) $path:expr) => {
        $other
    };
    ($rule:ident($($arg:tt)*) $path:expr) => {
        $path
    };
}

/// Whether `machine` was written after a key's shape.
macro_rules! machine_flag {
    () => {
        false
    };
    (machine) => {
        true
    };
}

/// One section's keys, by what is asked of them.
macro_rules! config_section {
    (@struct [$($sdoc:literal)*] $S:ident;
        $( $(#[doc = $doc:literal])* $field:ident $(as $ren:literal)? : $ty:ty
            [$shape:ident $(, $flag:ident)?] => $rule:ident ( $($arg:tt)* ) $(= $default:expr)? ; )*
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $S {
            $( $(#[doc = $doc])* $(#[serde(rename = $ren)])? pub $field: Option<$ty>, )*
        }

        impl $S {
            /// The class policies this section sets, in declaration order (none outside `gate`).
            // A push per declared key that is a class policy: a list built by expansion.
            #[allow(clippy::vec_init_then_push)]
            pub fn class_policies(&self) -> Vec<(crate::gate::classify::Class, Option<crate::gate::settings::Policy>)> {
                #[allow(unused_mut)]
                let mut list = Vec::new();
                $( class_of!($rule($($arg)*) list, self.$field); )*
                list
            }

            /// Sets the policy this section holds for `class` (see [`Self::class_policies`]).
            #[allow(unused_variables)]
            pub fn set_class_policy(
                &mut self,
                class: crate::gate::classify::Class,
                policy: Option<crate::gate::settings::Policy>,
            ) {
                $( set_class!($rule($($arg)*) self.$field, class, policy); )*
            }
        }
    };
    (@apply $m:ident, $s:ident, $base:ident, $file:ident, $section:ident;
        $( $(#[doc = $doc:literal])* $field:ident $(as $ren:literal)? : $ty:ty
            [$shape:ident $(, $flag:ident)?] => $rule:ident ( $($arg:tt)* ) $(= $default:expr)? ; )*
    ) => {
        $( if let Some(v) = $file.$field {
            merge_rule!($rule($($arg)*) $m, $s, v, $base, key_path!($section . $field $(as $ren)?));
        } )*
    };
    (@show $s:ident;
        $( $(#[doc = $doc:literal])* $field:ident $(as $ren:literal)? : $ty:ty
            [$shape:ident $(, $flag:ident)?] => $rule:ident ( $($arg:tt)* ) $(= $default:expr)? ; )*
    ) => {
        $crate::config::declare::section_value(vec![
            $( (key_name!($field $(as $ren)?), show_rule!($rule($($arg)*) $s)), )*
        ])
    };
    (@defaults $s:ident;
        $( $(#[doc = $doc:literal])* $field:ident $(as $ren:literal)? : $ty:ty
            [$shape:ident $(, $flag:ident)?] => $rule:ident ( $($arg:tt)* ) $(= $default:expr)? ; )*
    ) => {
        $( default_rule!($rule($($arg)*) $s $(= $default)?); )*
    };
    (@keys $keys:ident, $section:ident;
        $( $(#[doc = $doc:literal])* $field:ident $(as $ren:literal)? : $ty:ty
            [$shape:ident $(, $flag:ident)?] => $rule:ident ( $($arg:tt)* ) $(= $default:expr)? ; )*
    ) => {
        $( $keys.push($crate::config::declare::Key {
            path: key_path!($section . $field $(as $ren)?),
            shape: $crate::config::declare::shapes::$shape,
            doc: doc_of!($rule($($arg)*) [$($doc),*]),
            machine_default: machine_flag!($($flag)?),
            rule: stringify!($rule),
            sets: sets_of!($rule($($arg)*) key_path!($section . $field $(as $ren)?)),
        }); )*
    };
}

/// The whole ladder from one list: top-level keys, the sections before `judges`, `judges`
/// (written by hand: a map of judges, merged per judge), and the sections after it. Expands
/// to [`ConfigFile`](crate::config::ConfigFile) and its section structs, `Settings::apply`,
/// `Settings::apply_defaults`, `show::effective_keys`, and `keys()`/`sections()` for the
/// schema.
macro_rules! config_keys {
    (
        top {
            $( $(#[doc = $rdoc:literal])* $rfield:ident $(as $rren:literal)? : $rty:ty
                [$rshape:ident $(, $rflag:ident)?] => $rrule:ident ( $($rarg:tt)* ) $(= $rdefault:expr)? ; )*
        }
        $( $(#[doc = $d1:literal])* section $s1:ident : $S1:ident { $($k1:tt)* } )*
        judges;
        $( $(#[doc = $d2:literal])* section $s2:ident : $S2:ident { $($k2:tt)* } )*
    ) => {
        $( config_section!(@struct [$($d1)*] $S1; $($k1)*); )*
        $( config_section!(@struct [$($d2)*] $S2; $($k2)*); )*

        /// One config file as written. Every key is optional; the defaults are those of
        /// [`Settings::defaults`], which `config schema` shows next to each key's description.
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ConfigFile {
            $( $(#[doc = $rdoc])* $(#[serde(rename = $rren)])? pub $rfield: Option<$rty>, )*
            $( $(#[doc = $d1])* pub $s1: Option<$S1>, )*
            /// Judges by name: changes to built-ins, or new judges.
            pub judges: Option<indexmap::IndexMap<String, crate::judge::JudgeSpec>>,
            $( $(#[doc = $d2])* pub $s2: Option<$S2>, )*
        }

        impl Settings {
            /// Merges one layer's `file` (whose relative paths are relative to `base`) onto
            /// these settings, recording the keys it sets.
            pub(crate) fn apply(&mut self, file: ConfigFile, base: &std::path::Path, layer: &Layer) {
                let mut m = Merge::new(layer, &mut self.sources);
                $( if let Some(v) = file.$rfield {
                    merge_rule!($rrule($($rarg)*) m, self, v, base, key_path!($rfield $(as $rren)?));
                } )*
                $( if let Some(section) = file.$s1 {
                    config_section!(@apply m, self, base, section, $s1; $($k1)*);
                } )*
                $( if let Some(section) = file.$s2 {
                    config_section!(@apply m, self, base, section, $s2; $($k2)*);
                } )*
                apply_judges(&mut m, &mut self.judge_layers, file.judges.unwrap_or_default());
            }

            /// Sets every declared default.
            pub(crate) fn apply_defaults(&mut self) {
                $( default_rule!($rrule($($rarg)*) self $(= $rdefault)?); )*
                $( config_section!(@defaults self; $($k1)*); )*
                $( config_section!(@defaults self; $($k2)*); )*
            }
        }

        /// The effective settings as the config file keys name them, in declaration order,
        /// with `judges` (given) in its place.
        pub fn effective_keys(s: &Settings, judges: serde_json::Value) -> serde_json::Value {
            let mut top = serde_json::Map::new();
            $( if let $crate::config::declare::Shown::Now(value) = show_rule!($rrule($($rarg)*) s) {
                top.insert(key_name!($rfield $(as $rren)?).to_owned(), value);
            } )*
            $( top.insert(stringify!($s1).to_owned(), config_section!(@show s; $($k1)*)); )*
            top.insert("judges".to_owned(), judges);
            $( top.insert(stringify!($s2).to_owned(), config_section!(@show s; $($k2)*)); )*
            serde_json::Value::Object(top)
        }

        /// Every declared key, in declaration order.
        // A push per declared key (the sections' keys are expanded by another macro).
        #[allow(clippy::vec_init_then_push)]
        pub fn keys() -> Vec<$crate::config::declare::Key> {
            let mut keys = Vec::new();
            $( keys.push($crate::config::declare::Key {
                path: key_path!($rfield $(as $rren)?),
                shape: $crate::config::declare::shapes::$rshape,
                doc: doc_of!($rrule($($rarg)*) [$($rdoc),*]),
                machine_default: machine_flag!($($rflag)?),
                rule: stringify!($rrule),
                sets: sets_of!($rrule($($rarg)*) key_path!($rfield $(as $rren)?)),
            }); )*
            $( config_section!(@keys keys, $s1; $($k1)*); )*
            $( config_section!(@keys keys, $s2; $($k2)*); )*
            keys
        }

        /// Every declared section, in declaration order.
        pub fn sections() -> Vec<$crate::config::declare::Section> {
            vec![
                $( $crate::config::declare::Section { name: stringify!($s1), doc: &[$($d1),*] }, )*
                $( $crate::config::declare::Section { name: stringify!($s2), doc: &[$($d2),*] }, )*
            ]
        }
    };
}
