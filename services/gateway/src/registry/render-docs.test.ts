import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildRegistry } from './index.js';
import { API_DOC_PATH, BEGIN, END, renderApiDoc, renderRoutes } from './render-docs.js';

describe('docs/api.md', () => {
  it('has the routes the registry generates (regenerate: node services/gateway/dist/registry/render-docs.js)', () => {
    const current = readFileSync(API_DOC_PATH, 'utf8');
    assert.equal(current, renderApiDoc(current));
  });

  it('lists every row once, with its request and answer fields', () => {
    const routes = renderRoutes();
    assert.ok(routes.startsWith(BEGIN) && routes.endsWith(END));
    for (const row of buildRegistry({ configured: () => true })) {
      const heading = `### ${row.method.toUpperCase()} ${row.path}\n`;
      assert.equal(routes.split(heading).length, 2, heading);
      assert.equal(routes.split(`| \`${row.name}\` | \`${row.mcpTool}\` |`).length, 2, row.name);
      for (const alias of row.alsoAt ?? []) {
        const aliasHeading = `### ${alias.method.toUpperCase()} ${alias.path}\n`;
        assert.equal(routes.split(aliasHeading).length, 2, aliasHeading);
      }
    }
    assert.match(routes, /\| \[`DELETE \/v1\/crawl\/\{id\}`\]\(#delete-v1crawlid\) \| `crawl\.cancel` \| — \| free \|/);
    assert.match(routes, /\| `crawl\.status` \| "running" \\\| "cancelled" \\\| "settled" \|/);
    assert.match(routes, /\| `limit` \| integer 1–10000 \| `100` \|/);
  });

  it('keeps the prose around the generated part', () => {
    const doc = `intro\n${BEGIN}\nstale\n${END}\noutro\n`;
    assert.equal(renderApiDoc(doc, `${BEGIN}\nnew\n${END}`), `intro\n${BEGIN}\nnew\n${END}\noutro\n`);
    assert.throws(() => renderApiDoc('no markers'), /lacks the routes markers/);
  });
});
