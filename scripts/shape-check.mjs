#!/usr/bin/env node
// The mechanical part of docs/service-shape.md, checked by `make lint`:
// - one file per RPC: every rpc of the protos a service serves has
//   `src/rpc/<kebab-name>.ts`, beside `index.ts`; and `src/rpc/` holds only
//   those, `deps.ts`, `index.ts`, `parse.ts` and tests: how a row reads back
//   as the contract's message is a view, in `src/views/`, which imports no RPC;
// - `src/domain/` is pure: it imports nothing of the service outside itself
//   but the types of a `types.ts` (the model's and the browser's words), so
//   no store, client, model call or job reaches it;
// - the layers hold: only the composition root (and `rpc/` itself) imports
//   `rpc/`; `rpc/`, `views/`, `store/`, `domain/` and `clients/` import no
//   `jobs/` (a handler asks background work through what `deps.ts` declares);
// - the database only from `src/store/`: no Prisma call elsewhere;
// - the environment only from `src/config.ts`: no `process.env` elsewhere;
// - a setting's meaning is its `.describe()` (docs/settings.md is made of them),
//   never a doc comment above it as well;
// - a package is imported by the names it exports, never by a path into its
//   `dist/` (tests and benches included): what another package may use is in
//   its package.json's `exports`;
// - no hand-written source file (tests, benches and generated code aside) is
//   over 600 lines: one that long holds two ideas (split it by concern);
// - one composition root a service: a top-level `src/<name>.ts` exporting
//   `open<Name>(config, db, nats, log)`, a fifth `options` (what tests set
//   apart from the settings) at most;
// - no import circle within a package (type-only imports count: a circle of
//   types is two modules that each need the other's words, one idea split in
//   two; the shared words go to a module both import);
// - test code is named so: a module of `src/` that only tests import is a
//   `test-support.ts` (fixtures) or stands in a folder of one test's parts
//   (`src/<name>-test/`), and no other module imports one of those.
// Tests, benches, test-support and generated code are not checked. A file that
// breaks a rule today for a reason is listed below with that reason; a new
// one fails the lint. Only Node's own modules: it runs before anything is built.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The protos each service serves (its service.ts registers them). */
const SERVED = {
  agent: [
    'agent/v1/agent.proto',
    'agent/v1/secrets.proto',
    'agent/v1/integrations.proto',
    'agent/v1/rules.proto',
    'agent/v1/extract.proto',
  ],
  'billing-ledger': ['billing/v1/ledger.proto'],
  'browser-host': ['browser/v1/browser.proto'],
  crawl: ['crawl/v1/crawl.proto'],
  monitor: ['monitor/v1/monitor.proto'],
  'session-recorder': ['sessions/v1/sessions.proto'],
};

/** Known exceptions, each with why; remove a line when its file is brought into shape. */
const ALLOWED = {
  rpcFile: {},
  prisma: {
    'services/gateway/src/oauth/store.ts': 'the OAuth store, kept beside its routes (docs/oauth.md)',
    'services/gateway/src/oauth/identity.ts':
      'who is calling (keys, workspaces, members), kept with the OAuth store it opens (docs/oauth.md)',
  },
  testOnly: {
    'services/gateway/src/registry/render-docs.ts':
      'a program of its own (make generate runs it), which its test imports',
    'services/billing-ledger/src/domain/spending.ts':
      'the spending order ledger_draw applies in SQL, stated in TypeScript for the tests to hold the SQL to',
  },
  env: {
    'services/gateway/src/admin.ts': 'the operator command, a process of its own with the gateway environment',
    'services/gateway/src/chart-test.ts': "`helm test`'s program, a process of its own in the test pod",
    'services/browser-host/src/autoscale/metrics-api.ts': 'the metrics API server, a process of its own',
    'services/browser-host/src/sessions/os-users.ts': "passes PATH on to the sandboxed browser's launcher",
    'services/agent/src/model/embedded.ts': "the model directory's default, shared with the model fetcher",
  },
};

/** The folders of `src/` that import nothing from `jobs/`. */
const BELOW_JOBS = ['rpc', 'views', 'store', 'domain', 'clients'];

/** What `src/rpc/` holds besides one file per RPC (and tests). */
const RPC_FOLDER_FILES = ['deps.ts', 'index.ts', 'parse.ts'];

