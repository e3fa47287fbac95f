package discovery

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// DesktopEntry is the "[Desktop Entry]" group of a freedesktop .desktop file
// (Desktop Entry Specification 1.5), with the keys discovery uses.
type DesktopEntry struct {
	// ID is the desktop file id (the file name, e.g. google-chrome.desktop).
	ID          string
	Type        string
	Name        string
	GenericName string
	Comment     string
	Exec        string
	TryExec     string
	Icon        string
	Categories  []string
	Keywords    []string
	MimeType    []string
	NoDisplay   bool
	Hidden      bool
	Terminal    bool
	// DBusActivatable apps need no Exec.
	DBusActivatable bool
	// Keys holds every key of the group as written (localized ones too, e.g.
	// "Name[zh_CN]"), values unescaped.
	Keys map[string]string
}

// MaxDesktopBytes bounds a .desktop file.
const MaxDesktopBytes = 256 << 10

// ParseDesktop parses a .desktop file. id is its desktop file id. It
// checks the structure (groups, key syntax, no duplicate keys, valid
// UTF-8) and the required keys of the main group (Type, Name, and Exec for
// an Application that is not D-Bus activatable).
func ParseDesktop(data []byte, id string) (*DesktopEntry, error) {
	fail := func(line int, format string, args ...any) (*DesktopEntry, error) {
		if line > 0 {
			return nil, fmt.Errorf("%s:%d: %s", id, line, fmt.Sprintf(format, args...))
		}
		return nil, fmt.Errorf("%s: %s", id, fmt.Sprintf(format, args...))
	}
	if len(data) > MaxDesktopBytes {
		return fail(0, "file is %d bytes, larger than the limit of %d", len(data), MaxDesktopBytes)
	}
	if !utf8.Valid(data) {
		return fail(0, "not valid UTF-8")
	}
	e := &DesktopEntry{ID: id, Keys: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxDesktopBytes)
	group, seenMain := "", false
	groups := map[string]bool{}
	var groupKeys map[string]bool
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if strings.HasPrefix(trim, "[") {
			if !strings.HasSuffix(trim, "]") {
				return fail(n, "group header %q lacks ']'", trim)
			}
			group = trim[1 : len(trim)-1]
			if group == "" || strings.ContainsAny(group, "[]") || hasControl(group) {
				return fail(n, "invalid group name %q", group)
			}
			if groups[group] {
				return fail(n, "group [%s] appears twice", group)
			}
			if len(groups) == 0 && group != "Desktop Entry" {
				return fail(n, "the first group must be [Desktop Entry], not [%s]", group)
			}
			groups[group] = true
			groupKeys = map[string]bool{}
			if group == "Desktop Entry" {
				seenMain = true
			}
			continue
		}
		if group == "" {
			return fail(n, "key before any group header")
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return fail(n, "line is neither a comment, a group header nor key=value: %q", trim)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !validDesktopKey(key) {
			return fail(n, "invalid key %q (want A-Za-z0-9- with an optional [locale])", key)
		}
		if groupKeys[key] {
			return fail(n, "key %q appears twice in group [%s]", key, group)
		}
		groupKeys[key] = true
		if group != "Desktop Entry" {
			continue
		}
		uv, err := unescapeDesktop(val)
		if err != nil {
			return fail(n, "key %s: %v", key, err)
		}
		e.Keys[key] = uv
		switch key {
		case "Type":
			e.Type = uv
		case "Name":
			e.Name = uv
		case "GenericName":
			e.GenericName = uv
		case "Comment":
			e.Comment = uv
		case "Exec":
			e.Exec = uv
		case "TryExec":
			e.TryExec = uv
		case "Icon":
			e.Icon = uv
		case "Categories":
			e.Categories = splitList(val)
		case "Keywords":
			e.Keywords = splitList(val)
		case "MimeType":
			e.MimeType = splitList(val)
		case "NoDisplay", "Hidden", "Terminal", "DBusActivatable":
			b, err := parseBool(uv)
			if err != nil {
				return fail(n, "key %s: %v", key, err)
			}
			switch key {
			case "NoDisplay":
				e.NoDisplay = b
			case "Hidden":
				e.Hidden = b
			case "Terminal":
				e.Terminal = b
			case "DBusActivatable":
				e.DBusActivatable = b
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fail(0, "%v", err)
	}
	if !seenMain {
		return fail(0, "no [Desktop Entry] group")
	}
	switch e.Type {
	case "":
		return fail(0, "required key Type is missing")
	case "Application", "Link", "Directory":
	default:
		// Unknown types are allowed by the spec; they match no adapter.
	}
	if e.Name == "" {
		return fail(0, "required key Name is missing")
	}
	if e.Type == "Application" && e.Exec == "" && !e.DBusActivatable {
		return fail(0, "an Application needs Exec (or DBusActivatable=true)")
	}
	return e, nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

func validDesktopKey(k string) bool {
	base, loc, hasLoc := strings.Cut(k, "[")
	if base == "" {
		return false
	}
	for _, r := range base {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	if hasLoc {
		if !strings.HasSuffix(loc, "]") || len(loc) < 2 || strings.ContainsAny(loc[:len(loc)-1], "[] =") {
			return false
		}
	}
	return true
}

func unescapeDesktop(v string) (string, error) {
	if !strings.Contains(v, `\`) {
		return v, nil
	}
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			sb.WriteByte(v[i])
			continue
		}
		if i+1 >= len(v) {
			return "", fmt.Errorf("value ends in a lone backslash")
		}
		i++
		switch v[i] {
		case 's':
			sb.WriteByte(' ')
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case '\\':
			sb.WriteByte('\\')
		default:
			// \; in lists and Exec's own quoting: keep both characters.
			sb.WriteByte('\\')
			sb.WriteByte(v[i])
		}
	}
	return sb.String(), nil
}

func splitList(v string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ';':
			cur.WriteByte(';')
			i++
		case v[i] == ';':
			if cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
		default:
			cur.WriteByte(v[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func parseBool(v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (true or false)", v)
}

// Program is the executable Exec (or TryExec) names, without arguments.
func (e *DesktopEntry) Program() string {
	if e.TryExec != "" {
		return e.TryExec
	}
	f := strings.Fields(e.Exec)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], `"`)
}

// Detected is what software detection found.
type Detected struct {
	Installed   bool   `json:"software_installed"`
	Running     bool   `json:"software_running"`
	DesktopFile string `json:"desktop_file,omitempty"`
	Executable  string `json:"executable,omitempty"`
	// Version is the installed version ("" when unknown), VersionSource
	// where it was read ("dpkg:PACKAGE" or "--version").
	Version       string `json:"software_version"`
	VersionSource string `json:"version_source,omitempty"`
	// VersionOK is set when the card names min_version and the version is
	// known: false means too old, and the software counts as not installed.
	VersionOK *bool `json:"version_ok,omitempty"`
	// DBus is the state of detection.dbus_service (DBusRunning,
	// DBusActivatable, DBusAbsent, DBusUnknown); "" when the card names none.
	DBus string `json:"dbus_service,omitempty"`
	// Notes say what could not be checked (version unknown, bus unreachable).
	Notes  []string `json:"notes,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// DetectOptions are the inputs of DetectWith besides the card.
type DetectOptions struct {
	// DesktopDirs are searched for detection.desktop_file.
	DesktopDirs []string
	// RunVersion lets detection run `EXECUTABLE --version` when the dpkg
	// database knows no version (discovery.version_command, and only for
	// cards trusted enough: the caller decides).
	RunVersion bool

	dpkgRoot string    // "" is "/"; tests point it at a fixture
	buses    []busAddr // nil: the session and system buses
}

// Detect applies requirements.software with default options (see DetectWith).
func Detect(sw *Software, desktopDirs []string) Detected {
	return DetectWith(sw, DetectOptions{DesktopDirs: desktopDirs})
}

// DetectWith applies requirements.software: the software is installed when
// every given probe succeeds — desktop_file exists in one of DesktopDirs,
// executable exists and is executable, dbus_service is owned or
// activatable on the session or system bus (a bus that cannot be asked
// leaves it unknown, which fails nothing) — and its version, when known,
// is at least min_version. A card without detection is considered
// installed. Running looks for a process whose executable is the detected
// one (Linux /proc), or an owner of dbus_service.
//
// The version comes from the Debian package database (the package owning
// executable, else the desktop file), else, with RunVersion, from
// `executable --version`; a desktop file's Version key is the Desktop
// Entry spec's version, not the application's, and is not used. An
// unknown version fails nothing: Version is "" and a note says why.
func DetectWith(sw *Software, o DetectOptions) Detected {
	if sw == nil {
		return Detected{Installed: true}
	}
	var out Detected
	if d := sw.Detection; d != nil {
		if d.DesktopFile != "" {
			for _, dir := range o.DesktopDirs {
				if p := desktopFileIn(dir, d.DesktopFile, 0); p != "" {
					out.DesktopFile = p
					break
				}
			}
			if out.DesktopFile == "" {
				out.Reason = d.DesktopFile + " not found in " + strings.Join(o.DesktopDirs, ", ")
				if len(o.DesktopDirs) == 0 {
					// It said "not found in " and nothing more: in a
					// container, say, neither default folder exists
					// (TestDesktopFileNoDesktopDirsSaysSo).
					out.Reason = d.DesktopFile + " not found: there is no desktop folder to look in (discovery.desktop_dirs names none, " +
						"or none of /usr/share/applications and ~/.local/share/applications exists)"
				}
				return out
			}
		}
		if d.Executable != "" {
			if !isExecutable(d.Executable) {
				out.Reason = d.Executable + " is missing or not executable"
				return out
			}
			out.Executable = d.Executable
			out.Running = processRunning(d.Executable)
		}
		if d.DBusService != nil && *d.DBusService != "" {
			name := *d.DBusService
			buses := o.buses
			if buses == nil {
				buses = defaultBuses()
			}
			state, note := dbusState(name, buses)
			out.DBus = state
			switch state {
			case DBusRunning:
				out.Running = true
			case DBusAbsent:
				out.Reason = "D-Bus name " + name + " is neither owned nor activatable on the session or system bus"
				return out
			case DBusUnknown:
				out.Notes = append(out.Notes, "D-Bus name "+name+" not checked: "+note)
			}
		}
	}
	if sw.MinVersion != "" || (sw.Detection != nil && (sw.Detection.Executable != "" || sw.Detection.DesktopFile != "")) {
		detectVersion(sw, o, &out)
		if out.VersionOK != nil && !*out.VersionOK {
			out.Running = false
			return out
		}
	}
	out.Installed = true
	return out
}

// detectVersion fills the version fields of out.
func detectVersion(sw *Software, o DetectOptions, out *Detected) {
	if out.Executable == "" && out.DesktopFile == "" {
		if sw.MinVersion != "" {
			out.Notes = append(out.Notes, "version unknown: the card names no executable or desktop_file to find it by; min_version "+sw.MinVersion+" not checked")
		}
		return
	}
	pkg, version, note, err := dpkgAt(o.dpkgRoot).VersionOf(out.Executable, out.DesktopFile)
	switch {
	case err != nil:
		out.Notes = append(out.Notes, "version unknown: "+err.Error())
	case version != "":
		out.Version, out.VersionSource = version, "dpkg:"+pkg
	default:
		out.Notes = append(out.Notes, "version unknown: "+note)
	}
	if out.Version == "" && o.RunVersion && out.Executable != "" {
		if v, err := runVersion(out.Executable); err != nil {
			out.Notes = append(out.Notes, "version unknown: "+err.Error())
		} else {
			out.Version, out.VersionSource = v, "--version"
		}
	}
	if sw.MinVersion == "" {
		return
	}
	if out.Version == "" {
		out.Notes = append(out.Notes, "min_version "+sw.MinVersion+" not checked")
		return
	}
	ok, err := VersionAtLeast(out.Version, sw.MinVersion)
	if err != nil {
		out.Notes = append(out.Notes, "min_version "+sw.MinVersion+" not checked: "+err.Error())
		return
	}
	out.VersionOK = &ok
	if !ok {
		out.Reason = fmt.Sprintf("%s %s is older than requirements.software.min_version %s", sw.Name, out.Version, sw.MinVersion)
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// processRunning reports whether a process runs exe: its executable is
// exe or what exe links to (/usr/bin/firefox is often a symbolic link), or
// its command line starts with exe, or runs exe as a script (a wrapper
// such as /usr/bin/google-chrome: `/bin/sh /usr/bin/google-chrome`).
func processRunning(exe string) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	names := []string{exe}
	if r, err := filepath.EvalSymlinks(exe); err == nil && r != exe {
		names = append(names, r)
	}
	for _, e := range ents {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		if t, err := os.Readlink("/proc/" + name + "/exe"); err == nil && slices.Contains(names, t) {
			return true
		}
		cmd, err := os.ReadFile("/proc/" + name + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.SplitN(string(cmd), "\x00", 3)
		if slices.Contains(names, args[0]) || (len(args) > 1 && slices.Contains(names, args[1])) {
			return true
		}
	}
	return false
}

// desktopFileIn finds the file of desktop file ID id beneath the
// applications folder dir: dir/id, or, as the Desktop Entry spec makes an
// ID of a file in a subfolder with "-" for "/", dir/sub/rest for a
// subfolder sub with id = sub-rest (kde4-okular.desktop is
// kde4/okular.desktop), a few levels down. "" when there is none.
func desktopFileIn(dir, id string, depth int) string {
	p := filepath.Join(dir, id)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	if depth >= 4 || !strings.Contains(id, "-") {
		return ""
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(id, e.Name()+"-")
		if !ok || rest == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, e.Name())); err != nil || !st.IsDir() {
			continue
		}
		if p := desktopFileIn(filepath.Join(dir, e.Name()), rest, depth+1); p != "" {
			return p
		}
	}
	return ""
}
