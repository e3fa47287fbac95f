#!/usr/bin/env bash
# Builds the MCP conformance server (samples/mcp/conformance, a stdio MCP
# server on the go-sdk) into build/mcp/conformance-server at the repo root;
# conformance/mcp_test.go imports it through the MCP bridge. (The npm
# reference servers of samples/mcp are installed by scripts/deps.sh.)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$root/build/mcp"
cd "$root"
go build -trimpath -o "$root/build/mcp/conformance-server" ./samples/mcp/conformance
