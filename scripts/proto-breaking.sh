#!/usr/bin/env bash
# The protobuf contracts against the last release tag (v*): services of two
# releases run side by side during a rolling upgrade, so a change one of them
# cannot read is refused (buf's FILE rules; docs/decisions/0012-release-tags.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PWD/node_modules/.bin:$PATH"
tag=$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
if [ -z "$tag" ] && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  # A shallow clone may hold the tag but not the history that reaches it: the newest by version.
  tag=$(git tag --list 'v*' --sort=-v:refname | head -n 1)
  [ -n "$tag" ] && echo "proto: shallow clone, $tag taken as the last release (its history is not here)"
fi
if [ -z "$tag" ]; then
  echo "proto: no release tag (v*) in this clone, nothing to check against (a shallow or tagless clone?)"
  exit 0
fi
# The common git dir holds the tags, in a worktree too.
buf breaking --against "$(git rev-parse --git-common-dir)#tag=$tag"
echo "proto: no breaking change since $tag"
