//! Publishing credentials written into git's configuration: a token in a remote's URL
//! (`https://TOKEN@github.com/o/r`), an `http.extraHeader` (what `actions/checkout` leaves
//! behind), a credential helper (`!f() { echo password=…; }; f`, a keyring's), a
//! `core.sshCommand` with a key of its own, a `url.<base>.insteadOf` whose base holds a token.
//!
//! Git must still read its configuration, so such a file cannot be hidden as the credential
//! files are: a confined command that may not publish reads in its place a copy without them,
//! bound read-only over it ([`Plan::clean_git_credentials`]). The copy is written to hookjudge's
//! state folder, which the confined command cannot write. Everything else in the file stays as
//! it was, comments included.
//!
//! Not covered: other repositories' configuration on the same disk (a command can `cd` there),
//! and credentials the agent's own file tools read outside the boundary.

use std::path::PathBuf;

use gix::bstr::{BString, ByteSlice};

use super::anchors::Plan;
use crate::support::hash::fnv1a;

/// A git configuration file that holds credentials, and the text without them that a confined
/// command reads in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    /// The file, canonical.
    pub path: PathBuf,
    /// Its text without credentials.
    pub text: Vec<u8>,
}

impl Cleaned {
    /// Where the copy is written (and bound from): one file per configuration file, in the
    /// state folder.
    pub fn copy(&self) -> PathBuf {
        crate::support::dirs::state_dir()
            .join("boundary")
            .join(format!(
                "{:016x}.gitconfig",
                fnv1a(self.path.as_os_str().as_encoded_bytes())
            ))
    }

    /// Writes the copy (through a temporary file, so that a command starting beside this one
    /// never reads half of it), unless it is there already as it should be: the usual case,
    /// since each confined command would write the same.
    pub fn write(&self) -> std::io::Result<()> {
        let copy = self.copy();
        if std::fs::read(&copy).is_ok_and(|there| there == self.text) {
            return Ok(());
        }
        let dir = copy.parent().expect("the copy is in a folder");
        std::fs::create_dir_all(dir)?;
        let temporary = dir.join(format!(".{}.tmp", std::process::id()));
        std::fs::write(&temporary, &self.text)?;
        std::fs::rename(&temporary, &copy)
    }
}

impl Plan {
    /// Adds the git configuration files that a command reads in `repo` (its own, the user's,
    /// the system's, and those they include; outside a repository the user's and the system's)
    /// and that hold credentials, each with its text without them.
    pub fn clean_git_credentials(mut self, repo: Option<&gix::Repository>) -> Plan {
        for path in config_files(repo) {
            if self.cleaned.iter().any(|c| c.path == path) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if let Some(text) = without_credentials(&bytes) {
                self.cleaned.push(Cleaned { path, text });
            }
        }
        self
    }
}

/// The git configuration files a command reads, canonical: the user's and the system's wherever
/// it runs (with what they include), and in `repo` its own, every file its configuration was
/// read from, its other work trees' and its submodules'.
fn config_files(repo: Option<&gix::Repository>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = vec![PathBuf::from("/etc/gitconfig")];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        files.push(home.join(".gitconfig"));
        let xdg = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        files.push(xdg.join("git/config"));
    }
    let from = |config: &gix::config::File| -> Vec<PathBuf> {
        config
            .sections()
            .filter_map(|s| s.meta().path.clone())
            .collect()
    };
    match repo {
        // The repository's configuration holds the user's and the system's already, with what
        // they include: they are parsed once.
        Some(repo) => files.extend(from(repo.config_snapshot().plumbing())),
        // `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` included, and the files they include.
        None => files.extend(
            gix::config::File::from_globals()
                .map(|globals| from(&globals))
                .unwrap_or_default(),
        ),
    }
    if let Some(repo) = repo {
        let common = repo.common_dir();
        files.push(common.join("config"));
        files.push(common.join("config.worktree"));
        files.extend(named_below(&common.join("worktrees"), "config.worktree", 1));
        files.extend(named_below(&common.join("modules"), "config", 8));
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for file in files {
        if let Ok(file) = file.canonicalize()
            && file.is_file()
            && !found.contains(&file)
        {
            found.push(file);
        }
    }
    found
}

