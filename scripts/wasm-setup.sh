#!/usr/bin/env bash
# Installs what the WebAssembly build of the native part (npm run build:wasm, DESIGN.md "Two
# builds") needs: Debian's emscripten (em++ 3.1.6 with clang-14, lld-14, binaryen; about 800 MB).
# Run before `npm ci`, whose install step then builds native/wasm/build/. Needs root. Prints the
# seconds the install took.
set -euo pipefail
if command -v em++ >/dev/null; then
  echo "emscripten is installed ($(em++ --version | head -1))"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "scripts/wasm-setup.sh: installing emscripten needs root (apt-get)" >&2
  exit 1
fi
start=$SECONDS
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq emscripten >/dev/null
echo "installed $(em++ --version | head -1) in $((SECONDS - start)) s"
