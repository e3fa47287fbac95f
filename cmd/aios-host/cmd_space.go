package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/space"
)

const spaceUsage = `
Space storage is the host's content-addressed object store: tools receive
large inputs by ObjectId ("sha256:" + 64 hex digits of the content) instead
of inline bytes. Objects live in named spaces (a-z 0-9 _ . -) under
DATA/spaces.

  space put SPACE FILE   store FILE ("-" for standard input), print its ObjectId
  space get SPACE ID     write the object to standard output
  space list SPACE       print the ObjectIds in SPACE
  space spaces           print the names of the spaces`

func runSpace(c *cli, args []string) int {
	fs := c.flags("space", "space put SPACE FILE | get SPACE ID | list SPACE | spaces", spaceUsage)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return c.usageError(fs, "space needs a sub-command: put, get, list or spaces")
	}
	if len(pos) == 1 && pos[0] == "help" { // as `aios-host help space`
		return runSpace(c, []string{"--help"})
	}
	want := map[string][]string{"put": {"SPACE", "FILE"}, "get": {"SPACE", "ID"}, "list": {"SPACE"}, "spaces": nil}
	names, known := want[pos[0]]
	if !known {
		return c.usageError(fs, "unknown space sub-command %q%s (want put, get, list or spaces)", pos[0], c.spaceMeant(pos[0], pos[1:]))
	}
	if got := len(pos) - 1; got != len(names) {
		if len(names) == 0 {
			return c.usageError(fs, "space %s takes no arguments, got %q", pos[0], pos[1:])
		}
		return c.usageError(fs, "space %s takes %s, got %d argument(s): %q", pos[0], strings.Join(names, " and "), got, pos[1:])
	}
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	var reading []space.Option
	if pos[0] != "put" {
		// Reads create nothing: a read-only data folder, or one not
		// made yet (it holds no space), is read as it is.
		reading = append(reading, space.ForReading())
	}
	store, err := c.openSpaces(cfg, reading...)
	if err != nil {
		return c.fail(err)
	}
	switch pos[0] {
	case "put":
		if err := space.ValidateSpaceName(pos[1]); err != nil {
			return c.spaceFail(err)
		}
		data, err := c.readObject(pos[2], store.MaxObjectBytes())
		if err != nil {
			return c.fail(err)
		}
		id, err := store.Put(pos[1], data)
		if err != nil {
			return c.spaceFail(err)
		}
		fmt.Fprintln(c.stdout, id)
	case "get":
		data, err := store.Get(pos[1], pos[2])
		if errors.Is(err, space.ErrNotFound) {
			// A tool's result names an id, not its space: say where it is.
			if in := spacesHolding(store, pos[2]); len(in) > 0 {
				what := "space"
				if len(in) > 1 {
					what = "spaces"
				}
				err = fmt.Errorf("%w (it is in %s %s)", err, what, strings.Join(in, ", "))
			}
		}
		if err != nil {
			return c.spaceFail(err)
		}
		if _, err := c.stdout.Write(data); err != nil {
			return c.fail(err)
		}
	case "list":
		ids, err := store.List(pos[1])
		if err != nil {
			return c.spaceFail(err)
		}
		if len(ids) == 0 {
			// Empty, or a typo: say which.
			if names, err := store.Spaces(); err == nil && !slices.Contains(names, pos[1]) {
				msg := fmt.Sprintf("aios-host: no space %q yet (a space is made by its first object)", pos[1])
				if near := editdist.Closest(pos[1], names, editdist.Limit(pos[1])); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				fmt.Fprintln(c.stderr, msg)
			}
		}
		for _, id := range ids {
			fmt.Fprintln(c.stdout, id)
		}
	case "spaces":
		names, err := store.Spaces()
		if err != nil {
			return c.fail(err)
		}
		for _, n := range names {
			fmt.Fprintln(c.stdout, n)
		}
	}
	return exitOK
}

// spaceAliases are the space sub-commands a newcomer tries by the name of
// the shell's command that does the same.
var spaceAliases = map[string]string{"ls": "list", "cat": "get", "cp": "put", "add": "put"}

