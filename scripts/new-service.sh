#!/usr/bin/env bash
# A new service in the shape every service has (docs/service-shape.md):
#
#   scripts/new-service.sh <name> <grpc-port> '<what the service does>' '<what its database holds>'
#       creates services/<name>/ (package, tsconfig, Prisma schema and first migration,
#       config, service definition, composition root, test support and a test that it runs)
#   scripts/new-service.sh --refresh <name> <grpc-port> '<...>' '<...>'
#       rewrites those files of an existing skeleton; `make generate` does this for the
#       services not built yet, so they stay exactly what this script makes
#
# The name is lower-case words joined by '-'; the port is the default GRPC_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."

refresh=0
if [ "${1:-}" = --refresh ]; then
  refresh=1
  shift
fi
if [ $# -ne 4 ] || ! [[ $1 =~ ^[a-z]+(-[a-z]+)*$ ]] || ! [[ $2 =~ ^[0-9]+$ ]]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
name=$1 port=$2 does=$3 holds=$4
dir=services/$name
# session-recorder: SessionRecorder
pascal=$(sed -E 's/(^|-)([a-z])/\U\2/g' <<<"$name")
if [ $refresh = 1 ] && [ ! -d "$dir/src" ]; then
  echo "new-service: $dir is not a skeleton to refresh" >&2
  exit 1
fi
if [ $refresh = 0 ] && [ -e "$dir" ]; then
  echo "new-service: $dir exists (--refresh rewrites a skeleton's files)" >&2
  exit 1
fi
# The versions the libs already use, so a new service adds none.
version() { node -p "require('./$1/package.json').dependencies['$2']"; }
prisma_version=$(version libs/db @prisma/client)
zod_version=$(version libs/config zod)

mkdir -p "$dir/src" "$dir/prisma/schema"

cat >"$dir/package.json" <<EOF
{
  "name": "@wap/$name",
  "version": "0.1.0",
  "private": true,
  "main": "dist/index.js",
  "types": "dist/index.d.ts",
  "dependencies": {
    "@prisma/client": "$prisma_version",
    "@wap/db": "workspace:*",
    "@wap/events": "workspace:*",
    "@wap/log": "workspace:*",
    "@wap/service": "workspace:*",
    "@wap/telemetry": "workspace:*",
    "zod": "$zod_version"
  },
  "devDependencies": {
    "@wap/testkit": "workspace:*"
  }
}
EOF

cat >"$dir/tsconfig.json" <<'EOF'
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "dist/.tsbuildinfo" },
  "include": ["src"],
  "references": [
    { "path": "../../libs/db" },
    { "path": "../../libs/events" },
    { "path": "../../libs/log" },
    { "path": "../../libs/service" },
    { "path": "../../libs/telemetry" },
    { "path": "../../libs/testkit" }
  ]
}
EOF

cat >"$dir/prisma/schema/$name.prisma" <<EOF
// The $name database: $holds.
generator client {
  provider            = "prisma-client"
  output              = "../../src/generated/prisma"
  moduleFormat        = "cjs"
  runtime             = "nodejs"
  importFileExtension = "js"
}
EOF

cat >"$dir/src/main.ts" <<'EOF'
import '@wap/telemetry/register';
import { runService } from '@wap/service';
import { definition } from './service.js';

void runService(definition);
EOF

cat >"$dir/src/config.ts" <<EOF
import { baseEnv } from '@wap/service';
import type { z } from 'zod';

/** Every variable the service reads: the shared ones only, until it has settings of its own. */
export const env = baseEnv($port);

export type ${pascal}Config = z.infer<typeof env>;
EOF

cat >"$dir/src/service.ts" <<EOF
// The $name service: $does.
import { createPrismaAdapter } from '@wap/db';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { PrismaClient } from './generated/prisma/client.js';
import { type ${pascal}Database, open${pascal} } from './$name.js';

export const definition: ServiceDefinition<typeof env, ${pascal}Database> = {
  name: '$name',
  env,
  openDatabase: (url) => new PrismaClient({ adapter: createPrismaAdapter(url) }),
  start: async ({ config, db, nats, log }) => {
    const service = open${pascal}(config, db, nats, log);
    await service.start();
    return { stop: service.stop };
  },
};
EOF

cat >"$dir/src/$name.ts" <<EOF
// Builds the $name service from its config, database and NATS link: the one
// place its stores, handlers and jobs are wired, shared by service.ts and the
// tests. It has none yet; each arrives here with the first RPC or job that
// needs it (docs/service-shape.md).
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { ${pascal}Config } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';

export type ${pascal}Database = PrismaClient;

/** What the handlers and jobs are given; the stores and clients they need are built from these here. */
export interface ${pascal}Deps {
  config: ${pascal}Config;
  db: ${pascal}Database;
  nats: NatsLink;
  log: Logger;
}

export function open${pascal}(config: ${pascal}Config, db: ${pascal}Database, nats: NatsLink, log: Logger) {
  const deps: ${pascal}Deps = { config, db, nats, log };
  return {
    deps,
    /** Starts what runs besides the RPCs: jobs and consumers. */
    start: async () => {},
    /** Stops taking work and waits for what is in flight. */
    stop: async () => {},
  };
}
EOF

cat >"$dir/src/test-support.ts" <<EOF
// Shared by the $name service's tests (not a test itself): a fresh migrated
// database, and the service run as its own process, as the fleet runs it.
import path from 'node:path';
import { type FreshDatabase, freshServiceDatabase, type ServiceProcess, spawnService } from '@wap/testkit';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

/** The service as its own process: the shared runtime (runService) around service.ts and open${pascal}. */
export const spawn${pascal} = (databaseUrl: string, port: number, env: Record<string, string> = {}): ServiceProcess =>
  spawnService('$name', databaseUrl, port, env);
EOF

cat >"$dir/src/service.test.ts" <<EOF
// The service runs as the fleet runs it: its migrations on a fresh database,
// the shared runtime around its composition root, gRPC health SERVING, and a
// drain and exit 0 on SIGTERM.
import { test } from 'node:test';
import { freePort, servesAndStops } from '@wap/testkit';
import { freshDatabase, spawn${pascal} } from './test-support.js';

test('the $name service starts on a fresh database, serves gRPC health and exits 0 on SIGTERM', async () => {
  const database = await freshDatabase();
  try {
    await servesAndStops(spawn${pascal}(database.url, await freePort()));
  } finally {
    await database.drop();
  }
});
EOF

# Import order and line breaks depend on the name: the formatter settles them.
node_modules/.bin/biome check --write "$dir" >/dev/null 2>&1 || node_modules/.bin/biome check "$dir"
[ $refresh = 1 ] && exit 0

ln -s ../../../../libs/db/prisma/base.prisma "$dir/prisma/schema/base.prisma"
ln -s ../../../../libs/events/prisma/events.prisma "$dir/prisma/schema/events.prisma"
node libs/db/dist/cli.js diff "$dir" init
node libs/db/dist/cli.js generate "$dir"
pnpm install --reporter=silent
cat <<EOF
$dir is made. Still to do by hand:
  - add its line to libs/config/src/services.ts (its port: $port), the one list of the services
  - add it to SERVICES in the Makefile, and a --refresh line under 'generate' while it is a skeleton
  - add it to tsconfig.json's references and to the Helm chart (templates/$name.yaml, its values block
    and schema, and web-access.upstreams when it dials other services)
  - tsc -b tsconfig.json && node --test $dir/dist/service.test.js libs/fleet/dist/services.test.js
    (the second names whatever still does not follow the list)
EOF
