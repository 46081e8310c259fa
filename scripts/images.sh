#!/usr/bin/env bash
# make images: the fleet's container images, built from this repository with Debian's packages
# and the npm registry only (no base image pulled from anywhere), non-root (docs/images.md):
#
#   web-access:<version>          Debian bookworm minbase + Node 24 + the built services
#   web-access-browser:<version>  the same layers + Debian's Chromium (browser-host)
#
# Written as OCI image layouts and as tarballs `ctr images import` takes, under
# ${WAP_IMAGES_DIR:-.data/images}; prints each image's name, digest and size. Every timestamp in
# them is the last commit's (SOURCE_DATE_EPOCH), so the same commit, the same Debian packages and
# the same npm packages give the same digests. The Debian root file system is cached outside the
# clone (${WAP_CACHE_DIR:-~/.cache/wap}/images), keyed by suite, package list and day.
# Needs root (debootstrap, chroot) and a build (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/bin:$ROOT/node_modules/.bin:$PATH"
VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/web-access/Chart.yaml)
SUITE=bookworm
OUT=${WAP_IMAGES_DIR:-$ROOT/.data/images}
CACHE=${WAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wap}/images
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
STAMP=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
# The machine's own Debian mirror, as apt uses it.
MIRROR=$(sed -n 's/^URIs: *\(.*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# What the services' image holds from Debian besides minbase: TLS roots for outbound HTTPS,
# zone data for cron schedules in named time zones... (docs/images.md says why each is there).
BASE_PACKAGES=ca-certificates,tzdata
# A desktop's fonts, the list scripts/infra.sh installs on the machine (docs/connect.md, "What a detector sees").
DESKTOP_FONTS=$(sed -n 's/^DESKTOP_FONTS="\(.*\)"$/\1/p' scripts/infra.sh)
BROWSER_PACKAGES="chromium chromium-l10n $DESKTOP_FONTS socat iproute2"
APP_UID=10001

[ "$(id -u)" = 0 ] || { echo "images: run as root (debootstrap and chroot need it)" >&2; exit 1; }
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v umoci >/dev/null || missing+=(umoci)
if [ ${#missing[@]} -gt 0 ]; then
  echo "images: installing ${missing[*]} from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -f services/gateway/dist/main.js ] || { echo "images: build first (make build)" >&2; exit 1; }

WORK=$(mktemp -d /var/tmp/wap-images.XXXXXX)
cleanup() {
  for m in proc dev/pts dev; do mountpoint -q "$WORK/bundle/rootfs/$m" 2>/dev/null && umount -l "$WORK/bundle/rootfs/$m"; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Every file's time set to the commit's, so a layer's tar is the same from one build to the next.
settle() { find "$1" -xdev -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} + 2>/dev/null || true; }

# What Debian's tools leave that differs between two runs: logs, caches, backups, dates.
scrub() {
  local r=$1
  rm -rf "$r"/var/log/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old "$r"/var/lib/apt/lists/* \
    "$r"/var/lib/dpkg/*-old "$r"/var/cache/ldconfig/aux-cache "$r"/usr/share/doc/* "$r"/usr/share/man/* \
    "$r"/usr/share/info/* "$r"/usr/share/lintian "$r"/var/lib/dpkg/info/*.md5sums "$r"/tmp/* "$r"/root/.cache
  # The days-since-epoch of the last password change, written at install: the commit's day instead.
  [ -f "$r/etc/shadow" ] && sed -i -E "s/^([^:]*:[^:]*:)[0-9]*:/\1$((SOURCE_DATE_EPOCH / 86400)):/" "$r/etc/shadow"
  rm -f "$r/etc/machine-id" "$r/var/lib/dbus/machine-id"
}

# 1. Debian minbase, cached per day and package list (a day's mirror is the input).
# ROOTFS_RECIPE: raise it when what is done to the root file system below changes.
ROOTFS_RECIPE=1
key=$(printf '%s\n' "$SUITE" "$BASE_PACKAGES" "$MIRROR" "$(date -u +%F)" "$ROOTFS_RECIPE" | sha256sum | cut -c1-16)
base="$CACHE/rootfs-$SUITE-$key.tar"
if [ ! -f "$base" ]; then
  echo "images: debootstrap $SUITE minbase from $MIRROR (cached as $base)" >&2
  mkdir -p "$CACHE"
  debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$WORK/debian" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  scrub "$WORK/debian"
  tar -C "$WORK/debian" --numeric-owner --sort=name -cf "$base.tmp" .
  mv "$base.tmp" "$base"
  rm -rf "$WORK/debian"
fi

# 2. The application: the built packages and their production dependencies only.
echo "images: staging the application" >&2
app="$WORK/app"
mkdir -p "$app"
cp package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc "$app"/ 2>/dev/null || true
if [ -d patches ]; then cp -r patches "$app"/; fi
for pkg in libs/* services/* e2e; do
  [ -f "$pkg/package.json" ] || continue
  mkdir -p "$app/$pkg"
  cp "$pkg/package.json" "$app/$pkg/"
  if [ "$pkg" = e2e ]; then continue; fi
  if [ -d "$pkg/dist" ]; then
    tar -C "$pkg" --exclude='*.test.js' --exclude='*.test.js.map' --exclude='*.test.d.ts' --exclude='*.bench.js' \
      --exclude='*.bench.js.map' --exclude='*.tsbuildinfo' --exclude=bench -cf - dist | tar -C "$app/$pkg" -xf -
  fi
  if [ -d "$pkg/prisma" ]; then cp -a "$pkg/prisma" "$app/$pkg/"; fi
done
# The embedded agent model's fetcher (docs/models.md), which the chart's fetch-model container
# runs from /app: one file importing only Node's own modules, which this checks.
if grep -E "^import .* from '|import\(" scripts/fetch-model.mjs | grep -vq "from 'node:"; then
  echo "images: scripts/fetch-model.mjs imports more than node: modules; stage those too" >&2
  exit 1
fi
mkdir -p "$app/scripts"
cp scripts/fetch-model.mjs "$app/scripts/"
(cd "$app" && CI=true pnpm install --prod --frozen-lockfile --offline --ignore-scripts --filter '!@wap/e2e' \
  --config.node-linker=isolated >"$WORK/pnpm.log" 2>&1) || { tail -20 "$WORK/pnpm.log" >&2; exit 1; }
rm -rf "$app/e2e" "$app/patches"
# node-llama-cpp's prebuilt addons for GPUs and other CPUs (about 620 MB): the agent loads only
# the CPU one of this machine's architecture (getLlama({ gpu: false }), docs/models.md), and the
# image has no CUDA or Vulkan to run the others. The links to them go too.
keep=linux-$(.tools/node/bin/node -p process.arch)
for dir in "$app"/node_modules/.pnpm/@node-llama-cpp+*; do
  [ -d "$dir" ] || continue
  name=${dir##*/@node-llama-cpp+}
  name=${name%@*}
  [ "$name" = "$keep" ] && continue
  rm -rf "$dir"
done
find "$app/node_modules" -xtype l -path '*/@node-llama-cpp/*' -delete
# pnpm's own bookkeeping, with the time of the install in it; Node never reads it. And the
# node_modules/.bin shims, which name the staging directory: nothing in the image runs them.
rm -f "$app/node_modules/.modules.yaml" "$app"/node_modules/.pnpm-workspace-state*.json
find "$app" -type d -name .bin -path '*/node_modules/.bin' -prune -exec rm -rf {} +
settle "$app"

# 3. The layers, with umoci: Debian; Node and the application; Chromium.
layout="$WORK/oci"
bundle="$WORK/bundle"
umoci init --layout "$layout"
umoci new --image "$layout:empty"
umoci unpack --image "$layout:empty" "$bundle" >/dev/null
tar -C "$bundle/rootfs" --numeric-owner -xf "$base"
umoci repack --refresh-bundle --history.created "$STAMP" --history.created_by "debootstrap --variant=minbase --include=$BASE_PACKAGES $SUITE" --image "$layout:debian" "$bundle"

install -D -m 0755 .tools/node/bin/node "$bundle/rootfs/usr/local/bin/node"
cp -a "$app" "$bundle/rootfs/app"
grep -q "^wap:" "$bundle/rootfs/etc/passwd" || {
  echo "wap:x:$APP_UID:$APP_UID:web-access:/app:/usr/sbin/nologin" >>"$bundle/rootfs/etc/passwd"
  echo "wap:x:$APP_UID:" >>"$bundle/rootfs/etc/group"
  echo "wap:*:$((SOURCE_DATE_EPOCH / 86400)):0:99999:7:::" >>"$bundle/rootfs/etc/shadow"
}
settle "$bundle/rootfs/usr/local/bin" && settle "$bundle/rootfs/etc"
# The directories written into, the root included: their times are the commit's too.
touch -h -d "@$SOURCE_DATE_EPOCH" "$bundle/rootfs/app" "$bundle/rootfs/usr/local/bin" "$bundle/rootfs/usr/local" "$bundle/rootfs"
umoci repack --refresh-bundle --history.created "$STAMP" --history.created_by "Node $(.tools/node/bin/node --version) and the built services" --image "$layout:web-access" "$bundle"

# Chromium from the same suites the machine uses (security updates included), into the same tree.
cp /etc/apt/sources.list.d/debian.sources "$bundle/rootfs/etc/apt/sources.list.d/debian.sources" 2>/dev/null || true
cp /etc/resolv.conf "$bundle/rootfs/etc/resolv.conf"
mount -t proc proc "$bundle/rootfs/proc"
mount --bind /dev "$bundle/rootfs/dev"
echo "images: installing $BROWSER_PACKAGES" >&2
chroot "$bundle/rootfs" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $BROWSER_PACKAGES" \
  >"$WORK/chromium.log" 2>&1 || { tail -20 "$WORK/chromium.log" >&2; exit 1; }
umount -l "$bundle/rootfs/dev" "$bundle/rootfs/proc"
: >"$bundle/rootfs/etc/resolv.conf"
# Caches built at install that record when: fontconfig's and the icon theme's (rebuilt on use).
rm -rf "$bundle/rootfs"/var/cache/fontconfig/* "$bundle/rootfs"/usr/share/icons/*/icon-theme.cache
scrub "$bundle/rootfs"
settle "$bundle/rootfs"
umoci repack --refresh-bundle --history.created "$STAMP" --history.created_by "apt-get install $BROWSER_PACKAGES" --image "$layout:web-access-browser" "$bundle"

# 4. Each image's configuration: the non-root user, the working directory, no shell entry point.
for image in web-access web-access-browser; do
  umoci config --no-history --image "$layout:$image" --tag "$image" --created "$STAMP" --author "web-access" \
    --config.user "$APP_UID:$APP_UID" --config.workingdir /app \
    --config.env "NODE_ENV=production" --config.env "PATH=/usr/local/bin:/usr/bin:/bin" \
    --config.cmd node --config.label "org.opencontainers.image.version=$VERSION"
done
umoci gc --layout "$layout"

mkdir -p "$OUT"
for image in web-access web-access-browser; do
  # One layout per image, named as containerd will list it, for `ctr images import`.
  one="$WORK/export-$image"
  mkdir -p "$one"
  cp -r "$layout/blobs" "$layout/oci-layout" "$one"/
  jq --arg tag "$image" --arg name "docker.io/library/$image:$VERSION" \
    '.manifests |= [.[] | select(.annotations["org.opencontainers.image.ref.name"] == $tag)
       | .annotations["org.opencontainers.image.ref.name"] = $name]' "$layout/index.json" >"$one/index.json"
  umoci gc --layout "$one"
  tar -C "$one" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner -cf "$OUT/$image.tar" .
  digest=$(jq -r '.manifests[0].digest' "$one/index.json")
  size=$(du -sm "$one/blobs" | cut -f1)
  printf '%-30s %s  %4s MiB\n' "$image:$VERSION" "$digest" "$size"
  # Each layer: what it is, and its size packed (gzip) and unpacked.
  manifest="$one/blobs/sha256/${digest#sha256:}"
  config="$one/blobs/sha256/$(jq -r '.config.digest' "$manifest" | cut -d: -f2)"
  jq -r '.layers[] | "\(.digest) \(.size)"' "$manifest" | paste - <(jq -r '.history[].created_by' "$config") |
    while read -r layer packed what; do
      unpacked=$(gzip -dc "$one/blobs/sha256/${layer#sha256:}" | wc -c)
      printf '    %5s MiB packed %5s MiB unpacked  %s\n' "$((packed / 1048576))" "$((unpacked / 1048576))" "$what"
    done
done
