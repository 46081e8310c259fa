// What every handler is given: the monitors' store and the settings that
// decide what a monitor may be (its key, where it may notify, its links).
import type { AllowList } from '@wap/netguard';
import type { SnapshotLinks } from '../domain/links.js';
import type { MonitorStore } from '../store/monitors.js';

export interface MonitorSettings {
  key: string | undefined;
  allow: AllowList;
  /** Signs the snapshot links of notifications; absent without MONITOR_KEY. */
  links: SnapshotLinks | undefined;
  /** Stand-in origins for Discord and Slack (tests). */
  discordOrigin?: string | undefined;
  slackOrigin?: string | undefined;
}

export interface MonitorDeps {
  store: MonitorStore;
  settings: MonitorSettings;
  /** Told that a monitor of the workspace was deleted: one paused past its plan's cap may fit now. */
  deleted?: (workspaceId: string) => void;
}
