// What the CLI writes on stderr as work goes on: a status line a terminal overwrites (a crawl's
// bar), and lines kept one after another (a run's events), on a terminal or not.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { documentText, type Io, Output } from './output.js';

function output(flags: Record<string, unknown>, tty: boolean) {
  const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 40 });
  let written = '';
  stderr.on('data', (c: Buffer) => {
    written += c.toString();
  });
  const io: Io = { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {} };
  return { out: new Output(io, flags), written: () => written };
}

test("on a terminal a run's events stay, one a line, where a status line is overwritten", () => {
  const { out, written } = output({}, true);
  out.line('    1 status    queued');
  out.line('    2 step      step 1: navigate http://127.0.0.3:8080/products/blue-mug, a long line kept whole');
  out.status('[####....] 1/2 pages');
  out.status('[########] 2/2 pages');
  assert.equal(
    written(),
    '    1 status    queued\n' +
      '    2 step      step 1: navigate http://127.0.0.3:8080/products/blue-mug, a long line kept whole\n' +
      '\r\x1b[2K[####....] 1/2 pages\r\x1b[2K[########] 2/2 pages',
  );
});

test('off a terminal progress shows only with --progress, and lines are lines', () => {
  const quiet = output({}, false);
  quiet.out.line('    1 status    queued');
  quiet.out.status('[####....] 1/2 pages');
  assert.equal(quiet.written(), '');
  const shown = output({ progress: true }, false);
  shown.out.line('    1 status    queued');
  shown.out.status('[####....] 1/2 pages');
  assert.equal(shown.written(), '    1 status    queued\n[####....] 1/2 pages\n');
  const off = output({ progress: false }, true);
  off.out.line('    1 status    queued');
  assert.equal(off.written(), '', '--no-progress on a terminal');
});

test('a scraped page for people: its json indented, else its first text format; a model format not answered said after', () => {
  assert.equal(documentText({ markdown: '# Hi', json: { a: 1 } }), '{\n  "a": 1\n}');
  assert.equal(documentText({ markdown: '# Hi', summary: 'S' }), '# Hi');
  assert.equal(
    documentText({ markdown: '# Hi', errors: { json: { code: 'extraction_failed', details: { reason: 'timeout' } } } }),
    '# Hi\njson: extraction_failed (timeout)',
  );
  assert.equal(documentText({ metadata: {} }), undefined);
});
