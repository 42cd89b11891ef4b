//! Code a command runs without naming it on the line: commands make runs while it reads the
//! makefile, recipes whose command is filled in at run time, package install scripts, code
//! files run by an interpreter (their literal program calls read like the line, their built
//! ones asked about), test modules pytest imports, git settings that run programs, `rebase
//! --exec`, and a `PATH` that puts a look-alike program first. Each asks (or is ruled on as
//! what it runs); the everyday forms next to them stay silent.

use std::os::unix::fs::PermissionsExt;

use crate::gate_table_rows::Scene;

#[test]
fn makefiles_run_their_shell_calls_whatever_goal_is_named() {
    let scene = Scene::new(&[
        (
            "Makefile",
            "X := $(shell git push -q origin main 2>&1)\nhelp:\n\t@echo help\n",
        ),
        (
            "sub/Makefile",
            "VERSION := $(shell git describe --tags)\nY != date\nall:\n\t@echo $(VERSION)\n",
        ),
    ]);
    scene.check(
        &[("make help", Some("push")), ("make -n help", Some("push"))],
        &["make -C sub", "make --help"],
    );
}

#[test]
fn recipes_whose_command_or_words_are_filled_in_are_read_or_asked() {
    let scene = Scene::new(&[
        (
            "package.json",
            r#"{"name":"p","version":"1.0.0","scripts":{"test":"echo ok","build":"$RT_CMD","postinstall":"git push -q origin main"}}"#,
        ),
        (
            "justfile",
            "v := 'push'\nship:\n    git {{v}} -q origin main\nrun cmd:\n    {{cmd}}\nhello:\n    echo {{v}}\n",
        ),
    ]);
    scene.check(
        &[
            (
                "RT_CMD='git push -q origin main' npm run build",
                Some("push"),
            ),
            ("npm run build", None),
            ("just ship", Some("push")),
            ("just run x", None),
            ("npm install", Some("push")),
            ("npm ci", Some("push")),
        ],
        &["npm test", "just hello", "npm install --ignore-scripts"],
    );
}

#[test]
fn code_files_run_what_their_literal_calls_name_and_ask_for_built_ones() {
    let scene = Scene::new(&[
        (
            "scripts/reset.py",
            "import subprocess\nsubprocess.run(['git', 'branch', '-D', 'topic'])\n",
        ),
        (
            "pkg/release.py",
            "import os\nos.system('git push -q origin main')\n",
        ),
        (
            "lib/__init__.py",
            "import os\nos.system('git push -q origin main')\n",
        ),
        ("lib/main.py", "print('hi')\n"),
        (
            "tools/hex.py",
            "import os\nos.system(bytes.fromhex('67697420707573').decode())\n",
        ),
        (
            "tools/status.py",
            "import subprocess\nsubprocess.run(['git', 'status', '--short'])\nprint(', '.join(['a', 'b']))\n",
        ),
        (
            "tools/ship.js",
            "const { execSync } = require('child_process');\nexecSync('git push origin main');\n",
        ),
        (
            "site/sitecustomize.py",
            "import os\nos.system('git push -q origin main')\n",
        ),
    ]);
    scene.check(
        &[
            ("python3 scripts/reset.py", Some("destructive")),
            ("python3 -m pkg.release", Some("push")),
            ("python3 -m lib.main", Some("push")),
            ("python3 tools/hex.py", None),
            ("node tools/ship.js", Some("push")),
            ("PYTHONPATH=site python3 tools/status.py", Some("push")),
        ],
        &["python3 tools/status.py"],
    );
}

#[test]
fn test_modules_and_hook_files_that_run_built_commands_make_the_run_ask() {
    let obfuscated = Scene::new(&[(
        "conftest.py",
        "import os\nos.system(bytes.fromhex('67697420707573682d71206f726967696e206d61696e').decode().replace('push-q','push -q'))\n",
    )]);
    obfuscated.check(&[("python3 -m pytest -q", None)], &[]);
    let module = Scene::new(&[(
        "tests/test_release.py",
        "import subprocess\nsubprocess.run(['git', 'push', '-q', 'origin', 'main'])\n\n\ndef test_ok():\n    pass\n",
    )]);
    module.check(
        &[
            ("python3 -m pytest -q tests/test_release.py", None),
            ("pytest", None),
        ],
        &[],
    );
    let in_project = Scene::new(&[(
        "tests/test_cleanup.py",
        "import subprocess\n\n\ndef test_cleanup():\n    subprocess.run(['git', 'branch', '-D', 'topic'])\n",
    )]);
    in_project.check(&[("python3 -m pytest -q", Some("destructive"))], &[]);
    let everyday = Scene::new(&[(
        "tests/test_cli.py",
        "import subprocess\n\n\ndef test_cli(tmp_path):\n    subprocess.run(['git', 'init', '-q'], cwd=tmp_path)\n    assert ', '.join(['a']) == 'a'\n",
    )]);
    everyday.check(&[], &["pytest -q", "python3 -m pytest tests/test_cli.py"]);
}

#[test]
fn git_settings_that_run_programs_and_rebase_exec_lines_are_read() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            (
                "git config filter.rt.clean \"sh -c 'git push -q origin main >/dev/null 2>&1; cat'\" && echo '*.md filter=rt' > .gitattributes",
                None,
            ),
            ("git config core.sshCommand 'sh -c \"git push\"'", None),
            (
                "git -c rebase.autoStash=true rebase -q --exec 'git push -q origin HEAD:main' HEAD~1",
                Some("push"),
            ),
        ],
        &[
            "git config user.name someone",
            "git config --global core.editor vim",
            "git config --get filter.rt.clean",
        ],
    );
}

#[test]
fn a_path_that_puts_a_look_alike_program_first_asks() {
    let scene = Scene::new(&[(
        "bin/git",
        "#!/bin/sh\nexec /usr/bin/git push -q origin main\n",
    )]);
    let git = scene.work.join("bin/git");
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    scene.check(
        &[
            ("PATH=$PWD/bin:$PATH make", None),
            ("export PATH=bin:$PATH && git status", None),
        ],
        &["PATH=/usr/local/bin:$PATH make", "git status"],
    );
}

#[test]
fn a_filter_set_earlier_is_judged_when_git_add_runs_it() {
    let scene = Scene::new(&[(".gitattributes", "*.md filter=rt\n")]);
    crate::gate_effects::run_git(
        &scene.work,
        scene.home.path(),
        &[
            "config",
            "filter.rt.clean",
            "sh -c 'git push -q origin main >/dev/null 2>&1; cat'",
        ],
    );
    scene.check(
        &[("touch README.md && git add README.md", Some("push"))],
        &["ls"],
    );
}
