package wit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// watString writes b as a WebAssembly text string, escaping as
// `wasm-tools print` does (printable ASCII as is, the rest as \hh).
func watString(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, `\%02x`, c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// TestPackageDocsFromText: a .wat package carrying its package-docs as
// `wasm-tools print` writes it, (@custom "package-docs" "\01{...}"), gets
// its docs and gates back as the binary does (the annotation was skipped,
// so a printed package lost them). The section may be split over several
// strings and carry a placement.
func TestPackageDocsFromText(t *testing.T) {
	section := append([]byte{1}, docsJSON...)
	dir := t.TempDir()
	bin := filepath.Join(dir, "docs.wasm")
	if err := os.WriteFile(bin, withSection(docsBinary(t), "package-docs", section), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := Parse(bin, Options{AllFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	end := strings.LastIndex(docsWAT, ")")
	half := len(section) / 2
	for name, ann := range map[string]string{
		"one string": `(@custom "package-docs" ` + watString(section) + `)`,
		"split":      `(@custom "package-docs" (after export) ` + watString(section[:half]) + " " + watString(section[half:]) + `)`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".wat")
			if err := os.WriteFile(path, []byte(docsWAT[:end]+"\n  "+ann+"\n)"), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := Parse(path, Options{AllFeatures: true})
			if err != nil {
				t.Fatal(err)
			}
			if g, w := Print(got), Print(want); g != w {
				t.Fatalf("the .wat package prints differently from the .wasm\n--- got\n%s\n--- want\n%s", g, w)
			}
			if got.Root.Docs != "The package." {
				t.Fatalf("package docs %q", got.Root.Docs)
			}
		})
	}
	// A malformed section is refused as in a binary.
	path := filepath.Join(dir, "bad.wat")
	if err := os.WriteFile(path, []byte(docsWAT[:end]+`(@custom "package-docs" "\01{not json")`+")"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(path, Options{}); err == nil || !strings.Contains(err.Error(), "package-docs") {
		t.Fatalf("malformed section: %v", err)
	}
}
