// Package wire negotiates the serialization format between the host and
// its out-of-process workers (JS worker processes, Python workers) and
// logs their frames for debugging.
//
// The handshake (docs/python.md and docs/js.md, "Wire format"): the
// worker's first frame and the host's answer to it are always JSON, in the
// ABI's stream framing (4-byte big-endian length, then the payload):
//
//	worker → host  {"v":1,"kind":"hello","formats":["msgpack","json"]}
//	host → worker  {"v":1,"kind":"hello","format":"msgpack"}
//
// formats lists what the worker can read and write, in its order of
// preference; the host answers with its preferred format (runtimes.*.wire,
// `aios-host run --wire`) when the worker offers it, else the first offered
// format it can read. From the next frame on, both sides use that format
// for every frame, in both directions. A first frame that is not such a
// hello, or an offer without msgpack or json, fails the worker's start.
package wire

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/linebudget"
)

// The formats.
const (
	MsgPack = "msgpack"
	JSON    = "json"
)

// Default is the format the host prefers unless told otherwise.
const Default = MsgPack

// Formats are the formats the host reads and writes.
var Formats = []string{MsgPack, JSON}

// KindHello is the kind of both handshake messages.
const KindHello = "hello"

// Check returns the format named s ("" is Default) or an error naming what
// is allowed; key names the setting in the error ("runtimes.js.wire").
func Check(key, s string) (string, error) {
	switch s {
	case "":
		return Default, nil
	case MsgPack, JSON:
		return s, nil
	}
	return "", fmt.Errorf("%s: %q is not a wire format (want msgpack or json)", key, s)
}

// Hello is a handshake message: Formats in the worker's, Format in the
// host's.
type Hello struct {
	V       int      `json:"v"`
	Kind    string   `json:"kind"`
	Formats []string `json:"formats,omitempty"`
	Format  string   `json:"format,omitempty"`
}

// WorkerHello is the worker's hello offering formats.
func WorkerHello(formats []string) []byte {
	b, _ := json.Marshal(Hello{V: 1, Kind: KindHello, Formats: formats})
	return b
}

// HostHello is the host's answer choosing format.
func HostHello(format string) []byte {
	b, _ := json.Marshal(Hello{V: 1, Kind: KindHello, Format: format})
	return b
}

// maxQuoted bounds how much of a bad frame an error quotes.
const maxQuoted = 120

// maxHello bounds a worker's hello: a version, a kind and a few format
// names.
const maxHello = 4 << 10

