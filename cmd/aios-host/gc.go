package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Garbage collector policy of the serving commands (run, mcp). A host's
// live heap is small (registry, schemas, pools) while every tool call
// allocates a little (params, results, JS objects), so at Go's default
// GOGC=100 the collector runs every few thousand calls; on two cores its
// pauses and mark phase cost a JS call 20–30 % (docs/performance.md,
// "Garbage collector"). Serving commands therefore run with GOGC=400 and,
// as the bound that keeps a large heap from growing fivefold unchecked, a
// soft memory limit of a quarter of the machine's memory (at least 512 MiB).
// GOGC and GOMEMLIMIT in the environment override either.
const (
	serveGCPercent  = 400
	minServeMemory  = 512 << 20
	fallbackMemory  = 4 << 30 // when /proc/meminfo cannot be read
	serveMemoryFrac = 4       // the limit is MemTotal / serveMemoryFrac
)

// gcPolicy is what applyServeGC set, for the startup log.
type gcPolicy struct {
	Percent  string // "400" or "GOGC=<env>"
	MemLimit string // "6.0GiB" or "GOMEMLIMIT=<env>"
}

func applyServeGC() gcPolicy {
	var p gcPolicy
	if env := os.Getenv("GOGC"); env != "" {
		p.Percent = "GOGC=" + env
	} else {
		debug.SetGCPercent(serveGCPercent)
		p.Percent = strconv.Itoa(serveGCPercent)
	}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		p.MemLimit = "GOMEMLIMIT=" + env
	} else {
		limit := max(memTotal()/serveMemoryFrac, minServeMemory)
		debug.SetMemoryLimit(limit)
		p.MemLimit = fmt.Sprintf("%.1fGiB", float64(limit)/(1<<30))
	}
	return p
}

// memTotal reads MemTotal from /proc/meminfo, in bytes.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallbackMemory
	}
	defer f.Close()
	return parseMemTotal(bufio.NewScanner(f))
}

func parseMemTotal(sc *bufio.Scanner) int64 {
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			break
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 {
			break
		}
		return kb << 10
	}
	return fallbackMemory
}
