#!/usr/bin/env bash
# Install the reference MCP servers the live tests run (idempotent).
#
#   .ci/.work/mcp-servers/node_modules/.bin/mcp-server-everything   (npm)
#   .ci/.work/mcp-servers/node_modules/.bin/mcp-server-filesystem   (npm)
#   .ci/.work/mcp-servers/node_modules/.bin/mcp-inspector           (npm, the gateway's test client)
#   .ci/.work/mcp-servers/time-venv/bin/mcp-server-time             (PyPI, own venv)
#
# Override the folder with TOOLSEARCH_TEST_SERVERS_DIR (tests read the same variable).
# PYTHON picks the interpreter for the time server's venv (default: python3).
# Tests skip the reference servers when absent, unless TOOLSEARCH_REQUIRE_TEST_SERVERS=1
# (set it in CI), which turns the skip into a failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${TOOLSEARCH_TEST_SERVERS_DIR:-$ROOT/.ci/.work/mcp-servers}"
PYTHON="${PYTHON:-python3}"
NPM_PACKAGES=(
  "@modelcontextprotocol/server-everything"
  "@modelcontextprotocol/server-filesystem"
  "@modelcontextprotocol/inspector"
)
mkdir -p "$DEST"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-test-servers: npm not found (needed for the npm reference servers)" >&2
  exit 1
else
  missing=0
  for bin in mcp-server-everything mcp-server-filesystem mcp-inspector; do
    [ -x "$DEST/node_modules/.bin/$bin" ] || missing=1
  done
  if [ "$missing" = 1 ]; then
    [ -f "$DEST/package.json" ] || printf '{"name":"toolsearch-test-servers","private":true}\n' >"$DEST/package.json"
    (cd "$DEST" && npm install --no-audit --no-fund --no-save --loglevel=error "${NPM_PACKAGES[@]}")
  fi
  echo "install-test-servers: npm servers in $DEST/node_modules/.bin"
fi

VENV="$DEST/time-venv"
if [ ! -x "$VENV/bin/mcp-server-time" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check mcp-server-time
fi
echo "install-test-servers: mcp-server-time in $VENV/bin"
