import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { renamedReason, SERVICE_TABLE } from '@wap/config';

/**
 * Variables the fleet sets for each service itself (its database, ports,
 * upstream addresses): a `.env` that set them would break the fleet, so it
 * may not. `make up`'s ports are WAP_HTTP_PORT, WAP_CDP_PORT and WAP_GRPC_BASE_PORT.
 */
export const FLEET_OWNED: readonly string[] = [
  'DATABASE_URL',
  'NATS_URL',
  'NATS_NAMESPACE',
  'GRPC_PORT',
  'HTTP_PORT',
  'CDP_PORT',
  'OTEL_SERVICE_NAME',
  ...SERVICE_TABLE.map((s) => s.address),
];

/**
 * The settings of a `.env` file (dotenv syntax, as `node --env-file` reads
 * it) for the services `make up` starts; none when the file does not exist.
 * `known` names every variable some service reads: a name outside it is a
 * typo, an old name or a setting no service has, and is refused rather than ignored.
 */
export function readEnvFile(file: string, known: ReadonlySet<string>): Record<string, string> {
  if (!existsSync(file)) return {};
  const vars = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  const problems = Object.keys(vars).flatMap((name) => {
    if (FLEET_OWNED.includes(name))
      return [`  ${name}: set by the fleet for each service; it cannot come from ${file}`];
    if (known.has(name)) return [];
    const renamed = renamedReason(name, vars[name] ?? '');
    return [`  ${name}: ${renamed ?? 'no service reads it (the settings are listed in docs/settings.md)'}`];
  });
  if (problems.length > 0) throw new Error(`${file}:\n${problems.join('\n')}`);
  return vars;
}
