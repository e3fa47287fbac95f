package space

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpaceNameErrorNamesTheCharacter: a space name with a
// non-ASCII letter ("é", "docs" with a Cyrillic "о") was refused naming
// one byte of its UTF-8 encoding as a Latin-1 character ('Ã' at 0 for
// "é"), a character the user never typed, at a byte offset; and 40
// such letters were "longer than 64 characters". The error names the
// character itself and its position in characters.
func TestSpaceNameErrorNamesTheCharacter(t *testing.T) {
	cases := []struct{ name, want string }{
		{"é", `character 'é' (U+00E9) at 0`},
		{"e\u0301", `(U+0301) at 1`},            // NFD: e + combining acute
		{"dоcs", `character 'о' (U+043E) at 1`}, // Cyrillic о
		{"a\xffb", `byte 0xff at 1 is not UTF-8`},
		{"Docs", `character 'D' at 0 not allowed`},
		// 40 characters, 80 bytes: not "longer than 64 characters".
		{strings.Repeat("é", 40), `character 'é' (U+00E9) at 0`},
	}
	for _, c := range cases {
		err := ValidateSpaceName(c.name)
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("ValidateSpaceName(%q) = %v, want ErrInvalid", c.name, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("ValidateSpaceName(%q) = %v, want it to say %s", c.name, err, c.want)
		}
	}
}

