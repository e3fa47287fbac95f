package wire

import (
	"io"
	"time"
)

// ProgressChunk is how much of a write goes out under one write deadline
// (WriteProgress).
const ProgressChunk = 32 << 10

// WriteProgress writes p to w ProgressChunk bytes at a time, each under a
// write deadline of timeout from when it starts (setDeadline: a
// connection's or an http.ResponseController's SetWriteDeadline): a peer
// is given up when it makes no progress for timeout, not when a large
// answer to a slow but steady reader takes longer than that in all. With
// timeout ≤ 0, p is written at once under no new deadline.
func WriteProgress(w io.Writer, setDeadline func(time.Time) error, p []byte, timeout time.Duration) (n int, err error) {
	if timeout <= 0 {
		return w.Write(p)
	}
	for len(p) > 0 {
		c := min(len(p), ProgressChunk)
		_ = setDeadline(time.Now().Add(timeout))
		m, err := w.Write(p[:c])
		n += m
		if err != nil {
			return n, err
		}
		p = p[c:]
	}
	return n, nil
}
