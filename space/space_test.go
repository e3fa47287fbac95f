package space

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutGetRoundTrip(t *testing.T) {
	s := openTemp(t)
	cases := []struct {
		name, space string
		data        []byte
	}{
		{"empty", "source", []byte{}},
		{"text", "source", []byte("package main\nfunc main() {}\n")},
		{"binary", "blobs", []byte{0, 1, 2, 255, 0}},
		{"big", "blobs", bytes.Repeat([]byte("x"), 1<<20)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := s.Put(c.space, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if id != ID(c.data) {
				t.Fatalf("Put returned %s, want %s", id, ID(c.data))
			}
			if err := ValidateID(id); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(c.space, id)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.data) {
				t.Fatalf("Get returned %d bytes, want %d", len(got), len(c.data))
			}
			has, err := s.Has(c.space, id)
			if err != nil || !has {
				t.Fatalf("Has = %v, %v; want true", has, err)
			}
		})
	}
	spaces, err := s.Spaces()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(spaces, ",") != "blobs,source" {
		t.Fatalf("Spaces = %v, want [blobs source]", spaces)
	}
}

func TestKnownDigest(t *testing.T) {
	const want = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := ID([]byte("abc")); got != want {
		t.Fatalf("ID(abc) = %s, want %s", got, want)
	}
}

func TestDedupeAndList(t *testing.T) {
	s := openTemp(t)
	a, _ := s.Put("docs", []byte("a"))
	a2, _ := s.Put("docs", []byte("a"))
	b, _ := s.Put("docs", []byte("b"))
	if a != a2 {
		t.Fatalf("same content gave two ids %s and %s", a, a2)
	}
	ids, err := s.List("docs")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a, b}
	if a > b {
		want = []string{b, a}
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("List = %v, want %v", ids, want)
	}
	if ids, err := s.List("nothing-here"); err != nil || len(ids) != 0 {
		t.Fatalf("List of absent space = %v, %v; want empty", ids, err)
	}
	// Spaces are separate: the object is not in another space.
	if _, err := s.Get("other", a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get from another space: err = %v, want ErrNotFound", err)
	}
}

func TestDelete(t *testing.T) {
	s := openTemp(t)
	id, _ := s.Put("tmp", []byte("bye"))
	if err := s.Delete("tmp", id); err != nil {
		t.Fatal(err)
	}
	if has, _ := s.Has("tmp", id); has {
		t.Fatal("object still present after Delete")
	}
	if _, err := s.Get("tmp", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete("tmp", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v, want ErrNotFound", err)
	}
}

func TestCorruptionDetected(t *testing.T) {
	s := openTemp(t)
	id, _ := s.Put("source", []byte("original content"))
	h := id[len(IDPrefix):]
	p := filepath.Join(s.Root(), "source", h[:2], h[2:])
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("tampered content"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get("source", id)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of tampered object: err = %v, want ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), id) {
		t.Fatalf("error %q does not name the id", err)
	}
}

func TestPutRepairsTruncatedObject(t *testing.T) {
	s := openTemp(t)
	data := []byte("some content that gets cut")
	id, _ := s.Put("source", data)
	h := id[len(IDPrefix):]
	p := filepath.Join(s.Root(), "source", h[:2], h[2:])
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("source", id); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of truncated object: %v, want ErrCorrupt", err)
	}
	if _, err := s.Put("source", data); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("source", id); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after re-Put: %q, %v", got, err)
	}
}

func TestMaxObjectSize(t *testing.T) {
	s := openTemp(t, WithMaxObjectSize(10))
	if _, err := s.Put("x", make([]byte, 10)); err != nil {
		t.Fatalf("Put at the limit: %v", err)
	}
	if _, err := s.Put("x", make([]byte, 11)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put past the limit: err = %v, want ErrTooLarge", err)
	}
	// A file grown on disk past the limit is refused on read.
	big := openTemp(t)
	id, _ := big.Put("x", make([]byte, 20))
	small, _ := Open(big.Root(), WithMaxObjectSize(10))
	if _, err := small.Get("x", id); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Get past the limit: err = %v, want ErrTooLarge", err)
	}
}

var goodID = ID([]byte("hello"))

