//go:build !race

package js

// raceEnabled: this binary has the race detector (race_on.go).
const raceEnabled = false
