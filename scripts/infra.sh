#!/usr/bin/env bash
# Local Postgres and NATS JetStream on loopback, data under .data/ (git-ignored).
#   infra.sh install   apt-get the Debian packages that are missing (postgresql, nats-server, chromium,
#                      chromium-l10n, a desktop's fonts, socat, iproute2, python3-venv)
#   infra.sh start     start whichever of the two is not running; records what it started
#   infra.sh stop      stop what `start` started (and nothing else)
#   infra.sh status    exit 0 when both answer
#   infra.sh env       print DATABASE_ADMIN_URL and NATS_URL (with NATS's user and password) for the running servers
# Both ask for a password, kept under the data directory (0600): pg.password, and nats.password that
# nats.conf hands the server (docs/decisions/0035-service-credentials.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DATA=${WAP_DATA_DIR:-$ROOT/.data}
PG_PORT=${WAP_PG_PORT:-54329}
NATS_PORT=${WAP_NATS_PORT:-42220}
NATS_MON_PORT=${WAP_NATS_MON_PORT:-42221}
# The address both listen on: loopback, or the local cluster's bridge (scripts/cluster.sh), whose
# /24 is then let in by Postgres' host-based authentication.
LISTEN=${WAP_LISTEN:-127.0.0.1}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

# What a Debian 12 GNOME desktop installs of fonts: gnome-core's Cantarell, gnome-characters' colour emoji,
# LibreOffice's recommended Liberation, Noto, Carlito and Caladea, desktop-base's Quicksand, task-desktop's
# Symbola, and the URW base 35 Ghostscript brings with CUPS. scripts/images.sh puts the same in the browser image.
DESKTOP_FONTS="fonts-liberation fonts-liberation2 fonts-noto-core fonts-noto-mono fonts-noto-ui-core fonts-noto-color-emoji fonts-cantarell fonts-crosextra-carlito fonts-crosextra-caladea fonts-quicksand fonts-symbola fonts-opensymbol fonts-urw-base35"

as_pg() { if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }

