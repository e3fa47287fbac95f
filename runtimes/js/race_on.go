//go:build race

package js

// raceEnabled: this binary has the race detector, whose runtime in a
// worker reads /proc/self/maps (confineThread lets it).
const raceEnabled = true
