// `wap`: the command line of the web access platform (README.md). Each capability group of
// the SDK is a command, each operation a method of it; login, logout, status, completion.
import { createRequire } from 'node:module';
import { createInterface, type Interface } from 'node:readline';
import {
  type AgentRunStatus,
  API_VERSION,
  APIError,
  Client,
  type CrawlStatus,
  type KeyringModule,
  LoginError,
  LoginStore,
  type OperationSpec,
  WaitTimeoutError,
  WebAccessError,
} from '@web-access/sdk';
import {
  ALIASES,
  type Command,
  flaggable,
  GLOBAL_HELP,
  GROUPS,
  HELPERS,
  kebab,
  methodName,
  methodWords,
  type OperationCommand,
  OWN_COMMANDS,
  parseCommand,
  parseDuration,
  positionalFields,
  SPECS,
  UsageError,
} from './args.js';
import { complete, SCRIPTS } from './completion.js';
import { LoginFailed, login, logout } from './oauth.js';
import { documentText, type Io, Output, render, summary } from './output.js';

export const VERSION = '0.1.0';

/** Exit statuses: 2 a usage error, 3 waited-for work that did not complete, 124 a wait that timed out. */
const EXIT = { ok: 0, error: 1, usage: 2, incomplete: 3, timeout: 124 } as const;

/** @napi-rs/keyring, the CLI's own dependency; null where its native part does not load. */
function keyring(): KeyringModule | null {
  try {
    return createRequire(__filename)('@napi-rs/keyring') as KeyringModule;
  } catch {
    return null;
  }
}

const loginStore = (io: Io) => new LoginStore({ env: io.env, keyring: keyring() });

/** The client of a command: --api-key, then SERVICE_API_KEY, then the stored login (the SDK's order). */
function makeClient(flags: Record<string, unknown>, io: Io, timeoutMs?: number): Client {
  return new Client({
    apiKey: flags['api-key'] as string | undefined,
    baseUrl: flags['base-url'] as string | undefined,
    login: loginStore(io),
    ...(timeoutMs && { timeoutMs }),
  });
}

const OWN_HELP: Record<(typeof OWN_COMMANDS)[number], string> = {
  login: 'Sign in through the browser (--no-browser: print the address only) and store the tokens',
  logout: 'Revoke the stored login and forget it',
  status: 'Which credential is in use, where it came from, and the credits left',
  completion: 'Print a shell completion script: wap completion bash|zsh|fish',
  help: 'Help on a command: wap help crawl',
};

