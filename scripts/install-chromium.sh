#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests. playwright-core drives it via
# executablePath, so no test tool ever downloads a browser of its own (the network here only
# reaches the npm registry and Debian's packages).
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "chromium present at $CHROMIUM"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-get not found: install Chromium yourself and set CHROMIUM_PATH (browser tests skip until then)" >&2
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "not root and no sudo: cannot install chromium (browser tests will skip)" >&2
    exit 0
  fi
fi

export DEBIAN_FRONTEND=noninteractive
# A failed install must not stop CI: the rest of the suite still runs and the browser
# tests say plainly that they were skipped.
# fonts-liberation is only a recommendation of chromium; without a font the screenshots show boxes.
if $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends chromium fonts-liberation; then
  echo "installed: $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
else
  echo "could not install chromium (browser tests will skip)" >&2
fi
