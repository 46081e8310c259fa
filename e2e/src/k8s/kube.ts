// kubectl and helm against the local cluster (scripts/cluster.sh), for `make test-k8s`.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const NAMESPACE = process.env.K8S_TEST_NAMESPACE ?? 'wap-test';
export const RELEASE = 'wap';
export const FULLNAME = `${RELEASE}-web-access`;

/** kubectl in the test namespace; stdout. */
export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['-n', NAMESPACE, ...args], { maxBuffer: 32 << 20 });
  return stdout;
}

/** kubectl in the test namespace; what it printed on both streams (the API server's warnings are on stderr). */
export async function kubectlWithWarnings(...args: string[]): Promise<string> {
  const { stdout, stderr } = await run('kubectl', ['-n', NAMESPACE, ...args], { maxBuffer: 32 << 20 });
  return `${stdout}${stderr}`;
}

/** kubectl apply of a manifest given as text. */
export function apply(manifest: string): string {
  return execFileSync('kubectl', ['-n', NAMESPACE, 'apply', '-f', '-'], {
    input: manifest,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export async function helm(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('helm', ['-n', NAMESPACE, ...args], { maxBuffer: 32 << 20 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')}: ${e.stderr || e.message}\n${e.stdout ?? ''}`);
  }
}

export async function json<T>(...args: string[]): Promise<T> {
  return JSON.parse(await kubectl(...args, '-o', 'json')) as T;
}

export interface Pod {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  status: {
    phase: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number; ready: boolean; containerID?: string }[];
  };
  spec: { containers: { env?: { name: string; value?: string }[] }[] };
}

export const isReady = (pod: Pod): boolean =>
  !pod.metadata.deletionTimestamp &&
  (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The pods of one service of the release (app.kubernetes.io/component). */
export async function pods(component: string): Promise<Pod[]> {
  const list = await json<{ items: Pod[] }>(
    'get',
    'pods',
    '-l',
    `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`,
  );
  return list.items;
}

/** The ClusterIP of a Service of the release (reachable from the node through kube-proxy's rules). */
export async function clusterIp(service: string): Promise<string> {
  return (await kubectl('get', 'service', service, '-o', 'jsonpath={.spec.clusterIP}')).trim();
}

/**
 * Why a Service does not answer from the node, for a failure's message: its endpoints and whether
 * they are ready, whether its pods answer at their own addresses, and kube-proxy's NAT and filter
 * rules that name it (nf_tables, where cluster.sh has kube-proxy write; a "has no endpoints" REJECT
 * left behind is the cause decision 0030 found once).
 */
export async function serviceDiagnosis(service: string, port: number, path: string): Promise<string> {
  const lines: string[] = [];
  const attempt = async (what: string, fn: () => Promise<string>) => {
    lines.push(`${what}: ${await fn().catch((err: Error) => `(failed: ${err.message.split('\n')[0]})`)}`);
  };
  type Slices = { items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] };
  let addresses: string[] = [];
  await attempt('endpoints', async () => {
    const slices = await json<Slices>('get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`);
    const endpoints = slices.items.flatMap((s) => s.endpoints ?? []);
    addresses = endpoints.flatMap((e) => e.addresses);
    return JSON.stringify(endpoints.map((e) => ({ addresses: e.addresses, ready: e.conditions?.ready })));
  });
  for (const address of addresses)
    await attempt(`pod ${address}:${port}${path} directly`, async () => {
      const res = await fetch(`http://${address}:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
      return String(res.status);
    });
  for (const table of ['nat', 'filter'])
    await attempt(`kube-proxy's ${table} rules naming it`, async () => {
      const { stdout } = await run('iptables-nft-save', ['-t', table], { maxBuffer: 32 << 20 });
      const named = stdout.split('\n').filter((l) => l.includes(`${NAMESPACE}/${service}`));
      return named.length === 0 ? 'none' : `\n  ${named.join('\n  ')}`;
    });
  return lines.join('\n');
}

/** The gateway's admin command in one of its pods (workspaces, keys). */
export async function gatewayAdmin<T>(...args: string[]): Promise<T> {
  const out = await kubectl(
    'exec',
    `deployment/${FULLNAME}-gateway`,
    '--',
    'node',
    'services/gateway/dist/admin.js',
    ...args,
  );
  return JSON.parse(out) as T;
}
