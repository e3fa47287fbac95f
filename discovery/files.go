package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/fsperm"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aios-host/aios-host/trust"
)

// errNotRegular marks a path that is not a regular file after symlinks are
// followed: a FIFO, a socket, a device. Discovery never reads one: opening a
// FIFO blocks until a writer comes, and /dev/zero never ends.
var errNotRegular = errors.New("not a regular file (FIFOs, sockets and devices are never read)")

// openRegular opens path for reading only if it is a regular file (after
// following symlinks). It stats first, so a device is never even opened
// (opening some has side effects), and opens without blocking, so a file
// replaced by a FIFO between the two cannot hang the caller; the opened
// file is checked again.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is %s: %w", path, fsperm.Kind(st.Mode()), errNotRegular)
	}
	f, err := openNonblocking(path)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is %s: %w", path, fsperm.Kind(st.Mode()), errNotRegular)
	}
	return f, st, nil
}

// hashFile returns the hex SHA-256 of the regular file at path, reading at
// most limit bytes (a larger file is refused without being read) and
// stopping when ctx ends.
func hashFile(ctx context.Context, path string, limit int64) (string, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if limit > 0 && st.Size() > limit {
		return "", tooLarge(path, st.Size(), limit)
	}
	h := sha256.New()
	buf := make([]byte, 256<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("hashing %s: %w", path, err)
		}
		m, err := f.Read(buf)
		if m > 0 {
			n += int64(m)
			if limit > 0 && n > limit { // it grew while we read it
				return "", tooLarge(path, n, limit)
			}
			h.Write(buf[:m])
		}
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s is %d bytes, larger than the limit of %d bytes for a plugin file (limits.max_plugin_bytes)", path, size, limit)
}

// fileSums hashes each file (see hashFile) and returns the unit's digest,
// which covers every file's name and content, and each file's own SHA-256
// (what an artifact pin is compared with).
func fileSums(ctx context.Context, limit int64, paths ...string) (digest string, sums []string, err error) {
	h := sha256.New()
	sums = make([]string, len(paths))
	for i, p := range paths {
		if sums[i], err = hashFile(ctx, p, limit); err != nil {
			return "", nil, err
		}
		_, _ = io.WriteString(h, filepath.Base(p)+"\x00"+sums[i]+"\n")
	}
	return hex.EncodeToString(h.Sum(nil)), sums, nil
}

// readDescription reads a card, a tool.aios.yaml or a .desktop entry,
// refusing one larger than MaxCardBytes without reading it whole (a
// multi-gigabyte file in a plugin folder must not be loaded into memory
// to be refused) and anything but a regular file.
func readDescription(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCardBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxCardBytes {
		return nil, fmt.Errorf("%s is larger than the limit of %d bytes for a description", path, MaxCardBytes)
	}
	return data, nil
}

// maxCodeFiles bounds the files codeDigest hashes in one unit folder.
const maxCodeFiles = 10000

// importKinds are the kinds of file an artifact of extension ext loads
// from its folder: a JS or TS bundle imports scripts, JSON and text
// (esbuild) and reads a tsconfig.json; a Python file imports modules. Data
// a provider reads (or writes) at run time is not among them, and a WASM
// module or component loads nothing beside itself. A runtime this list
// does not know may load any kind a signed card pins
// (trust.PinnedExtensions).
func importKinds(ext string) []string {
	switch strings.ToLower(ext) {
	case ".wasm":
		return nil
	case ".py":
		return []string{".py"}
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".json", ".txt"}
	}
	return trust.PinnedExtensions
}

// codeDigest returns a digest of the files of the provider folder dir that
// its artifact (of that path) may import (importKinds, in dir and its
// subfolders; hidden entries, editors' and linters' temporaries (ignored),
// __pycache__ and node_modules left out, skip...
// too): an edit of one (./lib.js, helper.py) is a change of the unit even
// when its card does not pin it. A file that cannot be read counts by its
// name only; "" when there is nothing to digest.
func codeDigest(ctx context.Context, dir, artifact string, limit int64, skip ...string) string {
	kinds := importKinds(filepath.Ext(artifact))
	if kinds == nil {
		return ""
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return ""
	}
	h := sha256.New()
	n := 0
	_ = walkLinked(dir, func(path string, isDir bool) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if path == dir {
			return nil
		}
		name := filepath.Base(path)
		if isDir {
			if skipCodeDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if ignored(name) || !slices.Contains(kinds, strings.ToLower(filepath.Ext(name))) || slices.Contains(skip, path) {
			return nil
		}
		if n++; n > maxCodeFiles {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(dir, path)
		sum, err := hashFile(ctx, path, limit)
		if err != nil {
			sum = "unreadable"
		}
		_, _ = io.WriteString(h, rel+"\x00"+sum+"\n")
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// walkLinked walks the tree at dir as filepath.WalkDir does (lexical
// order; fn may return filepath.SkipDir or filepath.SkipAll), naming each
// entry as under dir, but it enters symlinks to folders: a provider's
// lib -> ../shared (a monorepo's shared code, an npm link) holds code its
// artifact imports, and the bundler follows the link. WalkDir did not, so
// an edit of shared/util.js was never loaded, by the watch nor by a
// refresh (TestLinkedCodeFolderReloads). Each real folder is entered once,
// and a link to dir or to a folder above it (lib -> ..) is not entered.
// Errors are skipped (a folder that cannot be read is left out).
func walkLinked(dir string, fn func(path string, isDir bool) error) error {
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var walk func(p, real string) error
	walk = func(p, real string) error {
		seen[real] = true
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			c := filepath.Join(p, e.Name())
			isDir, cr := e.IsDir(), filepath.Join(real, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				if cr, err = filepath.EvalSymlinks(c); err != nil {
					continue // dangling, or a loop of links
				}
				st, err := os.Stat(cr)
				if err != nil {
					continue
				}
				if isDir = st.IsDir(); isDir && (seen[cr] || cr == top || strings.HasPrefix(top, cr+string(filepath.Separator))) {
					continue // entered already, or the provider folder itself or above it
				}
			}
			err := fn(c, isDir)
			if err == filepath.SkipAll {
				return err
			}
			if isDir && err != filepath.SkipDir && !seen[cr] {
				if err := walk(c, cr); err == filepath.SkipAll {
					return err
				}
			}
		}
		return nil
	}
	if err := fn(dir, true); err == filepath.SkipAll || err == filepath.SkipDir {
		return nil
	}
	return walk(dir, top)
}

// skipCodeDir reports whether a folder of that name inside a provider
// folder holds none of its code: hidden folders (.git), __pycache__ and
// node_modules. codeDigest leaves them out, and the watch does not enter them.
func skipCodeDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules"
}

// withCode mixes a unit folder's code digest (codeDigest) into digest.
func withCode(digest, code string) string {
	if code == "" {
		return digest
	}
	sum := sha256.Sum256([]byte(digest + "\x00" + code))
	return hex.EncodeToString(sum[:])
}

// ArtifactIn returns the artifact discovery loads with a card in the
// provider folder dir (a package's folder for a card in its aios/
// folder): among the regular files of dir that loadable takes (by name),
// tool.<ext>, else the only one; "" when there is none or several. A
// card signed without pinning it is refused there ("the card is signed
// but does not pin its artifact"), so `aios-host verify` asks the same.
func ArtifactIn(dir string, loadable func(name string) bool) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var artifacts []string
	for _, e := range ents {
		n := e.Name()
		if ignored(n) || isCardName(n) || isYAMLName(n) || !loadable(n) {
			continue
		}
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		artifacts = append(artifacts, p)
	}
	return pickArtifact(artifacts)
}
