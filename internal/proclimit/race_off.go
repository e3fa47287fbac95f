//go:build !race

package proclimit

// Race: this binary has the race detector (race_on.go).
const Race = false