/// The files named `name` in the folders below `dir`, down to `depth` levels (submodules'
/// git folders nest under each other's `modules/`).
fn named_below(dir: &std::path::Path, name: &str, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        found.push(path.join(name));
        if depth > 1 {
            found.extend(named_below(&path.join("modules"), name, depth - 1));
        }
    }
    found
}

/// Keys whose values are credentials, or run a program that hands them out, by section: taken
/// out whole. (Every `credential` section goes, and user information out of every URL.)
const REMOVED: [(&str, &str); 7] = [
    ("http", "extraheader"),
    ("http", "cookiefile"),
    ("http", "sslkey"),
    ("core", "sshcommand"),
    ("core", "askpass"),
    ("sendemail", "smtppass"),
    ("imap", "pass"),
];

/// Whether the setting `name = value` holds a secret: one [`crate::redact`] finds in the value
/// by its own format, or one a generic rule finds only with the setting's name beside it
/// (`[gitea] token = 4b9e…`). A generic match inside the value alone (an alias running
/// `terraform plan -var 'db_password_secret_name=prod/db'`) is no reason to drop a setting.
fn is_secret_setting(name: &str, value: &str) -> bool {
    // A plain URL (no user information, no query, one word): what the redaction's URL rules
    // look for is not there, and compiling them would cost more than the rest of the
    // boundary's start-up. User information is [`without_userinfo`]'s.
    if let Some((_, rest)) = value.split_once("://")
        && !rest.contains(['@', '?'])
        && !rest.contains(char::is_whitespace)
    {
        return false;
    }
    let alone = crate::redact::redact(value);
    if alone.specific() > 0 {
        return true;
    }
    let named = crate::redact::redact(&format!("{name} = {value}"));
    named.total() - named.specific() > alone.total() - alone.specific()
}

/// What a file that cannot be read as git configuration reads as inside the boundary: it may
/// hold credentials, and what it holds cannot be told (fail closed).
const UNREADABLE: &str = "# hookjudge: this file could not be read as git configuration, so inside the boundary it reads as empty\n";

/// `bytes` (one git configuration file) without what can publish, or `None` when it holds
/// nothing of it. A file that cannot be read as git configuration reads as empty.
pub fn without_credentials(bytes: &[u8]) -> Option<Vec<u8>> {
    let Ok(mut file) = gix::config::File::from_bytes_no_includes(
        bytes,
        gix::config::file::Metadata::api(),
        Default::default(),
    ) else {
        return Some(UNREADABLE.as_bytes().to_vec());
    };
    let sections: Vec<_> = file
        .sections_and_ids()
        .map(|(s, id)| {
            let header = s.header();
            let names: Vec<String> = s.value_names().collect();
            (
                id,
                header.name().to_str_lossy().to_ascii_lowercase(),
                header.subsection_name().map(|s| s.to_owned()),
                names,
            )
        })
        .collect();
    let mut changed = false;
    for (id, name, subsection, mut keys) in sections {
        if name == "credential" {
            changed |= file.remove_section_by_id(id).is_some();
            continue;
        }
        keys.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        for key in keys {
            let lower = key.to_ascii_lowercase();
            changed |= if REMOVED.contains(&(name.as_str(), lower.as_str())) {
                remove_all(&mut file, id, &key)
            } else {
                // URLs lose their user information; a secret left in a value takes the key.
                let cleaned = clean_urls(&mut file, id, &key);
                let removed =
                    holds_a_secret(&mut file, id, &key) && remove_all(&mut file, id, &key);
                cleaned || removed
            };
        }
        // `[url "https://TOKEN@host/"]`, `[http "https://TOKEN@host/"]`.
        let clean = subsection
            .as_deref()
            .and_then(|s| without_userinfo(s.to_str().ok()?));
        if let (Some(clean), Some(mut section)) = (clean, file.section_mut_by_id(id)) {
            changed |= section.rename(&name, Some(BString::from(clean))).is_ok();
        }
    }
    let text: Vec<u8> = if changed {
        file.to_bstring().into()
    } else {
        bytes.to_vec()
    };
    match comments_without_secrets(&text) {
        Some(text) => Some(text),
        None => changed.then_some(text),
    }
}

