// `make test-k8s`: the Helm chart installed on a real single-node Kubernetes
// (scripts/cluster.sh) from the images `make images` built, with the host's
// Postgres and NATS behind the Services `postgres` and `nats`. What a user of
// the chart relies on: it installs and becomes ready with its migrations run as
// hooks, `helm test` scrapes a page inside the cluster and bills it, Pod
// Security Admission `baseline` admits every pod, its NetworkPolicies (enforced
// by kube-router's firewall) keep a browser host and its pages off the other
// services, the Kubernetes API and metadata addresses, an upgrade and a rollback
// drop no request of a client reading throughout, the browser hosts scale out
// and back in on busy browsers with each session's files and proxy its own, and
// every service crashed and then deleted in the middle of a crawl loses no page
// of it. Figures go to stdout.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { SERVICES } from '@wap/config';
import { natsServers } from '@wap/events';
import { until } from '@wap/testkit';
import { call, upgrade } from '../api.js';
import {
  reach,
  STAND_INS,
  startOtherApp,
  startStandIns,
  type Target,
  twoSessions,
  visit,
  withoutCredentials,
} from './isolation.js';
import {
  apply,
  clusterIp,
  FULLNAME,
  gatewayAdmin,
  helm,
  isReady,
  json,
  kubectl,
  kubectlWithWarnings,
  NAMESPACE,
  type Pod,
  pods,
  RELEASE,
  serviceDiagnosis,
} from './kube.js';

const CHART = 'charts/web-access';
const VALUES = `${CHART}/ci/cluster-values.yaml`;
const adminUrl = process.env.CLUSTER_DATABASE_ADMIN_URL ?? '';
const nodeIp = new URL(adminUrl || 'postgresql://x@10.244.0.1').hostname;
const password = decodeURIComponent(new URL(adminUrl || 'postgresql://x@x').password);
// NATS's user and password (scripts/infra.sh gives the cluster's NATS both), handed to the chart.
const nats = natsServers(process.env.CLUSTER_NATS_URL ?? '');
const figures: string[] = [];
const figure = (text: string) => {
  figures.push(text);
  console.log(`figure: ${text}`);
};

let gateway = '';
let key = '';
let stopStandIns = async () => {};
const IMAGE = 'docker.io/library/web-access:0.1.0';
const PUBLIC_PAGE = `http://${STAND_INS.public.address}:${STAND_INS.public.port}/`;

/** A site of `pages` pages, each linking to the next two, answering after `delayMs`; one pod of the services image. */
const SITE = `
const http = require('node:http');
const pages = Number(process.env.PAGES), delay = Number(process.env.DELAY_MS);
http.createServer((req, res) => {
  if (req.url === '/healthz') { res.end('ok'); return; }
  const m = /^\\/p\\/(\\d+)$/.exec(req.url);
  const i = m ? Number(m[1]) : -1;
  if (i < 0 || i >= pages) { res.writeHead(404); res.end('no such page'); return; }
  const links = [2 * i + 1, 2 * i + 2].filter((n) => n < pages).map((n) => '<a href="/p/' + n + '">page ' + n + '</a>').join(' ');
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Page ' + i + '</title><main><h1>Page ' + i + '</h1><p>Text of page ' + i + ' of the cluster site.</p>' + links + '</main>');
  }, delay);
}).listen(8080, '0.0.0.0');
`;

/** Run in a browser host's pod: the uid of each session's Chromium (its browser process, not a helper). */
const SESSION_UIDS = `for p in /proc/[0-9]*; do
  c=$(tr '\\0' ' ' < "$p/cmdline" 2>/dev/null) || continue
  case "$c" in *--type=*) ;; */chromium[[:space:]]*--user-data-dir=/tmp/wap-session-*) sed -n 's/^Uid:[[:space:]]*\\([0-9]*\\).*/\\1/p' "$p/status";; esac
done`;

const RESTRICTED_CONTAINER = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};
const RESTRICTED_POD = { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } };

