#!/usr/bin/env bash
# Runs every benchmark that has a goal in an issue, back to back, printing
# the load average before each command, so one pass gives comparable
# figures for docs/performance.md ("Summary"). Needs the samples built
# (`make samples`). The pipeline benchmarks run for 1s each: every one
# waits for the audit writer (Flush) before it stops its timer, and a short
# fixed-count run would be dominated by the log's start-up (a fresh file's
# first pages). Takes about 15 minutes on the 2-core VM; run it on an
# otherwise idle machine.
set -uo pipefail
cd "$(dirname "$0")/.."

run() {
  echo "## $(date -u +%H:%M:%S) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "\$ go test $*"
  go test "$@" 2>&1 | grep -E '^(Benchmark|FAIL|---|panic)' || true
}

run -run '^$' -bench 'BenchmarkPipelineNativeEcho' -benchmem -benchtime 1s -count 3 -cpu 1,2 ./host/
run -run '^$' -bench 'BenchmarkRegistrySearch10k|BenchmarkResolve$' -benchmem -count 3 ./registry/
run -run '^$' -bench 'BenchmarkPipelineWASMEcho$|BenchmarkPipelineWASMEchoNoAudit|BenchmarkRawWazeroEcho' -benchmem -benchtime 1s -count 3 -cpu 1,2 ./conformance/
run -run '^$' -bench 'BenchmarkPipelineWASMEchoParallel' -benchtime 1s -count 3 -cpu 1,2 ./conformance/
run -run '^$' -bench 'BenchmarkProviderEchoParallel' -benchtime 40000x -count 2 -cpu 1,2 ./runtimes/wasm/
run -run '^$' -bench 'BenchmarkRestart50WASM' -benchtime 3x -count 2 ./runtimes/wasm/
run -run '^$' -bench 'BenchmarkPipelineComponentRecord$' -benchmem -benchtime 1s -count 3 -cpu 1,2 ./conformance/
run -run '^$' -bench 'BenchmarkPipelineJSEcho|BenchmarkRawGojaEcho' -benchmem -benchtime 1s -count 3 -cpu 1,2 ./conformance/
run -run '^$' -bench 'BenchmarkTranspileTS200' -benchmem -count 3 ./runtimes/js/
run -run '^$' -bench 'BenchmarkWITParse' -benchmem -count 3 ./wit/
run -run '^$' -bench 'BenchmarkPipelinePythonEcho$' -benchmem -benchtime 5000x -count 3 ./runtimes/python/
run -run '^$' -bench 'BenchmarkPythonColdStart' -benchmem -benchtime 10x -count 2 ./runtimes/python/
run -run '^$' -bench 'BenchmarkHotReload' -benchtime 50x -count 2 ./discovery/
run -run '^$' -bench 'BenchmarkMCPHTTP' -benchmem -benchtime 3000x -count 3 ./mcpserver/
run -run '^$' -bench 'BenchmarkAudit' -benchmem -count 2 ./audit/
