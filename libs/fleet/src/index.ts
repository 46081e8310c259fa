export { type Infra, localInfra } from '@wap/db';
export {
  Fleet,
  type FleetSettings,
  freePort,
  freePorts,
  type Replica,
  ROOT,
} from './fleet.js';
