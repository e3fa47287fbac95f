//go:build race

package proclimit

// Race: this binary has the race detector. Its shadow memory is mapped on
// demand and fails under LimitData, and its runtime reads /proc/self/maps.
const Race = true
