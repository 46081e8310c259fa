// The command line as typed: commands and flags made from the SDK's operations, durations,
// help for every method, and completion through a real bash.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { type OperationCommand, parseCommand, parseDuration, SPECS, UsageError } from './args.js';
import { complete } from './completion.js';
import { type Io, run } from './index.js';

const op = (argv: string[]) => parseCommand(argv) as OperationCommand;

describe('parsing a command line', () => {
  test('a group alone runs its own operation; values fill the path, then the required strings', () => {
    const scrape = op(['scrape', 'https://a.test/', '--formats', 'markdown,html', '--no-only-main-content']);
    assert.equal(scrape.spec.id, 'scrape');
    assert.deepEqual(scrape.params, { url: 'https://a.test/', formats: ['markdown', 'html'], onlyMainContent: false });
    const results = op(['crawl', 'results', 'c1', '--limit', '5', '--all']);
    assert.deepEqual(
      [results.spec.id, results.pathArgs, results.params, results.flags.all],
      ['crawl.results', ['c1'], { limit: 5 }, true],
    );
    const answer = op(['agent', 'answer', 'r1', 'blue, please']);
    assert.deepEqual(
      [answer.spec.id, answer.pathArgs, answer.params],
      ['agent.answer', ['r1'], { answer: 'blue, please' }],
    );
    const crawl = op([
      '--api-key',
      'ock_a.b',
      'crawl',
      'https://a.test/',
      '--wait',
      '--timeout',
      '5m',
      '--max-depth',
      '2',
    ]);
    assert.deepEqual(
      [crawl.spec.id, crawl.params, crawl.flags['api-key'], crawl.flags.wait],
      ['crawl', { url: 'https://a.test/', maxDepth: 2 }, 'ock_a.b', true],
    );
  });

  test('`agent run` is `agent start`: its task, caps and --wait', () => {
    const run = op(['agent', 'run', 'Buy a mug', '--url', 'http://a.test/', '--max-steps', '5', '--wait']);
    assert.deepEqual(
      [run.spec.id, run.helper, run.params, run.flags.wait],
      ['agent', undefined, { task: 'Buy a mug', url: 'http://a.test/', maxSteps: 5 }, true],
    );
    const start = op(['agent', 'start', 'Buy a mug', '--url', 'http://a.test/', '--max-steps', '5', '--wait']);
    assert.deepEqual([start.spec.id, start.params], [run.spec.id, run.params]);
    // Only agent has it: another group reads the word as its value.
    assert.deepEqual(op(['scrape', 'run']).params, { url: 'run' });
  });

  test('--data gives the body, flags override its fields; arrays repeat or take JSON', () => {
    const c = op([
      'crawl',
      '--data',
      '{"url":"https://a.test/","limit":3}',
      '--limit',
      '7',
      '--include-paths',
      '^/a/',
      '--include-paths',
      '^/b/',
    ]);
    assert.deepEqual(c.params, { url: 'https://a.test/', limit: 7, includePaths: ['^/a/', '^/b/'] });
    const s = op(['scrape', 'https://a.test/', '--formats', '["links"]', '--headers', '{"x-a":"1"}']);
    assert.deepEqual(s.params, { url: 'https://a.test/', formats: ['links'], headers: { 'x-a': '1' } });
  });

  test('scrape parse: --data is the body, not the file bytes named `data`; --file sends a file by its path', () => {
    const body = op(['scrape', 'parse', '--data', '{"name":"a.txt","data":"aGk="}', '--formats', 'links']);
    assert.deepEqual(body.params, { name: 'a.txt', data: 'aGk=', formats: ['links'] });
    const dir = mkdtempSync(path.join(tmpdir(), 'wap-parse-'));
    const file = path.join(dir, 'notes.csv');
    writeFileSync(file, 'a,b\n1,2\n');
    const sent = op(['scrape', 'parse', '--file', file]);
    assert.deepEqual(sent.params, { data: Buffer.from('a,b\n1,2\n').toString('base64'), name: 'notes.csv' });
    assert.equal(op(['scrape', 'parse', 'report.csv', '--file', file]).params.name, 'report.csv');
    assert.throws(() => op(['scrape', 'parse', '--name', 'x.pdf']), /missing --data/);
    assert.throws(() => op(['scrape', 'parse', '--file', path.join(dir, 'absent')]), /--file .*cannot be read/);
  });

  test('--json-schema reads a file into jsonOptions.schema and asks json, beside the formats given', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wap-schema-'));
    const file = path.join(dir, 'product.json');
    writeFileSync(file, '{"type":"object","properties":{"price":{"type":"number"}}}');
    const alone = op(['scrape', 'https://a.test/', '--json-schema', file]);
    assert.deepEqual(alone.params, {
      url: 'https://a.test/',
      formats: ['json'],
      jsonOptions: { schema: { type: 'object', properties: { price: { type: 'number' } } } },
    });
    const beside = op([
      'scrape',
      'https://a.test/',
      '--formats',
      'markdown',
      '--json-schema',
      file,
      '--json-options',
      '{"prompt":"p"}',
    ]);
    assert.deepEqual(beside.params.formats, ['markdown', 'json']);
    assert.equal((beside.params.jsonOptions as { prompt: string }).prompt, 'p', 'the other json options kept');
    writeFileSync(file, '[1]');
    assert.throws(() => op(['scrape', 'https://a.test/', '--json-schema', file]), /a JSON Schema object/);
    assert.throws(() => op(['scrape', 'https://a.test/', '--json-schema', `${file}.gone`]), /cannot be read/);
    assert.throws(() => op(['crawl', 'https://a.test/', '--json-schema', file]), /Unknown option/);
  });

  test('a helper takes the id only; own commands take their flags', () => {
    const wait = op(['agent', 'wait', 'r1', '--ask', '--timeout', '90s']);
    assert.deepEqual([wait.helper, wait.pathArgs, wait.flags.ask], ['wait', ['r1'], true]);
    assert.deepEqual(
      { ...parseCommand(['login', '--no-browser', '--base-url', 'http://x.test']).flags },
      {
        browser: false,
        'base-url': 'http://x.test',
      },
    );
  });

  test('mistakes are usage errors that say what is wrong', () => {
    const usage = (argv: string[], pattern: RegExp) =>
      assert.throws(
        () => parseCommand(argv),
        (e: unknown) =>
          (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) &&
          pattern.test((e as Error).message),
      );
    usage(['crawl', 'start'], /missing --url/);
    usage(['crawl', 'get'], /give <id>/);
    usage(['nope'], /unknown command nope/);
    usage(['crawl', 'https://a.test/', '--limit', 'ten'], /--limit ten: an integer/);
    usage(['crawl', 'https://a.test/', '--bogus'], /bogus/);
    usage(['credits', 'extra'], /not a method|unexpected/);
  });

  test('durations carry their unit; a bare number is seconds', () => {
    assert.deepEqual(
      ['90s', '10m', '2h', '500ms', '30', '1.5m'].map(parseDuration),
      [90_000, 600_000, 7_200_000, 500, 30_000, 90_000],
    );
    assert.throws(() => parseDuration('soon'), UsageError);
    assert.throws(() => parseDuration('0'), UsageError);
  });
});

