// A request as code to copy: curl, and the TypeScript and Python SDKs (clients/). The key is
// never written into the code: each reads it from SERVICE_API_KEY, as the SDKs do by default.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys that need no quotes in a JavaScript object literal. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JavaScript literal of `value`, indented by two spaces a level (JSON with bare keys). */
function js(value: Json, depth = 0): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => typeof v !== 'object' || v === null)) return `[${value.map((v) => js(v)).join(', ')}]`;
    return `[\n${value.map((v) => pad + js(v, depth + 1)).join(',\n')},\n${end}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (k: string) => (IDENTIFIER.test(k) ? k : JSON.stringify(k));
    return `{\n${entries.map(([k, v]) => `${pad}${key(k)}: ${js(v, depth + 1)}`).join(',\n')},\n${end}}`;
  }
  return JSON.stringify(value);
}

/** A Python literal of `value`: JSON's, with True, False and None. */
function py(value: Json, depth = 0): string {
  const pad = '    '.repeat(depth + 1);
  const end = '    '.repeat(depth);
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => typeof v !== 'object' || v === null)) return `[${value.map((v) => py(v)).join(', ')}]`;
    return `[\n${value.map((v) => pad + py(v, depth + 1)).join(',\n')},\n${end}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${py(v, depth + 1)}`).join(',\n')},\n${end}}`;
  }
  return JSON.stringify(value);
}

/** The Python SDK's name of a body field: `onlyMainContent` is `only_main_content`. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `text` inside single quotes for a POSIX shell. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** POST `path` with `body` as curl, the key from the environment. */
export function curlOf(baseUrl: string, path: string, body: Record<string, Json>): string {
  return [
    `curl -X POST ${shellQuoted(`${baseUrl}${path}`)} \\`,
    `  -H "Authorization: Bearer $SERVICE_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuoted(JSON.stringify(body, null, 2))}`,
  ].join('\n');
}

/** A scrape with the TypeScript SDK (@web-access/sdk). */
export function typescriptScrapeOf(baseUrl: string, body: Record<string, Json>): string {
  return [
    `import { Client } from '@web-access/sdk';`,
    '',
    `const client = new Client({ baseUrl: ${JSON.stringify(baseUrl)} }); // the key from SERVICE_API_KEY`,
    `const page = await client.scrape.start(${js(body)});`,
    'console.log(page.data, page.usage.credits);',
  ].join('\n');
}

/** A scrape with the Python SDK (web_access): the body's fields as keyword arguments. */
export function pythonScrapeOf(baseUrl: string, body: Record<string, Json>): string {
  const args = Object.entries(body).map(([k, v]) => `    ${snake(k)}=${py(v, 1)},`);
  return [
    'from web_access import WebAccess',
    '',
    `client = WebAccess(base_url=${JSON.stringify(baseUrl)})  # the key from SERVICE_API_KEY`,
    'page = client.scrape.start(',
    ...args,
    ')',
    'print(page.data, page.usage.credits)',
  ].join('\n');
}

export type { Json };