/// `text` with every secret in its comments (a token noted beside the remote it was for)
/// redacted as the LLM's prompts are ([`crate::redact`]), and the user information taken out of
/// every URL in them, or `None` when no comment holds either. Git ignores comments, so nothing
/// it reads changes. Not covered: a secret split over several comment lines.
fn comments_without_secrets(text: &[u8]) -> Option<Vec<u8>> {
    let mut changed = false;
    let mut out = Vec::with_capacity(text.len());
    let mut quoted = false;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let (start, still_quoted) = comment_start(line, quoted);
        quoted = still_quoted;
        let Some(start) = start else {
            out.extend_from_slice(line);
            continue;
        };
        let comment = String::from_utf8_lossy(&line[start..]);
        let redacted = crate::redact::redact(&comment);
        let cleaned: String = redacted
            .text
            .split_inclusive(char::is_whitespace)
            .map(|word| {
                let bare = word.trim_end();
                match without_userinfo(bare) {
                    Some(clean) => format!("{clean}{}", &word[bare.len()..]),
                    None => word.to_owned(),
                }
            })
            .collect();
        if redacted.total() > 0 || cleaned != redacted.text {
            out.extend_from_slice(&line[..start]);
            out.extend_from_slice(cleaned.as_bytes());
            changed = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    changed.then_some(out)
}

/// Where the comment of one configuration line starts, if it has one: at a `#` or `;` outside
/// double quotes (a backslash escapes the next character); `quoted` says whether the line
/// starts inside a quoted value continued from the line before. Returns also whether the next
/// line starts inside one (this line ends in a backslash inside quotes).
fn comment_start(line: &[u8], mut quoted: bool) -> (Option<usize>, bool) {
    let mut escaped = false;
    for (i, &b) in line.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => quoted = !quoted,
            b'#' | b';' if !quoted => return (Some(i), false),
            _ => {}
        }
    }
    // A backslash escaping the line's end continues the value on the next line.
    let continued = escaped
        || line
            .strip_suffix(b"\n")
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .is_some_and(|l| l.ends_with(b"\\") && escaped_at_end(l));
    (None, quoted && continued)
}

/// Whether the backslash that ends `line` is itself unescaped (an odd run of backslashes).
fn escaped_at_end(line: &[u8]) -> bool {
    line.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// Whether a value of `key` in the section `id` holds a secret [`crate::redact`] finds (a token
/// in an alias's `curl -H`): the key goes, as a credential's would.
fn holds_a_secret(
    file: &mut gix::config::File,
    id: gix::config::file::SectionId,
    key: &str,
) -> bool {
    file.section_mut_by_id(id).is_some_and(|section| {
        section
            .values(key)
            .iter()
            .any(|v| is_secret_setting(key, &v.to_str_lossy()))
    })
}

/// The `git -c` settings passed down in the environment (`GIT_CONFIG_COUNT`, then
/// `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_VALUE_<n>` for each), as a confined command that may not
/// publish gets them: a setting that is a credential (as [`without_credentials`] takes out of a
/// file) goes, a URL loses its user information, the rest stays in its order. Agents pass
/// settings of their own this way (Gemini CLI an empty `core.hooksPath`), so the variables
/// cannot simply go as `GIT_CONFIG_PARAMETERS` does. `None` when nothing changes.
pub fn env_settings_without_credentials(
    settings: &[(String, String)],
) -> Option<Vec<(String, String)>> {
    let kept: Vec<(String, String)> = settings
        .iter()
        .filter_map(|(key, value)| {
            let (section, rest) = key.split_once('.')?;
            let (subsection, name) = match rest.rsplit_once('.') {
                Some((subsection, name)) => (Some(subsection), name),
                None => (None, rest),
            };
            // A key git would refuse ("invalid key") is of no use, and its value may be a secret.
            let word = |w: &str| {
                !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            };
            if !word(section) || !word(name) || subsection.is_some_and(|s| s.contains('\n')) {
                return None;
            }
            let section = section.to_ascii_lowercase();
            let name_lower = name.to_ascii_lowercase();
            // An included file would be read as it is where no repository's configuration
            // (whose files are cleaned) includes it.
            let value = without_userinfo(value).unwrap_or_else(|| value.clone());
            if section == "credential"
                || REMOVED.contains(&(section.as_str(), name_lower.as_str()))
                || is_secret_setting(name, &value)
                || (["include", "includeif"].contains(&section.as_str())
                    && !includes_nothing_to_hide(&value))
            {
                return None;
            }
            let key = match subsection.and_then(without_userinfo) {
                Some(clean) => format!("{section}.{clean}.{name}"),
                None => key.clone(),
            };
            Some((key, value))
        })
        .collect();
    (kept != settings).then_some(kept)
}

/// Whether the configuration file an include passed in the environment names holds nothing
/// the boundary would hide (nor includes of its own): outside a repository such a file is read
/// as it is, so one that does is left out (an identity file stays, and commits keep working).
fn includes_nothing_to_hide(path: &str) -> bool {
    let path = match path.strip_prefix("~/") {
        Some(rest) => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest),
            None => return false,
        },
        None => PathBuf::from(path),
    };
    match std::fs::read(&path) {
        // Git skips an include it cannot read, so nothing is read through it.
        Err(_) => true,
        Ok(bytes) => {
            !bytes
                .to_ascii_lowercase()
                .windows(8)
                .any(|w| w == b"[include")
                && without_credentials(&bytes).is_none()
        }
    }
}

