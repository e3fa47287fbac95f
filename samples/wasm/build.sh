#!/usr/bin/env bash
# Builds the WASM core-module samples into build/wasm/ at the repo root, and
# copies the ones the default plugin folder serves into samples/plugins/
# (gitignored). Needs: go, clang + lld (wasm-ld) for the C guest; Debian's
# /usr/bin/rustc 1.63 with its wasm32 std (packages rustc,
# libstd-rust-dev-wasm32; scripts/deps.sh) for the Rust guest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/wasm"
mkdir -p "$out"
cd "$root"

# Go guests, written with the Go guest SDK (guest/go).
for g in conformance image-resize complexity-gate; do
  GOOS=wasip1 GOARCH=wasm go build -trimpath -buildmode=c-shared -o "$out/$g.wasm" "./samples/wasm/$g"
done

# The guests without an SDK: freestanding C and Rust, MessagePack encoding.
clang --target=wasm32 -nostdlib -O2 -Wl,--no-entry -Wl,--export-dynamic \
  -o "$out/c-echo.wasm" "$here/c-echo/echo.c"

# Always Debian's rustc (1.63, matches libstd-rust-dev-wasm32): a rustup rustc
# on PATH is not part of the project's set-up and has no wasm std.
if [ ! -x /usr/bin/rustc ]; then
  echo "samples/wasm: /usr/bin/rustc is missing: run scripts/deps.sh (Debian package rustc)" >&2
  exit 1
fi
/usr/bin/rustc --edition 2021 --crate-type cdylib --target wasm32-unknown-unknown -O -C strip=symbols \
  -o "$out/rust-echo.wasm" "$here/rust-echo/lib.rs"

# Default plugins (samples/plugins/ is scanned by the default config).
mkdir -p "$root/samples/plugins"
for g in image-resize complexity-gate c-echo; do
  cp "$out/$g.wasm" "$root/samples/plugins/$g.wasm"
done
echo "wasm samples: $(cd "$out" && ls *.wasm | tr '\n' ' ')"
