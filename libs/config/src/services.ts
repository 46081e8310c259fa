// The platform's services, listed once: a contract every service may read (the
// gateway takes its backends from it), and the list the dev fleet (libs/fleet)
// starts. What cannot import TypeScript (the Makefile, tsconfig.json's
// references, the Helm chart) is checked against it by libs/fleet's
// services.test.ts.

/**
 * Every service, in the order the fleet starts them (the gateway last: it fronts the rest):
 * - `name`: its package is services/<name> (`packageDir`), as the Makefile and the chart's pods have it;
 * - `grpcPort`: the default GRPC_PORT of its config.ts, and its port under `make up`;
 * - `address`: the variable that gives another service its gRPC target (<NAME>_ADDR, as the chart builds it);
 * - `backend`: the gateway fronts it, each capability through the backend its registry row names.
 */
export const SERVICE_TABLE = [
  { name: 'billing-ledger', grpcPort: 50051, address: 'BILLING_LEDGER_ADDR', backend: true },
  { name: 'crawl', grpcPort: 50052, address: 'CRAWL_ADDR', backend: true },
  { name: 'agent', grpcPort: 50053, address: 'AGENT_ADDR', backend: true },
  { name: 'monitor', grpcPort: 50054, address: 'MONITOR_ADDR', backend: true },
  { name: 'session-recorder', grpcPort: 50055, address: 'SESSION_RECORDER_ADDR', backend: true },
  { name: 'browser-host', grpcPort: 50056, address: 'BROWSER_HOST_ADDR', backend: true },
  { name: 'gateway', grpcPort: 50050, address: 'GATEWAY_ADDR', backend: false },
] as const;

export type ServiceInfo = (typeof SERVICE_TABLE)[number];
export type ServiceName = ServiceInfo['name'];

/** The services' names, in the order they start. */
export const SERVICES: readonly ServiceName[] = SERVICE_TABLE.map((s) => s.name);

/** The services behind the gateway, in the table's order. */
export type BackendInfo = Extract<ServiceInfo, { backend: true }>;
export type Backend = BackendInfo['name'];
export const BACKENDS: readonly BackendInfo[] = SERVICE_TABLE.filter((s): s is BackendInfo => s.backend);

/** The row of `name`. */
export function serviceInfo(name: ServiceName): ServiceInfo {
  return SERVICE_TABLE.find((s) => s.name === name) as ServiceInfo;
}

/** A service's package, relative to the repository's root. */
export const packageDir = (name: ServiceName) => `services/${name}`;
