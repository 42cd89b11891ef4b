//! Writes through a forge's HTTP API: `gh api` and `glab api` (a request with fields is a POST unless a method
//! says otherwise; a GraphQL document writes only when it holds a `mutation`), and `curl` or
//! `wget` sending a writing method or data to a forge's API (`api.github.com`, GitLab's
//! `/api/v4`, …). These are read by their options, not by a verb, so they sit beside the table.

use crate::gate::classify::Class;

/// What `gh api` or an HTTP client does, when it writes through a forge's API.
pub struct ApiWrite {
    pub class: Class,
    pub what: &'static str,
}

const GITHUB_WRITE: ApiWrite = ApiWrite {
    class: Class::Deploy,
    what: "changes repository state through the GitHub API",
};

const GITLAB_WRITE: ApiWrite = ApiWrite {
    class: Class::Deploy,
    what: "changes repository state through the GitLab API",
};

const FORGE_WRITE: ApiWrite = ApiWrite {
    class: Class::Deploy,
    what: "changes repository state through a forge's API",
};

/// Hosts and path parts that name a forge's API.
const FORGE_APIS: [&str; 9] = [
    "api.github.com",
    "uploads.github.com",
    "/api/v3/",
    "/api/v4/",
    "/api/v1/repos",
    "/api/graphql",
    "api.bitbucket.org",
    "gitlab.com/api",
    "codeberg.org/api",
];

/// `gh api` options that take the next word as their value.
const GH_API_VALUE_OPTIONS: [&str; 17] = [
    "-X",
    "--method",
    "-f",
    "-F",
    "--field",
    "--raw-field",
    "--input",
    "-H",
    "--header",
    "-q",
    "--jq",
    "-t",
    "--template",
    "--hostname",
    "--cache",
    "-p",
    "--preview",
];

/// The options of `gh api` that add a field (and so make the request a POST).
const GH_FIELD_OPTIONS: [&str; 5] = ["-f", "-F", "--field", "--raw-field", "--input"];

/// `curl` options that send data (a POST, or a PUT for an upload), and those that take a value.
const CURL_DATA_OPTIONS: [&str; 12] = [
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "--data-ascii",
    "--json",
    "-F",
    "--form",
    "--form-string",
    "-T",
    "--upload-file",
];

const CURL_VALUE_OPTIONS: [&str; 14] = [
    "-H",
    "--header",
    "-o",
    "--output",
    "-u",
    "--user",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-b",
    "--cookie",
    "-w",
    "--write-out",
];

/// Whether `program` (with `args`, `None` for a computed word) writes through a forge's API.
pub fn api_write(program: &str, args: &[Option<&str>]) -> Option<ApiWrite> {
    match program {
        "gh" => gh_api(args, GITHUB_WRITE),
        "glab" => gh_api(args, GITLAB_WRITE),
        "curl" => http_client(
            args,
            &CURL_DATA_OPTIONS,
            &CURL_VALUE_OPTIONS,
            "-X",
            "--request",
        ),
        "wget" => http_client(
            args,
            &["--post-data", "--post-file", "--body-data", "--body-file"],
            &["-O", "--output-document", "-o", "--header", "--user"],
            "",
            "--method",
        ),
        _ => None,
    }
}

/// An option word split into its name and an attached value (`-XPOST`, `--method=PUT`,
/// `-ftitle=x`), for the names in `known`.
fn split_option<'a>(word: &'a str, known: &[&str]) -> Option<(&'a str, Option<&'a str>)> {
    if let Some((name, value)) = word.split_once('=')
        && word.starts_with("--")
    {
        return known
            .contains(&name)
            .then_some((&word[..name.len()], Some(value)));
    }
    if known.contains(&word) {
        return Some((word, None));
    }
    // A short option with its value attached.
    if word.len() > 2 && word.starts_with('-') && !word.starts_with("--") {
        let name = word.get(..2)?;
        return known.contains(&name).then_some((name, Some(&word[2..])));
    }
    None
}

/// `gh api` or `glab api` (the same options), `write` being what a write does.
fn gh_api(args: &[Option<&str>], write: ApiWrite) -> Option<ApiWrite> {
    // `gh [-R repo] api …`
    let at = args.iter().position(|w| *w == Some("api"))?;
    if args[..at]
        .iter()
        .any(|w| w.is_some_and(|w| !w.starts_with('-') && !w.contains('/')))
    {
        return None; // `api` is an operand of another verb
    }
    let mut method: Option<Option<String>> = None;
    let mut fields: Vec<Option<&str>> = Vec::new();
    let mut endpoint: Option<Option<&str>> = None;
    let mut words = args[at + 1..].iter();
    while let Some(word) = words.next() {
        let Some(w) = word else {
            endpoint.get_or_insert(None);
            continue;
        };
        if matches!(*w, "--help" | "-h") {
            return None;
        }
        let Some((name, attached)) = split_option(w, &GH_API_VALUE_OPTIONS) else {
            if !w.starts_with('-') {
                endpoint.get_or_insert(Some(w));
            }
            continue;
        };
        let value = match attached {
            Some(v) => Some(v),
            None => words.next().copied().flatten(),
        };
        if matches!(name, "-X" | "--method") {
            method = Some(value.map(str::to_ascii_uppercase));
        } else if GH_FIELD_OPTIONS.contains(&name) {
            fields.push(if name == "--input" { None } else { value });
        }
    }
    let method = match method {
        Some(Some(m)) => m,
        Some(None) => return Some(write), // a computed method
        None if fields.is_empty() => return None,
        None => "POST".to_owned(),
    };
    if matches!(method.as_str(), "GET" | "HEAD") {
        return None;
    }
    // A GraphQL document is always POSTed; it writes only when it holds a mutation.
    if endpoint == Some(Some("graphql")) && method == "POST" {
        let reads_only = fields.iter().all(|f| {
            f.is_some_and(|f| !f.contains("=@") && !f.to_ascii_lowercase().contains("mutation"))
        });
        if reads_only {
            return None;
        }
    }
    Some(write)
}