const PRISMA_CALL =
  /\b(?:db|tx|prisma|this\.db|deps\.db)\s*\.\s*(?:\$queryRaw|\$queryRawUnsafe|\$executeRaw|\$executeRawUnsafe|\$transaction|\w+\s*\.\s*(?:findMany|findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|create|createMany|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy)\s*\()/;

/** A doc comment right above a setting (an upper-case field) of the env schema. */
const COMMENTED_SETTING = /\/\*\*(?:(?!\*\/)[\s\S])*\*\/\s*\n\s*([A-Z][A-Z0-9_]*):/g;

/** Test code: tests, benches, fixtures (`test-support.ts`) and a folder of one test's parts (`<name>-test/`). */
const TEST_CODE = /\.(test|bench)\.ts$|\/test-support\.ts$|\/bench\/|\/[a-z-]+-test\//;

/** The files of `src/` that `file` imports by a relative path. */
function relativeImports(file, text) {
  const out = [];
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
    if (existsSync(target)) out.push(target);
  }
  return out;
}

/** Every TypeScript file of a service's `src/`, tests included (generated code aside). */
function everySource(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (entry !== 'generated') out.push(...everySource(full));
    } else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const kebab = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (entry !== 'generated' && entry !== 'bench') out.push(...sources(full));
    } else if (
      entry.endsWith('.ts') &&
      !/\.(test|bench)\.ts$/.test(entry) &&
      !entry.endsWith('.d.ts') &&
      entry !== 'test-support.ts'
    )
      out.push(full);
  }
  return out;
}

const problems = [];
for (const service of readdirSync(path.join(ROOT, 'services')).sort()) {
  const src = path.join(ROOT, 'services', service, 'src');
  if (!existsSync(src)) continue;
  const rpcFiles = new Set(RPC_FOLDER_FILES);
  for (const proto of SERVED[service] ?? []) {
    const text = readFileSync(path.join(ROOT, 'proto/wap', proto), 'utf8');
    for (const [, rpc] of text.matchAll(/^\s*rpc\s+(\w+)\s*\(/gm)) {
      const file = kebab(rpc);
      rpcFiles.add(`${file}.ts`);
      if (existsSync(path.join(src, 'rpc', `${file}.ts`))) continue;
      if (ALLOWED.rpcFile[service]?.includes(file)) continue;
      problems.push(`services/${service}/src/rpc/${file}.ts: ${proto}'s ${rpc} has no file of its own`);
    }
  }
  for (const entry of existsSync(path.join(src, 'rpc')) ? readdirSync(path.join(src, 'rpc')) : []) {
    if (!rpcFiles.has(entry) && !/\.test\.ts$/.test(entry))
      problems.push(
        `services/${service}/src/rpc/${entry}: not an RPC of the service; a view goes in src/views/, a shared check in parse.ts`,
      );
  }
  const roots = readdirSync(src)
    .filter((entry) => entry.endsWith('.ts') && !entry.endsWith('.test.ts'))
    .flatMap((entry) => {
      const text = readFileSync(path.join(src, entry), 'utf8');
      const m = /^export function (open[A-Z]\w*)\(([^)]*)\)/m.exec(text);
      return m ? [{ entry, name: m[1], params: parameterNames(m[2]) }] : [];
    });
  if (roots.length !== 1)
    problems.push(`services/${service}/src: ${roots.length} composition roots (open<Name>), one expected`);
  for (const root of roots) {
    const [config, db, nats, log, options, ...more] = root.params;
    if ([config, db, nats, log].join() !== 'config,db,nats,log' || (options && options !== 'options') || more.length)
      problems.push(
        `services/${service}/src/${root.entry}: ${root.name}(${root.params.join(', ')}); a root takes (config, db, nats, log, options?)`,
      );
  }
  const config = path.join(src, 'config.ts');
  for (const [, variable] of existsSync(config) ? readFileSync(config, 'utf8').matchAll(COMMENTED_SETTING) : [])
    problems.push(`services/${service}/src/config.ts: ${variable}'s meaning goes in its .describe(), not a comment`);
  const importers = new Map();
  for (const file of everySource(src))
    for (const target of relativeImports(file, readFileSync(file, 'utf8'))) {
      if (!importers.has(target)) importers.set(target, []);
      importers.get(target).push(file);
      if (TEST_CODE.test(target) && !TEST_CODE.test(file))
        problems.push(`${path.relative(ROOT, file)}: imports test code (${path.relative(ROOT, target)})`);
    }
  for (const [target, from] of importers) {
    const rel = path.relative(ROOT, target);
    if (!TEST_CODE.test(target) && from.every((f) => TEST_CODE.test(f)) && !ALLOWED.testOnly[rel])
      problems.push(`${rel}: only tests import it; fixtures go in a test-support.ts`);
  }
  for (const file of sources(src)) {
    const rel = path.relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    const inStore = rel.includes('/src/store/');
    if (!inStore && !ALLOWED.prisma[rel] && PRISMA_CALL.test(text))
      problems.push(`${rel}: calls the database outside src/store/`);
    if (!rel.endsWith('/src/config.ts') && !ALLOWED.env[rel] && /\bprocess\.env\b/.test(text))
      problems.push(`${rel}: reads process.env outside src/config.ts`);
    const parts = path.relative(src, file).split(path.sep);
    const layer = parts.length > 1 ? parts[0] : '';
    for (const target of relativeImports(file, text)) {
      const to = path.relative(src, target).split(path.sep);
      if (to.length < 2 || to[0] === layer) continue;
      if (to[0] === 'rpc' && layer !== '')
        problems.push(`${rel}: imports ${to.join('/')}; only the composition root wires the RPCs`);
      if (to[0] === 'jobs' && BELOW_JOBS.includes(layer))
        problems.push(
          `${rel}: imports ${to.join('/')}; ${layer}/ sits below jobs/ (declare what it needs, the root wires it)`,
        );
    }
    if (rel.includes('/src/domain/'))
      for (const [, type, spec] of text.matchAll(/^import (type )?[^;]*? from '(\.{1,2}\/[^']+)';/gms)) {
        const target = path.relative(src, path.resolve(path.dirname(file), spec));
        if (!target.startsWith('domain/') && !(type && target.endsWith('/types.js')))
          problems.push(
            `${rel}: imports ${target.replace(/\.js$/, '.ts')}; domain/ is pure (a type of a types.ts at most)`,
          );
      }
  }
}
/** The names of a parameter list's parameters, a destructured one as `options`. */
function parameterNames(list) {
  const names = [];
  let depth = 0;
  let current = '';
  for (const ch of `${list},`) {
    if ('{[<('.includes(ch)) depth++;
    if ('}]>)'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      const name = current.trim().split(/[?:=\s]/)[0];
      if (name) names.push(name.startsWith('{') ? 'options' : name);
      current = '';
    } else current += ch;
  }
  return names;
}

