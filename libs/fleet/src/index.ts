export {
  BACKENDS,
  type Backend,
  packageDir,
  SERVICE_TABLE,
  SERVICES,
  type ServiceInfo,
  type ServiceName,
  serviceInfo,
} from '@wap/config';
export { type Infra, localInfra } from '@wap/db';
export {
  Fleet,
  type FleetSettings,
  freePort,
  freePorts,
  type Replica,
  ROOT,
} from './fleet.js';
