// From argv to a command: the global flags, then `wap <group> [<method>] [values] [--flags]`,
// each operation's flags made from its parameters in the SDK's generated table, so a
// capability added to the registry is a command without an edit here.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { OPERATIONS, type OperationSpec, type ParamSpec } from '@web-access/sdk';

export const SPECS = Object.values(OPERATIONS) as OperationSpec[];
export const GROUPS = [...new Set(SPECS.map((s) => s.group))].sort();
/** Commands of the CLI itself, beside the groups. */
export const OWN_COMMANDS = ['login', 'logout', 'status', 'completion', 'help'] as const;
/** Helpers of the SDK served as methods: `wap crawl wait <id>`. */
export const HELPERS: Record<string, string[]> = { crawl: ['wait'], agent: ['wait', 'follow'] };
/** Other names of a group's methods: `wap agent run <task> --wait` is `wap agent start <task> --wait`. */
export const ALIASES: Record<string, Record<string, string>> = { agent: { run: 'start' } };

/** The method `word` names in `group`, through its aliases. */
export const methodName = (group: string, word: string | undefined) => (word && ALIASES[group]?.[word]) || word;

/** Every word that names a method of `group`: its methods, their aliases, its helpers. */
export const methodWords = (group: string) => [
  ...SPECS.filter((s) => s.group === group).map((s) => s.name),
  ...Object.keys(ALIASES[group] ?? {}),
  ...(HELPERS[group] ?? []),
];

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command takes. */
export const GLOBAL_OPTIONS: Options = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  progress: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

export const GLOBAL_HELP: [string, string][] = [
  ['--api-key <key>', 'Use this API key (before SERVICE_API_KEY and the stored login)'],
  ['--base-url <url>', 'The deployment (default SERVICE_BASE_URL, else the login’s, else http://localhost:8080)'],
  ['--json', 'Machine output: JSON on stdout (one object per line for lists and streams)'],
  ['--timeout <duration>', 'The longest to wait, e.g. 90s, 10m, 2h (a bare number is seconds)'],
  ['--progress, --no-progress', 'Show progress on stderr (default: only when stderr is a terminal)'],
  ['--no-<flag>', 'A boolean flag set to false: --no-only-main-content'],
  ['-h, --help', 'Help on a command'],
];

/** Options a method takes beyond its parameters. */
export function extraOptions(spec: OperationSpec | undefined, helper?: string): Options {
  const extra: Options = {};
  if (spec?.hasBody) extra.data = { type: 'string' };
  if (spec?.page) extra.all = { type: 'boolean' };
  if ((spec?.id === 'crawl' || spec?.id === 'agent') && !helper) extra.wait = { type: 'boolean' };
  if (spec?.id === 'agent' || (spec?.group === 'agent' && helper === 'wait')) extra.ask = { type: 'boolean' };
  if (spec?.group === 'agent' && helper === 'follow') extra.level = { type: 'string' };
  if (spec?.id === 'scrape') extra['json-schema'] = { type: 'string' };
  if (spec?.id === 'parse' && !helper) extra.file = { type: 'string' };
  return extra;
}