/** Every hand-written TypeScript file under `dir`, tests and benches included. */
function allSources(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'generated' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...allSources(full));
    else if (/\.m?tsx?$/.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}
const MAX_LINES = 600;
for (const top of ['libs', 'services', 'clients', 'e2e']) {
  for (const file of allSources(path.join(ROOT, top))) {
    const rel = path.relative(ROOT, file);
    const handWritten = !/\.(test|bench|suite)\.ts$/.test(file) && !rel.includes('/gen/') && !rel.startsWith('e2e/');
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    if (handWritten && lines > MAX_LINES)
      problems.push(`${rel}: ${lines} lines; split it by concern (at most ${MAX_LINES})`);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(@wap\/[a-z-]+\/dist\/[^']*)'/g))
      problems.push(`${path.relative(ROOT, file)}: imports ${spec}; import what its package exports instead`);
  }
}
/** The circles of `files`' imports among themselves (Tarjan's strongly connected components of two or more). */
function circles(files) {
  const graph = new Map(
    files.map((f) => [f, relativeImports(f, readFileSync(f, 'utf8')).filter((t) => files.includes(t))]),
  );
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    for (const w of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
for (const top of ['libs', 'services', 'clients']) {
  for (const pkg of readdirSync(path.join(ROOT, top)).sort()) {
    const src = path.join(ROOT, top, pkg, 'src');
    if (!existsSync(src)) continue;
    const files = everySource(src).filter((f) => !TEST_CODE.test(f));
    for (const circle of circles(files))
      problems.push(
        `${top}/${pkg}/src: an import circle, ${circle.map((f) => path.relative(src, f)).join(' → ')}; move the words both need to a module of their own`,
      );
  }
}
// An allowance for a file that is gone or now in shape is stale: say so, so the list shrinks.
for (const [rule, files] of [
  ['testOnly', ALLOWED.testOnly],
  ['prisma', ALLOWED.prisma],
  ['env', ALLOWED.env],
]) {
  for (const rel of Object.keys(files)) {
    const file = path.join(ROOT, rel);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const still =
      rule === 'testOnly' ? text !== '' : rule === 'prisma' ? PRISMA_CALL.test(text) : /\bprocess\.env\b/.test(text);
    if (!still) problems.push(`scripts/shape-check.mjs: ${rel} no longer needs its ${rule} allowance; remove it`);
  }
}

if (problems.length > 0) {
  console.error(`shape check (docs/service-shape.md):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  'shape check: every service has one root, open<Name>(config, db, nats, log), a file per RPC and rpc/ nothing else, its layers hold, domain/ is pure, test code is named so, the database only in store/, the environment only in config.ts, described; no import circle, none reaches into a dist/; no source over 600 lines',
);