// TestSpaceNamesPortable: "docs." and "aux", "con", "nul.txt",
// "com1" were valid space names. A space is a folder: on Windows (a
// store made there, or moved there) "docs." is the folder of "docs", so
// a tool granted ReadSpace(docs.) or WriteSpace(docs.) read and wrote
// space docs; and a device name is no folder (Put failed with a host
// error, or wrote to the device). They are refused, on every system
// alike, so a config or a store is valid wherever it is taken.
func TestSpaceNamesPortable(t *testing.T) {
	for _, name := range []string{"docs.", "a.", "con", "prn", "aux", "nul", "aux.txt", "nul.tar.gz", "com1", "com0", "lpt9", "con.d"} {
		if err := ValidateSpaceName(name); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateSpaceName(%q) = %v, want ErrInvalid", name, err)
		}
	}
	for _, name := range []string{"docs", "a.b", "console", "auxiliary", "null", "com", "com10", "lpt", "com1x", "my.con", "x-nul", "v1.0", "a-", "a_"} {
		if err := ValidateSpaceName(name); err != nil {
			t.Errorf("ValidateSpaceName(%q) = %v, want it valid", name, err)
		}
	}
	s := openTemp(t)
	if _, err := s.Put("docs.", []byte("x")); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"docs"`) {
		t.Errorf(`Put("docs.") = %v, want ErrInvalid naming "docs"`, err)
	}
	if _, err := s.Put("nul", []byte("x")); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Windows device name") {
		t.Errorf(`Put("nul") = %v, want ErrInvalid naming a device name`, err)
	}
}

// TestTooLargeNamesTheLimit: an object over max_object_bytes was
// refused as "over the limit of 10" (a Get after the limit was lowered,
// a tool's write), naming no setting, while the quota and the free-space
// reserve name theirs. It names limits.max_object_bytes.
func TestTooLargeNamesTheLimit(t *testing.T) {
	dir := t.TempDir()
	big, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := big.Put("docs", []byte("more than ten bytes"))
	if err != nil {
		t.Fatal(err)
	}
	small, err := Open(dir, WithMaxObjectSize(10))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := small.Get("docs", id); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limits.max_object_bytes") {
		t.Errorf("Get over the limit: %v, want ErrTooLarge naming limits.max_object_bytes", err)
	}
	if _, err := small.Put("docs", []byte("more than ten bytes too")); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limits.max_object_bytes") {
		t.Errorf("Put over the limit: %v, want ErrTooLarge naming limits.max_object_bytes", err)
	}
}

// TestConcurrentSamePutUnderQuota: two writers of one object at
// once (a tool called twice with the same input) each reserved its size
// against the space's quota: with room for the object once, the second
// was refused as passing the quota though it adds nothing, and with room
// for it twice the space was counted with it twice (a later Put that
// fits was refused). A Put of an object another Put of this Store is
// storing waits for it and then finds the object stored.
func TestConcurrentSamePutUnderQuota(t *testing.T) {
	for _, quota := range []int64{10, 16} {
		s, err := Open(t.TempDir(), WithMaxSpaceBytes(quota))
		if err != nil {
			t.Fatal(err)
		}
		data := []byte("object")
		inWrite, release := make(chan struct{}), make(chan struct{})
		var first sync.Once
		old := writeTemp
		writeTemp = func(f *os.File, d []byte) error {
			first.Do(func() { close(inWrite); <-release })
			return old(f, d)
		}
		firstErr := make(chan error, 1)
		go func() { _, err := s.Put("docs", data); firstErr <- err }()
		<-inWrite // the first Put is storing the object
		second := make(chan error, 1)
		go func() { _, err := s.Put("docs", data); second <- err }()
		var err2 error
		done := false
		select {
		case err2 = <-second: // finished while the first was storing
			done = true
		case <-time.After(100 * time.Millisecond): // waiting for the first: no assert on time
		}
		close(release)
		if err := <-firstErr; err != nil {
			t.Fatalf("quota %d: first Put: %v", quota, err)
		}
		if !done {
			err2 = <-second
		}
		writeTemp = old
		if err2 != nil {
			t.Errorf("quota %d: a second Put of the object being stored: %v", quota, err2)
		}
		if quota == 16 {
			if _, err := s.Put("docs", []byte("fits!")); err != nil {
				t.Errorf("quota 16, 6 bytes used: a Put of 5 bytes: %v", err)
			}
		}
	}
}

// TestRepairInFullSpace: Put replaces a damaged copy of an object
// (TestPutRepairsSameSizeDamage), but it counted the object's size
// against the quota again, as if new: in a space with less room left
// than the object's size the damaged object could never be repaired
// ("would pass its quota"), however often the space was counted again.
// The copy it replaces is counted off.
func TestRepairInFullSpace(t *testing.T) {
	s, err := Open(t.TempDir(), WithMaxSpaceBytes(16))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello world\n") // 12 of the 16 bytes
	id, err := s.Put("docs", data)
	if err != nil {
		t.Fatal(err)
	}
	h := id[len(IDPrefix):]
	p := filepath.Join(s.Root(), "docs", h[:2], h[2:])
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("jello world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Put("docs", data); err != nil || got != id {
		t.Fatalf("repairing Put in a space with 4 bytes left: %q, %v", got, err)
	}
	if got, err := s.Get("docs", id); err != nil || string(got) != string(data) {
		t.Fatalf("Get after the repair: %q, %v", got, err)
	}
	// Counted once: 4 bytes still fit.
	if _, err := s.Put("docs", []byte("four")); err != nil {
		t.Errorf("a Put of 4 bytes after the repair: %v", err)
	}
}

// TestIDErrorNamesTheCharacter: an ObjectId with a non-ASCII
// character in its hex digits (a look-alike "а", a pasted "…") was
// refused naming one byte of its UTF-8 read as Latin-1 ('Ð'). The
// error names the character.
func TestIDErrorNamesTheCharacter(t *testing.T) {
	hex := strings.Repeat("a", 62)
	for id, want := range map[string]string{
		IDPrefix + hex + "а":      `'а' (U+0430)`, // Cyrillic а: 2 bytes
		IDPrefix + hex[:61] + "…": `'…' (U+2026)`, // 3 bytes
		IDPrefix + hex + "A1":     `byte 69 ('A')`,
		IDPrefix + hex + "a\xff":  `byte 70 (0xff) is not UTF-8`,
	} {
		err := ValidateID(id)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateID(%q) = %v, want it to say %s", id, err, want)
		}
	}
}

// TestSymlinkedSpaceListed: a space whose folder the operator moved
// and linked back (DATA/spaces/big -> ../big) was read and written
// through the link, but Spaces left it out, so a read by id
// alone (which searches the spaces) and the MCP resource list never saw
// its objects. A link to a folder is listed as the folder would be.
func TestSymlinkedSpaceListed(t *testing.T) {
	s := openTemp(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(s.Root(), "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	id, err := s.Put("big", []byte("moved"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "nothing"), filepath.Join(s.Root(), "dangling")); err != nil {
		t.Fatal(err)
	}
	names, err := s.Spaces()
	if err != nil || len(names) != 1 || names[0] != "big" {
		t.Errorf("Spaces = %v, %v; want [big]", names, err)
	}
	if ids, err := s.List("big"); err != nil || len(ids) != 1 || ids[0] != id {
		t.Errorf("List(big) = %v, %v", ids, err)
	}
}

// TestSymlinkedSpaceQuota: the quota counted a space's bytes by
// walking its folder, which does not follow a link: a space linked from
// elsewhere counted as empty and took objects past its quota.
func TestSymlinkedSpaceQuota(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	first, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Put("big", []byte("twelve bytes")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, WithMaxSpaceBytes(16))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("big", []byte("five!")); !errors.Is(err, ErrFull) {
		t.Errorf("12 of 16 bytes used, a Put of 5: %v, want ErrFull", err)
	}
}