export const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * A parameter named as a flag of every command (a scrape's `timeout`), or as the body's own `--data`
 * (a parse's file bytes, `data`), is set through `--data`.
 */
export const flaggable = (p: ParamSpec) =>
  p.in !== 'path' && !(p.name in GLOBAL_OPTIONS) && !(kebab(p.name) in GLOBAL_OPTIONS) && p.name !== 'data';

/** `--onlyMainContent` and `--only-main-content` for each parameter that is not in the path. */
export function paramOptions(spec: OperationSpec): Options {
  const options: Options = {};
  for (const p of spec.params) {
    if (!flaggable(p)) continue;
    const option = { type: p.type === 'boolean' ? 'boolean' : 'string', multiple: p.type === 'array' } as const;
    options[p.name] = option;
    options[kebab(p.name)] = option;
  }
  return options;
}

/** The fields values given without a flag fill: the required strings, else the first string. */
export function positionalFields(spec: OperationSpec): ParamSpec[] {
  const fields = spec.params.filter((p) => flaggable(p) && p.type === 'string');
  const required = fields.filter((p) => p.required);
  return required.length ? required : fields.slice(0, 1);
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** `90s`, `10m`, `2h`, `500ms`, or a bare number of seconds, as milliseconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) throw new UsageError(`--timeout ${text}: a duration such as 90s, 10m or 2h (a bare number is seconds)`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Number(m[1]) * factor;
  if (!(ms > 0)) throw new UsageError('--timeout must be above zero');
  return ms;
}

/** A flag's text as its parameter's JSON value. */
export function coerce(p: ParamSpec, raw: string | boolean | (string | boolean)[]): unknown {
  if (Array.isArray(raw)) {
    const values = raw.flatMap((v) => {
      if (typeof v !== 'string') return [v];
      if (v.trim().startsWith('[')) return JSON.parse(v) as unknown[];
      // `--formats markdown,html`: plain words split at commas; anything else is one value.
      return /^[\w.-]+(,[\w.-]+)+$/.test(v) ? v.split(',') : [v];
    });
    return p.items === 'string' || !p.items
      ? values
      : values.map((v) => coerce({ ...p, type: p.items ?? 'json' }, v as string));
  }
  if (typeof raw === 'boolean') return raw;
  const bad = (what: string) => new UsageError(`--${p.name} ${raw}: ${what}`);
  switch (p.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (p.type === 'integer' && !Number.isInteger(n)))
        throw bad(`an ${p.type === 'integer' ? 'integer' : 'number'}`);
      return n;
    }
    case 'object':
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        if (p.type === 'json') return raw;
        throw bad('JSON');
      }
    default:
      return raw;
  }
}

export interface OperationCommand {
  kind: 'operation';
  spec: OperationSpec;
  /** `wait`, `follow`: an SDK helper rather than the operation. */
  helper?: string;
  pathArgs: string[];
  params: Record<string, unknown>;
  flags: Record<string, unknown>;
}

export interface OwnCommand {
  kind: (typeof OWN_COMMANDS)[number] | 'version' | '__complete';
  args: string[];
  flags: Record<string, unknown>;
}

export type Command = OperationCommand | OwnCommand;

/** The method a word names in `group`, or the group's own operation (`wap crawl <url>`). */
export function resolveMethod(group: string, word: string | undefined) {
  const specs = SPECS.filter((s) => s.group === group);
  const named = specs.find((s) => s.name === methodName(group, word));
  if (named) return { spec: named, consumed: 1 };
  if (word && HELPERS[group]?.includes(word))
    return {
      spec: specs.find((s) => s.name === 'get' && s.pathParams.length === 1) as OperationSpec,
      helper: word,
      consumed: 1,
    };
  const own = specs.find((s) => s.id === group);
  return own ? { spec: own, consumed: 0 } : undefined;
}

/** The first word that is not a flag or a global flag's value. */
function splitCommand(argv: string[]): { command: string | undefined; rest: string[] } {
  const takesValue = new Set(
    Object.entries(GLOBAL_OPTIONS)
      .filter(([, o]) => o.type === 'string')
      .map(([n]) => `--${n}`),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (takesValue.has(arg)) i++;
      continue;
    }
    return { command: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: undefined, rest: argv };
}

