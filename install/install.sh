#!/bin/sh
# Installs hookjudge from this checkout, with its man pages and shell completions, and sets it
# up in the current git repository.
#
#   install/install.sh [hookjudge init options]   install (again: it changes nothing new)
#   install/install.sh --uninstall                remove the hooks here, then the man pages,
#                                                 the completions and the binary
#
# Run it from the repository you want to protect; the checkout may be elsewhere.
# Where things go:
#   binary       $CARGO_INSTALL_ROOT or $CARGO_HOME (~/.cargo), bin/
#   man pages    and completions: where `hookjudge install-extras` puts them (the man pages
#                next to the binary, in share/man/man1; the completions under $XDG_DATA_HOME,
#                else ~/.local/share), so that both ways install the same files
set -eu
checkout=$(cd "$(dirname "$0")/.." && pwd)
root=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}
bin_dir=$root/bin
hookjudge="$bin_dir/hookjudge"

if [ "${1:-}" = "--uninstall" ]; then
    shift
    if command -v hookjudge >/dev/null 2>&1; then
        hookjudge uninstall "$@"
    fi
    # The files install-extras wrote, as the installed binary lists them.
    if [ -x "$hookjudge" ]; then
        "$hookjudge" install-extras --dry-run | sed -n 's/^would write //p' |
            while IFS= read -r file; do rm -f "$file"; done
    fi
    cargo uninstall hookjudge || true
    echo "removed hookjudge, its man pages and its shell completions"
    exit 0
fi

cargo install --locked --path "$checkout"
"$hookjudge" install-extras

if git rev-parse --show-toplevel >/dev/null 2>&1; then
    "$hookjudge" init "$@"
else
    echo "installed $hookjudge; run 'hookjudge init' inside each repository you want to protect"
fi
