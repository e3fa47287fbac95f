package abi

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Framing for stream transports (worker pipes, sockets): each message is a
// 4-byte big-endian unsigned length N followed by N bytes of one encoded
// message (an Envelope). The codec is detected from the first byte (see
// DetectCodec), so a peer may use either.

// DefaultMaxFrame bounds a frame unless the caller says otherwise: 64 MiB.
const DefaultMaxFrame = 64 << 20

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, payload []byte) error {
	if uint64(len(payload)) > 0xFFFFFFFF {
		return fmt.Errorf("frame of %d bytes is too large", len(payload))
	}
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(payload)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// FrameTooLargeError is ReadFrame's error for a frame whose header
// announces more than the limit; nothing but the header was read.
type FrameTooLargeError struct {
	Size uint32
	Max  int
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the limit of %d", e.Size, e.Max)
}

// ReadFrame reads one frame of at most max bytes (DefaultMaxFrame when max
// <= 0). It returns io.EOF only on a clean end before a frame starts,
// io.ErrUnexpectedEOF for a truncated frame, and a *FrameTooLargeError
// for one over max.
func ReadFrame(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if uint64(n) > uint64(max) {
		return nil, &FrameTooLargeError{Size: n, Max: max}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// Envelope kinds.
const (
	KindRegister   = "register"    // provider → host: Register
	KindUnregister = "unregister"  // provider → host: Unregister
	KindCall       = "call"        // host → provider: Call
	KindResult     = "result"      // provider → host: Result
	KindHostCall   = "host_call"   // provider → host: Host (call_tool, space_read, ...)
	KindHostResult = "host_result" // host → provider: Result answering a host_call
	KindLog        = "log"         // provider → host: Log
	KindCancel     = "cancel"      // host → provider: cancel call ID
)

// Envelope is one message on a stream transport. Kind says which pointer
// field is set; ID correlates a call with its result and a host_call with its
// host_result.
type Envelope struct {
	V          int             `json:"v" msgpack:"v"`
	Kind       string          `json:"kind" msgpack:"kind"`
	ID         string          `json:"id,omitempty" msgpack:"id,omitempty"`
	Register   *ToolRegister   `json:"register,omitempty" msgpack:"register,omitempty"`
	Unregister *ToolUnregister `json:"unregister,omitempty" msgpack:"unregister,omitempty"`
	Call       *ToolCall       `json:"call,omitempty" msgpack:"call,omitempty"`
	Result     *ToolResult     `json:"result,omitempty" msgpack:"result,omitempty"`
	Host       *HostCall       `json:"host,omitempty" msgpack:"host,omitempty"`
	Log        *LogRecord      `json:"log,omitempty" msgpack:"log,omitempty"`
	// Nested marks a call (kind "call") that comes back into the
	// provider through one of its own host calls (a call_tool that
	// reached another provider, which called this one): the worker
	// serves it even when all its runtimes are busy, since one of them
	// waits for it.
	Nested bool `json:"nested,omitempty" msgpack:"nested,omitempty"`
}

// HostCall is a provider's request for a host service during a call.
// Op is one of "call_tool", "space_read", "space_write", "log",
// "ai_complete"; Args carries the op's arguments as a generic map.
type HostCall struct {
	CallID string `json:"call_id" msgpack:"call_id"` // the ToolCall being served
	Op     string `json:"op" msgpack:"op"`
	Args   any    `json:"args,omitempty" msgpack:"args"`
}

// LogRecord is a line of provider output for the host log.
type LogRecord struct {
	Level   string `json:"level" msgpack:"level"` // debug, info, warn, error
	Message string `json:"message" msgpack:"message"`
	CallID  string `json:"call_id,omitempty" msgpack:"call_id,omitempty"`
}
