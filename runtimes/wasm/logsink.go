package wasm

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxLine is the longest guest output line logged as is; longer lines are
// cut and marked.
const maxLine = 4096

// logSink turns guest output (stdout, stderr and the aios.log import) into
// host log records tagged with the provider. It never fails a write: a
// guest that writes too much loses output, not its call. Output beyond the
// per-second byte budget is dropped and reported once per second.
type logSink struct {
	logger  *slog.Logger
	discard bool
	budget  int

	mu      sync.Mutex
	window  time.Time
	used    int
	dropped int
	partial [2][]byte // per stream: an unfinished line
	tail    []string  // the last stderrTail lines of stderr, for load errors
	// panicLine is the last stderr line that starts a panic report
	// ("panic: …", "fatal error: …"), quoted by load errors even when the
	// stack that followed it pushed it out of tail.
	panicLine string
}

// tagProvider adds the provider's id to the lines logged from now on: the
// sink is made before the guest registers (its load-time output has only
// the file), and its output once loaded was tagged with the file alone,
// though docs/abi.md says it is tagged with the provider.
func (s *logSink) tagProvider(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logger = s.logger.With("provider", id)
}

// stderrTail is how many of the last stderr lines a load error quotes,
// each cut to stderrTailLine bytes.
const (
	stderrTail     = 6
	stderrTailLine = 240
)

// stderrEnd returns the last lines the guest wrote to stderr (the panic of
// a Go guest's init, say), joined with " | ", or "". A panic line that the
// stack after it pushed out of the tail comes first, followed by "…".
func (s *logSink) stderrEnd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := append([]string(nil), s.tail...)
	if p := s.partial[1]; len(p) > 0 {
		lines = append(lines, tailLine(p))
	}
	if len(lines) > stderrTail {
		lines = lines[len(lines)-stderrTail:]
	}
	if s.panicLine != "" && !slices.Contains(lines, s.panicLine) {
		lines = append([]string{s.panicLine, "…"}, lines...)
	}
	return strings.Join(lines, " | ")
}

// failure words a load-time guest failure whose engine error is trap. A
// guest that panicked (Go's "panic: …", "fatal error: …", Rust's
// "panicked at") is said to have, in its own words first, followed by the
// trap's first line and the end of its stderr: the wasm stack after the
// trap only names the guest runtime's abort path. Any other failure keeps
// the engine's whole text, followed by the end of stderr if there is one.
func (s *logSink) failure(trap string) string {
	msg := s.failureText(trap)
	if strings.Contains(msg, goCommandLine) {
		msg += "; " + goCommandHint
	}
	return msg
}

// goCommandLine is what the Go runtime writes when an export of a Go
// guest built without -buildmode=c-shared (a WASI command, whose runtime
// only _start initializes) is called; its own advice, "call _start first",
// is not what a guest author should do.
const (
	goCommandLine = "wasmexport function called before runtime initialization"
	goCommandHint = "the module is a Go WASI command, not a reactor: build a Go guest with " +
		"GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared (docs/abi.md §7)"
)

func (s *logSink) failureText(trap string) string {
	end := s.stderrEnd()
	s.mu.Lock()
	pl := s.panicLine
	s.mu.Unlock()
	if pl == "" {
		if end == "" {
			return trap
		}
		return trap + "; the guest's stderr ended with: " + end
	}
	first, _, _ := strings.Cut(trap, "\n")
	return "the guest panicked: " + strings.TrimPrefix(pl, "panic: ") + " (" + strings.TrimSpace(first) + "); the guest's stderr ended with: " + end
}

// isPanicLine reports whether a stderr line starts a panic report: Go's
// "panic: " and "fatal error: ", Rust's "panicked at".
func isPanicLine(l string) bool {
	return strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") || strings.Contains(l, "panicked at")
}

func tailLine(b []byte) string {
	if len(b) > stderrTailLine {
		b = cutRunes(b, stderrTailLine)
	}
	return strings.ToValidUTF8(strings.TrimSpace(string(b)), "\uFFFD")
}

func newLogSink(logger *slog.Logger, budget int, discard bool) *logSink {
	return &logSink{logger: logger, budget: budget, discard: discard}
}

// stream is an io.Writer for one guest stream (0 stdout, 1 stderr); its
// unfinished line is in o when set (a wazero instance's), else the sink's.
type stream struct {
	s  *logSink
	ix int
	o  *lines
}

func (w stream) Write(p []byte) (int, error) {
	if w.o != nil {
		w.s.writeTo(&w.o.buf, w.ix, p)
	} else {
		w.s.write(w.ix, p)
	}
	return len(p), nil
}

// instStderr is the stderr of one wazero instance: into its provider's
// sink, and the instance notes the panic line ("fatal error: …",
// "panic: …") it wrote during its call, which crashError quotes. It reads
// its own lines (the sink's partial line is shared by the provider's
// instances), so it never notes another instance's output. WASI writes run
// on the goroutine of the instance's call (or of its instantiation, when
// *inst is still nil).
type instStderr struct {
	s    *logSink
	inst **instance
	o    *lines
}

func (w instStderr) Write(p []byte) (int, error) {
	w.s.writeTo(&w.o.buf, 1, p)
	if inst := *w.inst; inst != nil {
		inst.noteStderr(p)
	}
	return len(p), nil
}

