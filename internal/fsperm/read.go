package fsperm

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Kind names the type of file a mode describes, for messages: "a regular
// file", "a folder", "a FIFO (named pipe)", "a character device", ...
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeIrregular != 0:
		return "an irregular file"
	}
	return "mode " + m.String()
}

// ReadRegular reads the file at path, which the configuration names (a
// secret, a key set): only a regular file of at most limit bytes. It opens
// with O_NONBLOCK, so a FIFO with no writer is refused instead of waited on
// (the host hung at start, or every request behind a lock), and a device
// (/dev/zero) is never read to its end. The errors name path.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return ReadRegularWithin(path, limit, "check the path")
}

// ReadRegularWithin is ReadRegular whose error for a file past limit
// says, in parentheses, what the limit is (a config key).
func ReadRegularWithin(path string, limit int64, what string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes (%s)", path, limit, what)
	}
	return b, nil
}

// OpenRegular opens the file at path for reading when it is a regular file
// (or a link to one), as ReadRegular does: a FIFO, a device or a folder is
// refused, naming path and what it is, without waiting for a writer.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, Kind(st.Mode()))
	}
	return f, nil
}
