#!/usr/bin/env bash
# Installs, idempotently, what the linux-arm64 addon needs to be built and tested on an x86-64
# Debian machine (DESIGN.md "Two builds"; `npm run build:linux-arm64`, the test suite `arm64`):
#   - Debian packages g++-aarch64-linux-gnu (the cross compiler node-gyp runs) and qemu-user
#     (qemu-aarch64 runs arm64 programs on this CPU);
#   - Debian's own Node for arm64 (nodejs and libnode108 18.20 with the libraries it links,
#     dpkg's arm64 architecture added so that apt can fetch them), not installed but unpacked
#     into $ATTNSCOPE_ARM64_ROOT (default ~/.cache/attnscope-arm64/root), the root qemu-aarch64
#     -L reads them from: it would conflict with this machine's x86-64 nodejs.
# Prints that root on the last line of stdout. Needs root (apt-get, dpkg). Any failing step exits
# non-zero with the step named.
set -euo pipefail

ROOT_DIR="${ATTNSCOPE_ARM64_ROOT:-$HOME/.cache/attnscope-arm64/root}"
APT_PACKAGES=(g++-aarch64-linux-gnu qemu-user)
# nodejs:arm64 and what it loads: its Depends (libnode108's shared libraries, the JavaScript
# modules Debian unbundles from Node) and libc6 / libstdc++6 / libgcc-s1 for arm64.
ARM64_DEBS=(nodejs:arm64 libnode108:arm64 libbrotli1:arm64 libc-ares2:arm64 libc6:arm64 libicu72:arm64
  libnghttp2-14:arm64 libssl3:arm64 libstdc++6:arm64 libgcc-s1:arm64 libuv1:arm64 zlib1g:arm64
  node-cjs-module-lexer node-acorn node-undici)

step() { echo "[arm64-setup] $*" >&2; }
fail() { echo "[arm64-setup] FAILED: $*" >&2; exit 1; }
start=$SECONDS

SUDO=""
need_root() {
  if [ "$(id -u)" != 0 ]; then command -v sudo >/dev/null || fail "need root or sudo to $*"; SUDO=sudo; fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
updated=0
if [ ${#missing[@]} -gt 0 ]; then
  need_root "install ${missing[*]}"
  step "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq >&2 || fail "apt-get update"
  updated=1
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null || fail "apt-get install ${missing[*]}"
fi
command -v aarch64-linux-gnu-g++ >/dev/null || fail "aarch64-linux-gnu-g++ missing after apt install"
command -v qemu-aarch64 >/dev/null || fail "qemu-aarch64 missing after apt install"

if [ ! -f "$ROOT_DIR/.complete" ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    need_root "add dpkg's arm64 architecture"
    step "dpkg --add-architecture arm64"
    $SUDO dpkg --add-architecture arm64 || fail "dpkg --add-architecture arm64"
    updated=0
  fi
  if [ "$updated" = 0 ]; then
    need_root "apt-get update"
    $SUDO apt-get update -qq >&2 || fail "apt-get update (with arm64)"
  fi
  step "Debian's nodejs for arm64 into $ROOT_DIR"
  debs="$(mktemp -d)"
  trap 'rm -rf "$debs"' EXIT
  chmod 755 "$debs"  # apt downloads as _apt
  (cd "$debs" && apt-get download -qq "${ARM64_DEBS[@]}" >&2) || fail "apt-get download ${ARM64_DEBS[*]}"
  rm -rf "$ROOT_DIR"
  mkdir -p "$ROOT_DIR"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$ROOT_DIR" || fail "dpkg-deb -x $deb"; done
  touch "$ROOT_DIR/.complete"
fi
version="$(qemu-aarch64 -L "$ROOT_DIR" "$ROOT_DIR/usr/bin/node" -p 'process.arch + " " + process.version')" \
  || fail "the arm64 node does not run under qemu-aarch64"
[ "${version%% *}" = arm64 ] || fail "the arm64 node says it is $version"
step "node $version runs under qemu-aarch64 ($((SECONDS - start)) s)"
echo "$ROOT_DIR"
