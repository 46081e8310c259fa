// The names of the busy-browsers gauges (metrics.ts): what Prometheus scrapes and
// the custom metrics API (autoscale/) serves the HPA. A module of its own so the
// metrics API process reads them without loading the service runtime.
export const SESSION_GAUGES = {
  live: 'wap_browser_sessions_live',
  capacity: 'wap_browser_sessions_capacity',
  busyRatio: 'wap_browser_sessions_busy_ratio',
} as const;
