//! Command words the line computes at run time ask, in a real repository 2 commits ahead of its
//! remote: every form from issue 21's "Computed commands that run silently", and the everyday
//! forms next to them (reading a name, formatting a date, a script the line writes that only
//! echoes) stay silent.

use crate::gate_table_rows::Scene;

#[test]
fn computed_command_words_ask() {
    let scene = Scene::new(&[]);
    scene.check(
        &[
            ("read -r c <<< 'git push'; $c", None),
            ("printf -v c 'git push'; $c", None),
            ("declare -n r=x; x=push; git $r", None),
            ("mapfile -t a <<< 'git push'; ${a[0]}", None),
            ("readarray -t a <<< 'git push'; \"${a[@]}\"", None),
            ("IFS=_; c=git_push; $c", Some("push")),
            ("IFS=,; set -- git,push; $1 $2 2>/dev/null; c=git,push; $c", Some("push")),
            ("printf '\\x67it push' | sh", Some("push")),
            ("printf '\\147it push origin main' | bash", Some("push")),
            ("bash < <(echo git push)", Some("push")),
            ("sh < <(printf 'git push\\n')", Some("push")),
            ("perl -e 'exec @ARGV' git push", None),
            ("python3 -c \"import os; os.system('g'+'it p'+'ush')\"", None),
            (
                "python3 -c \"import subprocess; subprocess.run(''.join(['g','it']) + ' push', shell=True)\"",
                None,
            ),
            ("make --eval 'x:; git push' x", Some("push")),
            ("echo 'git push' > /tmp/p.sh; source /tmp/p.sh", Some("push")),
            ("echo 'git push' > p.sh; . ./p.sh", Some("push")),
            ("echo 'git push' > p.sh; chmod +x p.sh; ./p.sh", Some("push")),
            ("echo 'git push' > /tmp/p.sh; sh < /tmp/p.sh", Some("push")),
            ("printf 'git push\\n' > p.sh && bash p.sh", Some("push")),
            ("cat > p.sh <<'EOF'\ngit push origin main\nEOF\nbash p.sh", Some("push")),
            ("base64 -d <<< Z2l0IHB1c2g= > p.sh; sh p.sh", None),
            ("echo 'git st' > p.sh; echo ' push' >> p.sh; sh < p.sh", None),
        ],
        &[
            "read -r name <<< 'x'; echo \"$name\"",
            "printf -v stamp '%s' 2026; echo \"$stamp\"",
            "mapfile -t lines < a.txt; echo ${#lines[@]}",
            "while IFS= read -r f; do wc -l \"$f\"; done < <(git ls-files)",
            "IFS=, read -r a b <<< 'x,y'; echo $a $b",
            "printf '%s\\n' one two | sort",
            "python3 -c \"print('a' + 'b')\"",
            "perl -e 'print join(\",\", @ARGV)' a b",
            "echo 'echo hello' > /tmp/hello.sh; bash /tmp/hello.sh",
            "printf 'git status\\n' | sh",
        ],
    );
}