func TestValidateID(t *testing.T) {
	hexPart := goodID[len(IDPrefix):]
	cases := []struct {
		name string
		id   string
		ok   bool
	}{
		{"valid", goodID, true},
		{"empty", "", false},
		{"no prefix", hexPart, false},
		{"other algo", "sha512:" + hexPart, false},
		{"upper prefix", "SHA256:" + hexPart, false},
		{"upper hex", IDPrefix + strings.ToUpper(hexPart), false},
		{"short", goodID[:len(goodID)-1], false},
		{"long", goodID + "0", false},
		{"dotdot", IDPrefix + "../" + hexPart[3:], false},
		{"slash", IDPrefix + hexPart[:10] + "/" + hexPart[11:], false},
		{"backslash", IDPrefix + hexPart[:10] + "\\" + hexPart[11:], false},
		{"nul", IDPrefix + hexPart[:10] + "\x00" + hexPart[11:], false},
		{"absolute", "/etc/passwd", false},
		{"absolute same length", "/" + strings.Repeat("a", IDLen-1), false},
		{"fullwidth digit", IDPrefix + "０" + hexPart[3:], false}, // U+FF10 is 3 bytes
		{"space", IDPrefix + " " + hexPart[1:], false},
		{"g", IDPrefix + "g" + hexPart[1:], false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateID(c.id)
			if (err == nil) != c.ok {
				t.Fatalf("ValidateID(%q) = %v, want ok=%v", c.id, err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
		})
	}
}

func TestValidateSpaceName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"source", true},
		{"a", true},
		{"0", true},
		{"my-space_1.2", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{".", false},
		{"..", false},
		{"a..b", false},
		{".hidden", false},
		{"-x", false},
		{"_x", false},
		{"a/b", false},
		{"a\\b", false},
		{"/abs", false},
		{"a\x00", false},
		{"Source", false},
		{"sourсe", false}, // Cyrillic с
		{"a b", false},
		{"café", false},
	}
	for _, c := range cases {
		err := ValidateSpaceName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("ValidateSpaceName(%q) = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}

func TestForgedIDsRefused(t *testing.T) {
	s := openTemp(t)
	// A file outside the store that a path trick would reach.
	secret := filepath.Join(filepath.Dir(s.Root()), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	forged := []struct{ space, id string }{
		{"source", "../../secret"},
		{"source", "sha256:../../../../../../../../../../../../../../../../../../secret"},
		{"..", goodID},
		{"../..", goodID},
		{"source", strings.ToUpper(goodID)},
		{"source", goodID + "\x00"},
		{"/tmp", goodID},
	}
	for _, f := range forged {
		if _, err := s.Get(f.space, f.id); !errors.Is(err, ErrInvalid) {
			t.Errorf("Get(%q, %q): err = %v, want ErrInvalid", f.space, f.id, err)
		}
		if _, err := s.Has(f.space, f.id); !errors.Is(err, ErrInvalid) {
			t.Errorf("Has(%q, %q): err = %v, want ErrInvalid", f.space, f.id, err)
		}
		if err := s.Delete(f.space, f.id); !errors.Is(err, ErrInvalid) {
			t.Errorf("Delete(%q, %q): err = %v, want ErrInvalid", f.space, f.id, err)
		}
	}
	if _, err := s.Put("../escape", []byte("x")); !errors.Is(err, ErrInvalid) {
		t.Errorf("Put into ../escape: err = %v, want ErrInvalid", err)
	}
	// A well-formed id that does not exist is simply not found.
	if _, err := s.Get("source", goodID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of absent id: err = %v, want ErrNotFound", err)
	}
}

func TestConcurrentPutSameContent(t *testing.T) {
	s := openTemp(t)
	data := bytes.Repeat([]byte("concurrent "), 10000)
	want := ID(data)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := s.Put("shared", data)
			if err == nil && id != want {
				err = fmt.Errorf("id %s, want %s", id, want)
			}
			if err == nil {
				var got []byte
				got, err = s.Get("shared", id)
				if err == nil && !bytes.Equal(got, data) {
					err = errors.New("content differs")
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ids, _ := s.List("shared")
	if len(ids) != 1 {
		t.Fatalf("List = %v, want one object", ids)
	}
	tmps, _ := os.ReadDir(filepath.Join(s.Root(), tmpDir))
	if len(tmps) != 0 {
		t.Fatalf("%d temporary files left behind", len(tmps))
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(""); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f); err == nil {
		t.Fatal("Open of a regular file succeeded")
	}
}

func FuzzValidateID(f *testing.F) {
	for _, s := range []string{goodID, "", "sha256:", "../x", strings.ToUpper(goodID), IDPrefix + strings.Repeat("０", 21) + "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateID(id) != nil {
			return
		}
		// Anything accepted is a plain file name pair under the space.
		if len(id) != IDLen || strings.ContainsAny(id[len(IDPrefix):], "./\\\x00") {
			t.Fatalf("accepted %q", id)
		}
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.objectPath("x", id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p, filepath.Join(s.Root(), "x")+string(filepath.Separator)) {
			t.Fatalf("id %q maps outside its space: %s", id, p)
		}
	})
}

func FuzzValidateSpaceName(f *testing.F) {
	for _, s := range []string{"source", "..", "a/b", ".x", "a..b", "A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateSpaceName(name) != nil {
			return
		}
		if name == "." || strings.Contains(name, "..") || strings.ContainsAny(name, "/\\\x00") || filepath.IsAbs(name) || filepath.Clean(name) != name {
			t.Fatalf("accepted %q", name)
		}
	})
}

func BenchmarkPut(b *testing.B) {
	s := openTemp(b)
	data := bytes.Repeat([]byte("x"), 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		data[0] = byte(i)
		data[1] = byte(i >> 8)
		if _, err := s.Put("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := openTemp(b)
	data := bytes.Repeat([]byte("x"), 4096)
	id, _ := s.Put("bench", data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Get("bench", id); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOpenRemovesStaleTemps: a put killed mid-write (kill -9) leaves its
// temporary file; Open removes those older than an hour (another process
// sharing the store may be writing a fresh one) and keeps the rest.
func TestOpenRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, tmpDir)
	old, fresh, other := filepath.Join(tmp, "put-old"), filepath.Join(tmp, "put-fresh"), filepath.Join(tmp, "keep-me")
	for _, p := range []string{old, fresh, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{old, other} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a stale put-* file survived Open: %v", err)
	}
	for _, p := range []string{fresh, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Open removed %s: %v", p, err)
		}
	}
}
