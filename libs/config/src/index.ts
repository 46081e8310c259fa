export {
  bool,
  csv,
  duration,
  type HostPort,
  hostPort,
  LOG_LEVELS,
  type LogLevel,
  logLevel,
  port,
  url,
} from './fields.js';
export { knownTimezone, validLocale } from './intl.js';
export { ConfigError, type ConfigProblem, type Env, loadConfig } from './load.js';
export { RENAMED_SETTINGS, renamedReason } from './renamed.js';
export { serviceEnv } from './service-env.js';
export {
  BACKENDS,
  type Backend,
  type BackendInfo,
  packageDir,
  SERVICE_TABLE,
  SERVICES,
  type ServiceInfo,
  type ServiceName,
  serviceInfo,
} from './services.js';