before(async () => {
  assert.ok(adminUrl, 'CLUSTER_DATABASE_ADMIN_URL (scripts/cluster.sh env) names the cluster Postgres');
  assert.ok(nats.user && nats.pass, 'CLUSTER_NATS_URL names the user and password of the cluster NATS');
  // The namespace enforces the `baseline` Pod Security Standard the chart's browser host needs, and warns of
  // anything past `restricted`.
  apply(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: NAMESPACE,
        labels: {
          'pod-security.kubernetes.io/enforce': 'baseline',
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': 'restricted',
          'pod-security.kubernetes.io/warn-version': 'latest',
        },
      },
    }),
  );
  // Postgres and NATS: the host's, on the bridge address, behind Services of the usual names.
  for (const [name, port] of [
    ['postgres', 5432],
    ['nats', 4222],
  ] as const) {
    apply(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name },
            spec: { ports: [{ name, port, targetPort: port }] },
          },
          {
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: { name, labels: { 'kubernetes.io/service-name': name } },
            addressType: 'IPv4',
            ports: [{ name, port, protocol: 'TCP' }],
            endpoints: [{ addresses: [nodeIp] }],
          },
        ],
      }),
    );
  }
  await helm('uninstall', RELEASE, '--wait', '--ignore-not-found');
  stopStandIns = await startStandIns();

  const started = Date.now();
  await helm(
    'install',
    RELEASE,
    CHART,
    '-f',
    VALUES,
    '--set-string',
    `postgres.password=${password}`,
    '--set-string',
    `postgres.adminUrl=postgresql://wap:${encodeURIComponent(password)}@postgres:5432/postgres`,
    '--set-string',
    `nats.user=${nats.user}`,
    '--set-string',
    `nats.password=${nats.pass}`,
    '--wait',
    '--timeout',
    '15m',
  );
  const running = (await json<{ items: unknown[] }>('get', 'pods', '--field-selector=status.phase=Running')).items
    .length;
  figure(
    `helm install --wait (7 migration hooks, ${running} pods) to ready: ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  gateway = `http://${await clusterIp(`${FULLNAME}-gateway`)}:8080`;
  await gatewayAdmin('workspace', 'create', 'k8s-test', '--plan', 'pro');
  ({ apiKey: key } = await gatewayAdmin<{ apiKey: string }>('key', 'create', 'k8s-test'));
});

after(async () => {
  await stopStandIns();
  if (process.env.K8S_TEST_KEEP) return;
  await helm('uninstall', RELEASE, '--wait', '--ignore-not-found').catch(() => undefined);
  await kubectl('delete', 'namespace', NAMESPACE, '--ignore-not-found', '--wait=true').catch(() => undefined);
  console.log(`figures:\n  ${figures.join('\n  ')}`);
});

