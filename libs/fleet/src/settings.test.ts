import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RENAMED_SETTINGS } from '@wap/config';
import { FLEET_OWNED } from './env-file.js';
import { renderSettingsDoc, SETTINGS_DOC, settings } from './settings.js';

describe('the settings table (docs/settings.md)', () => {
  it('matches the services config schemas (regenerate: node libs/fleet/dist/settings.js)', () => {
    assert.equal(readFileSync(SETTINGS_DOC, 'utf8'), renderSettingsDoc());
  });

  it('gives every variable a service reads a meaning, the same wherever it is read', () => {
    const list = settings(); // throws when two services describe one variable differently
    assert.deepEqual(
      list.filter((s) => !s.meaning).map((s) => s.variable),
      [],
    );
    const names = list.map((s) => s.variable);
    // What the fleet sets is a real setting (GATEWAY_ADDR aside: the fleet passes it, nothing reads it yet).
    for (const owned of FLEET_OWNED.filter((n) => n !== 'GATEWAY_ADDR')) assert.ok(names.includes(owned), owned);
  });

  it('refuses a variable two services describe each their own way', () => {
    const field = (description: string) => ({ _zod: { def: { type: 'optional' } }, meta: () => ({ description }) });
    const schemas = new Map([
      ['crawl' as const, { shape: { EGRESS_ALLOW: field('CIDR ranges let through.') } }],
      ['agent' as const, { shape: { EGRESS_ALLOW: field('Where runs may go.') } }],
    ]);
    assert.throws(() => settings(schemas), /^Error: EGRESS_ALLOW: agent describes it otherwise than crawl$/);
  });

  it('renames old names to settings a service reads, and no service reads an old name', () => {
    const names = settings().map((s) => s.variable);
    for (const [old, now] of Object.entries(RENAMED_SETTINGS)) {
      assert.ok(names.includes(now), `${old} is renamed ${now}, which no service reads`);
      assert.ok(!names.includes(old), `${old} is still read`);
    }
  });

  it('knows the settings a developer sets most', () => {
    const egress = settings().find((s) => s.variable === 'EGRESS_ALLOW');
    assert.deepEqual(egress?.services, ['crawl', 'agent', 'monitor', 'browser-host']);
    const grpc = settings().find((s) => s.variable === 'GRPC_PORT');
    assert.equal(grpc?.defaults.get('gateway'), '50050');
    assert.equal(grpc?.defaults.get('billing-ledger'), '50051');
  });
});
