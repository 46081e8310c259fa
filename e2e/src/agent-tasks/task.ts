// A task of the suite: the sentence a person would give a browser agent, the
// page it starts on, the shape of the answer when one is wanted, and a check
// that reads what the site recorded for the run and the run's answer.
import type { Page } from 'playwright-core';
import type { Route, SiteRecord } from './site.js';

export type TaskKind =
  | 'form'
  | 'login'
  | 'date-picker'
  | 'dropdown'
  | 'autocomplete'
  | 'tabs-dialogs'
  | 'search'
  | 'navigation'
  | 'table'
  | 'shadow-iframe'
  | 'checkbox-radio'
  | 'cookie-banner'
  | 'slow'
  // The simple kinds, generated from a seed (sections/simple): a small model's ground.
  | 'click'
  | 'link'
  | 'focus'
  | 'dialog'
  | 'tab'
  | 'type-submit'
  | 'checkboxes'
  | 'sign-in'
  | 'pick'
  | 'passwords'
  | 'two-page'
  | 'date-field'
  | 'row-button';

/**
 * How many acts a task asks for: `single` is one act on the page (a click, a
 * focus), `multi` several in a row (fill, tick, then press the button).
 */
export type Acts = 'single' | 'multi';

export type JsonSchema = Record<string, unknown>;

export interface Verdict {
  ok: boolean;
  why: string;
}

export interface CheckContext {
  /** What the site recorded for this run's attempt. */
  records: SiteRecord[];
  /** The run's answer (null when it gave none). */
  answer: unknown;
}

export interface AgentTask {
  id: string;
  kind: TaskKind;
  /** What a person would write; it names no selectors. */
  task: string;
  /** The start page, inside the attempt's URL space. */
  path: string;
  outputSchema?: JsonSchema;
  /**
   * How many acts doing it takes, where the task was written to measure that
   * (the simple kinds set it, so a report can tell a model that cannot act
   * at all from one that loses its way in a sequence); unset elsewhere.
   */
  acts?: Acts;
  check(ctx: CheckContext): Verdict;
}

/** A scripted solution: drives a page already at the task's start URL the way a person would; returns the answer. */
export type Solution = (page: Page) => Promise<unknown>;

/** One part of the site: its pages, the tasks on them and a solution for each task. */
export interface Section {
  routes: Route[];
  tasks: AgentTask[];
  solutions: Record<string, Solution>;
  /**
   * Wrong ways to do a task, by task id then by what goes wrong (the wrong
   * button, the right form sent twice...): scripted like a solution, each
   * must leave the task's check failing.
   */
  mistakes?: Record<string, Record<string, Solution>>;
}

export const pass = (why: string): Verdict => ({ ok: true, why });
export const fail = (why: string): Verdict => ({ ok: false, why });

/** The first verdict that failed, or a pass naming them all. */
export function all(...verdicts: Verdict[]): Verdict {
  return verdicts.find((v) => !v.ok) ?? pass(verdicts.map((v) => v.why).join('; '));
}

/** Text compared as a person reads it: case, accents, punctuation and spacing aside. */
export function plain(value: unknown): string {
  return String(value ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** A number from a number or from text such as "€1,284.50". */
export function numeric(value: unknown): number {
  if (typeof value === 'number') return value;
  const text = String(value ?? '').replace(/[^0-9.-]/g, '');
  return text ? Number(text) : Number.NaN;
}

/** Whether `actual` is `expected`: numbers to the cent, text as `plain` reads it, arrays item by item. */
export function same(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => same(actual[i], e));
  if (typeof expected === 'number') return Math.abs(numeric(actual) - expected) < 0.005;
  if (typeof expected === 'boolean') return actual === expected;
  return plain(actual) === plain(expected);
}

/** Each field of `expected` against the same field of `actual`; the first that differs is the reason. */
export function fields(what: string, actual: unknown, expected: Record<string, unknown>): Verdict {
  const got = (actual ?? {}) as Record<string, unknown>;
  if (typeof actual !== 'object' || actual === null) return fail(`${what}: none`);
  for (const [key, want] of Object.entries(expected))
    if (!same(got[key], want))
      return fail(`${what}: ${key} is ${JSON.stringify(got[key])}, not ${JSON.stringify(want)}`);
  return pass(`${what} as asked`);
}

/** The one record of `kind`: a run that submitted twice did not do what was asked either. */
export function only(records: SiteRecord[], kind: string): SiteRecord | Verdict {
  const found = records.filter((r) => r.kind === kind);
  if (found.length === 1) return found[0] as SiteRecord;
  return fail(found.length === 0 ? `no ${kind} recorded` : `${found.length} ${kind} records, one was asked for`);
}

/** The fields of the one record of `kind` against `expected`. */
export function recorded(records: SiteRecord[], kind: string, expected: Record<string, unknown>): Verdict {
  const found = only(records, kind);
  return 'ok' in found ? found : fields(kind, found.data, expected);
}

/** The one record of `kind` holds exactly the items `expected` in its list field `key`, in any order. */
export function listed(records: SiteRecord[], kind: string, key: string, expected: string[]): Verdict {
  const found = only(records, kind);
  if ('ok' in found) return found;
  const got = ((found.data[key] as string[] | undefined) ?? []).toSorted().join();
  return got === expected.toSorted().join() ? pass(`${key}: ${got}`) : fail(`${key} is [${got}], not [${expected}]`);
}

/** The answer's fields against `expected`. */
export function answered(answer: unknown, expected: Record<string, unknown>): Verdict {
  return fields('answer', answer, expected);
}

/** The same items in any order, compared by `key` then field by field. */
export function sameSet(what: string, actual: unknown, expected: Record<string, unknown>[], key: string): Verdict {
  if (!Array.isArray(actual)) return fail(`${what}: not a list`);
  if (actual.length !== expected.length) return fail(`${what}: ${actual.length} items, not ${expected.length}`);
  for (const want of expected) {
    const got = actual.find((a) => same((a as Record<string, unknown>)?.[key], want[key]));
    if (!got) return fail(`${what}: ${String(want[key])} is missing`);
    const verdict = fields(`${what} ${String(want[key])}`, got, want);
    if (!verdict.ok) return verdict;
  }
  return pass(`${what} as expected`);
}

/** A JSON Schema object with these properties, all required. */
export function objectSchema(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}