describe('the chart on a real cluster', () => {
  test('every service runs its migrations as hooks and serves; the gateway answers through its Service', async () => {
    for (const service of SERVICES) {
      const ready = (await pods(service)).filter(isReady);
      assert.ok(ready.length >= 1, `${service} has a ready pod`);
    }
    const jobs = await json<{ items: { metadata: { name: string }; status: { succeeded?: number } }[] }>('get', 'jobs');
    const migrations = jobs.items.filter((j) => j.metadata.name.endsWith('-migrate'));
    assert.equal(migrations.length, 7, 'one migration Job per service with a database');
    for (const job of migrations) assert.equal(job.status.succeeded, 1, `${job.metadata.name} succeeded`);
    const r = await call<{ available: number }>(gateway, 'GET', '/v1/credits', { key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.available > 0);
  });

  test('helm test scrapes a page served inside the cluster through the gateway and reads the credit billed', async () => {
    const out = await helm('test', RELEASE, '--logs', '--timeout', '5m');
    assert.match(out, /Phase:\s+Succeeded/);
    assert.match(out, /brought the page's text back/);
    assert.match(out, /one credit billed for the page/);
  });

  test('Pod Security Admission: `baseline` admitted every pod, `restricted` would admit all but the browser hosts', async () => {
    const labels = JSON.parse(await kubectl('get', 'namespace', NAMESPACE, '-o', 'jsonpath={.metadata.labels}'));
    assert.equal(labels['pod-security.kubernetes.io/enforce'], 'baseline');
    const privileged = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'privileged-probe' },
      spec: { containers: [{ name: 'x', image: 'web-access:0.1.0', securityContext: { privileged: true } }] },
    });
    assert.throws(() => apply(privileged), /violates PodSecurity "baseline:latest"/);
    // The API server's own answer to "what if it enforced restricted": it names each pod that would not pass.
    const dryRun = await kubectlWithWarnings(
      'label',
      '--dry-run=server',
      '--overwrite',
      'namespace',
      NAMESPACE,
      'pod-security.kubernetes.io/enforce=restricted',
    );
    const offenders = [...dryRun.matchAll(/Warning: ([\w.-]+)(?: \(and \d+ other pods?\))?: /g)].map((m) => m[1]);
    assert.ok(offenders.length > 0, dryRun);
    for (const pod of offenders) assert.match(pod as string, new RegExp(`^${FULLNAME}-browser-host-`), dryRun);
    const policies = await json<{ items: unknown[] }>('get', 'networkpolicies');
    assert.equal(policies.items.length, SERVICES.length, 'a NetworkPolicy per service');
  });

  test('NetworkPolicies enforced: a browser host reaches what its process needs and the internet, no other service, no Kubernetes API, no metadata; its pages the internet alone', async () => {
    const ip = async (service: string) => {
      const address = (await pods(service)).find(isReady)?.status.podIP;
      assert.ok(address, `${service} has a ready pod`);
      return address;
    };
    const host = (await pods('browser-host')).find(isReady);
    assert.ok(host?.status.podIP, 'a ready browser host');
    const other = await startOtherApp(IMAGE);
    const grpc = async (service: string): Promise<Target> => ({ host: await ip(service), port: 50051 });
    const outside: Record<string, Target> = {
      postgres: { host: nodeIp, port: 5432 },
      nats: { host: nodeIp, port: 4222 },
      kubernetesApi: { host: '10.96.0.1', port: 443 },
      kubelet: { host: nodeIp, port: 10250 },
      metadata: { host: STAND_INS.metadata.address, port: STAND_INS.metadata.port },
      internet: { host: STAND_INS.public.address, port: STAND_INS.public.port },
    };
    const services: Record<string, Target> = {
      ledger: await grpc('billing-ledger'),
      agent: await grpc('agent'),
      crawl: await grpc('crawl'),
      monitor: await grpc('monitor'),
      recorder: await grpc('session-recorder'),
      gatewayGrpc: await grpc('gateway'),
      gatewayHttp: { host: await ip('gateway'), port: 8080 },
    };
    // Each of them answers a pod no policy holds back (the other application's), or one whose policy
    // lets it dial them all (a gateway's): what the browser host is refused below, the policy refuses.
    const fromOther = await reach('other-app', 'app', outside);
    assert.deepEqual(fromOther, { ...Object.fromEntries(Object.keys(outside).map((k) => [k, 'open'])), dns: 'open' });
    const gatewayPod = (await pods('gateway')).find(isReady)?.metadata.name ?? '';
    const fromGateway = await reach(gatewayPod, 'gateway', {
      ledger: services.ledger as Target,
      agent: services.agent as Target,
      crawl: services.crawl as Target,
      monitor: services.monitor as Target,
      recorder: services.recorder as Target,
      browserHost: { host: host.status.podIP, port: 50051 },
      browserHostCdp: { host: host.status.podIP, port: 9222 },
    });
    assert.ok(
      Object.values(fromGateway).every((v) => v === 'open'),
      `the gateway dials every service: ${JSON.stringify(fromGateway)}`,
    );

    // From the browser host's pod (any process in it: the host, or a session's Chromium taken over).
    const fromHost = await reach(host.metadata.name, 'browser-host', {
      ...outside,
      ...services,
      otherApp: { host: other.status.podIP ?? '', port: 8080 },
    });
    figure(`from a browser host's pod: ${JSON.stringify(fromHost)}`);
    // Refused (the policy's REJECT), or a timeout where the node rations those answers.
    const reached = Object.entries(fromHost)
      .filter(([, v]) => v === 'open')
      .map(([k]) => k);
    assert.deepEqual(
      reached.sort(),
      // Its own process's: its database, NATS (its announcements, recordings to the recorder), the ledger.
      ['dns', 'internet', 'ledger', 'nats', 'postgres'],
      JSON.stringify(fromHost),
    );
    for (const [name, v] of Object.entries(fromHost)) {
      if (v !== 'open') assert.match(v, /^(refused|timeout)$/, `${name}: ${v}`);
    }

    // From a page one of its browsers loads: the session's egress proxy is its one way out.
    const page = (t: Target) => `http://${t.host}:${t.port}/`;
    const visited = await visit(gateway, key, async (name) => (await clusterDns.resolve4(name))[0] ?? name, {
      internet: PUBLIC_PAGE,
      postgres: page(outside.postgres as Target),
      nats: page(outside.nats as Target),
      ledger: page(services.ledger as Target),
      agent: page(services.agent as Target),
      kubernetesApi: page(outside.kubernetesApi as Target),
      kubernetesApiByName: 'http://kubernetes.default.svc.cluster.local:443/',
      metadata: page(outside.metadata as Target),
      otherApp: `http://${other.status.podIP}:8080/`,
    });
    figure(
      `from a page: ${JSON.stringify(Object.fromEntries(Object.entries(visited).map(([k, v]) => [k, v.status])))}`,
    );
    assert.equal(visited.internet?.status, 200, JSON.stringify(visited.internet));
    assert.match(visited.internet?.text ?? '', /A public site answered/);
    // An address is refused by the guard before any connection; a name once the guard's lookup refuses
    // its address, which the proxy answers as an upstream error.
    const { kubernetesApiByName: byName, ...byAddress } = visited;
    assert.equal(byName?.status, 599, JSON.stringify(byName));
    for (const [name, seen] of Object.entries(byAddress).filter(([k]) => k !== 'internet')) {
      assert.equal(seen.status, 403, `${name} from a page: ${JSON.stringify(seen)}`);
      assert.match(seen.text, /Blocked by the egress guard/, name);
    }
    await kubectl('delete', 'pod', 'other-app', '--wait=false');
  });

  test("a process of a browser host's pod that is not the host: NATS and the ledger refuse it without the host's credentials, which it cannot read", async () => {
    const host = (await pods('browser-host')).find(isReady);
    const ledgerIp = (await pods('billing-ledger')).find(isReady)?.status.podIP;
    assert.ok(host && ledgerIp, 'a ready browser host and ledger');
    // A uid of the sessions' range (SESSION_UIDS), as a session's Chromium taken over would run.
    const seen = await withoutCredentials(host.metadata.name, 209_999, {
      nats: { host: nodeIp, port: 4222 },
      ledger: { host: ledgerIp, port: 50051 },
    });
    figure(`a process of a browser host's pod, without credentials: ${JSON.stringify(seen)}`);
    assert.deepEqual(
      seen,
      {
        uid: 209_999,
        // The host's environment holds SERVICE_TOKEN and NATS_URL: closed to another uid.
        hostEnviron: 'EACCES',
        natsAsksCredentials: true,
        nats: "-ERR 'Authorization Violation' (closed)",
        // UNAUTHENTICATED, from the ledger's port it reaches (the NetworkPolicy lets the pod in)...
        ledgerCredits: '16',
        // ...whose health answers the same caller.
        ledgerHealth: '0',
      },
      JSON.stringify(seen),
    );
  });

  test('an upgrade to a changed value and a rollback drop no request of a client reading throughout', async () => {
    const reader = startReader();
    try {
      await until('the reader to get going', async () => reader.ok >= 5);
      const upgradeStarted = Date.now();
      await helm('upgrade', RELEASE, CHART, '--reuse-values', '--set', 'logLevel=debug', '--wait', '--timeout', '15m');
      figure(`helm upgrade (every Deployment rolled) to ready: ${((Date.now() - upgradeStarted) / 1000).toFixed(0)} s`);
      for (const pod of (await pods('gateway')).filter((p) => !p.metadata.deletionTimestamp)) {
        const level = pod.spec.containers[0]?.env?.find((e) => e.name === 'LOG_LEVEL')?.value;
        assert.equal(level, 'debug', `${pod.metadata.name} runs the upgraded value`);
      }
      const midway = reader.ok;
      const rollbackStarted = Date.now();
      await helm('rollback', RELEASE, '1', '--wait', '--timeout', '15m');
      figure(`helm rollback to ready: ${((Date.now() - rollbackStarted) / 1000).toFixed(0)} s`);
      await until('every gateway pod back on the first values', async () => {
        const gateways = await pods('gateway');
        return gateways.every(
          (p) =>
            p.metadata.deletionTimestamp ||
            p.spec.containers[0]?.env?.find((e) => e.name === 'LOG_LEVEL')?.value === 'info',
        );
      });
      assert.ok(reader.ok > midway, 'the reader kept reading through the rollback');
    } finally {
      await reader.stop();
    }
    figure(`reads during upgrade and rollback: ${reader.ok} answered 200, ${reader.failed.length} failed`);
    assert.deepEqual(reader.failed, [], 'no request failed during the rollouts');
    const history = await helm('history', RELEASE, '-o', 'json');
    const revisions = JSON.parse(history) as { revision: number; status: string; description: string }[];
    assert.deepEqual(
      revisions.map((r) => r.status),
      ['superseded', 'superseded', 'deployed'],
    );
    assert.match(revisions[2]?.description ?? '', /Rollback to 1/);
  });

  test('browser hosts scale out when one is full and back in without ending a live session', async () => {
    const hosts = `${FULLNAME}-browser-host`;
    await until(
      'the HPA to read the busy ratio through the custom metrics API',
      async () => {
        const hpa = await json<Hpa>('get', 'hpa', hosts);
        return hpa.status.currentMetrics?.some((m) => m.pods?.current?.averageValue !== undefined) ?? false;
      },
      180_000,
    );
    await until('one browser host', async () => (await pods('browser-host')).length === 1, 300_000);

    // SESSION_CAPACITY 2: two sessions fill the first host (once the gateways have heard of it).
    let opened: Session | undefined;
    await until('a host to take a session', async () => {
      opened = await openSession();
      return true;
    });
    const first = [opened as Session, await openSession()];
    assert.deepEqual(
      first.map((s) => s.host),
      [`${hosts}-0`, `${hosts}-0`],
    );
    // Each session's Chromium in the pod runs as an OS user of its own, not the host's root.
    const uids = (await kubectl('exec', `${hosts}-0`, '-c', 'browser-host', '--', 'sh', '-c', SESSION_UIDS))
      .split('\n')
      .filter(Boolean)
      .map(Number);
    assert.ok(uids.length >= 2, `session browsers: ${uids.join(', ')}`);
    for (const uid of uids) assert.ok(uid >= 200_000 && uid <= 209_999, `a session browser runs as ${uid}`);
    assert.equal(new Set(uids).size, uids.length, 'no two session browsers share a user');
    // As one session's user: its own files and egress proxy, not another session's.
    const apart = await twoSessions(`${hosts}-0`, PUBLIC_PAGE);
    assert.deepEqual(
      apart.asFirst,
      { ownDir: 'read', otherDir: 'EACCES', ownProxy: 200, otherProxy: 403 },
      JSON.stringify(apart),
    );
    const full = Date.now();
    await until(
      'a second browser host ready',
      async () => (await pods('browser-host')).filter(isReady).length === 2,
      300_000,
    );
    figure(
      `browser-host scale-up (first host full -> second host ready): ${((Date.now() - full) / 1000).toFixed(0)} s`,
    );
    // A new session goes where there is room, once the gateways have heard of the new host.
    let third = opened as Session;
    await until('the new host to take a session', async () => {
      third = await openSession();
      return true;
    });
    assert.equal(third.host, `${hosts}-1`);

    for (const s of first) s.close();
    const quiet = Date.now();
    await until(
      'the HPA to take the second host away',
      async () =>
        (await pods('browser-host')).some((p) => p.metadata.name === `${hosts}-1` && p.metadata.deletionTimestamp),
      300_000,
    );
    figure(
      `browser-host scale-down decision (sessions closed -> second host told to stop): ${((Date.now() - quiet) / 1000).toFixed(0)} s`,
    );
    // The host drains: it offers no more room (capacity 0, read through the custom metrics
    // API), and its live session still answers CDP.
    const capacity = `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${NAMESPACE}/pods/${hosts}-1/wap_browser_sessions_capacity`;
    await until('the leaving host to offer no room', async () => {
      const list = JSON.parse(await kubectl('get', '--raw', capacity)) as { items: { value: string }[] };
      return list.items[0]?.value === '0';
    });
    assert.match((await third.cdp<{ product: string }>('Browser.getVersion')).product, /Chrome/);
    assert.equal(third.closedWith, undefined, 'the live session was not ended by the scale-down');
    const drained = Date.now();
    third.close();
    await until(
      'the second host gone once its last session ended',
      async () => (await pods('browser-host')).length === 1,
      120_000,
    );
    figure(
      `browser-host drain (last session closed -> pod gone): ${((Date.now() - drained) / 1000).toFixed(0)} s; scale-down in all ${((Date.now() - quiet) / 1000).toFixed(0)} s`,
    );
  });

  test('every service crashed, then its pod deleted, in the middle of a crawl: all come back and no page is lost', async () => {
    const pages = 120;
    apply(siteManifest(pages, 1000));
    await kubectl('rollout', 'status', 'deployment/test-site', '--timeout=120s');
    // Ready is not yet routed: wait until the Service answers (kube-proxy has its rules).
    const site = `http://${await clusterIp('test-site')}:8080/p/0`;
    // kube-proxy writes a new Service's rules within its sync period, which a loaded two-core node stretches.
    await until(
      'the site to answer through its Service',
      async () => (await fetch(site).catch(() => undefined))?.ok ?? false,
      120_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await serviceDiagnosis('test-site', 8080, '/p/0')}`);
    });
    const usageBefore = await pageLoads();
    const started = await call<{ id: string }>(gateway, 'POST', '/v1/crawl', {
      key,
      body: {
        url: `http://test-site.${NAMESPACE}.svc:8080/p/0`,
        // Above the site's size: the crawl ends because it found every page.
        limit: 200,
        // Four pages a second at most, so the crawl outlasts both rounds.
        maxConcurrency: 4,
        scrapeOptions: { formats: ['markdown'] },
      },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body.id;
    await until('the crawl to deliver its first pages', async () => (await crawl(id)).completed >= 3, 60_000);

    // Round 1: the process of one pod of each service dies (its container SIGKILLed):
    // the kubelet restarts it in place and readiness takes it back.
    const crashedAt = Date.now();
    const crashed = new Map<string, { pod: string; restarts: number }>();
    for (const service of SERVICES) {
      const pod = (await pods(service)).find(isReady);
      const status = pod?.status.containerStatuses?.[0];
      assert.ok(pod && status?.containerID, `${service} has a ready pod to crash`);
      crashed.set(service, { pod: pod.metadata.name, restarts: status.restartCount });
      await killContainer(status.containerID);
    }
    const restartedAfter = await readyAgain(crashedAt, (service, live) => {
      const victim = live.find((p) => p.metadata.name === crashed.get(service)?.pod);
      const restarts = victim?.status.containerStatuses?.[0]?.restartCount ?? 0;
      return victim !== undefined && isReady(victim) && restarts > (crashed.get(service)?.restarts ?? 0);
    });
    figure(`restarted and ready after its process was killed: ${restartedAfter}`);
    assert.equal((await crawl(id)).status, 'running', 'the crawl is still running for the second round');

    // Round 2: one pod of each service deleted at once, no grace: replaced, possibly elsewhere.
    const killedAt = Date.now();
    const victims = new Map<string, string>();
    for (const service of SERVICES) {
      const pod = (await pods(service)).find(isReady);
      assert.ok(pod, `${service} has a ready pod to kill`);
      victims.set(service, pod.metadata.name);
    }
    await kubectl('delete', 'pod', '--grace-period=0', '--force', '--wait=false', ...victims.values());
    const replacedAfter = await readyAgain(killedAt, (service, live) => {
      const others = live.filter((p) => p.metadata.name !== victims.get(service) || isReady(p));
      const want = service === 'gateway' || service === 'billing-ledger' ? 2 : 1;
      return others.filter(isReady).length >= want;
    });
    figure(`ready again after a pod of each was deleted: ${replacedAfter}`);

    let last: CrawlJson | undefined;
    await until(
      `crawl ${id} to settle (last: ${JSON.stringify(last)})`,
      async () => {
        last = await crawl(id);
        return last.status === 'settled';
      },
      300_000,
    );
    assert.equal(last?.outcome, 'completed', JSON.stringify(last));
    assert.equal(last?.completed, pages, 'every page of the site delivered');
    assert.equal(last?.failed, 0, JSON.stringify(last));
    const urls = await resultUrls(id);
    assert.equal(new Set(urls).size, pages, 'each page delivered once');
    assert.equal(urls.length, pages);
    let billed = 0;
    // The last blocks are billed by services that were just restarted: give them time.
    await until(
      'the ledger to bill the pages delivered',
      async () => {
        billed = (await pageLoads()) - usageBefore;
        return billed >= pages;
      },
      120_000,
    );
    assert.equal(
      billed,
      pages,
      `the ledger billed exactly the pages delivered (the crawl says ${JSON.stringify(last)})`,
    );
    await kubectl('delete', 'deployment,service', 'test-site', '--ignore-not-found');
  });
});