export function parseCommand(argv: string[]): Command {
  const { command, rest } = splitCommand(argv);
  if (command === '__complete') return { kind: '__complete', args: rest, flags: {} };
  const own = (OWN_COMMANDS as readonly string[]).includes(command ?? '') ? (command as OwnCommand['kind']) : undefined;
  if (!command || own) {
    const extra: Options = own === 'login' ? { browser: { type: 'boolean' } } : {};
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...extra },
      allowPositionals: true,
      allowNegative: true,
      strict: true,
    });
    if (!command) return { kind: values.version ? 'version' : 'help', args: [], flags: values };
    return { kind: own as OwnCommand['kind'], args: positionals, flags: values };
  }
  if (!GROUPS.includes(command))
    throw new UsageError(`unknown command ${command}: one of ${[...OWN_COMMANDS, ...GROUPS].join(', ')}`);
  // The method is the first positional after the group, if it names one.
  const probe = parseArgs({
    args: rest,
    options: GLOBAL_OPTIONS,
    allowPositionals: true,
    allowNegative: true,
    strict: false,
    tokens: true,
  });
  const firstWord = probe.tokens?.find((t) => t.kind === 'positional')?.value;
  const resolved = resolveMethod(command, firstWord);
  if (!resolved) {
    if (probe.values.help || !firstWord) return { kind: 'help', args: [command], flags: probe.values };
    throw new UsageError(`wap ${command} ${firstWord}: not a method; one of ${methodWords(command).join(', ')}`);
  }
  const { spec, helper } = resolved;
  const options = { ...GLOBAL_OPTIONS, ...(helper ? {} : paramOptions(spec)), ...extraOptions(spec, helper) };
  const { values, positionals } = parseArgs({
    args: rest,
    options,
    allowPositionals: true,
    allowNegative: true,
    strict: true,
  });
  const words = positionals.slice(resolved.consumed);
  if (values.help)
    return { kind: 'help', args: [command, ...(resolved.consumed ? [firstWord as string] : [])], flags: values };
  const pathArgs = words.slice(0, spec.pathParams.length);
  if (pathArgs.length < spec.pathParams.length)
    throw new UsageError(`wap ${command} ${spec.name}: give ${spec.pathParams.map((p) => `<${p}>`).join(' ')}`);
  const params: Record<string, unknown> = {};
  if (!helper) {
    if (typeof values.data === 'string') Object.assign(params, readData(values.data));
    const extras = words.slice(spec.pathParams.length);
    const fields = positionalFields(spec);
    if (extras.length > fields.length)
      throw new UsageError(`wap ${command} ${spec.name}: unexpected ${extras.slice(fields.length).join(' ')}`);
    extras.forEach((value, i) => {
      params[(fields[i] as ParamSpec).name] = value;
    });
    for (const p of spec.params) {
      if (!flaggable(p)) continue;
      const raw = values[p.name] ?? values[kebab(p.name)];
      if (raw !== undefined) params[p.name] = coerce(p, raw as string);
    }
    if (typeof values['json-schema'] === 'string') askJson(params, values['json-schema']);
    if (typeof values.file === 'string') sendFile(params, values.file);
    const missing = spec.params.filter((p) => p.in !== 'path' && p.required && params[p.name] === undefined);
    if (missing.length)
      throw new UsageError(
        `wap ${command} ${spec.name}: missing ${missing.map((p) => `--${kebab(p.name)}`).join(', ')}`,
      );
  } else if (words.length > pathArgs.length)
    throw new UsageError(`unexpected ${words.slice(pathArgs.length).join(' ')}`);
  return { kind: 'operation', spec, ...(helper && { helper }), pathArgs, params, flags: values };
}

/** `--json-schema <file>`: the `json` format asked with the file's schema, beside the formats given (alone when none is). */
function askJson(params: Record<string, unknown>, file: string): void {
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(
      `--json-schema ${file}: ${(err as NodeJS.ErrnoException).code ? 'cannot be read' : 'not JSON'}`,
    );
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new UsageError(`--json-schema ${file}: a JSON Schema object`);
  const formats = Array.isArray(params.formats) ? params.formats : [];
  params.formats = formats.includes('json') ? formats : [...formats, 'json'];
  const options = typeof params.jsonOptions === 'object' && params.jsonOptions !== null ? params.jsonOptions : {};
  params.jsonOptions = { ...options, schema };
}

/** `--file <path>` of a parse: the file's bytes as `data` (base64), its name as `name` unless one is given. */
function sendFile(params: Record<string, unknown>, file: string): void {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new UsageError(`--file ${file}: cannot be read`);
  }
  params.data = bytes.toString('base64');
  params.name ??= basename(file);
}

/** `--data`: JSON inline, `@file`, or `-` for stdin. */
function readData(text: string): Record<string, unknown> {
  const raw =
    text === '-' ? readFileSync(0, 'utf8') : text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError('--data: a JSON object, @file or - (stdin)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('--data: a JSON object, @file or - (stdin)');
  return parsed as Record<string, unknown>;
}