// spaceMeant is what an unknown space sub-command name may have meant: a
// typo of one (as for audit's), a shell command's name (ls), or for rm and
// its kin that nothing removes objects and where the file to remove is
// (args: the SPACE and ID given with it). "unknown space sub-command
// "ls"" said neither.
func (c *cli) spaceMeant(name string, args []string) string {
	switch name {
	case "rm", "del", "delete", "remove", "unlink":
		where := "DATA/spaces/SPACE/xx/… (the id's hex digits split after two)"
		if cfg, err := c.config(); err == nil {
			where = filepath.Join(cfg.SpacesDir(), "SPACE", "xx", "…") + " (the id's hex digits split after two)"
			if len(args) == 2 && space.ValidateSpaceName(args[0]) == nil && space.ValidateID(args[1]) == nil {
				h := strings.TrimPrefix(args[1], space.IDPrefix)
				where = filepath.Join(cfg.SpacesDir(), args[0], h[:2], h[2:])
				// A file that is not there is no file to remove: say
				// so, and where the object is, as space get does.
				if store, err := c.openSpaces(cfg, space.ForReading()); err == nil {
					if has, err := store.Has(args[0], args[1]); err == nil && !has {
						in := "no space holds it"
						if sp := spacesHolding(store, args[1]); len(sp) > 0 {
							in = "it is in space " + strings.Join(sp, ", ")
						}
						return fmt.Sprintf(": nothing removes objects from a space, and space %q holds no object %s (%s)", args[0], args[1], in)
					}
				}
			}
		}
		return fmt.Sprintf(": nothing removes objects from a space; remove one by hand: %s", termText(where))
	}
	near := spaceAliases[name]
	if near == "" {
		// As for a command's name (lsit: list).
		if ns := editdist.Near(name, slices.Values([]string{"put", "get", "list", "spaces"}), 1); len(ns) > 0 {
			near = ns[0]
		}
	}
	if near == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", near)
}

// spacesHolding is the quoted names of the spaces holding object id.
func spacesHolding(store *space.Store, id string) []string {
	names, _ := store.Spaces()
	var in []string
	for _, n := range names {
		if ok, _ := store.Has(n, id); ok {
			in = append(in, strconv.Quote(n))
		}
	}
	return in
}

// readObject reads the content for space put: the file name, or standard
// input for "-", of at most limit bytes (limits.max_object_bytes).
func (c *cli) readObject(name string, limit int64) ([]byte, error) {
	if name == "-" {
		return readLimited(c.stdin, limit, "standard input", "limits.max_object_bytes")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit, name, "limits.max_object_bytes")
}

// tooLargeError is readLimited's error for an input over its limit.
type tooLargeError struct {
	what, key string
	limit     int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is more than %d bytes (%s)", e.what, e.limit, e.key)
}

// readLimited reads r to its end, but never more than limit+1 bytes: more
// than limit is a *tooLargeError naming the input (what) and the config
// key that sets the limit.
func readLimited(r io.Reader, limit int64, what, key string) ([]byte, error) {
	bound := limit + 1
	if limit == math.MaxInt64 {
		bound = limit // limit+1 would overflow into a bound of nothing
	}
	var buf []byte
	if f, ok := r.(*os.File); ok {
		// A regular file (standard input redirected from one too) says
		// its size: one over the limit is refused unread (reading the
		// limit's worth of a disk image took seconds and twice that in
		// memory), and one within it is read into a buffer of its size.
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if st.Size() > limit {
				return nil, &tooLargeError{what: what, key: key, limit: limit}
			}
			if st.Size() < math.MaxInt32 { // an int on every platform
				buf = make([]byte, 0, st.Size()+1)
			}
		}
	}
	data, err := readAll(io.LimitReader(r, bound), buf)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, err // it names the file
		}
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, &tooLargeError{what: what, key: key, limit: limit}
	}
	return data, nil
}

// readAll is io.ReadAll appending to buf (which may have room already).
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // more room
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// spaceFail reports a store error; a malformed id or space name is a usage
// error.
func (c *cli) spaceFail(err error) int {
	fmt.Fprintf(c.stderr, "aios-host: %v\n", err)
	if errors.Is(err, space.ErrInvalid) {
		return exitUsage
	}
	return exitFail
}

// Bounds of the files the commands read whole (besides plugins and
// objects, which have their limits.* keys).
const (
	maxCardFileBytes   = discovery.MaxCardBytes // an Adapter Card, as discovery reads one
	maxKeyFileBytes    = 1 << 20                // a PEM key, a JWKS, a signed anchor
	maxInspectBytes    = config.DefaultMaxPluginBytes
	maxConfigFileBytes = config.MaxFileBytes
)

// readInputFile reads a file named on the command line, at most limit
// bytes: a larger one (or one that never ends, /dev/zero) is refused
// naming what it was read as, instead of being read until memory runs out.
func readInputFile(name string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit, name, "the limit for "+what)
}
