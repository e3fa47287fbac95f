package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one JSON-RPC message on stdio.
const MaxLineBytes = mcpsdk.DefaultMaxLineLength

// StdioTransport is the transport of `aios-host mcp`: newline-delimited
// JSON-RPC on in and out. Unlike the go-sdk's own, which ends the session
// at the first line it cannot decode, it answers such a line with a
// JSON-RPC error — -32700 for text that is not JSON, -32600 for JSON that
// is not a JSON-RPC message, -32600 for a line over MaxLineBytes — and
// keeps serving. Neither stream is closed.
func StdioTransport(in io.Reader, out io.Writer) mcpsdk.Transport {
	w := &lockedWriter{w: out}
	return &mcpsdk.IOTransport{Reader: &jsonLines{r: bufio.NewReaderSize(in, 64<<10), w: w}, Writer: w}
}

// lockedWriter serializes our error answers with the go-sdk's writes (each
// of which is one whole line).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// jsonLines passes on the lines that decode as JSON-RPC messages and
// answers the others.
type jsonLines struct {
	r       *bufio.Reader
	w       *lockedWriter
	pending []byte
}

func (*jsonLines) Close() error { return nil }

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, tooLong, err := j.readLine()
		if tooLong {
			j.answer(nil, jsonrpc.CodeInvalidRequest, "message longer than the line limit")
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if code, msg, id := check(t); code != 0 {
				j.answer(id, code, msg)
			} else {
				j.pending = append(t, '\n')
			}
		}
		if err != nil {
			if len(j.pending) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// readLine reads one line, bounded by MaxLineBytes (the rest of a longer
// line is discarded).
func (j *jsonLines) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := j.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// check returns a JSON-RPC error code and message for a line the go-sdk
// could not decode (0 when it is fine), with the request id when one can
// be read.
func check(line []byte) (int64, string, json.RawMessage) {
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "parse error: the line is not JSON", nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err == nil {
		return 0, "", nil
	} else {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		if line[0] == '[' {
			var batch []json.RawMessage
			if json.Unmarshal(line, &batch) == nil && len(batch) == 0 {
				return jsonrpc.CodeInvalidRequest, "invalid request: empty batch", nil
			}
			return 0, "", nil // the go-sdk answers batches (or refuses them) itself
		}
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), probe.ID
	}
}

func (j *jsonLines) answer(id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return
	}
	_, _ = j.w.Write(append(b, '\n'))
}
