#!/usr/bin/env bash
# Installs the browser the end-to-end tests drive (test/e2e, part of `npm test`): Debian's
# Chromium at /usr/bin/chromium. Run it once per machine: `sudo scripts/setup-browser.sh`
# (.ci/run runs it when Chromium is missing). Idempotent; needs apt-get and root (or sudo).
# Elsewhere (macOS, no root): install Chromium or Chrome yourself and set CHROMIUM_PATH to it.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "setup-browser: Chromium is already installed at $CHROMIUM"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: no apt-get on this machine, so Chromium cannot be installed from Debian." >&2
  echo "Install Chromium (or Chrome) yourself, then run the tests with CHROMIUM_PATH=/path/to/it." >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup-browser: installing Chromium needs root: run this script as root." >&2
    exit 1
  fi
  as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y chromium

if [ ! -x "$CHROMIUM" ]; then
  echo "setup-browser: apt-get installed chromium, but there is no $CHROMIUM." >&2
  exit 1
fi
echo "setup-browser: Chromium installed at $CHROMIUM"
