import ms from 'ms';
import { z } from 'zod';

/**
 * Field builders for environment variables. Each takes the raw string and
 * fails with `expected <what>, got "<value>"`, so loadConfig can print one line
 * per variable an operator can act on without reading the code.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export function port() {
  return parsed('an integer between 1 and 65535', toPort);
}

/**
 * An absolute URL, kept as written (drivers take strings); protocols like "postgresql:".
 * With `list`, one or more separated by commas (the servers of a NATS cluster), kept as
 * written without the spaces.
 */
export function url(options: { protocols?: readonly string[]; list?: boolean } = {}) {
  const protocols = options.protocols?.map((p) => (p.endsWith(':') ? p : `${p}:`));
  const one = protocols ? `a URL with protocol ${protocols.join(' or ')}` : 'an absolute URL';
  const valid = (raw: string) => {
    if (!URL.canParse(raw)) return false;
    const parsedUrl = new URL(raw);
    return parsedUrl.host !== '' && (!protocols || protocols.includes(parsedUrl.protocol));
  };
  return parsed(
    options.list ? `${one}, or several separated by commas` : one,
    (raw) => {
      const parts = options.list ? raw.split(',').map((part) => part.trim()) : [raw];
      return parts.every(valid) ? parts.join(',') : undefined;
    },
    // A URL is where credentials hide (postgresql://user:password@...); a bad
    // one is echoed without them so the error can go to logs.
    (raw) => quote(options.list ? raw.split(',').map(redactUrl).join(',') : redactUrl(raw)),
  );
}

/**
 * A duration as vercel's `ms` reads it ("500ms", "30s", "5m", "1h", "7d", or a
 * bare number of milliseconds); yields milliseconds. `min` and `max`, written
 * the same way, bound it.
 */
export function duration(bounds: { min?: string; max?: string } = {}) {
  const min = bounds.min === undefined ? 0 : durationOf(bounds.min);
  const max = bounds.max === undefined ? Number.MAX_SAFE_INTEGER : durationOf(bounds.max);
  const range = rangeOf(bounds);
  const forms = '500ms, 30s, 5m, 7d or a number of milliseconds';
  return parsed(range ? `a duration ${range} (${forms})` : `a duration such as ${forms}`, (raw) => {
    const value = parseDuration(raw);
    return value !== undefined && value >= min && value <= max ? value : undefined;
  });
}

export function bool() {
  return parsed('one of true, false, 1, 0, yes, no', (raw) => BOOLEANS.get(raw.toLowerCase()));
}

export function logLevel() {
  return parsed(`one of ${LOG_LEVELS.join(', ')}`, (raw) => {
    const level = raw.toLowerCase();
    return (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : undefined;
  });
}

/** Comma-separated values, trimmed, empty items dropped. */
export function csv() {
  return z.string().transform((raw) =>
    raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );
}

/** "host:port" or "[ipv6]:port"; the host comes back without brackets. */
export function hostPort() {
  return parsed('host:port with a port between 1 and 65535', (raw): HostPort | undefined => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+)):([0-9]+)$/.exec(raw);
    const host = match?.[1] ?? match?.[2];
    const portNumber = toPort(match?.[3] ?? '');
    return host !== undefined && portNumber !== undefined ? { host, port: portNumber } : undefined;
  });
}

const BOOLEANS = new Map([
  ['true', true],
  ['1', true],
  ['yes', true],
  ['false', false],
  ['0', false],
  ['no', false],
]);

function parseDuration(raw: string): number | undefined {
  if (raw === '') return undefined; // ms throws on an empty string
  const value = Math.round(ms(raw as ms.StringValue));
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function rangeOf({ min, max }: { min?: string; max?: string }): string {
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `of at least ${min}`;
  return max !== undefined ? `of at most ${max}` : '';
}

function durationOf(written: string): number {
  const value = parseDuration(written);
  if (value === undefined) throw new Error(`not a duration: ${JSON.stringify(written)}`);
  return value;
}

function toPort(raw: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= 1 && value <= 65535 ? value : undefined;
}

/** A string schema that parses with `parse`, which answers undefined to reject. */
function parsed<T>(expected: string, parse: (raw: string) => T | undefined, show: (raw: string) => string = quote) {
  return z.string().transform((raw, ctx) => {
    const value = parse(raw.trim());
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected ${expected}, got ${show(raw)}` });
      return z.NEVER;
    }
    return value;
  });
}

function quote(raw: string): string {
  return JSON.stringify(raw.length > 80 ? `${raw.slice(0, 77)}...` : raw);
}

function redactUrl(raw: string): string {
  return raw.replace(/^(\s*[a-z][a-z0-9+.-]*:\/\/).*@/is, '$1***@').replace(/\?.*$/s, '?***');
}