function flagHelp(spec: OperationSpec): string[] {
  const viaData = spec.params.filter((p) => p.in !== 'path' && !flaggable(p)).map((p) => p.name);
  return spec.params
    .filter(flaggable)
    .map((p) => {
      const type = p.enum ? p.enum.map(String).join('|') : p.type === 'array' ? `${p.items ?? 'json'}...` : p.type;
      const extra = [
        p.required ? 'required' : '',
        p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `  --${kebab(p.name)} <${type}>${extra ? ` (${extra})` : ''}\n      ${p.description ?? ''}`.trimEnd();
    })
    .concat(viaData.length ? [`  (${viaData.join(', ')}: through --data, whose flag is another's)`] : []);
}

function usageLine(spec: OperationSpec, helper?: string): string {
  const words = [
    'wap',
    spec.group,
    ...(helper ? [helper] : spec.id === spec.group ? [] : [spec.name]),
    ...spec.pathParams.map((p) => `<${p}>`),
    ...(helper ? [] : positionalFields(spec).map((p) => `[<${p.name}>]`)),
  ];
  return words.join(' ');
}

function help(args: string[], out: Output): void {
  const [group, method] = args;
  const lines: string[] = [];
  if (!group || !GROUPS.includes(group)) {
    lines.push(`wap ${VERSION}: the web access platform from the command line (API ${API_VERSION})`, '');
    lines.push('Usage: wap <command> [<method>] [values] [--flags]', '', 'Commands:');
    for (const c of OWN_COMMANDS) lines.push(`  ${c.padEnd(14)} ${OWN_HELP[c]}`);
    for (const g of GROUPS) lines.push(`  ${g.padEnd(14)} ${methodWords(g).join(', ')}`);
    lines.push('', 'Flags of every command:', ...GLOBAL_HELP.map(([f, t]) => `  ${f.padEnd(26)} ${t}`));
    lines.push('', 'Credentials: --api-key, else SERVICE_API_KEY, else the login of `wap login`.');
  } else {
    const specs = SPECS.filter((s) => s.group === group);
    const spec =
      specs.find((s) => s.name === methodName(group, method)) ??
      (method ? undefined : specs.find((s) => s.id === group));
    if (spec && (method || specs.length === 1)) {
      lines.push(usageLine(spec), '', `${spec.summary}: ${spec.method} ${spec.path}`);
      if (spec.description) lines.push('', spec.description);
      const flags = flagHelp(spec);
      if (flags.length) lines.push('', 'Flags:', ...flags);
      if (spec.hasBody) lines.push('  --data <json|@file|->', '      The body as JSON (flags override its fields)');
      if (spec.page) lines.push('  --all', '      Every item, page after page, one per line');
      if (spec.id === 'crawl' || spec.id === 'agent')
        lines.push('  --wait', '      Wait until it is settled (progress on stderr)');
      if (spec.id === 'agent') lines.push('  --ask', '      With --wait: read answers to its questions from stdin');
      if (spec.id === 'parse')
        lines.push(
          '  --file <path>',
          '      The file to read: its bytes as `data`, its name as `name` unless --name is given',
        );
      if (spec.id === 'scrape')
        lines.push(
          '  --json-schema <file>',
          "      The page's data in this JSON Schema (the json format; with --formats, added to them)",
        );
    } else if (HELPERS[group]?.includes(method ?? '')) {
      lines.push(`wap ${group} ${method} <id>`, '');
      lines.push(
        method === 'follow'
          ? 'Every event of the run as it happens, until it is settled (--level summary|step|debug)'
          : `Wait until the ${group === 'crawl' ? 'crawl' : 'run'} is settled (--timeout, default ${group === 'crawl' ? '30m' : '1h'})`,
      );
    } else {
      lines.push(`wap ${group} <method>`, '', 'Methods:');
      for (const s of specs)
        lines.push(`  ${(s.id === group ? `${s.name} (default)` : s.name).padEnd(22)} ${s.summary}`);
      for (const [alias, name] of Object.entries(ALIASES[group] ?? {}))
        lines.push(`  ${alias.padEnd(22)} ${specs.find((s) => s.name === name)?.summary} (the same as ${name})`);
      for (const h of HELPERS[group] ?? [])
        lines.push(`  ${h.padEnd(22)} ${h === 'wait' ? 'Wait until it is settled' : 'Follow its events'}`);
    }
  }
  out.io.stdout.write(`${lines.join('\n')}\n`);
}

/** Human renderings of some answers; the rest are shown as key: value lines. */
const HUMAN: Record<string, (v: Record<string, unknown>) => string> = {
  scrape: (v) => documentText(v.data) ?? render(v.data),
  search: (v) =>
    ((v.data as Record<string, unknown>[]) ?? []).map((hit) => `${hit.title ?? '-'}\n  ${hit.url}`).join('\n'),
  credits: (v) => `${v.available} credits available (${v.remaining} remaining, ${v.held} held)`,
  crawl: (v) => `Crawl ${v.id} started: wap crawl wait ${v.id} follows it`,
  agent: (v) => `Run ${v.id} ${(v.run as { status: string }).status}: wap agent wait ${v.id} follows it`,
};

function pageHuman(spec: OperationSpec) {
  return (v: unknown) => {
    const page = v as Record<string, unknown>;
    const items = (page[spec.page?.items ?? ''] as unknown[]) ?? [];
    const lines = items.length ? items.map(summary) : ['(none)'];
    if (typeof page.nextCursor === 'string') lines.push(`more: --cursor ${page.nextCursor} (or --all for every page)`);
    return lines.join('\n');
  };
}

function crawlSummary(s: CrawlStatus): string {
  const c = s.crawl;
  return `Crawl ${c.id} ${c.status}${c.outcome ? ` (${c.outcome})` : ''}: ${c.completed} pages delivered, ${c.failed} failed, ${c.usage.credits} credits`;
}

function runSummary(s: AgentRunStatus): string {
  const r = s.run;
  const lines = [
    `Run ${r.id} ${r.status}${r.outcome ? ` (${r.outcome})` : ''}: ${r.steps} steps, ${r.usage.credits} credits`,
  ];
  if (r.answer !== null && r.answer !== undefined)
    lines.push(`Answer: ${typeof r.answer === 'string' ? r.answer : JSON.stringify(r.answer, null, 2)}`);
  if (r.reason) lines.push(`Reason: ${r.reason.code}: ${r.reason.message}`);
  return lines.join('\n');
}

async function waitCrawl(client: Client, id: string, out: Output, timeoutMs?: number): Promise<number> {
  const done = await client.crawl.wait(id, {
    ...(timeoutMs && { timeoutMs }),
    onProgress: (s) => {
      const total = Math.min(s.crawl.limit, Math.max(s.total, s.crawl.completed));
      out.bar(s.crawl.completed, total, `pages  ${s.crawl.failed} failed  ${s.crawl.status}`);
    },
  });
  out.endStatus();
  out.result(done, () => crawlSummary(done));
  return ['completed', 'limit_reached'].includes(done.crawl.outcome ?? '') ? EXIT.ok : EXIT.incomplete;
}

/** How long a settled run's feed may take to hand over its last events. */
const FEED_GRACE_MS = 5_000;

/** Waits for a run: its steps on stderr, one line each, as they happen, its questions answered from stdin when asked to. */
async function waitRun(
  client: Client,
  id: string,
  cmd: OperationCommand,
  out: Output,
  timeoutMs?: number,
): Promise<number> {
  const io = out.io;
  const steps = new AbortController();
  const following = out.progress
    ? (async () => {
        for await (const e of client.agent.follow(id, { level: 'step', signal: steps.signal }))
          out.line(`  ${String(e.seq).padStart(3)} ${e.kind.padEnd(9)} ${e.message}`.replace(/\s+$/, ''));
      })().catch(() => undefined)
    : undefined;
  const ask = cmd.flags.ask === true || io.stdin.isTTY === true;
  let lines: Interface | undefined;
  let reader: AsyncIterator<string> | undefined;
  const told = new Set<string>();
  try {
    const done = await client.agent.wait(id, {
      ...(timeoutMs && { timeoutMs }),
      onQuestion: async (question) => {
        if (!ask) {
          if (!told.has(question))
            out.note(`The run asks: ${question}\nAnswer it with: wap agent answer ${id} "<answer>"`);
          told.add(question);
          return undefined;
        }
        io.stderr.write(`The run asks: ${question}\n> `);
        lines ??= createInterface({ input: io.stdin, terminal: false });
        reader ??= lines[Symbol.asyncIterator]();
        const next = await reader.next();
        return next.done || !next.value.trim() ? undefined : next.value.trim();
      },
    });
    // The last events (the step that finished, the answer) come after the state that says settled: the
    // feed ends by itself once it read them, or is stopped after a moment.
    await Promise.race([following, new Promise((resolve) => setTimeout(resolve, FEED_GRACE_MS).unref())]);
    steps.abort();
    await following;
    out.result(done, () => runSummary(done));
    return done.run.outcome === 'completed' ? EXIT.ok : EXIT.incomplete;
  } finally {
    steps.abort();
    lines?.close();
  }
}

async function operation(cmd: OperationCommand, out: Output): Promise<number> {
  const timeoutMs = typeof cmd.flags.timeout === 'string' ? parseDuration(cmd.flags.timeout) : undefined;
  const { spec, helper, pathArgs, params } = cmd;
  const client = makeClient(cmd.flags, out.io, timeoutMs);
  const id = pathArgs[0] as string;
  if (helper === 'wait')
    return spec.group === 'crawl' ? waitCrawl(client, id, out, timeoutMs) : waitRun(client, id, cmd, out, timeoutMs);
  if (helper === 'follow') {
    const level = (cmd.flags.level as 'summary' | 'step' | 'debug' | undefined) ?? 'step';
    for await (const event of client.agent.follow(id, { level })) out.item(event);
    return EXIT.ok;
  }
  const call = client.invoke(spec.id, pathArgs, params, timeoutMs ? { timeoutMs } : {});
  if (spec.answer === 'ndjson' || spec.answer === 'sse') {
    for await (const item of (await call) as AsyncIterable<unknown>) out.item(item);
    return EXIT.ok;
  }
  if (spec.page && cmd.flags.all === true) {
    for await (const item of call as unknown as AsyncIterable<unknown>) out.item(item);
    return EXIT.ok;
  }
  const answer = (await call) as Record<string, unknown>;
  if (cmd.flags.wait === true && spec.id === 'crawl') {
    out.note(`Crawl ${answer.id} started`);
    return waitCrawl(client, answer.id as string, out, timeoutMs);
  }
  if (cmd.flags.wait === true && spec.id === 'agent') {
    out.note(`Run ${answer.id} submitted`);
    return waitRun(client, answer.id as string, cmd, out, timeoutMs);
  }
  const human = spec.page
    ? pageHuman(spec)
    : spec.answer === 'redirect'
      ? () => String(answer.location)
      : HUMAN[spec.id];
  out.result(answer, human as ((v: unknown) => string) | undefined);
  return EXIT.ok;
}

async function status(flags: Record<string, unknown>, out: Output): Promise<number> {
  const store = loginStore(out.io);
  const client = makeClient(flags, out.io);
  const c = client.credential;
  const found = c.source === 'login' ? store.read() : undefined;
  const login = found?.status === 'found' ? found.login : undefined;
  const from =
    c.source === 'option'
      ? { source: 'flag', name: '--api-key' }
      : c.source === 'env'
        ? { source: 'variable', name: 'SERVICE_API_KEY' }
        : { source: 'login', storage: c.storage, ...(c.storage === 'file' && { file: c.file }) };
  const credits = await client.credits.get();
  const state = {
    credential: from,
    baseUrl: client.baseUrl,
    ...(login && { signedInTo: login.baseUrl, accessTokenExpiresAt: new Date(login.expiresAt).toISOString() }),
    credits,
  };
  out.result(state, () => {
    const where =
      c.source === 'option'
        ? 'an API key given with --api-key'
        : c.source === 'env'
          ? 'an API key from the SERVICE_API_KEY variable'
          : `the login stored ${c.storage === 'keyring' ? 'in the OS keyring' : `in ${c.file}`} (refreshed as it nears expiry)`;
    return [
      `Credential: ${where}`,
      `API: ${client.baseUrl}`,
      `Credits left: ${credits.available} available (${credits.remaining} remaining, ${credits.held} held)`,
    ].join('\n');
  });
  return EXIT.ok;
}

async function dispatch(command: Command, out: Output): Promise<number> {
  const io = out.io;
  switch (command.kind) {
    case 'help':
      help(command.args, out);
      return EXIT.ok;
    case 'version':
      io.stdout.write(`wap ${VERSION} (API ${API_VERSION})\n`);
      return EXIT.ok;
    case '__complete': {
      const candidates = complete(command.args);
      io.stdout.write(candidates.length ? `${candidates.join('\n')}\n` : '');
      return EXIT.ok;
    }
    case 'completion': {
      const script = SCRIPTS[command.args[0] ?? ''];
      if (!script) throw new UsageError('wap completion bash|zsh|fish');
      io.stdout.write(script);
      return EXIT.ok;
    }
    case 'login': {
      const flags = command.flags;
      const baseUrl = (
        (flags['base-url'] as string | undefined) ||
        io.env.SERVICE_BASE_URL ||
        'http://localhost:8080'
      ).replace(/\/+$/, '');
      const stored = await login({
        baseUrl,
        store: loginStore(io),
        env: io.env,
        noBrowser: flags.browser === false,
        timeoutMs: typeof flags.timeout === 'string' ? parseDuration(flags.timeout) : 5 * 60_000,
        note: (text) => out.note(text),
      });
      if (stored.warning) out.note(`warning: ${stored.warning}`);
      out.result(
        { signedIn: true, baseUrl, storage: stored.storage, ...(stored.storage === 'file' && { file: stored.file }) },
        () =>
          `Signed in to ${baseUrl}; the login is kept ${stored.storage === 'keyring' ? 'in the OS keyring' : `in ${stored.file}`}.`,
      );
      return EXIT.ok;
    }
    case 'logout': {
      const ended = await logout(loginStore(io));
      if (ended?.error) out.note(`warning: the tokens could not be revoked (${ended.error}); they are forgotten here`);
      out.result(
        { signedOut: ended !== undefined, ...(ended && { baseUrl: ended.baseUrl, revoked: ended.revoked }) },
        () =>
          ended
            ? `Signed out of ${ended.baseUrl}${ended.revoked ? '; its tokens are revoked' : ''}.`
            : 'Not signed in.',
      );
      return EXIT.ok;
    }
    case 'status':
      return status(command.flags, out);
    case 'operation':
      return operation(command, out);
  }
}

/** Runs one command line; answers the exit status. */
export async function run(argv: string[], io: Io): Promise<number> {
  let out = new Output(io, { json: argv.includes('--json') });
  try {
    const command = parseCommand(argv);
    out = new Output(io, command.flags);
    return await dispatch(command, out);
  } catch (err) {
    return report(err, out);
  }
}

function report(err: unknown, out: Output): number {
  out.endStatus();
  const say = (text: string, json: unknown) =>
    out.io.stderr.write(out.json ? `${JSON.stringify(json)}\n` : `wap: ${text}\n`);
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
    say(`${(err as Error).message}\nSee: wap help`, { error: { code: 'usage', message: (err as Error).message } });
    return EXIT.usage;
  }
  if (err instanceof APIError) {
    const details = err.details ? `\n${render(err.details, '  ')}` : '';
    say(`${err.message}${details}`, { error: { ...err.error, status: err.status, requestId: err.requestId } });
    return EXIT.error;
  }
  if (err instanceof WaitTimeoutError) {
    say(err.message, { error: { code: 'wait_timeout', message: err.message, last: err.last } });
    return EXIT.timeout;
  }
  if (
    err instanceof WebAccessError ||
    err instanceof LoginFailed ||
    err instanceof LoginError ||
    err instanceof TypeError
  ) {
    say((err as Error).message, { error: { code: err.name, message: (err as Error).message } });
    return EXIT.error;
  }
  throw err;
}
