#!/usr/bin/env bash
# Installs what the browser tests need, idempotently, outside the repository:
#   - Debian packages: chromium (test/webview and test/e2e drive it with playwright-core),
#     neovim (test/lsp/neovim.test.ts: its built-in LSP client, 0.5 or later, drives the server),
#     ripgrep and the headers code-server's native modules build against;
#   - code-server 4.100.3 (= VS Code 1.100.3, the last line that runs on Node 20) into
#     $ATTNSCOPE_E2E_CACHE (default ~/.cache/attnscope-e2e), following
#     /work/shared/notes/real-vscode-e2e.md: its postinstall downloads ripgrep from GitHub, so
#     its steps are done here by hand with the Debian ripgrep.
# Prints the code-server entry point on the last line of stdout. Any failing step exits
# non-zero with the step named: a setup that cannot work is a failed test, never a skip.
# Safe to run several at once (two people's e2e runs share the cache): the whole setup holds an
# exclusive flock on $CACHE/code-server-<version>.lock, so a second run waits and then finds the
# install done; and code-server is installed into a temporary folder beside $DIR that is renamed
# to $DIR only once complete, so $DIR is never seen half-installed (nor removed under a user).
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
CACHE="${ATTNSCOPE_E2E_CACHE:-$HOME/.cache/attnscope-e2e}"
DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
APT_PACKAGES=(chromium neovim ripgrep libkrb5-dev libxkbfile-dev libsecret-1-dev pkg-config)

step() { echo "[e2e-setup] $*" >&2; }
fail() { echo "[e2e-setup] FAILED: $*" >&2; exit 1; }

mkdir -p "$CACHE" || fail "mkdir $CACHE"
exec 9>"$CACHE/code-server-$CODE_SERVER_VERSION.lock" || fail "open the lock file in $CACHE"
if ! flock -n 9; then
  step "another e2e setup holds $CACHE/code-server-$CODE_SERVER_VERSION.lock: waiting for it"
  flock 9 || fail "flock $CACHE/code-server-$CODE_SERVER_VERSION.lock"
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then command -v sudo >/dev/null || fail "need root or sudo to install ${missing[*]}"; SUDO=sudo; fi
  $SUDO apt-get update -q >&2 || fail "apt-get update"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}" >&2 || fail "apt-get install ${missing[*]}"
fi
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium missing after apt install"
command -v rg >/dev/null || fail "ripgrep (rg) missing after apt install"
[ -x /usr/bin/nvim ] || fail "/usr/bin/nvim missing after apt install"
/usr/bin/nvim --headless --clean -c 'lua if not (vim.lsp and vim.lsp.start_client) then vim.cmd("cquit 3") end' -c 'qa!' </dev/null >/dev/null 2>&1 \
  || fail "$(/usr/bin/nvim --version | head -1) has no built-in LSP client (vim.lsp.start_client): Neovim 0.5 or later is needed"

if [ -f "$DIR/.complete" ] && [ -f "$ENTRY" ]; then
  step "code-server $CODE_SERVER_VERSION cached in $DIR"
  echo "$ENTRY"
  exit 0
fi

# Under the lock: no other setup writes here. A $DIR without .complete is an interrupted
# install of an older script (which installed in place); a leftover temporary folder, this
# script's own interrupted one.
rm -rf "$DIR" "$DIR".tmp.*
FINAL="$DIR"
DIR="$(mktemp -d "$FINAL.tmp.XXXXXX")" || fail "mktemp in $CACHE"
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
echo '{"name":"attnscope-e2e-code-server","private":true}' > package.json
step "npm install code-server@$CODE_SERVER_VERSION (scripts off)"
npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION" >&2 || fail "npm install code-server"

VSCODE="$DIR/node_modules/code-server/lib/vscode"
[ -d "$VSCODE" ] || fail "code-server has no lib/vscode"
cd "$VSCODE"
step "npm install in lib/vscode (scripts off)"
npm install --omit=dev --ignore-scripts --no-audit --no-fund >&2 || fail "npm install in lib/vscode"
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg || fail "copy rg"
NODE_GYP="$(npm prefix -g)/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$NODE_GYP" ] || NODE_GYP="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$NODE_GYP" ] || fail "node-gyp (bundled with npm) not found"
# Node headers: node-gyp would download them from nodejs.org; use the ones npm is configured
# with (nodedir) or the Debian nodejs package's /usr/include/node.
NODEDIR="$(npm config get nodedir 2>/dev/null || true)"
if [ -z "$NODEDIR" ] || [ "$NODEDIR" = undefined ] || [ "$NODEDIR" = null ]; then NODEDIR=""; fi
[ -n "$NODEDIR" ] || { [ -f /usr/include/node/node.h ] && NODEDIR=/usr; } || true
[ -n "$NODEDIR" ] || fail "no Node headers: set npm config nodedir or install the headers (node-gyp cannot download them offline)"
while IFS= read -r gyp; do
  pkg="$(dirname "$gyp")"
  step "node-gyp rebuild ${pkg#./node_modules/}"
  (cd "$pkg" && nice node "$NODE_GYP" rebuild --jobs 2 --nodedir="$NODEDIR" >&2) || fail "node-gyp rebuild in $pkg"
done < <(find ./node_modules -name binding.gyp -not -path '*/node_modules/*/node_modules/*' -not -path '*/test/*' | sort)
ln -sfn node_modules node_modules.asar
cd "$DIR"
step "npm rebuild argon2"
npm rebuild argon2 >&2 || fail "npm rebuild argon2"
node -e "require('$VSCODE/node_modules/node-pty'); require('$VSCODE/node_modules/@vscode/spdlog')" || fail "native modules do not load"
touch "$DIR/.complete"
# rename(2) within one folder: $FINAL appears whole, or not at all.
cd "$CACHE"
mv -T "$DIR" "$FINAL" || fail "rename $DIR to $FINAL"
trap - EXIT
step "code-server $CODE_SERVER_VERSION ready in $FINAL"
echo "$ENTRY"
