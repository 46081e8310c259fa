// `make test-k8s-scale`: the chart's browser hosts on 100 simulated nodes
// (kwok, started by scripts/test-k8s-scale.sh beside the real node of `make
// cluster`) in five zones, as a large deployment schedules them: spread evenly
// over the zones by the chart's topologySpreadConstraints, the HPA taking them
// from 2 to 200 replicas on their busy ratio and back, and the
// PodDisruptionBudget holding while a whole zone is drained. Simulated pods run
// no container, so the busy ratio the HPA reads comes from a stand-in of the
// custom metrics API that this test serves on the node. Figures go to stdout.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { until } from '@wap/testkit';

const run = promisify(execFile);
const NAMESPACE = 'wap-scale';
const HOSTS = 'wap-web-access-browser-host';
const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d', 'zone-e'];
const NODES = 100;
const NODE_IP = process.env.CLUSTER_NODE_IP ?? '10.244.0.1';
const METRICS_PORT = 16443;
const figures: string[] = [];
const figure = (text: string) => {
  figures.push(text);
  console.log(`figure: ${text}`);
};

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['-n', NAMESPACE, ...args], { maxBuffer: 64 << 20 });
  return stdout;
}
const apply = (manifest: unknown) =>
  execFileSync('kubectl', ['-n', NAMESPACE, 'apply', '-f', '-'], { input: JSON.stringify(manifest), stdio: 'pipe' });

interface ScalePod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { conditions?: { type: string; status: string }[] };
}
const ready = (p: ScalePod) =>
  !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

async function hostPods(): Promise<ScalePod[]> {
  const out = await kubectl('get', 'pods', '-l', 'app.kubernetes.io/component=browser-host', '-o', 'json');
  return (JSON.parse(out) as { items: ScalePod[] }).items;
}
const zoneOf = (node = '') => ZONES[Number(node.replace('kwok-node-', '')) % ZONES.length] ?? '';

/** Sessions asked for: each ready host reports min(1, demand / (hosts x capacity)) as its busy ratio. */
let demand = 4;
const CAPACITY = 8;

/**
 * custom.metrics.k8s.io/v1beta2 for the HPA: discovery, and the busy ratio of
 * each pod it asks for. The API server reaches it through an APIService and a
 * Service whose endpoint is this process on the node.
 */
