#!/usr/bin/env bash
# Builds the WASM core-module samples into build/wasm/ at the repo root, and
# copies the ones the default plugin folder serves into samples/plugins/
# (gitignored). Needs: go, clang + lld (wasm-ld) for the C guest; /usr/bin/rustc
# with the wasm32 std (libstd-rust-dev-wasm32) for the optional Rust guest.
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

# The guest without an SDK: freestanding C, JSON encoding.
clang --target=wasm32 -nostdlib -O2 -Wl,--no-entry -Wl,--export-dynamic \
  -o "$out/c-echo.wasm" "$here/c-echo/echo.c"

# Optional: the Rust guest (Debian's rustc; the rustup one on PATH has no wasm std).
if [ -x /usr/bin/rustc ] && [ -d "$here/rust-echo" ]; then
  /usr/bin/rustc --edition 2021 --crate-type cdylib --target wasm32-unknown-unknown -O \
    -o "$out/rust-echo.wasm" "$here/rust-echo/lib.rs"
fi

# Default plugins (samples/plugins/ is scanned by the default config).
mkdir -p "$root/samples/plugins"
for g in image-resize complexity-gate c-echo; do
  cp "$out/$g.wasm" "$root/samples/plugins/$g.wasm"
done
echo "wasm samples: $(cd "$out" && ls *.wasm | tr '\n' ' ')"
