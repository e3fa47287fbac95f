// Command aios-host loads tool providers written for different runtimes,
// puts their tools into one registry and serves calls to them. See README.md
// for a tour and `aios-host help` for the commands.
//
// cmd/aios-host is the top of the dependency graph: it may import every
// package of the module; nothing may import it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/editdist"
)

// Exit codes.
const (
	exitOK    = 0 // success
	exitFail  = 1 // a tool error, a verification failure, or an operation that failed
	exitUsage = 2 // bad command line
	// exitUnchecked: verify could not check the card (its key set could
	// not be fetched), which is no verdict on the card.
	exitUnchecked = 3
)

// command is one sub-command.
//
// To add a command: write cmd_<name>.go with a
//
//	func runName(c *cli, args []string) int
//
// that builds its FlagSet with c.flags("name", "usage line", "description")
// (which also accepts the global flags after the command name), parses with
// c.parse, and returns an exit code; then add one line to the commands table
// below. Commands that need the host call c.newHost (hostsetup.go).
type command struct {
	name    string
	summary string
	run     func(c *cli, args []string) int
}

// commands is the command table, in the order `help` lists them.
var commands = []command{
	{"run", "load the providers and serve until interrupted", runRun},
	{"list", "list the registered tools", runList},
	{"call", "call one tool and print its result", runCall},
	{"diff", "compare the schemas of two versions of a tool", runDiff},
	{"mcp", "serve the exportable tools to an MCP client over stdio", runMCP},
	{"space", "put, get and list Space storage objects", runSpace},
	{"audit", "verify an audit log, show its records, or sign its anchor", runAudit},
	{"keygen", "make a key pair for signing Adapter Cards", runKeygen},
	{"sign", "sign an Adapter Card (pinning its artifact)", runSign},
	{"verify", "verify an Adapter Card's signature and artifact", runVerify},
	{"wit", "parse a WIT file or package folder and print it resolved", runWit},
	{"inspect", "describe a .wasm component or module, or a .js/.ts/.py tool: its tools and schemas", runInspect},
	{"version", "print the version", runVersion},
	{"help", "show help for a command", runHelp},
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is the state of one invocation: the global flags and the streams.
type cli struct {
	// ctx is cancelled to stop the command (tests; SIGINT/SIGTERM/SIGHUP are
	// added on top by the commands that serve or call).
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	cmds           []command

	configFile string
	// globalArgs are the arguments before the command name (global flags
	// and their values): a command refuses one of them given again after
	// its name, as a flag given twice on either side is.
	globalArgs []string
	// cfg is the configuration c.config read last (nil before), for
	// fail to name the line of a key an error starts with.
	cfg      *config.Config
	plugins  stringList
	data     string
	logLevel string

	// refreshMCP re-lists the imported MCP servers (set by newHost when
	// mcp.servers is not empty; see cmd_mcp.go).
	refreshMCP func(ctx context.Context) error
	engine     string // run --engine: runtimes.wasm.engine
	wire       string // run --wire: runtimes.js.wire and runtimes.python.wire
	// httpFrom says where run's HTTP address came from, for its errors:
	// "flag" (--http), "config" (server.http), or "" (a test's).
	httpFrom string
	// socketFrom is httpFrom for its socket path ("flag", "config" or
	// "" for the default).
	socketFrom string
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	c := &cli{ctx: ctx, stdin: stdin, stdout: out, stderr: stderr, cmds: commands}
	return c.checkStdout(out, c.dispatch(args))
}

// dispatch parses the global flags before the command name and runs the
// command.
func (c *cli) dispatch(args []string) int {
	stderr := c.stderr
	fs := flag.NewFlagSet("aios-host", flag.ContinueOnError)
	var perr strings.Builder // the flag package's own error line, said unless replaced below
	fs.SetOutput(&perr)
	c.globalFlags(fs)
	help := wantsHelp(args)
	var helpCmd *command
	if help {
		helpCmd = c.firstCommand(args)
	}
	fs.Usage = func() {} // printed below, once the command asked for is known
	if help {
		fs.SetOutput(c.stdout)
	}
	if name, vals := repeatedFlag(fs, args, true); name != "" && !help {
		fmt.Fprintf(stderr, "aios-host: --%s given more than once (%s): give it once\n\n", name, strings.Join(vals, ", "))
		c.usage(stderr)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			if helpCmd != nil {
				return helpCmd.run(c, []string{"--help"})
			}
			if name := firstPositional(fs, args); name != "" {
				// `aios-host --help nosuch`, as `aios-host help nosuch`.
				return c.unknownCommand(name)
			}
			c.usage(c.stdout)
			return exitOK
		}
		name, undefined := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
		if !undefined {
			fmt.Fprintf(stderr, "aios-host: %s\n\n", flagError(fs, err))
			c.usage(stderr)
			return exitUsage
		}
		// A command's flag before the command's name (`aios-host
		// --socket S call …`): say where it goes rather than print
		// the whole usage, which does not name it.
		cmd, see := "COMMAND", "aios-host help"
		k := c.firstCommand(args)
		if k != nil {
			cmd, see = k.name, "aios-host help "+k.name
		}
		if k == nil && name == "version" {
			// `aios-host --version` asks for the version: the command gives it.
			fmt.Fprintf(stderr, "aios-host: --version is not a flag of aios-host itself: run 'aios-host version' to print the version\n")
			return exitUsage
		}
		fmt.Fprintf(stderr, "aios-host: --%s is not a global flag (those are --config, --plugins, --data and --log-level); a command's own flags go after its name: aios-host %s … --%s …; see '%s'\n",
			name, cmd, name, see)
		return exitUsage
	}
	rest := fs.Args()
	c.globalArgs = args[:len(args)-len(rest)]
	if len(rest) == 0 {
		c.usage(stderr)
		return exitUsage
	}
	cmd, ok := c.lookup(rest[0])
	if !ok {
		fmt.Fprintf(stderr, "aios-host: unknown command %q%s\n\n", rest[0], c.meant(rest[0]))
		c.usage(stderr)
		return exitUsage
	}
	return cmd.run(c, rest[1:])
}

