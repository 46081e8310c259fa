import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { DOCS_PAGE } from './docs.js';

/** The configuration exactly as the browser receives it. */
const served = () => {
  const json = /<script id="scalar-config" type="application\/json">(.*?)<\/script>/s.exec(DOCS_PAGE)?.[1];
  assert.ok(json, 'the page carries its configuration as JSON');
  return JSON.parse(json) as Record<string, unknown>;
};

test("/docs turns off every button that reaches Scalar's hosted services", () => {
  const config = served();
  assert.deepEqual(config.agent, { disabled: true }, '"Ask AI"');
  assert.deepEqual(config.mcp, { disabled: true }, '"Generate MCP"');
  assert.equal(config.showDeveloperTools, 'never', '"Share", "Deploy", "Configure"');
  assert.equal(config.hideClientButton, true);
  assert.equal(config.telemetry, false);
  assert.equal(config.withDefaultFonts, false, 'fonts from fonts.scalar.com');
  assert.match(String(config.customCss), /a\[href\^="https:\/\/www\.scalar\.com"\] \{ display: none; \}/);
  assert.equal(config.proxyUrl, undefined, 'requests from the page never go through proxy.scalar.com');
  assert.equal(config.url, '/v1/openapi.json');
});

test('the installed Scalar bundle still reads those options (an upgrade that renames one fails here)', () => {
  const require_ = createRequire(__filename);
  const bundle = readFileSync(
    path.join(path.dirname(require_.resolve('@scalar/api-reference')), 'browser/standalone.js'),
    'utf8',
  );
  for (const needle of [
    '?.agent?.disabled?!1:', // the agent is on unless disabled (and always on localhost)
    'typeComment:`When true, disables the MCP integration`',
    'showDeveloperTools===`never`',
    '!g.value.hideClientButton',
    'class:`no-underline hover:underline`,href:`https://www.scalar.com`', // the footer link the CSS hides
  ]) {
    assert.ok(bundle.includes(needle), needle);
  }
});
