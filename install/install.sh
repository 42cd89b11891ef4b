#!/bin/sh
# Installs hookjudge from this checkout, with its man pages and shell completions, and sets it
# up in the current git repository.
#
#   install/install.sh [hookjudge init options]   install (again: it changes nothing new)
#   install/install.sh --uninstall                remove the hooks here, then the binary, the
#                                                 man pages and the completions
#
# Run it from the repository you want to protect; the checkout may be elsewhere.
# Where things go:
#   binary       $CARGO_INSTALL_ROOT or $CARGO_HOME (~/.cargo), bin/
#   man pages    the same root, share/man/man1/ (man finds it next to a bin/ on PATH)
#   completions  bash: $XDG_DATA_HOME/bash-completion/completions/hookjudge
#                zsh:  $XDG_DATA_HOME/zsh/site-functions/_hookjudge (add it to fpath)
#                fish: $XDG_CONFIG_HOME/fish/completions/hookjudge.fish
#                (each only when that shell is installed)
set -eu
checkout=$(cd "$(dirname "$0")/.." && pwd)
root=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}
bin_dir=$root/bin
man_dir=$root/share/man/man1
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
config_home=${XDG_CONFIG_HOME:-$HOME/.config}
bash_completion=$data_home/bash-completion/completions/hookjudge
zsh_completion=$data_home/zsh/site-functions/_hookjudge
fish_completion=$config_home/fish/completions/hookjudge.fish

if [ "${1:-}" = "--uninstall" ]; then
    shift
    if command -v hookjudge >/dev/null 2>&1; then
        hookjudge uninstall "$@"
    fi
    cargo uninstall hookjudge || true
    for page in "$checkout"/man/*.1; do
        rm -f "$man_dir/$(basename "$page")"
    done
    rm -f "$bash_completion" "$zsh_completion" "$fish_completion"
    echo "removed hookjudge, its man pages and its shell completions"
    exit 0
fi

cargo install --locked --path "$checkout"
hookjudge="$bin_dir/hookjudge"

mkdir -p "$man_dir"
cp "$checkout"/man/*.1 "$man_dir/"
echo "installed the man pages in $man_dir ('man hookjudge')"

# completion <shell> <file>: writes the script when that shell is installed.
completion() {
    if command -v "$1" >/dev/null 2>&1; then
        mkdir -p "$(dirname "$2")"
        "$hookjudge" completions "$1" >"$2"
        echo "installed $1 completions in $2"
    fi
}
completion bash "$bash_completion"
completion zsh "$zsh_completion"
completion fish "$fish_completion"
if [ -f "$zsh_completion" ]; then
    echo "  for zsh, add to ~/.zshrc: fpath=($(dirname "$zsh_completion") \$fpath)"
fi

if git rev-parse --show-toplevel >/dev/null 2>&1; then
    "$hookjudge" init "$@"
else
    echo "installed $hookjudge; run 'hookjudge init' inside each repository you want to protect"
fi
