export { type Infra, localInfra } from '@wap/db';
export {
  Fleet,
  type FleetSettings,
  freePort,
  type Replica,
  ROOT,
  SERVICES,
  type ServiceName,
} from './fleet.js';
