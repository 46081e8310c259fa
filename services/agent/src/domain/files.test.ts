import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileNameProblem } from './files.js';

test('a file name is one plain line that reads as it is', () => {
  for (const name of ['cv.pdf', 'Résumé 2026.pdf', '履歴書.pdf', '.env', 'a..b', '<img src=x onerror=alert(1)>.png'])
    assert.equal(fileNameProblem(name), undefined, name);
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['.', /not a file name/],
    ['..', /not a file name/],
    ['a/b', /path/],
    ['a\\b', /path/],
    ['../etc/passwd', /path/],
    ['invoice\u202Egpj.exe', /format characters/],
    ['in\u200Bvoice.pdf', /format characters/],
    ['\u2066cv.pdf\u2069', /format characters/],
    ['a\u0007b.txt', /control/],
    ['a\u0085b.txt', /control/],
    ['a\nb.txt', /control/],
    ['a\u2028b.txt', /control/],
    ['a\uD800b.txt', /Unicode/],
    ['x'.repeat(256), /longer than 255/],
  ];
  for (const [name, why] of refused) assert.match(fileNameProblem(name) ?? 'accepted', why, JSON.stringify(name));
});
