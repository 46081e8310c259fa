import assert from 'node:assert/strict';
import { test } from 'node:test';
import { proposeGate } from '../domain/rules/propose.js';
import type { ModelClient, StepRequest } from '../model/types.js';
import { modelProposer } from './gate-proposer.js';

test('a model client proposes through its structured-output call, nulls for absent fields dropped', async () => {
  const requests: StepRequest[] = [];
  const model: ModelClient = {
    name: 'scripted',
    vision: false,
    step: async (request) => {
      requests.push(request);
      return {
        output: { gate: { kind: 'forbid', actions: ['upload'], domains: null } },
        usage: { inputTokens: 1, outputTokens: 1 },
        model: 'scripted',
        ms: 1,
      };
    },
  };
  const rule = await proposeGate('Files must never be uploaded anywhere at all', modelProposer(model), {
    get: async () => undefined,
    put: async () => undefined,
  });
  assert.deepEqual(rule.gate, { kind: 'forbid', actions: ['upload'] });
  const [request] = requests;
  assert.equal(request?.schemaName, 'rule_gate');
  assert.match(request?.messages[0]?.text ?? '', /^Rule: "Files must never be uploaded anywhere at all"$/);
  assert.doesNotMatch(JSON.stringify(request?.schema), /oneOf/, 'strict modes take anyOf');
});