// noteStderr reads the instance's stderr line by line, keeping the last
// panic line of the call in panicLine.
func (inst *instance) noteStderr(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			inst.errLine = append(inst.errLine, p[:min(len(p), max(stderrTailLine-len(inst.errLine), 0))]...)
			return
		}
		line := append(inst.errLine, p[:min(i, max(stderrTailLine-len(inst.errLine), 0))]...)
		if l := tailLine(line); isPanicLine(l) {
			inst.panicLine = l
		}
		inst.errLine = line[:0]
		p = p[i+1:]
	}
}

var streamNames = [2]string{"stdout", "stderr"}

// allow charges n bytes to the budget, counting them dropped when they
// do not fit; the caller holds mu.
func (s *logSink) allow(n int) bool {
	now := time.Now()
	if now.Sub(s.window) >= time.Second {
		if s.dropped > 0 {
			s.logger.Warn("guest output suppressed", "dropped_bytes", s.dropped, "limit_bytes_per_second", s.budget)
		}
		s.window, s.used, s.dropped = now, 0, 0
	}
	if s.used+n > s.budget {
		s.dropped += n
		return false
	}
	s.used += n
	return true
}

func (s *logSink) write(ix int, p []byte) { s.writeTo(&s.partial, ix, p) }

// writeTo logs the lines of p, output of stream ix, whose unfinished line
// so far is buf[ix] (a wazero instance's own: lines.flush ends it when a
// guest call returns).
func (s *logSink) writeTo(buf *[2][]byte, ix int, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxLine + 1 - len(buf[ix])
			if room <= 0 {
				s.dropped += len(p)
				return
			}
			buf[ix] = append(buf[ix], p[:min(room, len(p))]...)
			return
		}
		line := p[:i]
		if len(buf[ix]) > 0 {
			line = append(buf[ix], line...)
			buf[ix] = buf[ix][:0]
		}
		p = p[i+1:]
		s.lineLocked(ix, line)
	}
}

// lineLocked logs one whole line of stream ix; the caller holds mu.
func (s *logSink) lineLocked(ix int, line []byte) {
	if ix == 1 {
		// Blank lines (Go's between the panic and its stack) say
		// nothing in a one-line quote.
		if l := tailLine(line); l != "" {
			if len(s.tail) == stderrTail {
				s.tail = append(s.tail[:0], s.tail[1:]...)
			}
			s.tail = append(s.tail, l)
			if isPanicLine(l) {
				s.panicLine = l
			}
		}
	}
	if !s.discard {
		s.emitLocked(slog.LevelInfo, streamNames[ix], line, nil)
	}
}

// lines are the unfinished output lines of one wazero instance, stdout's
// and stderr's: each instance has its own, so that one's output without a
// newline is not joined to another's line.
type lines struct {
	s   *logSink
	buf [2][]byte
}

// flush logs the unfinished lines as lines: a guest call (or load step)
// has returned, and output it left without a newline ends with it (it
// was never logged, or joined to the next call's first line).
//
// It runs after every guest call: with nothing unfinished (the usual
// case) it takes no lock, since the sink's mutex is shared by all the
// provider's instances. buf is written only by this instance's guest,
// on the goroutine calling it, which is the one flushing.
func (o *lines) flush() {
	if len(o.buf[0]) == 0 && len(o.buf[1]) == 0 {
		return
	}
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	for ix := range o.buf {
		if len(o.buf[ix]) > 0 {
			o.s.lineLocked(ix, o.buf[ix])
			o.buf[ix] = o.buf[ix][:0]
		}
	}
}

// log records one message from the aios.log import.
func (s *logSink) log(level slog.Level, msg []byte, logger *slog.Logger) {
	if s.discard {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLocked(level, "log", msg, logger)
}

func (s *logSink) emitLocked(level slog.Level, src string, line []byte, logger *slog.Logger) {
	if logger == nil {
		logger = s.logger
	}
	// A line the host's log level filters out is never shown: charged, it
	// spent the budget of the lines that are (a warning dropped after
	// stdout at --log-level warn) and was reported suppressed
	// (TestFilteredLevelNotCharged). stderr's tail is kept before this.
	if !logger.Enabled(context.Background(), level) {
		return
	}
	cut, whole := false, len(line)
	if len(line) > maxLine {
		line, cut = cutRunes(line, maxLine), true
	}
	// Charged what is logged: charged before the cut, a line longer than
	// the budget was never logged, not even cut
	// (TestLongLineLoggedCutNotDropped).
	if !s.allow(len(line)) {
		s.dropped += whole - len(line) // the guest's bytes, all dropped
		return
	}
	if !utf8.Valid(line) {
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	if cut {
		logger.Log(context.Background(), level, string(line), "guest", src, "truncated", true)
		return
	}
	logger.Log(context.Background(), level, string(line), "guest", src)
}

// cutRunes is b cut to at most n < len(b) bytes, before the UTF-8
// character the cut at n would split (cut there, its bytes became U+FFFD,
// a character the guest never wrote); at n when b is not UTF-8 there.
func cutRunes(b []byte, n int) []byte {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if r, size := utf8.DecodeRune(b[i:]); r == utf8.RuneError && size <= 1 && i < n {
				break // not a character's start: cut at n
			}
			return b[:i]
		}
	}
	return b[:n]
}
