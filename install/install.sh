#!/bin/sh
# Installs hookjudge from this checkout and sets it up in the current git repository.
#
#   install/install.sh [hookjudge init options]   install (again: it changes nothing new)
#   install/install.sh --uninstall                remove the hooks here, then the binary
#
# Run it from the repository you want to protect; the checkout may be elsewhere.
set -eu
checkout=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--uninstall" ]; then
    shift
    if command -v hookjudge >/dev/null 2>&1; then
        hookjudge uninstall "$@"
    fi
    cargo uninstall hookjudge || true
    exit 0
fi

cargo install --locked --path "$checkout"
bin_dir=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin
hookjudge="$bin_dir/hookjudge"
if git rev-parse --show-toplevel >/dev/null 2>&1; then
    "$hookjudge" init "$@"
else
    echo "installed $hookjudge; run 'hookjudge init' inside each repository you want to protect"
fi
