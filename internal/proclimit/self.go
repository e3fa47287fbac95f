package proclimit

import "os"

// Self is the path that runs this very program, for starting a helper
// process of the same build: /proc/self/exe on Linux, which stays the
// running binary when its file is replaced (an upgrade while the host
// runs), so the helper has the same wire protocol, the same engines and the
// same cache keys as the host; os.Executable elsewhere.
func Self() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}
