//! The scripts a command runs are read like the line: Makefile targets (prerequisites,
//! `$(MAKE)`), package.json scripts with their `pre`/`post` scripts and `npm version`'s, `just`
//! and `task` recipes, executable scripts, and the hook files pytest loads. A recipe that
//! pushes asks; the everyday recipes next to it stay silent; a recursion past the bound, or a
//! runner file too large to read, asks. With make and npm installed, the silent lines are
//! replayed to show they publish nothing.

use crate::gate_table_rows::{Scene, installed};

const MAKEFILE: &str = "\
REMOTE := origin
.PHONY: build test ship rec loop
build:
\t@echo building
test: build
\t@echo testing
ship: test
\tgit push $(REMOTE) main
rec:
\t$(MAKE) ship
loop:
\t$(MAKE) loop
";

const PACKAGE_JSON: &str = r#"{
  "name": "scene",
  "version": "1.0.0",
  "scripts": {
    "build": "echo built",
    "test": "echo ok",
    "prerelease": "npm test",
    "release": "git push --follow-tags",
    "ship": "make ship",
    "postversion": "git push --follow-tags",
    "lint": "echo lint"
  }
}
"#;

const JUSTFILE: &str = "\
default: test

test:
    echo testing

ship: test
    git push origin main
";

const TASKFILE: &str = "\
version: '3'

tasks:
  default:
    cmds:
      - task: test
  test:
    cmds:
      - echo testing
  ship:
    deps: [test]
    cmds:
      - git push origin main
";

fn scene() -> Scene {
    Scene::new(&[
        ("Makefile", MAKEFILE),
        ("package.json", PACKAGE_JSON),
        ("justfile", JUSTFILE),
        ("Taskfile.yml", TASKFILE),
        ("ship.sh", "#!/bin/sh\nset -e\ngit push origin \"$1\"\n"),
        ("build.sh", "#!/usr/bin/env bash\necho building \"$@\"\n"),
        (
            "big.mk",
            &format!("all:\n\techo {}\n", "x".repeat(300 * 1024)),
        ),
    ])
}

#[test]
fn recipes_that_push_ask_and_everyday_recipes_stay_silent() {
    let scene = scene();
    scene.check(
        &[
            ("make ship", Some("push")),
            ("make rec", Some("push")),
            ("make -C . REMOTE=origin ship", Some("push")),
            ("npm run release", Some("push")),
            ("npm run ship", Some("push")),
            ("yarn release", Some("push")),
            ("pnpm run release", Some("push")),
            ("npm version patch", Some("push")),
            ("just ship", Some("push")),
            ("task ship", Some("push")),
            ("./ship.sh main", Some("push")),
            // Past the depth bound, or a makefile too large to read: asked.
            ("make loop", None),
            ("make -f big.mk", None),
        ],
        &[
            "make",
            "make build",
            "make test",
            "make -n ship",
            "npm test",
            "npm run build",
            "npm run lint",
            "yarn build",
            "npm install",
            "just",
            "just test",
            "just --list",
            "task",
            "task test",
            "./build.sh fast",
        ],
    );
}

#[test]
fn a_test_runner_s_hook_file_that_pushes_makes_the_run_ask() {
    let scene = Scene::new(&[(
        "tests/conftest.py",
        "import subprocess\n\n\ndef pytest_sessionfinish(session):\n    subprocess.run(['git', 'push', 'origin', 'main'])\n",
    )]);
    scene.check(
        &[("pytest -q", None), ("python3 -m pytest tests/", None)],
        &[],
    );
    let plugin = Scene::new(&[
        ("pytest.ini", "[pytest]\naddopts = -p ship_plugin -q\n"),
        (
            "ship_plugin.py",
            "import os\n\ndef pytest_unconfigure(config):\n    os.system('git push origin main')\n",
        ),
    ]);
    plugin.check(&[("pytest", None)], &[]);
    // A fixture that makes scratch repositories is everyday test code.
    let fixtures = Scene::new(&[(
        "conftest.py",
        "import subprocess\n\n\ndef repo(tmp_path):\n    subprocess.run(['git', 'init', '-q'], cwd=tmp_path)\n    subprocess.run(['git', 'commit', '--allow-empty', '-m', 'x'], cwd=tmp_path)\n",
    )]);
    fixtures.check(&[], &["pytest -q", "python3 -m pytest -x tests/"]);
}

#[test]
fn the_silent_recipes_publish_nothing_when_run() {
    let scene = scene();
    let mut lines = Vec::new();
    if installed("make") {
        lines.extend(["make", "make build", "make test", "make -n ship"]);
    }
    if installed("npm") {
        lines.extend(["npm test", "npm run build", "npm run lint"]);
    }
    for line in lines {
        let (_, before, after) = scene.replay(line);
        assert_eq!(before, after, "{line}");
    }
    if installed("make") {
        let (_, before, after) = scene.replay("make ship");
        assert_ne!(before, after, "`make ship` pushes");
    }
}
