#!/usr/bin/env bash
# mkpkg.sh DIR NAME 'deps-json' 'refs...'  -- writes package.json + tsconfig.json for a workspace package
set -euo pipefail
dir=$1 name=$2 deps=$3; shift 3
mkdir -p "$dir/src"
cat > "$dir/package.json" <<J
{
  "name": "$name",
  "version": "0.1.0",
  "private": true,
  "main": "dist/index.js",
  "types": "dist/index.d.ts",
  "dependencies": $deps
}
J
refs=""
for r in "$@"; do refs="$refs{ \"path\": \"$r\" },"; done
refs="[${refs%,}]"
cat > "$dir/tsconfig.json" <<J
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "dist/.tsbuildinfo" },
  "include": ["src"],
  "references": $refs
}
J