interface Hpa {
  status: { currentMetrics?: { pods?: { current?: { averageValue?: string } } }[] };
}

const clusterDns = new Resolver();
clusterDns.setServers([process.env.CLUSTER_DNS ?? '10.96.0.10']);

interface Session {
  host: string;
  closedWith: string | undefined;
  cdp<T>(method: string): Promise<T>;
  close(): void;
}

/**
 * A CDP session as a client in the cluster opens it: GET /connect at the
 * gateway answers 302 to a browser host's in-cluster address, resolved here
 * through the cluster's DNS.
 */
async function openSession(): Promise<Session> {
  const { res } = await upgrade(`${gateway}/connect`, { Authorization: `Bearer ${key}` });
  const location = res.headers.location;
  if (res.statusCode !== 302 || !location) throw new Error(`GET /connect answered ${res.statusCode}`);
  const url = new URL(location);
  const [address] = await clusterDns.resolve4(url.hostname);
  url.hostname = address ?? url.hostname;
  const socket = new WebSocket(url.toString());
  const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  let lastId = 0;
  const session: Session = {
    host: new URL(location).hostname.split('.')[0] ?? '',
    closedWith: undefined,
    cdp<T>(method: string) {
      const id = ++lastId;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, (m) => (m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result as T)));
        socket.send(JSON.stringify({ id, method }));
      });
    },
    close() {
      socket.close();
    },
  };
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  socket.addEventListener('close', (event) => {
    session.closedWith = `${event.code} ${event.reason}`;
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`no WebSocket to ${location}`)), { once: true });
  });
  return session;
}

