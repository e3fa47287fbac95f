#!/usr/bin/env bash
# Builds the component samples into build/components/ at the repo root.
# Needs: clang, lld (wasm-ld), wasi-libc, libclang-rt-14-dev-wasm32, node + npm
# (jco is pinned in package.json / package-lock.json; `npm ci` installs it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/components"
tmp="$out/tmp"
mkdir -p "$out" "$tmp"
cd "$here"
if [ ! -x node_modules/.bin/jco ]; then
  npm ci --no-audit --no-fund >/dev/null
fi
jco="$here/node_modules/.bin/jco"
sdk="$root/component/wit/aios-sdk.wit"

# wit_dir SAMPLE: a WIT folder with the sample's own files and deps/ (aios-sdk, wasi stubs).
wit_dir() {
  local d="$tmp/$1-wit"
  rm -rf "$d"; mkdir -p "$d/deps/aios-sdk"
  cp "$here/$1"/wit/*.wit "$d/"
  cp "$sdk" "$d/deps/aios-sdk/"
  if [ -d "$here/$1/wit/deps" ]; then cp -r "$here/$1/wit/deps/." "$d/deps/"; fi
  echo "$d"
}

# component NAME WORLD CORE [--wasi-reactor]
component() {
  local name=$1 world=$2 core=$3; shift 3
  local wd; wd="$(wit_dir "$name")"
  "$jco" embed --wit "$wd" --world-name "$world" "$core" -o "$tmp/$name.embed.wasm" >/dev/null
  "$jco" new "$tmp/$name.embed.wasm" "$@" -o "$out/$name.wasm" >/dev/null
  echo "built $out/$name.wasm"
}

cfree() { clang --target=wasm32 -nostdlib -O2 -Wl,--no-entry -Wl,--export-dynamic -Wl,--allow-undefined "$@"; }

# C with wasi-libc: a reactor, wrapped with the WASI adapter.
clang --target=wasm32-wasi -mexec-model=reactor -O2 -o "$tmp/kitchen.core.wasm" kitchen/kitchen.c
component kitchen kitchen "$tmp/kitchen.core.wasm" --wasi-reactor

# Go (wasip1 reactor): the seed's image-tools component.
(cd "$root" && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$tmp/imagetools.core.wasm" ./samples/components/imagetools)
node add-custom-section.mjs "$tmp/imagetools.core.wasm" aios-provider imagetools/aios-provider.json
component imagetools image-tool-provider "$tmp/imagetools.core.wasm" --wasi-reactor

# JavaScript: jco componentize with the QuickJS backend (paths must be absolute).
"$jco" componentize "$here/jstext/jstext.js" --wit "$(wit_dir jstext)" --world-name jstext \
  --backend qjs --backend-qjs-disable-async -o "$out/jstext.wasm" >/dev/null
echo "built $out/jstext.wasm"

# C freestanding.
for s in hello conformance; do
  cfree -o "$tmp/$s.core.wasm" "$s/$s.c"
  if [ -f "$s/aios-provider.json" ]; then
    node add-custom-section.mjs "$tmp/$s.core.wasm" aios-provider "$s/aios-provider.json"
  fi
  component "$s" "$s" "$tmp/$s.core.wasm"
done

# Hand-written components for component/'s tests (WAT, assembled by jco parse).
for w in "$here"/testdata/*.wat; do
  "$jco" parse "$w" -o "$out/$(basename "$w" .wat).wasm"
done

# The reference: jco transpile, for the oracle tests (component/oracle_test.go).
# The transpiled code imports @bytecodealliance/preview2-shim: link our node_modules.
# Both the link and the stubs' import are relative to build/components, not
# absolute: a build/ copied to another checkout (or a checkout moved)
# imported the stubs of the checkout that built it, a second module with
# its own object store, and the oracle's objects were "no object".
ln -sfn "../../samples/components/node_modules" "$out/node_modules"
stubs="../../../../samples/components/oracle/stubs/aios-sdk.mjs" # from build/components/jco/NAME/
for s in kitchen jstext hello imagetools; do
  "$jco" transpile "$out/$s.wasm" -o "$out/jco/$s" --name "$s" \
    --map "aios:sdk/spaces@0.1.0=$stubs#spaces" --map "aios:sdk/log@0.1.0=$stubs#log" \
    --map "aios:sdk/tools@0.1.0=$stubs#tools" >/dev/null
  echo "transpiled $out/jco/$s"
done

# Default plugins: the seed's image-tools component (§9.6) is served by `make run`
# (samples/plugins/ is scanned by the default config; *.wasm there is gitignored).
mkdir -p "$here/../plugins"
cp "$out/imagetools.wasm" "$here/../plugins/image-tools.component.wasm"
echo "copied $out/imagetools.wasm to samples/plugins/image-tools.component.wasm"
