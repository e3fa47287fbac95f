//go:build windows

package python_test

import "testing"

// backlogZeroListener: python workers do not run on Windows.
func backlogZeroListener(t *testing.T) int {
	t.Helper()
	t.Skip("python workers do not run on Windows")
	return 0
}