// firstCommand is the first of args (before any "--") that names a
// command, or nil: the command of `aios-host --help run` (whose help is
// asked for, as `aios-host run --help` does) and of a command's flag given
// before its name.
func (c *cli) firstCommand(args []string) *command {
	for _, a := range args {
		if a == "--" {
			break
		}
		if k, ok := c.lookup(a); ok {
			return &k
		}
	}
	return nil
}

// meant is ` (did you mean "list"?)` for a command name close to name
// (a typo: lsit), or "".
func (c *cli) meant(name string) string {
	near := editdist.Near(name, func(yield func(string) bool) {
		for _, k := range c.cmds {
			if !yield(k.name) {
				return
			}
		}
	}, 1)
	if len(near) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", near[0])
}

func (c *cli) lookup(name string) (command, bool) {
	for _, cmd := range c.cmds {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

// errWriter is the command's standard output: it passes writes on until
// one fails, then fails every later one with that error, which run reports
// (exit 1), so a command whose output was lost does not exit 0.
//
// The error has a lock of its own: a write stuck in a full pipe (`mcp`
// whose client stopped reading, given up at SIGTERM) must not keep run
// from reading it and exiting.
type errWriter struct {
	wmu sync.Mutex // one write at a time
	mu  sync.Mutex // err
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	e.mu.Lock()
	err := e.err
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.mu.Lock()
	e.err = err
	e.mu.Unlock()
	return n, err
}

// checkStdout turns a successful exit into a failure when a write to
// standard output failed.
func (c *cli) checkStdout(out *errWriter, code int) int {
	out.mu.Lock()
	err := out.err
	out.mu.Unlock()
	if err == nil || code != exitOK {
		return code
	}
	return c.fail(fmt.Errorf("write to standard output: %w", err))
}

// globalFlags registers the flags every command accepts, before or after
// its name.
func (c *cli) globalFlags(fs *flag.FlagSet) {
	fs.Var((*nonEmptyPath)(&c.configFile), "config", "configuration `file` (YAML; default: built-in defaults, see config/example.yaml)")
	fs.Var(&c.plugins, "plugins", "plugin `dir` to load providers from (repeatable; replaces the config's plugins)")
	fs.Var((*nonEmpty)(&c.data), "data", "state `dir`: spaces and the audit log at DIR/audit.jsonl (default $AIOS_DATA, else $XDG_STATE_HOME/aios-host, else ~/.local/state/aios-host)")
	fs.StringVar(&c.logLevel, "log-level", c.logLevel, "log `level`: debug, info, warn or error (default info for run, warn otherwise)")
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprint(w, `aios-host — one registry for tools from every runtime

Usage:
  aios-host [global flags] COMMAND [flags] [args]

Commands:
`)
	for _, cmd := range c.cmds {
		fmt.Fprintf(w, "  %-9s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, `
Global flags (before or after the command name):
  --config FILE    configuration file (YAML); see config/example.yaml
  --plugins DIR    plugin folder, repeatable (default: the bundled samples/plugins)
  --data DIR       state directory: spaces and audit log (default $AIOS_DATA, else
                   $XDG_STATE_HOME/aios-host, else ~/.local/state/aios-host)
  --log-level L    debug, info, warn or error

Exit codes: 0 ok, 1 tool error or failed check, 2 usage, 3 verify could not
fetch the key set (no verdict on the card).
Run 'aios-host help COMMAND' or 'aios-host COMMAND --help' for details.
`)
}

// flags makes the FlagSet of a command: its own flags are added by the
// caller; the global flags are added here so they may follow the command.
func (c *cli) flags(name, usageLine, description string) *flag.FlagSet {
	fs := flag.NewFlagSet("aios-host "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	c.globalFlags(fs)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: aios-host %s\n\n%s\n\nFlags:\n", usageLine, strings.TrimSpace(description))
		// The global flags are defined with what was given before the
		// command name; that is no default (their help says what is).
		for _, name := range []string{"config", "plugins", "data", "log-level"} {
			if f := fs.Lookup(name); f != nil {
				f.DefValue = ""
			}
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs, allowing flags between positional arguments
// (`call TOOL '{}' --as bob`); "--" ends flag parsing. It returns the
// positional arguments, or an exit code when parsing stopped (help or error).
func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	if wantsHelp(args) {
		fs.SetOutput(c.stdout) // help is an answer, not an error
	}
	out := fs.Output()
	// (`aios-host --data A list --data B` took B without a word.)
	if name, vals := repeatedFlag(fs, append(slices.Clip(c.globalArgs), args...), false); name != "" && !wantsHelp(args) {
		return nil, c.usageError(fs, "--%s given more than once (%s): give it once", name, strings.Join(vals, ", ")), false
	}
	for {
		// The flag package prints its own error line, then the usage:
		// both are kept aside, and the error said as the others are.
		var perr strings.Builder
		fs.SetOutput(&perr)
		err := fs.Parse(args)
		fs.SetOutput(out)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				io.WriteString(out, perr.String()) // the usage
				return nil, exitOK, false
			}
			return nil, c.usageError(fs, "%s", flagError(fs, err)), false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Every command checks --log-level, also those that do not log.
	if _, err := parseLogLevel(c.logLevel, slog.LevelInfo); err != nil {
		return nil, c.usageError(fs, "%v", err), false
	}
	return pos, 0, true
}

// flagError rewrites an error of the flag package for the command line
// as documented: "flag provided but not defined: -x" as "unknown flag
// --x", and for a value that does not parse ("invalid value "5" for flag
// -timeout: parse error") what the flag wants.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag --%s (see '%s --help')", name, fs.Name())
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("--%s needs a value", name)
	}
	m := flagValueRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, name, why := m[1], m[2], m[3]
	if f := fs.Lookup(name); f != nil && (why == "parse error" || why == "value out of range") {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case time.Duration:
				why = "want a duration such as 5s, 1m30s or 500ms"
			case bool:
				why = "want true or false"
			case int, int64, uint, uint64:
				if why == "parse error" {
					why = "want a whole number"
				}
			}
		}
	}
	return fmt.Sprintf("--%s %s: %s", name, value, why)
}

// flagValueRE matches the flag package's error for a value its flag
// refuses: the value (quoted), the flag's name, and why.
var flagValueRE = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)

// parseLogLevel is the --log-level value, or def when it is empty.
func parseLogLevel(s string, def slog.Level) (slog.Level, error) {
	level := def
	if s != "" {
		if err := level.UnmarshalText([]byte(s)); err != nil {
			return def, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
		}
	}
	return level, nil
}

// wantsHelp reports whether args ask for help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// usageError prints msg and the command's usage, and returns exitUsage.
func (c *cli) usageError(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(c.stderr, "aios-host: "+format+"\n\n", a...)
	fs.Usage()
	return exitUsage
}

// fail prints an error and returns exitFail. What a terminal acts on is
// escaped (termText): an error may name a file of a folder not yet
// trusted (inspect FOLDER's "several plugin files (…)" named a file
// called "b\x1b]0;…\a.js" as it is, setting the terminal's title).
func (c *cli) fail(err error) int {
	fmt.Fprintf(c.stderr, "aios-host: %s\n", termText(c.locate(err)))
	return exitFail
}

// keyPathRE matches an error that starts with a configuration key path
// ("runtimes.js.isolation: …", "server.uids: …", a map key as the config
// writes it: "runtimes.wasm.providers.image-resize.pool_size: …"), as the packages that
// own a section write them after decoding it.
var keyPathRE = regexp.MustCompile(`^([a-z_]+(?:\.[A-Za-z0-9_-]+|\[[^\]]*\])+): `)

// locate puts the configuration file and line in front of an error that
// names a key path the file gives (README: a bad value stops the host
// with the file, line and key), as config's own errors have them.
func (c *cli) locate(err error) string { return locateIn(c.cfg, err) }

// locateIn is locate for the configuration cfg.
func locateIn(cfg *config.Config, err error) string {
	msg := err.Error()
	m := keyPathRE.FindStringSubmatch(msg)
	if m == nil || cfg == nil || cfg.File == "" || m[1] == filepath.Base(cfg.File) || strings.HasPrefix(msg, cfg.File) {
		return msg // no key path, or the file's own name (limits.yaml: …)
	}
	if line := cfg.LineOf(m[1]); line > 0 {
		return fmt.Sprintf("%s:%d: %s", cfg.File, line, msg)
	}
	return msg
}

// nonEmpty is a string flag that refuses an empty value.
type nonEmpty string

func (s *nonEmpty) String() string { return string(*s) }

func (s *nonEmpty) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = nonEmpty(v)
	return nil
}

// nonEmptyString defines a string flag that refuses an empty value: one
// that names what a command checks against or writes to (a script's
// --anchor "$SAVED" with SAVED lost) was taken as no flag, and the check
// ran without it.
func nonEmptyString(fs *flag.FlagSet, name, usage string) *string {
	p := new(string)
	fs.Var((*nonEmpty)(p), name, usage)
	return p
}

// homePath is a file or folder flag whose leading "~/" is the home
// folder, as in --data and the configuration's paths: the shell leaves the
// "~" of --out=~/keys alone, and keygen made a folder named "~" in the
// working directory (--key=~/k/private.pem and --config=~/c.yaml were not
// found).
type homePath string

func (s *homePath) String() string { return string(*s) }

func (s *homePath) Set(v string) error {
	*s = homePath(config.ExpandHome(v))
	return nil
}

// pathString defines a homePath flag (empty allowed, as fs.String).
func pathString(fs *flag.FlagSet, name, usage string) *string {
	p := new(string)
	fs.Var((*homePath)(p), name, usage)
	return p
}

// nonEmptyPath is a homePath that refuses an empty value (nonEmpty).
type nonEmptyPath string

func (s *nonEmptyPath) String() string { return string(*s) }

func (s *nonEmptyPath) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	return (*homePath)(s).Set(v)
}

// nonEmptyPathString defines a nonEmptyPath flag.
func nonEmptyPathString(fs *flag.FlagSet, name, usage string) *string {
	p := new(string)
	fs.Var((*nonEmptyPath)(p), name, usage)
	return p
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

func runHelp(c *cli, args []string) int {
	fs := c.flags("help", "help [COMMAND]", "Show the list of commands, or the help of one command.")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		c.usage(c.stdout)
		return exitOK
	}
	if len(pos) > 1 {
		return c.usageError(fs, "help takes one COMMAND, got %q", pos)
	}
	cmd, found := c.lookup(pos[0])
	if !found {
		return c.unknownCommand(pos[0])
	}
	return cmd.run(c, []string{"--help"})
}

// unknownCommand says name is no command, listing the commands, and
// returns exitUsage.
func (c *cli) unknownCommand(name string) int {
	names := make([]string, 0, len(c.cmds))
	for _, k := range c.cmds {
		names = append(names, k.name)
	}
	sort.Strings(names)
	fmt.Fprintf(c.stderr, "aios-host: unknown command %q%s (commands: %s)\n", name, c.meant(name), strings.Join(names, ", "))
	return exitUsage
}

// repeatedFlag is the first flag of fs that args give more than once,
// with the values given, or "": the flag package keeps the last value, so
// `audit show --tool a --tool b` showed b's records alone and `verify
// --jwks a --jwks b` looked in b alone, saying nothing. Switches (--json)
// and the repeatable --plugins may be given again. It stops at "--", and
// with command at the first positional argument (the command's name: what
// follows is the command's).
func repeatedFlag(fs *flag.FlagSet, args []string, command bool) (string, []string) {
	seen := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			if command {
				break
			}
			continue
		}
		name, value, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue // the flag package says it is unknown
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				break // the flag package says it needs a value
			}
			i++
			value = args[i]
		}
		if _, ok := f.Value.(*stringList); ok {
			continue
		}
		seen[name] = append(seen[name], strconv.Quote(value))
		if len(seen[name]) > 1 {
			return name, seen[name]
		}
	}
	return "", nil
}

// firstPositional is the first argument before any "--" that is neither a
// global flag nor a global flag's value, or "".
func firstPositional(fs *flag.FlagSet, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return ""
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			return a
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++ // its value
			}
		}
	}
	return ""
}
