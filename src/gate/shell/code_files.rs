//! The files of code a command runs: the script an interpreter is given (`python3
//! tools/release.py`, `node x.js`), the local module of `python3 -m pkg.release` with the
//! packages it imports first, and the startup code Python runs from the directories
//! `PYTHONPATH` adds (`sitecustomize.py`, `usercustomize.py`, `.pth` files). Each is read for
//! the programs it runs by `code_calls`.

use std::path::{Path, PathBuf};

use super::code_calls::{Lang, judge};
use super::computed::{ScriptText, script_file};
use super::{Script, SimpleCommand, Word};

/// The file of code an interpreter runs (`python3 tools/release.py`, `node x.js`), or the
/// local module of `python3 -m pkg.release`: read like [`judge`]. Checked before wrappers
/// are removed (`python3 -m` is one).
pub(super) fn interpreter_file(cmd: &SimpleCommand, script: &mut Script) {
    let Some(lang) = cmd.program().and_then(Lang::of_program) else {
        return;
    };
    let cwd = cmd.cwd.clone();
    if lang == Lang::Python {
        python_startup(cmd, script);
    }
    let mut args = cmd.argv[1..].iter();
    while let Some(arg) = args.next() {
        let Some(a) = arg.literal() else {
            return;
        };
        match a {
            "-m" if lang == Lang::Python => {
                if let Some(Word::Literal(name)) = args.next()
                    && let Some(path) = module_file(cwd.as_deref(), name)
                {
                    // The packages on the way are imported first (`pkg/__init__.py`).
                    let base = cwd.clone().unwrap_or_default();
                    let mut text = String::new();
                    let mut package = base.clone();
                    for part in name
                        .split('.')
                        .collect::<Vec<_>>()
                        .iter()
                        .rev()
                        .skip(1)
                        .rev()
                    {
                        package.push(part);
                        text.push_str(
                            &std::fs::read_to_string(package.join("__init__.py"))
                                .unwrap_or_default(),
                        );
                        text.push('\n');
                    }
                    text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
                    let what = format!("`python -m {name}`");
                    judge(&text, lang, &what, (cwd.clone(), cmd.depth), true, script);
                }
                return;
            }
            // Inline code is read elsewhere; these take a value.
            "-c" | "-e" | "-p" | "--eval" | "--print" | "-r" | "--require" | "-I" | "-W" | "-X" => {
                return;
            }
            _ if a.starts_with('-') => continue,
            file => {
                let text = match script_file(script, cwd.as_deref(), file) {
                    ScriptText::Text(text) => text,
                    ScriptText::WrittenUnknown(why) => return script.unknowable.push(why),
                    ScriptText::Unreadable => return,
                };
                let lang = Lang::of_file(file, &text).unwrap_or(lang);
                let what = format!("`{file}`");
                judge(&text, lang, &what, (cwd.clone(), cmd.depth), true, script);
                return;
            }
        }
    }
}

/// Code Python runs before the program, from the directories `PYTHONPATH` adds:
/// `sitecustomize.py`, `usercustomize.py` and the `import` lines of `.pth` files.
fn python_startup(cmd: &SimpleCommand, script: &mut Script) {
    let Some(path) = cmd.env_var("PYTHONPATH") else {
        return;
    };
    let cwd = cmd.cwd.clone().unwrap_or_default();
    for dir in path.text().split(':').filter(|d| !d.is_empty()) {
        let dir = match dir {
            "$PWD" | "${PWD}" | "$(pwd)" | "`pwd`" | "." => cwd.clone(),
            d if d.contains('$') || d.contains('`') => {
                script.unknowable.push(format!(
                    "Python first runs the startup code of `{d}`, a directory named at run time"
                ));
                continue;
            }
            d => cwd.join(d),
        };
        let mut files: Vec<PathBuf> =
            vec![dir.join("sitecustomize.py"), dir.join("usercustomize.py")];
        if let Ok(entries) = std::fs::read_dir(&dir) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "pth"))
                    .take(16),
            );
        }
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let what = format!("`{}`, which Python runs first,", file.display());
            let at = (cmd.cwd.clone(), cmd.depth);
            judge(&text, Lang::Python, &what, at, true, script);
        }
    }
}

/// Where a Python module run by `python -m NAME` lives under `dir`.
pub fn module_file(dir: Option<&Path>, name: &str) -> Option<PathBuf> {
    let rel = name.replace('.', "/");
    let base = dir.map_or_else(PathBuf::new, Path::to_path_buf);
    [format!("{rel}.py"), format!("{rel}/__main__.py")]
        .iter()
        .map(|f| base.join(f))
        .find(|p| p.is_file())
}
