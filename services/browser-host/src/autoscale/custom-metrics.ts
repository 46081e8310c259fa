// The Kubernetes custom metrics API (custom.metrics.k8s.io/v1beta2), as much of
// it as a HorizontalPodAutoscaler reads: the busy ratio of every browser host,
// as a Pods metric (docs/decisions/0015-browser-host-autoscaling.md).
// The shapes follow k8s.io/metrics/pkg/apis/custom_metrics/v1beta2.
import { SESSION_GAUGES } from '../sessions/gauges.js';

export const GROUP_VERSION = 'custom.metrics.k8s.io/v1beta2';
export const METRICS = Object.values(SESSION_GAUGES);
export type MetricName = (typeof METRICS)[number];

/** GET /apis/custom.metrics.k8s.io/v1beta2: the metrics served, as pod resources. */
export function resourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: GROUP_VERSION,
    resources: METRICS.map((name) => ({
      name: `pods/${name}`,
      singularName: '',
      namespaced: true,
      kind: 'MetricValueList',
      verbs: ['get'],
    })),
  };
}

/** GET /apis/custom.metrics.k8s.io: the group, with its one version. */
export function apiGroup(): Record<string, unknown> {
  const version = { groupVersion: GROUP_VERSION, version: 'v1beta2' };
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'custom.metrics.k8s.io',
    versions: [version],
    preferredVersion: version,
  };
}

/** The value of one unlabelled gauge in a Prometheus text exposition; undefined when absent. */
export function gaugeValue(exposition: string, name: string): number | undefined {
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!/^[ {]/.test(rest)) continue; // another metric whose name starts with this one
    const value = Number(
      rest
        .replace(/^\{[^}]*\}/, '')
        .trim()
        .split(/\s+/)[0],
    );
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

/**
 * A quantity as Kubernetes writes it: whole numbers plain, fractions in
 * thousandths ("700m"), which is all the precision an HPA target has.
 */
export function quantity(value: number): string {
  const milli = Math.round(value * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

export interface PodSample {
  pod: string;
  value: number;
}

/** GET .../namespaces/{ns}/pods/{name|*}/{metric}: one item per pod that answered. */
export function metricValueList(
  namespace: string,
  metric: string,
  samples: PodSample[],
  at: Date,
): Record<string, unknown> {
  return {
    kind: 'MetricValueList',
    apiVersion: GROUP_VERSION,
    metadata: {},
    items: samples.map((s) => ({
      describedObject: { kind: 'Pod', namespace, name: s.pod, apiVersion: '/v1' },
      metric: { name: metric, selector: null },
      timestamp: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      windowSeconds: 0,
      value: quantity(s.value),
    })),
  };
}

export type Route =
  | { kind: 'group' }
  | { kind: 'resources' }
  | { kind: 'pods'; namespace: string; pod: string; metric: string }
  | { kind: 'unknown' };

/** The request paths an HPA and the aggregator's discovery send. */
export function route(pathname: string): Route {
  if (pathname === '/apis/custom.metrics.k8s.io' || pathname === '/apis/custom.metrics.k8s.io/')
    return { kind: 'group' };
  const base = `/apis/${GROUP_VERSION}`;
  if (pathname === base || pathname === `${base}/`) return { kind: 'resources' };
  const m = /^\/apis\/custom\.metrics\.k8s\.io\/v1beta2\/namespaces\/([^/]+)\/pods\/([^/]+)\/([^/]+)$/.exec(pathname);
  if (m?.[1] && m[2] && m[3]) {
    return {
      kind: 'pods',
      namespace: decodeURIComponent(m[1]),
      pod: decodeURIComponent(m[2]),
      metric: decodeURIComponent(m[3]),
    };
  }
  return { kind: 'unknown' };
}

/** A Kubernetes Status object, as the API answers a request it refuses. */
export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
