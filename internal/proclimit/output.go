package proclimit

import "bytes"

// Output collects what a helper process writes (its answer, or its stderr
// for the message when it dies), keeping the first Max bytes and dropping
// the rest, so that a helper cannot make the host buffer without bound.
type Output struct {
	Max int
	buf bytes.Buffer
}

// Write keeps what fits under Max and reports all of p written, so the
// process is never blocked or failed by the cap.
func (o *Output) Write(p []byte) (int, error) {
	o.buf.Write(p[:min(len(p), max(o.Max-o.buf.Len(), 0))])
	return len(p), nil
}

// String returns what was kept.
func (o *Output) String() string { return o.buf.String() }
