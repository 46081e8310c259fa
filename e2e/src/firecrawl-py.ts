// Firecrawl's Python client (firecrawl-py's default `Firecrawl` class) called from the e2e suites:
// one method call in its own process (e2e/src/firecrawl_v2.py), its answer or typed error as JSON.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@wap/fleet';

const PYTHON = path.join(ROOT, '.tools/firecrawl-py/bin/python');
const PYTHON_CLIENT = path.join(ROOT, 'e2e/src/firecrawl_v2.py');
const run = promisify(execFile);

export type PyAnswer<T> =
  | { ok: true; result: T }
  | { ok: false; type: string; error: string; status?: number; code?: string };

/** One call of the Python client's default class against `apiUrl` with `apiKey`. */
export async function pyCall<T>(
  apiUrl: string,
  apiKey: string,
  method: string,
  args: unknown[],
  kwargs: Record<string, unknown> = {},
): Promise<PyAnswer<T>> {
  const { stdout } = await run(PYTHON, [PYTHON_CLIENT, apiUrl, apiKey, JSON.stringify({ method, args, kwargs })], {
    timeout: 120_000,
  });
  return JSON.parse(stdout) as PyAnswer<T>;
}

/** What the call returned; a failed assertion showing the error when it raised one. */
export function pyOk<T>(answer: PyAnswer<T>): T {
  assert.ok(answer.ok, JSON.stringify(answer));
  return answer.result;
}