install() {
  local missing=()
  [ -n "$PG_BIN" ] || missing+=(postgresql)
  command -v nats-server >/dev/null || missing+=(nats-server)
  command -v chromium >/dev/null || missing+=(chromium)
  # Chromium's UI locales: without them a session asking for de-DE still formats numbers and dates as en-US.
  [ -f /usr/lib/chromium/locales/de.pak ] || missing+=(chromium-l10n)
  # The fonts a Debian GNOME desktop has (docs/connect.md, "What a detector sees"): a page that
  # measures which fonts exist, or draws an emoji, sees a desktop's rather than a server's DejaVu alone.
  local font
  for font in $DESKTOP_FONTS; do
    dpkg-query -W -f='${Status}' "$font" 2>/dev/null | grep -q 'ok installed' || missing+=("$font")
  done
  # A session browser's network namespace reaches its egress proxy through socat (docs/connect.md, "Isolation");
  # ip (iproute2) brings up its loopback.
  command -v socat >/dev/null || missing+=(socat)
  [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || [ -x /usr/bin/ip ] || [ -x /bin/ip ] || missing+=(iproute2)
  # The console's scrape playground shows a request as curl; its suite runs that command.
  command -v curl >/dev/null || missing+=(curl)
  # The virtualenv scripts/toolchain.sh puts schemathesis in; Debian's python3 makes one only with this.
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "infra: installing ${missing[*]} from Debian's packages" >&2
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
}

pg_running() { [ -n "$PG_BIN" ] && "$PG_BIN/pg_isready" -q -h "$LISTEN" -p "$PG_PORT"; }
nats_running() { curl -fsS "http://$LISTEN:$NATS_MON_PORT/healthz?js-enabled-only=true" >/dev/null 2>&1; }

# As root, Postgres runs as the `postgres` user, which may not be able to enter the
# checkout (under /root, say): then the cluster lives in postgres's home, linked from .data/pg.
pg_data_dir() {
  mkdir -p "$DATA"
  [ -e "$DATA/pg" ] && return 0
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$DATA"; then
    local dir
    dir="$(getent passwd postgres | cut -d: -f6)/wap-$(echo "$DATA" | sha1sum | cut -c1-12)"
    mkdir -p "$dir" && ln -s "$dir" "$DATA/pg"
  else
    mkdir -p "$DATA/pg"
  fi
}

# The Postgres answering on PG_PORT is this checkout's own (its postmaster.pid names the port).
pg_is_ours() {
  local pid="$DATA/pg/postmaster.pid"
  [ -f "$pid" ] && [ "$(sed -n 4p "$pid" 2>/dev/null)" = "$PG_PORT" ]
}

start_pg() {
  if pg_running; then
    pg_is_ours && return 0
    # Another checkout's server (or a system one) would refuse our password with a puzzling error.
    echo "infra: port $PG_PORT already has a Postgres that is not $DATA/pg; stop it or set WAP_PG_PORT" >&2
    exit 1
  fi
  pg_data_dir
  local pgdata log
  pgdata=$(readlink -f "$DATA/pg")
  log="$pgdata.log"
  [ -f "$DATA/pg.password" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$DATA/pg.password")
  if [ "$(id -u)" = 0 ]; then chown postgres "$pgdata"; touch "$log"; chown postgres "$log"; fi
  if [ ! -f "$pgdata/PG_VERSION" ]; then
    local pwfile
    pwfile=$(mktemp)
    cp "$DATA/pg.password" "$pwfile"
    [ "$(id -u)" = 0 ] && chown postgres "$pwfile"
    as_pg "$PG_BIN/initdb" -D "$pgdata" -U wap --pwfile="$pwfile" --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
  fi
  if [ "$LISTEN" != 127.0.0.1 ] && ! grep -q "^host all all ${LISTEN%.*}.0/24" "$pgdata/pg_hba.conf"; then
    echo "host all all ${LISTEN%.*}.0/24 scram-sha-256" >>"$pgdata/pg_hba.conf"
  fi
  as_pg "$PG_BIN/pg_ctl" -D "$pgdata" -l "$log" -w -t 60 \
    -o "-h $LISTEN -p $PG_PORT -k /tmp -c max_connections=400 -c shared_buffers=256MB" start >/dev/null
  touch "$DATA/pg.started-by-us"
}

nats_takes_credentials() { curl -fsS "http://$LISTEN:$NATS_MON_PORT/varz" 2>/dev/null | grep -q '"auth_required": *true'; }

# NATS's user `wap` and its password, in a file the server reads: on its command line the password
# would show in `ps` to every local user, a session's Chromium among them. A data directory from
# before NATS took credentials gets them here; its streams are kept (the user is in the same account).
nats_conf() {
  [ -s "$DATA/nats.password" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DATA/nats.password")
  (umask 077 && printf 'authorization {\n  user: wap\n  password: "%s"\n}\n' "$(cat "$DATA/nats.password")" >"$DATA/nats.conf")
}

start_nats() {
  if nats_running; then
    # Started before NATS took credentials (another checkout's script, or this one's before): left as it
    # is, since others may be using it; `infra.sh env` then names no credentials, which it would refuse.
    nats_takes_credentials ||
      echo "infra: the NATS on port $NATS_PORT takes no credentials; \`scripts/infra.sh stop\` then \`start\` gives it them" >&2
    return 0
  fi
  mkdir -p "$DATA/nats"
  nats_conf
  # A session of its own, as pg_ctl gives Postgres: a Ctrl-C or a kill of the process group that
  # started it (a terminal's `make up`, a job runner's cleanup) does not end it.
  setsid nohup nats-server -c "$DATA/nats.conf" -a "$LISTEN" -p "$NATS_PORT" -m "$NATS_MON_PORT" -js -sd "$DATA/nats" \
    --pid "$DATA/nats.pid" -l "$DATA/nats.log" >/dev/null 2>&1 &
  for _ in $(seq 1 100); do nats_running && break; sleep 0.1; done
  nats_running || { echo "infra: nats-server did not start; see $DATA/nats.log" >&2; exit 1; }
  touch "$DATA/nats.started-by-us"
}

stop() {
  if [ -f "$DATA/nats.started-by-us" ] && [ -f "$DATA/nats.pid" ]; then
    local pid
    pid=$(cat "$DATA/nats.pid")
    kill "$pid" 2>/dev/null || true; rm -f "$DATA/nats.started-by-us"
    # Gone before this returns: a `start` right after would otherwise find it still answering.
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [ -f "$DATA/pg.started-by-us" ] && pg_running; then
    as_pg "$PG_BIN/pg_ctl" -D "$(readlink -f "$DATA/pg")" -m fast -w stop >/dev/null || true; rm -f "$DATA/pg.started-by-us"
  fi
}

env_out() {
  echo "DATABASE_ADMIN_URL=postgresql://wap:$(cat "$DATA/pg.password")@$LISTEN:$PG_PORT/postgres"
  # No password yet: a NATS started before it took credentials (start_nats), which wants none.
  if [ -s "$DATA/nats.password" ]; then
    echo "NATS_URL=nats://wap:$(cat "$DATA/nats.password")@$LISTEN:$NATS_PORT"
  else
    echo "NATS_URL=nats://$LISTEN:$NATS_PORT"
  fi
}

case "${1:-}" in
  install) install ;;
  start) start_pg; start_nats ;;
  stop) stop ;;
  status) pg_running && nats_running ;;
  env) env_out ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