/** SIGKILL of a container's process, from the node (the cluster's containerd): a crash, not a deletion. */
async function killContainer(containerId: string): Promise<void> {
  const id = containerId.replace(/^containerd:\/\//, '');
  const sock = process.env.CLUSTER_CONTAINERD_SOCK ?? '/run/wap-cluster/containerd.sock';
  await promisify(execFile)('ctr', ['--address', sock, '-n', 'k8s.io', 'tasks', 'kill', '-s', 'SIGKILL', id]);
}

/** Waits until `back` holds for every service; answers how long each took, slowest last. */
async function readyAgain(since: number, back: (service: string, live: Pod[]) => boolean): Promise<string> {
  const after = new Map<string, number>();
  await until(
    'every service ready again',
    async () => {
      for (const service of SERVICES) {
        if (!after.has(service) && back(service, await pods(service))) after.set(service, Date.now() - since);
      }
      return after.size === SERVICES.length;
    },
    300_000,
  );
  return [...after].map(([s, ms]) => `${s} ${(ms / 1000).toFixed(0)} s`).join(', ');
}

interface CrawlJson {
  status: string;
  outcome: string | null;
  completed: number;
  failed: number;
}

/**
 * A read as a client after an outage makes it: a 503 (a gateway still reconnecting to a
 * service that restarted, Retry-After given) or a dropped connection is asked again, for up
 * to a minute; any other answer than 200 fails.
 */
async function read<T>(path: string): Promise<T> {
  let body: T | undefined;
  let last = '';
  await until(
    `GET ${path} (last: ${last})`,
    async () => {
      const r = await call<T>(gateway, 'GET', path, { key, timeoutMs: 10_000 }).catch((err: unknown) => {
        last = String(err);
        return undefined;
      });
      if (!r || r.status === 503) return false;
      assert.equal(r.status, 200, `GET ${path}: ${JSON.stringify(r.body)}`);
      body = r.body;
      return true;
    },
    60_000,
  );
  return body as T;
}

async function crawl(id: string): Promise<CrawlJson> {
  return (await read<{ crawl: CrawlJson }>(`/v1/crawl/${id}`)).crawl;
}

interface ResultsPage {
  data: { metadata: { sourceURL?: string } }[];
  nextCursor: string | null;
}

async function resultUrls(id: string): Promise<string[]> {
  const urls: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const qs: string = cursor ? `?cursor=${encodeURIComponent(cursor)}&limit=100` : '?limit=100';
    const page: ResultsPage = await read<ResultsPage>(`/v1/crawl/${id}/results${qs}`);
    urls.push(...page.data.map((p) => p.metadata.sourceURL ?? ''));
    cursor = page.nextCursor;
  }
  return urls;
}

