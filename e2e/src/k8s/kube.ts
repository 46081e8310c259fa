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