/// Removes every value of `key` from the section `id`; whether there was one.
fn remove_all(file: &mut gix::config::File, id: gix::config::file::SectionId, key: &str) -> bool {
    let Some(mut section) = file.section_mut_by_id(id) else {
        return false;
    };
    let mut removed = false;
    while section.remove(key).is_some() {
        removed = true;
    }
    removed
}

/// Takes the user information out of the URLs among the section's values of `key` (all its
/// values then kept in their order, at the end of the section); whether one had any.
fn clean_urls(file: &mut gix::config::File, id: gix::config::file::SectionId, key: &str) -> bool {
    let Some(mut section) = file.section_mut_by_id(id) else {
        return false;
    };
    let values = section.values(key);
    let cleaned: Vec<Option<String>> = values
        .iter()
        .map(|u| u.to_str().ok().and_then(without_userinfo))
        .collect();
    if cleaned.iter().all(Option::is_none) {
        return false;
    }
    while section.remove(key).is_some() {}
    for (value, clean) in values.iter().zip(cleaned) {
        let value = clean.map_or_else(|| value.clone(), BString::from);
        let _ = section.push(key, Some(value.as_bstr()));
    }
    true
}

/// A URL without its secret, or `None` when it has none: for HTTP(S) and FTP(S) all the user
/// information before the host (`https://TOKEN@host/…` is a token), for any other scheme its
/// password (`socks5://u:pass@proxy`); an SSH user (`git@host`) names no secret. A transport
/// prefix (`http::https://…`, as remote helpers take) is kept.
fn without_userinfo(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let bare = scheme
        .rsplit("::")
        .next()
        .unwrap_or(scheme)
        .to_ascii_lowercase();
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    let host = &rest[at + 1..];
    if matches!(bare.as_str(), "http" | "https" | "ftp" | "ftps") {
        return Some(format!("{scheme}://{host}"));
    }
    let user = rest[..at].split_once(':')?.0;
    Some(format!("{scheme}://{user}@{host}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_leaves_http_urls_only() {
        for (url, clean) in [
            (
                "https://TOKEN@github.com/o/r.git",
                Some("https://github.com/o/r.git"),
            ),
            ("HTTPS://u:p%40ss@host:8443/r", Some("HTTPS://host:8443/r")),
            (
                "http://x-access-token:ghs_1@github.com/",
                Some("http://github.com/"),
            ),
            ("https://github.com/o/r@v1", None),
            ("http::https://T@h/r", Some("http::https://h/r")),
            (
                "socks5://u:SECRET@proxy:1080",
                Some("socks5://u@proxy:1080"),
            ),
            ("ssh://git:SECRET@h/r", Some("ssh://git@h/r")),
            ("ssh://git@github.com/o/r.git", None),
            ("git@github.com:o/r.git", None),
            ("/srv/origin.git", None),
        ] {
            assert_eq!(without_userinfo(url).as_deref(), clean, "{url}");
        }
    }

    #[test]
    fn what_can_publish_leaves_and_everything_else_stays() {
        let config = "# my settings\n[core]\n\tbare = false\n\tsshCommand = ssh -i ~/keys/deploy\n\
                      [remote \"origin\"]\n\turl = https://TOKEN@github.com/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
                      [http \"https://github.com/\"]\n\textraHeader = AUTHORIZATION: basic SECRET\n\
                      [credential]\n\thelper = \"!f() { echo password=SECRET2; }; f\"\n\
                      [url \"https://TOKEN3@github.com/\"]\n\tinsteadOf = gh:\n\
                      [user]\n\tname = Me # me\n\
                      [HTTP]\n\tProxy = http://u:SECRET4@proxy:3128\n[lfs]\n\turl = https://SECRET5@lfs.example/r\n\
                      [http \"https://SECRET6@h/\"]\n\tsslVerify = true\n[core]\n\taskPass = /home/me/bin/give-SECRET7\n\
                      [sendemail]\n\tsmtpPass = SECRET8\n\tsmtpUser = me\n";
        let clean = String::from_utf8(without_credentials(config.as_bytes()).unwrap()).unwrap();
        for secret in ["TOKEN", "SECRET", "keys/deploy", "helper", "extraHeader"] {
            assert!(!clean.contains(secret), "{secret} in:\n{clean}");
        }
        for kept in [
            "# my settings",
            "Proxy = http://proxy:3128",
            "url = https://lfs.example/r",
            "[http \"https://h/\"]",
            "smtpUser = me",
            "bare = false",
            "url = https://github.com/o/r.git",
            "fetch = +refs/heads/*:refs/remotes/origin/*",
            "[url \"https://github.com/\"]",
            "insteadOf = gh:",
            "name = Me # me",
        ] {
            assert!(clean.contains(kept), "{kept} not in:\n{clean}");
        }
        // Git reads the copy as it read the original, but for the credentials.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config"), &clean).unwrap();
        let get = |key: &str| {
            let out = std::process::Command::new("git")
                .args(["config", "--file", "config", "--get-all", key])
                .current_dir(dir.path())
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(get("remote.origin.url"), "https://github.com/o/r.git\n");
        assert_eq!(get("user.name"), "Me\n");
        assert_eq!(get("url.https://github.com/.insteadof"), "gh:\n");
        assert_eq!(get("credential.helper"), "");
    }

    #[test]
    fn settings_passed_in_the_environment_lose_their_credentials_only() {
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let given = pairs(&[
            ("core.hooksPath", ""),
            ("http.extraHeader", "AUTHORIZATION: bearer SECRET1"),
            (
                "Credential.https://github.com.helper",
                "!echo password=SECRET2",
            ),
            ("remote.pub.url", "https://SECRET3@example.org/r.git"),
            ("url.https://SECRET4@github.com/.insteadOf", "gh:"),
            ("core.sshCommand", "ssh -i SECRET5"),
            ("user.name", "Me"),
        ]);
        let kept = env_settings_without_credentials(&given).unwrap();
        assert_eq!(
            kept,
            pairs(&[
                ("core.hooksPath", ""),
                ("remote.pub.url", "https://example.org/r.git"),
                ("url.https://github.com/.insteadOf", "gh:"),
                ("user.name", "Me"),
            ])
        );
        assert_eq!(
            env_settings_without_credentials(&pairs(&[("core.hooksPath", "")])),
            None
        );
    }

    #[test]
    fn secrets_in_comments_are_redacted_and_git_reads_the_same() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let config = format!(
            "# deploy token {token}\n[remote \"origin\"]\n\turl = git@github.com:o/r.git ; was https://me:{token}@github.com/o/r\n\
             [alias]\n\tlg = \"log --format='#%h'\" # {token}\n"
        );
        let clean = String::from_utf8(without_credentials(config.as_bytes()).unwrap()).unwrap();
        assert!(!clean.contains(&token), "{clean}");
        for kept in [
            "# deploy token [REDACTED",
            "url = git@github.com:o/r.git ;",
            "lg = \"log --format='#%h'\" #",
        ] {
            assert!(clean.contains(kept), "{kept} not in:\n{clean}");
        }
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("before", config.as_str()), ("after", clean.as_str())] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let list = |name: &str| {
            let out = std::process::Command::new("git")
                .args(["config", "--file", name, "--list"])
                .current_dir(dir.path())
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(list("after"), list("before"));
        assert!(list("after").contains("alias.lg=log --format='#%h'"));
        assert_eq!(comment_start(b"\ta = \"x;y\\\" #\" ; c", false).0, Some(15));
        // A URL's user information in a comment, and a comment that is not UTF-8.
        let mut odd =
            b"; was https://Zk4qP9xWm2Lr7Tn5Vb8cQ3@github.com/o/r.git\n# old \xe9 ".to_vec();
        odd.extend_from_slice(token.as_bytes());
        odd.extend_from_slice(b"\n[core]\n\tbare = false\n");
        let clean = String::from_utf8_lossy(&without_credentials(&odd).unwrap()).into_owned();
        assert!(
            !clean.contains("Zk4qP9")
                && !clean.contains(&token)
                && clean.contains("https://github.com/o/r.git"),
            "{clean}"
        );
        // A quoted value continued over lines: its `#` is no comment, the one after it is.
        let continued = "[alias]\n\tone = \"!echo \\\nfoo # not a comment {token}\" # {token}\n";
        let continued = continued.replace("{token}", &token);
        let clean = String::from_utf8(without_credentials(continued.as_bytes()).unwrap()).unwrap();
        assert!(
            clean.contains(&format!("not a comment {token}\" #")) || !clean.contains("one ="),
            "{clean}"
        );
        assert_eq!(
            without_credentials(b"# just a note\n[core]\n\tbare = false # ok\n"),
            None
        );
    }

    #[test]
    fn a_setting_is_secret_by_its_value_or_by_its_name_beside_a_generic_value() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        for (name, value, secret) in [
            (
                "pub",
                format!("!curl -H 'Authorization: token {token}' x"),
                true,
            ),
            (
                "token",
                "4b9e1f0c2d3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c".into(),
                true,
            ),
            (
                "tf",
                "!terraform plan -var 'db_password_secret_name=prod/db/2024'".into(),
                false,
            ),
            (
                "fp",
                "log --grep=signing_key:8F2A1B3C4D5E6F70".into(),
                false,
            ),
            (
                "url",
                "https://lfs.corp/api/lfs?project_key=Kx8aP2mQ9vR4tY7z".into(),
                false,
            ),
            (
                "signingkey",
                "8F2A1B3C4D5E6F708F2A1B3C4D5E6F708F2A1B3C".into(),
                false,
            ),
            ("name", "Me".into(), false),
            ("url", "https://github.com/o/r.git".into(), false),
        ] {
            assert_eq!(is_secret_setting(name, &value), secret, "{name} = {value}");
        }
    }

    #[test]
    fn an_include_in_the_environment_stays_when_its_file_holds_nothing_to_hide() {
        let dir = tempfile::tempdir().unwrap();
        let identity = dir.path().join("work");
        std::fs::write(&identity, "[user]\n\temail = me@work.example\n").unwrap();
        let tokened = dir.path().join("tokened");
        std::fs::write(&tokened, "[http]\n\textraHeader = X: T\n").unwrap();
        let pairs = |list: &[(&str, &std::path::Path)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.display().to_string()))
                .collect()
        };
        let given = pairs(&[
            ("include.path", &identity),
            ("includeIf.gitdir:/x/.path", &identity),
            ("include.path", &tokened),
        ]);
        let kept = env_settings_without_credentials(&given).unwrap();
        assert_eq!(kept, given[..2].to_vec());
    }

    #[test]
    fn a_file_that_cannot_be_read_reads_as_empty() {
        let text = without_credentials(b"[remote \"o\"\n\turl = https://T@h/r\n").unwrap();
        assert_eq!(text, UNREADABLE.as_bytes());
    }

    #[test]
    fn a_file_with_no_credentials_is_left_alone() {
        for config in [
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:o/r.git\n",
            "[remote \"o\"]\n\turl = https://github.com/o/r.git\n\tpushurl = /srv/r.git\n",
            "",
        ] {
            assert_eq!(without_credentials(config.as_bytes()), None, "{config}");
        }
    }
}
