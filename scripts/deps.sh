#!/usr/bin/env bash
# Installs what building the samples and running the tests needs. Idempotent:
# installs nothing that is already there, and runs `apt-get update` at most
# once, only when a package is missing. Called by `make samples` and `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- Debian packages -------------------------------------------------------
apt_packages=(
  clang                      # C guests
  lld                        # wasm-ld
  wasi-libc                  # C guests with libc
  libclang-rt-14-dev-wasm32  # compiler-rt builtins for --target=wasm32-wasi
  wabt                       # wat2wasm, wasm-objdump
  libstd-rust-dev-wasm32     # Rust std for wasm32 (use /usr/bin/rustc)
  rustc                      # Debian rustc 1.63 for the Rust guest (matches libstd-rust-dev-wasm32; always /usr/bin/rustc)
  python3                    # Python runtime workers
  dbus-daemon                # discovery's D-Bus detection tests start a private bus
  python3-msgpack            # the Python workers' MessagePack wire format (C-accelerated; JSON without it)
)

missing=()
for pkg in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      echo "deps: missing packages ${missing[*]} and not root (no sudo): install them and re-run" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- Go modules --------------------------------------------------------------
go mod download

# --- npm packages ------------------------------------------------------------
# Engineers: append idempotent npm installs below this line, one block per
# sample area, e.g.
#   if [ ! -d samples/foo/node_modules ]; then (cd samples/foo && npm ci --no-audit --no-fund); fi
# Components (C2): jco, pinned in samples/components/package-lock.json (node 20 + npm).
if [ ! -x samples/components/node_modules/.bin/jco ]; then (cd samples/components && npm ci --no-audit --no-fund); fi
# JS/TS (J): the pinned TypeScript compiler that type-checks the TS samples against sdk/js/aios-sdk.d.ts.
if [ ! -x sdk/js/node_modules/.bin/tsc ]; then (cd sdk/js && npm ci --no-audit --no-fund); fi
# MCP (M): the MCP Inspector CLI and server-everything, pinned in samples/mcp/package-lock.json.
if [ ! -x samples/mcp/node_modules/.bin/mcp-inspector ]; then (cd samples/mcp && npm ci --no-audit --no-fund); fi
