//go:build !wasip1

package aios

// Off wasip1 (unit tests on the build machine) there is no host: host calls
// answer Unavailable and logs are dropped.

func hostRequest(op int, req []byte) ([]byte, error) {
	return nil, Errorf(Unavailable, "no AIOS host: this build is not GOOS=wasip1")
}

func hostLog(level int, msg string) {}
