import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, SERVICE_NODE_FLAGS } from './fleet.js';

test("the chart's pods run node with the flags the fleet runs its services with", () => {
  const workload = readFileSync(path.join(ROOT, 'charts/web-access/templates/_workload.tpl'), 'utf8');
  const command = /command: (\[.*\])/.exec(workload)?.[1];
  assert.ok(command, 'the workload names its command');
  const words = JSON.parse(command) as string[];
  assert.deepEqual(words, ['node', ...SERVICE_NODE_FLAGS, 'services/{{ .name }}/dist/main.js']);
});
