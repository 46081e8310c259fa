export {
  Fleet,
  type FleetSettings,
  freePort,
  type Infra,
  localInfra,
  ROOT,
  SERVICES,
  type ServiceName,
} from './fleet.js';