/// `curl`/`wget`: a forge API URL with a writing method, or with data (a POST).
fn http_client(
    args: &[Option<&str>],
    data_options: &[&str],
    value_options: &[&str],
    short_method: &str,
    long_method: &str,
) -> Option<ApiWrite> {
    let method_options: Vec<&str> = [short_method, long_method]
        .into_iter()
        .filter(|o| !o.is_empty())
        .collect();
    let mut known: Vec<&str> = data_options.to_vec();
    known.extend(value_options);
    known.extend(&method_options);
    let mut method: Option<String> = None;
    let mut data: Vec<Option<&str>> = Vec::new();
    let mut forge = false;
    let mut get = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(w) = word else { continue };
        if matches!(*w, "-G" | "--get" | "-I" | "--head") {
            get = true;
            continue;
        }
        let Some((name, attached)) = split_option(w, &known) else {
            if !w.starts_with('-') && FORGE_APIS.iter().any(|api| w.contains(api)) {
                forge = true;
            }
            continue;
        };
        let value = match attached {
            Some(v) => Some(v),
            None => words.next().copied().flatten(),
        };
        if method_options.contains(&name) {
            method = Some(value.map_or("?".to_owned(), str::to_ascii_uppercase));
        } else if data_options.contains(&name) {
            data.push(value);
        }
    }
    if !forge {
        return None;
    }
    let writes = match method.as_deref() {
        Some("GET" | "HEAD" | "OPTIONS") => false,
        Some(_) => true,
        None => !data.is_empty() && !get,
    };
    // A GraphQL query (no mutation) is POSTed but reads.
    let graphql_query = args.iter().flatten().any(|w| w.ends_with("/graphql"))
        && !data.is_empty()
        && data.iter().all(|d| {
            d.is_some_and(|d| !d.starts_with('@') && !d.to_ascii_lowercase().contains("mutation"))
        });
    (writes && !graphql_query).then_some(FORGE_WRITE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(program: &str, line: &str) -> bool {
        let words: Vec<String> = shell_words::split(line).unwrap();
        let args: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
        api_write(program, &args).is_some()
    }

    #[test]
    fn gh_api_writes_by_method_or_fields() {
        for line in [
            "api repos/o/r/issues -f title=x",
            "api repos/o/r/issues -F title=x",
            "api repos/o/r/issues --field title=x",
            "api repos/o/r/issues --raw-field title=x",
            "api repos/o/r/issues --input body.json",
            "api -X POST repos/o/r/issues",
            "api --method=DELETE repos/o/r/git/refs/heads/x",
            "api -XPATCH repos/o/r",
            "-R o/r api repos/o/r/issues -ftitle=x",
            "api graphql -f query='mutation { addStar(input:{}) { clientMutationId } }'",
            "api graphql -F query=@q.graphql",
        ] {
            assert!(writes("gh", line), "{line}");
        }
        for line in [
            "api repos/o/r/pulls",
            "api user --jq .login",
            "api -X GET search/issues -f q=repo:o/r",
            "api graphql -f query='query { viewer { login } }'",
            "api --help",
            "api -é repos/o/r",
            "pr view 12",
        ] {
            assert!(!writes("gh", line), "{line}");
        }
        assert!(writes("glab", "api projects/1/issues -f title=x"));
        assert!(!writes("glab", "api projects/1/issues"));
    }

    #[test]
    fn curl_writes_to_a_forge_api_only() {
        for line in [
            "-X POST https://api.github.com/repos/o/r/issues -d '{}'",
            "-d '{\"title\":\"x\"}' https://api.github.com/repos/o/r/issues",
            "--request PUT https://gitlab.com/api/v4/projects/1/merge_requests/2/merge",
            "-sS -H 'PRIVATE-TOKEN: t' --data title=x https://git.example.org/api/v4/projects/1/issues",
            "-XDELETE https://api.github.com/repos/o/r",
        ] {
            assert!(writes("curl", line), "{line}");
        }
        for line in [
            "https://api.github.com/repos/o/r",
            "-s https://example.org -d x=1",
            "-G -d q=x https://api.github.com/search/issues",
            "-d '{\"query\":\"{ viewer { login } }\"}' https://api.github.com/graphql",
            "-o out.json https://gitlab.com/api/v4/projects/1",
        ] {
            assert!(!writes("curl", line), "{line}");
        }
        assert!(writes(
            "wget",
            "--post-data x=1 https://api.github.com/repos/o/r/issues"
        ));
        assert!(!writes("wget", "https://api.github.com/repos/o/r"));
    }
}