async function pageLoads(): Promise<number> {
  return (await read<{ total: { meters: Record<string, number> } }>('/v1/usage')).total.meters.page_load ?? 0;
}

/** A client reading its credits one request after another through the gateway's Service. */
function startReader() {
  const state = { ok: 0, failed: [] as string[], stopped: false };
  const loop = (async () => {
    while (!state.stopped) {
      try {
        const r = await call(gateway, 'GET', '/v1/credits', { key });
        if (r.status === 200) state.ok++;
        else state.failed.push(`${new Date().toISOString()} ${r.status} ${JSON.stringify(r.body)}`);
      } catch (err) {
        state.failed.push(`${new Date().toISOString()} ${String((err as Error).cause ?? err)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    get ok() {
      return state.ok;
    },
    failed: state.failed,
    async stop() {
      state.stopped = true;
      await loop;
    },
  };
}

function siteManifest(pages: number, delayMs: number): string {
  const labels = { 'app.kubernetes.io/name': 'test-site' };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'test-site', labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              securityContext: RESTRICTED_POD,
              automountServiceAccountToken: false,
              containers: [
                {
                  name: 'site',
                  image: 'docker.io/library/web-access:0.1.0',
                  imagePullPolicy: 'Never',
                  command: ['node', '-e', SITE],
                  env: [
                    { name: 'PAGES', value: String(pages) },
                    { name: 'DELAY_MS', value: String(delayMs) },
                  ],
                  ports: [{ containerPort: 8080 }],
                  readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 2 },
                  resources: { requests: { cpu: '10m', memory: '48Mi' }, limits: { memory: '128Mi' } },
                  securityContext: RESTRICTED_CONTAINER,
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'test-site', labels },
        spec: { selector: labels, ports: [{ port: 8080, targetPort: 8080 }] },
      },
    ],
  });
}
