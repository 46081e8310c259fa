import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Gauge, Registry } from '@wap/service';
import { gaugeValue, metricValueList, quantity, resourceList, route } from './custom-metrics.js';

test('a gauge is read from a real exposition, and a longer name sharing its prefix is not taken for it', async () => {
  const registry = new Registry();
  new Gauge({ name: 'wap_browser_sessions_busy_ratio_total', help: 'decoy', registers: [registry] }).set(9);
  new Gauge({ name: 'wap_browser_sessions_busy_ratio', help: 'ratio', registers: [registry] }).set(0.5);
  new Gauge({ name: 'labelled', help: 'with labels', labelNames: ['host'], registers: [registry] }).set(
    { host: 'a' },
    3,
  );
  const text = await registry.metrics();
  assert.equal(gaugeValue(text, 'wap_browser_sessions_busy_ratio'), 0.5);
  assert.equal(gaugeValue(text, 'labelled'), 3);
  assert.equal(gaugeValue(text, 'absent'), undefined);
});

test('quantities are written as Kubernetes writes them', () => {
  assert.equal(quantity(1), '1');
  assert.equal(quantity(0), '0');
  assert.equal(quantity(0.5), '500m');
  assert.equal(quantity(2 / 3), '667m');
  assert.equal(quantity(3), '3');
});

test('routes: the group, its resources, and a pods metric by name or for all pods', () => {
  assert.deepEqual(route('/apis/custom.metrics.k8s.io'), { kind: 'group' });
  assert.deepEqual(route('/apis/custom.metrics.k8s.io/v1beta2'), { kind: 'resources' });
  assert.deepEqual(route('/apis/custom.metrics.k8s.io/v1beta2/namespaces/wap/pods/*/wap_browser_sessions_busy_ratio'), {
    kind: 'pods',
    namespace: 'wap',
    pod: '*',
    metric: 'wap_browser_sessions_busy_ratio',
  });
  assert.deepEqual(route('/apis/custom.metrics.k8s.io/v1beta1/namespaces/wap/pods/*/x'), { kind: 'unknown' });
  assert.deepEqual(route('/openapi/v2'), { kind: 'unknown' });
});

test('the answers have the shapes of custom.metrics.k8s.io/v1beta2', () => {
  const resources = resourceList() as { resources: { name: string; namespaced: boolean }[] };
  assert.ok(resources.resources.some((r) => r.name === 'pods/wap_browser_sessions_busy_ratio' && r.namespaced));
  const list = metricValueList(
    'wap',
    'wap_browser_sessions_busy_ratio',
    [{ pod: 'h-0', value: 0.75 }],
    new Date('2026-11-25T12:00:00.123Z'),
  );
  assert.deepEqual(list, {
    kind: 'MetricValueList',
    apiVersion: 'custom.metrics.k8s.io/v1beta2',
    metadata: {},
    items: [
      {
        describedObject: { kind: 'Pod', namespace: 'wap', name: 'h-0', apiVersion: '/v1' },
        metric: { name: 'wap_browser_sessions_busy_ratio', selector: null },
        timestamp: '2026-11-25T12:00:00Z',
        windowSeconds: 0,
        value: '750m',
      },
    ],
  });
});
