import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from './index.js';
import { ERRORS_DOC_PATH, renderErrorsDoc } from './render-docs.js';

describe('docs/errors.md', () => {
  it('matches the catalogue (regenerate: node libs/errors/dist/render-docs.js)', () => {
    assert.equal(readFileSync(ERRORS_DOC_PATH, 'utf8'), renderErrorsDoc());
  });

  it('has one row per code', () => {
    const doc = renderErrorsDoc();
    for (const code of ERROR_CODES) assert.equal(doc.split(`| \`${code}\` |`).length, 2, code);
  });
});
