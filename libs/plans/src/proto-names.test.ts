import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DescEnum } from '@bufbuild/protobuf';
import { ledger } from '@wap/proto';
import { grantKinds, meters, plans } from './index.js';
import { type ProtoNames, protoValueName } from './proto-names.js';

const cases: [string, DescEnum, ProtoNames<string, number>][] = [
  ['Plan', ledger.PlanSchema, plans],
  ['Meter', ledger.MeterSchema, meters],
  ['GrantKind', ledger.GrantKindSchema, grantKinds],
];

for (const [enumName, desc, names] of cases) {
  test(`${enumName}: the names are exactly the contract's values, in its order`, () => {
    const contract = desc.values.filter((v) => v.number !== 0).map((v) => protoValueName(desc, v));
    assert.deepEqual([...names.names], contract);
  });

  test(`${enumName}: each name and value map both ways; unknown ones do not`, () => {
    for (const value of desc.values) {
      const name = names.toName(value.number);
      if (value.number === 0) assert.equal(name, undefined);
      else assert.equal(names.toEnum(name ?? ''), value.number);
    }
    assert.equal(names.toEnum('enterprise'), 0);
    assert.equal(names.toName(999), undefined);
  });
}

test('the names read as the platform writes them', () => {
  assert.equal(plans.toEnum('pro'), ledger.Plan.PRO);
  assert.equal(plans.toName(ledger.Plan.FREE), 'free');
  assert.equal(meters.toEnum('page_load'), ledger.Meter.PAGE_LOAD);
  assert.equal(meters.toName(ledger.Meter.SEARCH_RESULT), 'search_result');
  assert.equal(grantKinds.toEnum('student'), ledger.GrantKind.STUDENT);
});
