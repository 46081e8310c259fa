// The MonitorService (docs/monitors.md): one handler per RPC, each in its own file.
import type { monitor } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { createMonitor } from './create-monitor.js';
import { deleteMonitor } from './delete-monitor.js';
import type { MonitorDeps } from './deps.js';
import { getSnapshot } from './get-snapshot.js';
import { listMonitors } from './list-monitors.js';

export type { MonitorDeps, MonitorSettings } from './deps.js';

export function monitorService(deps: MonitorDeps): ServiceImpl<(typeof monitor.MonitorService)['method']> {
  return {
    createMonitor: createMonitor(deps),
    listMonitors: listMonitors(deps),
    deleteMonitor: deleteMonitor(deps),
    getSnapshot: getSnapshot(deps),
  };
}