/** Runs a command line in-process; answers its exit status and what it wrote. */
async function runIn(argv: string[], env: Record<string, string | undefined> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const io: Io = { stdout, stderr, stdin: new PassThrough(), env: { ...process.env, ...env } };
  const code = await run(argv, io);
  return { code, stdout: out, stderr: err };
}

describe('help and completion', () => {
  test('every method of every group has help naming its flags', async () => {
    for (const spec of SPECS) {
      const words = [spec.group, spec.name];
      const { code, stdout } = await runIn([...words, ...spec.pathParams.map(() => 'x'), '--help']);
      assert.equal(code, 0, spec.id);
      assert.match(stdout, new RegExp(`${spec.method} ${spec.path.replace(/[{}]/g, '.')}`), spec.id);
      for (const p of spec.params.filter((q) => q.in !== 'path' && q.name !== 'timeout'))
        assert.match(
          stdout,
          new RegExp(`--${p.name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} `),
          `${spec.id} ${p.name}`,
        );
    }
  });

  test("an alias is listed with the group's methods, and its help is its method's", async () => {
    const group = await runIn(['help', 'agent']);
    assert.match(group.stdout, /\n {2}run {20}Start a browser agent run \(the same as start\)\n/);
    const overview = await runIn(['help']);
    assert.match(overview.stdout, /\n {2}agent {10}start, .*, run, wait, follow\n/);
    const help = await runIn(['agent', 'run', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /POST \/v1\/agent\n/);
    assert.match(help.stdout, /--max-steps <integer>/);
    assert.match(help.stdout, /--wait\n/);
  });

  test('without a credential a command says how to get one, and exits 1', async () => {
    const { code, stderr } = await runIn(['credits'], { SERVICE_API_KEY: '', XDG_CONFIG_HOME: '/nonexistent' });
    assert.equal(code, 1);
    assert.match(stderr, /SERVICE_API_KEY/);
    assert.match(stderr, /wap login/);
  });

  test('candidates for commands, methods, flags and enum values', () => {
    assert.deepEqual(complete(['cr']), ['crawl', 'credits']);
    assert.deepEqual(complete(['crawl', 'w']), ['wait']);
    assert.deepEqual(complete(['agent', 'r']), ['results', 'run']);
    assert.ok(complete(['crawl', 'https://a.test/', '--max']).includes('--max-depth'));
    assert.deepEqual(complete(['agent', 'events', 'r1', '--level', 's']), ['summary', 'step']);
    assert.ok(complete(['sessions', 'network', 's1', '--']).includes('--min-duration-ms'));
  });

  test('the bash script completes through the binary', () => {
    const cli = path.resolve(__dirname, 'cli.js');
    const bin = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
    execFileSync('sh', [
      '-c',
      `printf '#!/bin/sh\\nexec "%s" "%s" "$@"\\n' "${process.execPath}" "${cli}" > ${bin}/wap && chmod +x ${bin}/wap`,
    ]);
    const script =
      'eval "$(wap completion bash)"; COMP_WORDS=(wap sessions ne); COMP_CWORD=2; _wap_complete; printf "%s " "$COMPREPLY"';
    const out = execFileSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    assert.equal(out.trim(), 'network');
  });
});
