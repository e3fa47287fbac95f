//go:build windows

package python

import "os"

// spawn refuses: see errNoWorkers.
func spawn(spawnSpec) (*os.Process, error) { return nil, errNoWorkers }

func killGroup(int) {}

func askStack(int) error { return errNoWorkers }