function metricsStandIn() {
  // A self-signed certificate for the stand-in, by openssl (the APIService skips verifying it).
  const dir = mkdtempSync(path.join(tmpdir(), 'metrics-stand-in-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-subj',
      '/CN=metrics-stand-in',
      '-days',
      '1',
    ],
    { stdio: 'pipe' },
  );
  const key = readFileSync(path.join(dir, 'key.pem'));
  const cert = readFileSync(path.join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  return createServer({ key, cert }, async (req, res) => {
    const url = new URL(req.url ?? '/', 'https://x');
    const pathname = decodeURIComponent(url.pathname);
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (pathname === '/apis/custom.metrics.k8s.io/v1beta2') {
      return send({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: 'custom.metrics.k8s.io/v1beta2',
        resources: [
          {
            name: 'pods/wap_browser_sessions_busy_ratio',
            singularName: '',
            namespaced: true,
            kind: 'MetricValueList',
            verbs: ['get'],
          },
        ],
      });
    }
    const m = /^\/apis\/custom\.metrics\.k8s\.io\/v1beta2\/namespaces\/([^/]+)\/pods\/([^/]+)\/([^/]+)$/.exec(pathname);
    if (!m) {
      res.writeHead(404);
      return res.end();
    }
    const live = (await hostPods()).filter(ready);
    const pods = live.filter((p) => m[2] === '*' || p.metadata.name === m[2]);
    const busyMilli = Math.round(1000 * Math.min(1, demand / (Math.max(1, live.length) * CAPACITY)));
    const now = new Date().toISOString();
    send({
      kind: 'MetricValueList',
      apiVersion: 'custom.metrics.k8s.io/v1beta2',
      metadata: {},
      items: pods.map((p) => ({
        describedObject: { kind: 'Pod', namespace: m[1], name: p.metadata.name, apiVersion: '/v1' },
        metric: { name: m[3] },
        timestamp: now,
        windowSeconds: 15,
        value: `${busyMilli}m`,
      })),
    });
  });
}

const server = metricsStandIn();

before(async () => {
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  // 100 simulated nodes, twenty in each zone, each tainted so only what tolerates kwok lands there.
  const nodes = Array.from({ length: NODES }, (_, i) => {
    const name = `kwok-node-${String(i).padStart(3, '0')}`;
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        annotations: { 'kwok.x-k8s.io/node': 'fake' },
        labels: {
          type: 'kwok',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'topology.kubernetes.io/zone': zoneOf(name),
        },
      },
      spec: { taints: [{ key: 'kwok.x-k8s.io/node', value: 'fake', effect: 'NoSchedule' }] },
      status: {
        allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
        capacity: { cpu: '32', memory: '256Gi', pods: '110' },
      },
    };
  });
  const started = Date.now();
  apply({ apiVersion: 'v1', kind: 'List', items: nodes });
  await until(
    'the 100 simulated nodes Ready',
    async () => {
      const out = await kubectl('get', 'nodes', '-l', 'type=kwok', '-o', 'json');
      const items = (JSON.parse(out) as { items: { status: { conditions?: { type: string; status: string }[] } }[] })
        .items;
      return (
        items.length === NODES &&
        items.every((n) => n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      );
    },
    180_000,
  );
  figure(`100 simulated nodes created and Ready: ${((Date.now() - started) / 1000).toFixed(0)} s`);

  await new Promise<void>((resolve) => server.listen(METRICS_PORT, NODE_IP, resolve));
  apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'metrics-stand-in' },
        spec: { ports: [{ name: 'https', port: 443, targetPort: METRICS_PORT }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'metrics-stand-in', labels: { 'kubernetes.io/service-name': 'metrics-stand-in' } },
        addressType: 'IPv4',
        ports: [{ name: 'https', port: METRICS_PORT, protocol: 'TCP' }],
        endpoints: [{ addresses: [NODE_IP] }],
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1beta2.custom.metrics.k8s.io' },
        spec: {
          group: 'custom.metrics.k8s.io',
          version: 'v1beta2',
          groupPriorityMinimum: 100,
          versionPriority: 200,
          insecureSkipTLSVerify: true,
          service: { name: 'metrics-stand-in', namespace: NAMESPACE, port: 443 },
        },
      },
    ],
  });
  // The chart's browser hosts alone (and their ServiceAccount), as charts/web-access/ci/scale-values.yaml places them.
  const manifests = execFileSync(
    'helm',
    [
      'template',
      'wap',
      'charts/web-access',
      '-n',
      NAMESPACE,
      '-f',
      'charts/web-access/ci/scale-values.yaml',
      '--show-only',
      'templates/serviceaccount.yaml',
      '--show-only',
      'templates/browser-host.yaml',
    ],
    { encoding: 'utf8' },
  );
  execFileSync('kubectl', ['-n', NAMESPACE, 'apply', '-f', '-'], { input: manifests, stdio: 'pipe' });
});

after(async () => {
  if (!process.env.K8S_TEST_KEEP) {
    await run('kubectl', ['delete', 'apiservice', 'v1beta2.custom.metrics.k8s.io', '--ignore-not-found']).catch(
      () => undefined,
    );
    await run('kubectl', ['delete', 'namespace', NAMESPACE, '--wait=true', '--timeout=180s']).catch(() => undefined);
    await run('kubectl', ['delete', 'nodes', '-l', 'type=kwok', '--wait=false']).catch(() => undefined);
  }
  server.close();
  console.log(`figures:\n  ${figures.join('\n  ')}`);
});

/** Hosts per zone and per node of the ready pods. */
async function spread(): Promise<{ zones: Record<string, number>; perNode: number[]; off: string[]; ready: number }> {
  const live = (await hostPods()).filter(ready);
  const zones = Object.fromEntries(ZONES.map((z) => [z, 0]));
  const nodes = new Map<string, number>();
  const off: string[] = [];
  for (const p of live) {
    const node = p.spec.nodeName ?? '';
    if (!node.startsWith('kwok-node-')) off.push(`${p.metadata.name} on ${node}`);
    zones[zoneOf(node)] = (zones[zoneOf(node)] ?? 0) + 1;
    nodes.set(node, (nodes.get(node) ?? 0) + 1);
  }
  return { zones, perNode: [...nodes.values()], off, ready: live.length };
}