// ParseWorkerHello reads the worker's first frame and returns the formats
// it offers. who names the worker in errors ("the python worker").
func ParseWorkerHello(who string, frame []byte) ([]string, error) {
	if len(frame) > maxHello {
		return nil, fmt.Errorf("%s's first message is %d bytes, not a hello (a hello is a few dozen bytes, at most %d): %s", who, len(frame), maxHello, Quote(frame, maxQuoted))
	}
	var h struct {
		V       *int            `json:"v"`
		Kind    string          `json:"kind"`
		Formats json.RawMessage `json:"formats"`
	}
	trimmed := bytes.TrimLeft(frame, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(frame, &h) != nil {
		return nil, fmt.Errorf("%s's first message is not a JSON hello (%s): it speaks another protocol than this host, which starts with {\"v\":1,\"kind\":\"hello\",\"formats\":[...]}", who, Quote(frame, maxQuoted))
	}
	if h.Kind != KindHello {
		return nil, fmt.Errorf("%s sent a %q message before its hello: it predates wire format negotiation (a worker or SDK older than this host?); the first message must be {\"v\":1,\"kind\":\"hello\",\"formats\":[...]}", who, h.Kind)
	}
	if h.V == nil || *h.V != 1 {
		v := "none"
		if h.V != nil {
			v = fmt.Sprint(*h.V)
		}
		return nil, fmt.Errorf("%s's hello has version %s; this host speaks version 1", who, v)
	}
	var formats []string
	if len(h.Formats) == 0 || json.Unmarshal(h.Formats, &formats) != nil || len(formats) == 0 {
		return nil, fmt.Errorf("%s's hello has no \"formats\" list of strings (%s); want e.g. \"formats\":[\"msgpack\",\"json\"]", who, Quote(frame, maxQuoted))
	}
	return formats, nil
}

// Choose picks the format for a worker offering offered: preferred when
// offered, else the first offered format the host reads.
func Choose(who, preferred string, offered []string) (string, error) {
	if slices.Contains(offered, preferred) {
		return preferred, nil
	}
	for _, f := range offered {
		if slices.Contains(Formats, f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s offers the wire formats %q, none of which this host reads (it reads %s)", who, offered, strings.Join(Formats, " and "))
}

// ParseHostHello reads the host's answer (on the worker's side) and
// returns the chosen format, which must be one of offered.
func ParseHostHello(frame []byte, offered []string) (string, error) {
	var h Hello
	if err := json.Unmarshal(frame, &h); err != nil {
		return "", fmt.Errorf("the host's answer to the hello is not JSON: %v (%s)", err, Quote(frame, maxQuoted))
	}
	if h.Kind != KindHello || h.V != 1 {
		return "", fmt.Errorf("the host answered the hello with a %q message of version %d", h.Kind, h.V)
	}
	if !slices.Contains(offered, h.Format) {
		return "", fmt.Errorf("the host chose the wire format %q, which this worker did not offer (%q)", h.Format, offered)
	}
	return h.Format, nil
}

// Quote renders at most n bytes of a frame for a message: JSON text as
// text, anything else as hex; a longer frame is cut with its length noted.
func Quote(frame []byte, n int) string {
	cut := frame
	if len(cut) > n {
		cut = cut[:n]
	}
	var s string
	if len(frame) > 0 && (frame[0] == '{' || frame[0] == '[') {
		if len(cut) < len(frame) {
			// Not in the middle of a character.
			j := len(cut) - 1
			for j > 0 && len(cut)-j < utf8.UTFMax && !utf8.RuneStart(cut[j]) {
				j--
			}
			if j >= 0 && !utf8.FullRune(cut[j:]) {
				cut = cut[:j]
			}
		}
		s = strings.ToValidUTF8(string(cut), "\uFFFD")
	} else {
		s = "0x" + hex.EncodeToString(cut)
	}
	if len(frame) > len(cut) {
		s += fmt.Sprintf("… (%d bytes)", len(frame))
	}
	return s
}

// FrameLogBytes is how much of a frame a debug line shows.
const FrameLogBytes = 512

// Tracer logs every frame of one worker at debug level. A nil *Tracer
// (debug logging off when the worker started) logs nothing and costs one
// nil check per frame.
type Tracer struct {
	log    *slog.Logger
	format string
	budget *linebudget.Budget
}

// FramesPerSecond bounds the frames a worker's tracer logs a second: a
// tool that makes many host calls (ctx.log in a loop) must not flood the
// host log even at debug level; the frames not logged are counted.
const FramesPerSecond = 200

// NewTracer returns a tracer for a worker whose frames use format, or nil
// when log does not log at debug level.
func NewTracer(log *slog.Logger, format string) *Tracer {
	if log == nil || !log.Enabled(context.Background(), slog.LevelDebug) {
		return nil
	}
	t := &Tracer{log: log, format: format}
	t.budget = linebudget.New(FramesPerSecond, func(n int) {
		log.Debug("wire frames not logged (more than FramesPerSecond a second)", "format", format, "frames", n)
	})
	return t
}

// Frame logs one frame's payload (without its length prefix); dir is "in"
// (worker → host) or "out" (host → worker). A tracer made with format ""
// names each frame's own (a WASM guest's messages are JSON when they start
// with '{', MessagePack otherwise).
func (t *Tracer) Frame(dir string, payload []byte) {
	if t == nil || !t.budget.Allow() {
		return
	}
	format := t.format
	if format == "" {
		format = MsgPack
		if len(payload) > 0 && payload[0] == '{' {
			format = JSON
		}
	}
	t.log.Debug("wire frame", "dir", dir, "format", format, "bytes", len(payload), "frame", Quote(payload, FrameLogBytes))
}
