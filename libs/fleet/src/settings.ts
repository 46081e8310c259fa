import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageDir, SERVICES, type ServiceName } from '@wap/config';
import { FLEET_OWNED } from './env-file.js';
import { ROOT } from './fleet.js';

/** Every setting with its services, default and meaning: generated, never edited by hand. */
export const SETTINGS_DOC = path.join(ROOT, 'docs', 'settings.md');

export interface Setting {
  variable: string;
  services: ServiceName[];
  /** Per service: the default as written, 'required', or undefined when unset means "not configured". */
  defaults: Map<ServiceName, string | undefined>;
  /** What it means, in a sentence: the field's `.describe()`. */
  meaning: string | undefined;
  /** The default to show instead of the schema's, where that one depends on the machine (`.meta({ shownDefault })`). */
  shownDefault: string | undefined;
}

interface Field {
  _zod: { def: { type: string; defaultValue?: unknown; innerType?: Field; in?: Field } };
  meta(): { description?: string; shownDefault?: string } | undefined;
}

interface ZodLike {
  shape: Record<string, Field>;
}

/** Each service's environment schema: the `env` its config.ts exports (built, under dist/). */
export function serviceSchemas(): Map<ServiceName, ZodLike> {
  return new Map(SERVICES.map((s) => [s, require(path.join(ROOT, packageDir(s), 'dist', 'config.js')).env as ZodLike]));
}

function defaultOf(field: Field): string | undefined {
  const def = field._zod.def;
  if (def.type === 'default' || def.type === 'prefault') return String(def.defaultValue);
  if (def.type === 'optional') return undefined;
  return 'required';
}

/** The metadata of the field or of the schema it wraps (a shared field made `.optional()` by one service). */
function metaOf(field: Field): { description?: string; shownDefault?: string } {
  for (let schema: Field | undefined = field; schema; schema = schema._zod.def.innerType ?? schema._zod.def.in) {
    const meta = schema.meta();
    if (meta?.description !== undefined) return meta;
  }
  return {};
}

/**
 * Every variable some service reads, in the order the services declare them.
 * A variable two services describe differently has two meanings: declare it
 * once (libs/service's sharedEnv) and let both take it.
 */
export function settings(schemas = serviceSchemas()): Setting[] {
  const byName = new Map<string, Setting>();
  for (const [service, schema] of schemas) {
    for (const [variable, field] of Object.entries(schema.shape)) {
      const { description, shownDefault } = metaOf(field);
      const setting: Setting = byName.get(variable) ?? {
        variable,
        services: [],
        defaults: new Map(),
        meaning: description,
        shownDefault,
      };
      if (setting.meaning !== description)
        throw new Error(`${variable}: ${service} describes it otherwise than ${setting.services.join(', ')}`);
      setting.services.push(service);
      setting.defaults.set(service, defaultOf(field));
      byName.set(variable, setting);
    }
  }
  return [...byName.values()];
}

const code = (text: string) => `\`${text}\``;

function defaultCell(setting: Setting): string {
  if (setting.shownDefault) return setting.shownDefault;
  const values = new Set(setting.defaults.values());
  const show = (v: string | undefined) =>
    v === undefined ? 'unset' : v === 'required' ? 'required' : v === '' ? 'empty' : code(v);
  if (values.size === 1) return show([...values][0]);
  return [...setting.defaults].map(([s, v]) => `${s} ${show(v)}`).join(', ');
}

function servicesCell(setting: Setting): string {
  return setting.services.length === SERVICES.length ? 'all' : setting.services.join(', ');
}

/** A markdown table aligned the way biome formats one, so `biome check` leaves it alone. */
export function alignedTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** docs/settings.md: how settings reach the services, then one row per variable. */
export function renderSettingsDoc(list = settings()): string {
  const rows = list.map((s) => {
    const meaning = s.meaning ?? '';
    const owned = FLEET_OWNED.includes(s.variable) ? ' Set by `make up` for each service.' : '';
    return [code(s.variable), servicesCell(s), defaultCell(s), `${meaning}${owned}`];
  });
  return [
    '# Settings',
    '',
    "<!-- Generated from the services' config schemas (services/<name>/src/config.ts, libs/service's env.ts) by `node libs/fleet/dist/settings.js`: edit their .describe(), not this. -->",
    '',
    'Every service validates the variables it reads when it starts (its `src/config.ts`, a zod',
    'schema): a bad or missing one is named and the service exits. With `make up`, put them in',
    '`.env` at the repo root (README.md, "Settings"); in a cluster, in the chart\'s values',
    '(charts/web-access/README.md).',
    '',
    'A duration is written `500ms`, `30s`, `5m`, `1h` or `7d` (a bare number is milliseconds).',
    'Durations once carried their unit in their name (`CRAWL_ACK_WAIT_MS=30000`): a service',
    'given an old name refuses to start, naming the new one (`CRAWL_ACK_WAIT=30s`).',
    '',
    ...alignedTable(['variable', 'service(s)', 'default', 'meaning'], rows),
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(SETTINGS_DOC, renderSettingsDoc());
  console.log(`wrote ${SETTINGS_DOC}`);
}