/** Asks the API to evict a pod, as kubectl drain does: false when the disruption budget refuses (429). */
function evict(pod: string): Promise<boolean> {
  const body = JSON.stringify({
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name: pod, namespace: NAMESPACE },
  });
  return new Promise((resolve, reject) => {
    const child = execFile(
      'kubectl',
      ['create', '--raw', `/api/v1/namespaces/${NAMESPACE}/pods/${pod}/eviction`, '-f', '-'],
      (err, _stdout, stderr) => {
        if (!err) resolve(true);
        else if (/TooManyRequests|disruption budget/i.test(stderr)) resolve(false);
        else if (/NotFound/i.test(stderr)) resolve(true);
        else reject(new Error(stderr));
      },
    );
    child.stdin?.end(body);
  });
}

async function hpaReplicas(): Promise<number> {
  return Number((await kubectl('get', 'hpa', HOSTS, '-o', 'jsonpath={.status.desiredReplicas}')) || '0');
}

describe('browser hosts on 100 simulated nodes in five zones', () => {
  test('the HPA takes them from 2 to 200 on their busy ratio, spread evenly over the zones, and back to 2', async () => {
    await until('two hosts ready on simulated nodes', async () => (await spread()).ready === 2, 180_000);
    // 1,600 sessions asked for: every host full until there are 200 of them (0.7 would take 286).
    demand = 1600;
    const up = Date.now();
    await until('200 hosts ready', async () => (await spread()).ready === 200, 900_000);
    figure(`HPA 2 -> 200 browser hosts ready (every host full): ${((Date.now() - up) / 1000).toFixed(0)} s`);
    const at200 = await spread();
    figure(`200 hosts per zone: ${JSON.stringify(at200.zones)}; most on one node: ${Math.max(...at200.perNode)}`);
    assert.deepEqual(at200.off, [], 'no host on the real node');
    const counts = Object.values(at200.zones);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `even over the zones: ${JSON.stringify(at200.zones)}`);
    assert.ok(at200.perNode.length >= 90, `spread over the nodes: ${at200.perNode.length} used`);

    demand = 4;
    const down = Date.now();
    await until(
      'the HPA back to 2 hosts',
      async () => (await spread()).ready === 2 && (await hpaReplicas()) === 2,
      600_000,
    );
    figure(`HPA 200 -> 2 browser hosts (4 sessions left): ${((Date.now() - down) / 1000).toFixed(0)} s`);
  });

  test('a zone drained: the PodDisruptionBudget lets one host go at a time, and they move to the other zones', async () => {
    demand = 1600;
    await until('the HPA at its full 200 hosts again', async () => (await spread()).ready === 200, 900_000);
    // Hold the count: the HPA must not add or remove hosts while the zone drains.
    await kubectl('patch', 'hpa', HOSTS, '--type=merge', '-p', '{"spec":{"minReplicas":200}}');
    const zoneNodes = Array.from({ length: NODES }, (_, i) => `kwok-node-${String(i).padStart(3, '0')}`).filter(
      (n) => zoneOf(n) === 'zone-a',
    );
    await run('kubectl', ['cordon', ...zoneNodes]);
    const started = Date.now();
    let refused = 0;
    let fewest = 200;
    for (;;) {
      const pods = await hostPods();
      fewest = Math.min(fewest, pods.filter(ready).length);
      const left = pods.filter((p) => zoneOf(p.spec.nodeName) === 'zone-a' && !p.metadata.deletionTimestamp);
      if (left.length === 0) break;
      // Evictions as kubectl drain asks them, three at once: 429 for those the budget has no room for.
      const answers = await Promise.all(left.slice(0, 3).map((p) => evict(p.metadata.name)));
      refused += answers.filter((evicted) => !evicted).length;
      assert.ok(Date.now() - started < 600_000, 'the zone drained within 10 minutes');
    }
    await until('200 hosts ready again', async () => (await spread()).ready === 200, 300_000);
    const drained = await spread();
    figure(
      `zone-a drained (40 hosts moved one at a time): ${((Date.now() - started) / 1000).toFixed(0)} s; evictions refused by the budget: ${refused}; fewest ready: ${fewest}`,
    );
    assert.equal(drained.zones['zone-a'], 0, JSON.stringify(drained.zones));
    assert.ok(fewest >= 199, `never more than one host unavailable (fewest ready ${fewest})`);
    assert.ok(refused > 0, 'the budget refused evictions while a host was unavailable');
  });
});
