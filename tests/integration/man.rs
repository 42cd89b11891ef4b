//! The man pages in `man/` are generated from the CLI definition; this test fails when they
//! drift. Regenerate them with `HOOKJUDGE_UPDATE_MAN=1 cargo test --test integration man`.

use clap::CommandFactory;

fn render(cmd: clap::Command) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn pages() -> Vec<(String, String)> {
    let root = hookjudge::cli::Cli::command().name("hookjudge");
    let mut pages = vec![("hookjudge.1".to_string(), render(root.clone()))];
    for sub in root.get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        // clap names are `&'static str` without its `string` feature; a test may leak a few.
        let name: &'static str =
            Box::leak(format!("hookjudge-{}", sub.get_name()).into_boxed_str());
        pages.push((
            format!("{name}.1"),
            render(sub.clone().name(name).display_name(name)),
        ));
    }
    pages
}

#[test]
fn man_pages_match_the_cli() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    if std::env::var_os("HOOKJUDGE_UPDATE_MAN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, page) in pages() {
            std::fs::write(dir.join(name), page).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (name, page) in pages() {
        if std::fs::read_to_string(dir.join(&name)).ok().as_deref() != Some(page.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "man pages out of date: {stale:?}; run `HOOKJUDGE_UPDATE_MAN=1 cargo test --test integration man`"
    );
}
