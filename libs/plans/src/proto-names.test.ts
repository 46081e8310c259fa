import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DescEnum } from '@bufbuild/protobuf';
import { crawl, ledger } from '@wap/proto';
import { engines, FORMAT_NAMES, FORMATS, formatName, grantKinds, meters, plans } from './index.js';
import type { ProtoNames } from './proto-names.js';

/**
 * The contract's numbers, copied by hand from proto/wap/billing/v1/ledger.proto
 * (numbers travel on the wire; names are what the platform writes): the
 * mapping is held to this table, not to the descriptor it is built from.
 */
const CONTRACT: [string, DescEnum, ProtoNames<string, number>, string, Record<string, number>][] = [
  ['Plan', ledger.PlanSchema, plans, 'PLAN_', { free: 1, builder: 2, pro: 3, scale: 4 }],
  [
    'Meter',
    ledger.MeterSchema,
    meters,
    'METER_',
    {
      context_seconds: 1,
      page_load: 2,
      search_result: 3,
      agent_seconds: 4,
      monitor_change: 5,
      proxy_bytes: 6,
      bytes_egress: 7,
      tokens: 8,
    },
  ],
  ['GrantKind', ledger.GrantKindSchema, grantKinds, 'GRANT_KIND_', { promotional: 1, student: 2, purchased: 3 }],
  ['Engine', crawl.EngineSchema, engines, 'ENGINE_', { auto: 1, fetch: 2, browser: 3 }],
];

for (const [enumName, desc, names, prefix, table] of CONTRACT) {
  test(`${enumName}: each name maps to its contract number and back, in the contract's order`, () => {
    for (const [name, number] of Object.entries(table)) {
      assert.equal(names.toEnum(name), number, `${name} -> ${number}`);
      assert.equal(names.toName(number), name, `${number} -> ${name}`);
    }
    assert.deepEqual([...names.names], Object.keys(table));
  });

  test(`${enumName}: the generated contract has exactly the table's values, under the contract's names`, () => {
    const values = desc.values.filter((v) => v.number !== 0);
    assert.deepEqual(
      values.map((v) => [v.name, v.number]),
      Object.entries(table).map(([name, number]) => [`${prefix}${name.toUpperCase()}`, number]),
    );
  });

  test(`${enumName}: UNSPECIFIED, an unknown name and an unknown number map to nothing`, () => {
    assert.equal(names.toName(0), undefined);
    assert.equal(names.toEnum('enterprise'), 0);
    assert.equal(names.toEnum(''), 0);
    assert.equal(names.toName(999), undefined);
  });
}

test("Format: each of Firecrawl's names maps to its contract number and back, every value of the enum named", () => {
  // Copied by hand from proto/wap/crawl/v1/crawl.proto.
  const contract = {
    markdown: 1,
    html: 2,
    rawHtml: 3,
    text: 4,
    links: 5,
    metadata: 6,
    screenshot: 7,
    'screenshot@fullPage': 8,
    json: 9,
    summary: 10,
  };
  assert.deepEqual({ ...FORMATS }, contract);
  for (const [name, number] of Object.entries(contract)) assert.equal(formatName(number), name);
  assert.equal(formatName(0), undefined, 'UNSPECIFIED has no name');
  const named = crawl.FormatSchema.values.filter((v) => v.number !== 0).map((v) => formatName(v.number));
  assert.deepEqual(named, FORMAT_NAMES, 'every format of the contract has a name, in its order');
});
