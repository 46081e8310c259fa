export {
  Fleet,
  type FleetSettings,
  freePort,
  type Infra,
  localInfra,
  type Replica,
  ROOT,
  SERVICES,
  type ServiceName,
} from './fleet.js';
