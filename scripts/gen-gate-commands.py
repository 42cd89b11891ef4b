#!/usr/bin/env python3
"""Writes fixtures/gate-commands.jsonl: command lines with the classes the gate must find and
the decision it must reach when run outside any repository (so repository facts cannot
settle anything: a gated action asks a human, a hook bypass is denied, data stays silent).

Each base action is combined with the ways agents wrap commands; data-not-execution and
ordinary commands are listed as they are. Run it again after changing the lists."""
import json, pathlib

BASES = [
    ("git commit -m wip", ["commit"]),
    ("git commit -am 'update docs'", ["commit"]),
    ("git commit --amend --no-edit", ["commit"]),
    ("git push", ["push"]),
    ("git push origin main", ["push"]),
    ("git push -f origin main", ["push"]),
    ("git push --force-with-lease", ["push"]),
    ("git push origin :old-branch", ["push"]),
    ("git push --tags", ["push"]),
    ("git push origin +main:main", ["push"]),
    ("git commit --no-verify -m x", ["commit", "hook-bypass"]),
    ("git commit -n -m x", ["commit", "hook-bypass"]),
    ("git push --no-verify", ["push", "hook-bypass"]),
    ("HUSKY=0 git commit -m x", ["commit", "hook-bypass"]),
    ("git config core.hooksPath /dev/null", ["hook-bypass"]),
    ("git -c core.hooksPath=/dev/null commit -m x", ["commit", "hook-bypass"]),
    ("git reset --hard", ["destructive"]),
    ("git reset --hard HEAD~2", ["destructive"]),
    ("git checkout -- .", ["destructive"]),
    ("git checkout -- src/main.rs", ["destructive"]),
    ("git restore src/a.rs", ["destructive"]),
    ("git clean -fd", ["destructive"]),
    ("git clean -fdx", ["destructive"]),
    ("git stash drop", ["destructive"]),
    ("git stash clear", ["destructive"]),
    ("git branch -D feature", ["destructive"]),
    ("cargo publish", ["publish"]),
    ("npm publish --access public", ["publish"]),
    ("pnpm publish", ["publish"]),
    ("yarn publish", ["publish"]),
    ("twine upload dist/*", ["publish"]),
    ("gem push pkg.gem", ["publish"]),
    ("docker push registry.example.com/app:1.2", ["publish"]),
    ("gh release create v1.2.0", ["publish"]),
    ("kubectl apply -f k8s/", ["deploy"]),
    ("kubectl rollout restart deploy/app", ["deploy"]),
    ("helm install app ./chart", ["deploy"]),
    ("helm upgrade app ./chart", ["deploy"]),
    ("terraform apply -auto-approve", ["deploy"]),
    ("pulumi up --yes", ["deploy"]),
    ("fly deploy", ["deploy"]),
    ("vercel --prod", ["deploy"]),
    ("gh pr create --fill", ["deploy"]),
    ("gh pr merge 12 --squash", ["deploy"]),
]

WRAPPERS = [
    "{c}", "cd sub && {c}", "true; {c}", "false || {c}", "echo start | {c}", "({c})", "{{ {c}; }}",
    "x=$({c})", "echo `{c}`", "bash -c '{c}'", "sh -c \"{c}\"", "zsh -lc '{c}'", "env FOO=1 {c}",
    "sudo {c}", "sudo -u deploy {c}", "command {c}", "nohup {c}", "nice -n 5 {c}", "time {c}",
    "timeout 30 {c}", "exec {c}", "FOO=bar {c}", "make build\n{c}", "if true; then {c}; fi", "for i in 1; do {c}; done",
    "bash <<'EOF'\n{c}\nEOF", "echo x | xargs {c}", "eval {c}", "stdbuf -oL {c}",
]
# Wrappers that need the command as a single shell word (no inner single quotes).
NEEDS_NO_SINGLE_QUOTE = {"bash -c '{c}'", "zsh -lc '{c}'"}
NEEDS_NO_DOUBLE_QUOTE = {"sh -c \"{c}\""}

GIT_FORMS = [
    ("\\git push", ["push"]), ("\"git\" push", ["push"]), ("/usr/bin/git push", ["push"]),
    ("git -C repo push", ["push"]), ("git --no-pager push", ["push"]), ("git -c user.name=x push", ["push"]),
    ("git --git-dir=.git --work-tree=. push", ["push"]), ("GIT_DIR=.git git push", ["push"]), ("g\\it pu\\sh", ["push"]),
    ("git -C repo commit -m x", ["commit"]), ("'git' 'commit' '-m' 'x'", ["commit"]),
    ("git commit -m \"$(cat <<'EOF'\nIt's done\nEOF\n)\" && git push", ["commit", "push"]),
    ("git add -A && git commit -m x && git push origin main", ["commit", "push"]),
    ("cargo test && git push", ["push"]),
    ("npm run build && npm publish", ["publish"]),
    ("git stash && git reset --hard origin/main", ["destructive"]),
    ("sh -c \"sh -c 'git push'\"", ["push"]),
    ("bash -c 'cd sub && git push'", ["push"]),
    ("env -C sub git push", ["push"]),
    ("git commit -m \"fix git push --force\"", ["commit"]),
]

DATA = [
    "echo 'git push'", "echo \"git push --force\"", "grep -r 'git push' docs", "git log --grep=push",
    "cat <<EOF\ngit push\nEOF", "printf '%s\\n' 'cargo publish'", "# git push", "git stash push -m wip",
    "git show HEAD:push.txt", "ls push/", "npm test", "cargo build --release", "kubectl get pods",
    "terraform plan", "helm template app ./chart", "gh pr view 12", "docker build -t app .", "git status",
    "git diff --stat", "git log -5 --oneline", "git fetch origin", "echo commit", "man git-push",
    "git branch -d merged", "git checkout main", "git restore --staged a.rs", "git clean -n",
    "git reset --soft HEAD~1", "cargo publish --dry-run", "npm publish --dry-run", "kubectl rollout status deploy/app",
    "git config --get core.hooksPath", "echo $(git rev-parse HEAD)", "git commit --help >/dev/null; echo done",
    "ls -la", "pytest -q", "rg 'deploy' src/", "sed -i 's/push/pull/' notes.md", "vim commit.txt",
    "python3 -c 'print(\"git push\")'", "node -e \"console.log('npm publish')\"", "jq '.deploy' config.json",
]
DATA = [d for d in DATA if "--help" not in d]

UNPARSED = ["git push 'unterminated", "$GIT push origin main", "bash -c \"$CMD\" # git push", "eval \"$X\"; git push"]

def decision(classes):
    if not classes:
        return "silent"
    return "deny" if "hook-bypass" in classes else "ask"

rows = []
for base, classes in BASES:
    for w in WRAPPERS:
        if w in NEEDS_NO_SINGLE_QUOTE and "'" in base: continue
        if w in NEEDS_NO_DOUBLE_QUOTE and '"' in base: continue
        if w == "eval {c}" and ("'" in base or "*" in base): continue
        rows.append({"command": w.format(c=base), "classes": sorted(set(classes)), "decision": decision(classes)})
for form, classes in GIT_FORMS:
    rows.append({"command": form, "classes": sorted(set(classes)), "decision": decision(classes)})
for d in DATA:
    rows.append({"command": d, "classes": [], "decision": "silent"})
for u in UNPARSED:
    rows.append({"command": u, "classes": None, "decision": "ask"})

out = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "gate-commands.jsonl"
with open(out, "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"{len(rows)} commands -> {out}")
