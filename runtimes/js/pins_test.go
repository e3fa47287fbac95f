package js

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundlePinned: a signed provider's bundle is made only of files its
// card pins, with their digests; an edited or unpinned import, or an
// unpinned tsconfig.json, fails the bundle with an error naming the file.
// (Only the entry file used to be checked: an edited ./lib.js ran at the
// card's trust.)
func TestBundlePinned(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	digest := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	entry := write("tool.ts", `import { msg } from './lib';
aios.registerTool({ name: 'who', description: 'who', parameters: {} }, () => msg());`)
	lib := write("lib.ts", `export function msg(): string { return "lib ORIGINAL"; }`)
	pins := map[string]string{entry: digest(entry), lib: digest(lib)}

	b, err := bundleFile(entry, pins)
	if err != nil {
		t.Fatalf("pinned bundle: %v", err)
	}
	if !strings.Contains(b.Code, "lib ORIGINAL") {
		t.Fatalf("bundle lacks the pinned module:\n%s", b.Code)
	}
	// A tsconfig.json planted beside it (esbuild reads it on its own).
	ts := write("tsconfig.json", `{"compilerOptions":{"jsxFactory":"planted"}}`)
	if _, err := bundleFile(entry, pins); err == nil || !strings.Contains(err.Error(), "tsconfig.json is not pinned") {
		t.Fatalf("bundle with an unpinned tsconfig.json: %v", err)
	}
	pins[ts] = digest(ts)
	if _, err := bundleFile(entry, pins); err != nil {
		t.Fatalf("bundle with a pinned tsconfig.json: %v", err)
	}
	// An edited import.
	write("lib.ts", `export function msg(): string { return "lib TAMPERED"; }`)
	if _, err := bundleFile(entry, pins); err == nil || !strings.Contains(err.Error(), "lib.ts has sha256") {
		t.Fatalf("bundle with an edited import: %v", err)
	}
	// An import the card does not pin.
	write("lib.ts", `export { msg } from './other';`)
	write("other.ts", `export function msg(): string { return "other PLANTED"; }`)
	pins[lib] = digest(lib)
	if _, err := bundleFile(entry, pins); err == nil || !strings.Contains(err.Error(), "other.ts is not pinned") {
		t.Fatalf("bundle with an unpinned import: %v", err)
	}
	// A folder reached through a symbolic link (esbuild sees real paths).
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	write("lib.ts", `export function msg(): string { return "lib ORIGINAL"; }`)
	pins[lib] = digest(lib)
	linked := map[string]string{}
	for p, s := range pins {
		linked[filepath.Join(link, filepath.Base(p))] = s
	}
	if _, err := bundleFile(filepath.Join(link, "tool.ts"), linked); err != nil {
		t.Fatalf("pinned bundle through a symbolic link: %v", err)
	}
	// A pinned tsconfig.json extending a file that is not pinned.
	write("tsconfig.json", `{"extends": "./.cfg/base.json"}`)
	pins[ts] = digest(ts)
	if _, err := bundleFile(entry, pins); err == nil || !strings.Contains(err.Error(), `may not use "extends"`) {
		t.Fatalf("bundle with a tsconfig.json that extends: %v", err)
	}
	// Unsigned (no pins): as before, whatever the folder holds.
	write("tsconfig.json", `{}`)
	write("lib.ts", `export { msg } from './other';`)
	if b, err := bundleFile(entry, nil); err != nil || !strings.Contains(b.Code, "other PLANTED") {
		t.Fatalf("unsigned bundle: %v", err)
	}
}
