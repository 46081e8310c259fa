#!/usr/bin/env node
// The custom metrics API for the browser hosts' HorizontalPodAutoscaler, for a
// cluster with no Prometheus and prometheus-adapter (the chart's
// browserHost.metricsApi; docs/decisions/0015-browser-host-autoscaling.md).
// The API server reaches it through an APIService; each request it answers by
// reading GET /metrics of every browser host, <statefulset>-<i>.<service> for i
// below HOSTS_MAX, and serving the busy ratio (and live, capacity) per pod.
//
// Only the API server may ask: the TLS server asks for a client certificate
// and accepts the front proxy's, checked against the CA and names the cluster
// publishes in kube-system/extension-apiserver-authentication (read with this
// pod's ServiceAccount token), as every aggregated API server does.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createLogger } from '@wap/log';
import { z } from 'zod';
import {
  apiGroup,
  gaugeValue,
  METRICS,
  type MetricName,
  metricValueList,
  type PodSample,
  resourceList,
  route,
  status,
} from './custom-metrics.js';

const env = z
  .object({
    METRICS_API_PORT: z.coerce.number().int().min(1).max(65535).default(6443),
    /** Plain-HTTP port for the kubelet's probes (GET /healthz); 0: none. */
    HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
    TLS_CERT_FILE: z.string(),
    TLS_KEY_FILE: z.string(),
    /** The browser hosts' StatefulSet: its pods are <name>-0, <name>-1... */
    HOSTS_STATEFULSET: z.string().min(1),
    /** The headless Service's domain: <pod>.<this> resolves to a host. */
    HOSTS_DOMAIN: z.string().min(1),
    HOSTS_MAX: z.coerce.number().int().min(1).max(1000),
    HOSTS_METRICS_PORT: z.coerce.number().int().min(1).max(65535).default(9464),
    /** The front proxy's CA in a file; unset, read from the cluster. */
    REQUESTHEADER_CA_FILE: z.string().optional(),
  })
  .parse(process.env);

const log = createLogger({ service: 'browser-metrics-api' });
const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

interface FrontProxy {
  ca: string;
  allowedNames: string[];
}

/** The front proxy's CA and allowed client names, from the cluster (or a file). */
async function frontProxy(): Promise<FrontProxy> {
  if (env.REQUESTHEADER_CA_FILE) return { ca: readFileSync(env.REQUESTHEADER_CA_FILE, 'utf8'), allowedNames: [] };
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('not in a cluster (KUBERNETES_SERVICE_HOST unset) and no REQUESTHEADER_CA_FILE');
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(
      {
        host,
        port,
        path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
        ca: readFileSync(`${SA}/ca.crt`),
        headers: { authorization: `Bearer ${readFileSync(`${SA}/token`, 'utf8').trim()}` },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          res.statusCode === 200 ? resolve(text) : reject(new Error(`configmap read answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('configmap read timed out')));
    req.end();
  });
  const data = (JSON.parse(body) as { data?: Record<string, string> }).data ?? {};
  const ca = data['requestheader-client-ca-file'];
  if (!ca) throw new Error('the cluster publishes no requestheader-client-ca-file: the aggregation layer is off');
  const allowedNames = JSON.parse(data['requestheader-allowed-names'] ?? '[]') as string[];
  return { ca, allowedNames };
}

/** Each host's gauges, read now; hosts that do not answer are left out. */
async function sample(metric: MetricName): Promise<PodSample[]> {
  const reads = Array.from({ length: env.HOSTS_MAX }, async (_, i): Promise<PodSample | undefined> => {
    const pod = `${env.HOSTS_STATEFULSET}-${i}`;
    try {
      const res = await fetch(`http://${pod}.${env.HOSTS_DOMAIN}:${env.HOSTS_METRICS_PORT}/metrics`, {
        signal: AbortSignal.timeout(2_000),
      });
      if (!res.ok) return undefined;
      const value = gaugeValue(await res.text(), metric);
      return value === undefined ? undefined : { pod, value };
    } catch {
      return undefined; // no such pod (yet), or not serving
    }
  });
  return (await Promise.all(reads)).filter((s): s is PodSample => s !== undefined);
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function main(): Promise<void> {
  const proxy = await frontProxy();
  const server = createTlsServer(
    {
      cert: readFileSync(env.TLS_CERT_FILE),
      key: readFileSync(env.TLS_KEY_FILE),
      ca: proxy.ca,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket as TLSSocket;
      const subject = socket.getPeerCertificate()?.subject?.CN;
      const cn = Array.isArray(subject) ? subject[0] : subject;
      if (!socket.authorized || (proxy.allowedNames.length > 0 && !proxy.allowedNames.includes(cn ?? ''))) {
        send(res, 401, status(401, 'Unauthorized', 'only the API server front proxy may ask'));
        return;
      }
      const url = new URL(req.url ?? '/', 'https://metrics-api');
      const r = route(url.pathname);
      if (req.method !== 'GET') send(res, 405, status(405, 'MethodNotAllowed', 'only GET'));
      else if (r.kind === 'group') send(res, 200, apiGroup());
      else if (r.kind === 'resources') send(res, 200, resourceList());
      else if (r.kind === 'pods') {
        const metric = METRICS.find((m) => m === r.metric);
        if (!metric) {
          send(res, 404, status(404, 'NotFound', `no metric ${r.metric}`));
          return;
        }
        sample(metric).then(
          (samples) => {
            const picked = r.pod === '*' ? samples : samples.filter((s) => s.pod === r.pod);
            log.debug({ metric, pods: picked.length }, 'served');
            send(res, 200, metricValueList(r.namespace, metric, picked, new Date()));
          },
          (err: unknown) => send(res, 500, status(500, 'InternalError', String(err))),
        );
      } else send(res, 404, status(404, 'NotFound', `no route ${url.pathname}`));
    },
  );
  server.listen(env.METRICS_API_PORT, '0.0.0.0', () =>
    log.info({ port: env.METRICS_API_PORT }, 'custom metrics API serving'),
  );
  const health = env.HEALTH_PORT
    ? createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }).listen(env.HEALTH_PORT, '0.0.0.0')
    : undefined;
  const stop = () => {
    server.close();
    health?.close();
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'custom metrics API could not start');
  process.exit(1);
});
