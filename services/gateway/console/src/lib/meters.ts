// The meters as the console draws them: a label each, in the order the chart stacks them.
// What each meter cost comes from the API (`creditsByMeter` of GET /v1/usage), never from a copy of the prices.

export const METER_LABELS: Readonly<Record<string, string>> = {
  context_seconds: 'Browser time',
  page_load: 'Pages',
  search_result: 'Search results',
  agent_seconds: 'Agent time',
  monitor_change: 'Monitor changes',
  proxy_bytes: 'Proxy traffic',
};

/** The meters in the chart's order, then a bucket for credits no known meter explains. */
export const CHART_SERIES = [...Object.keys(METER_LABELS), 'other'] as const;

export const seriesLabel = (series: string): string => METER_LABELS[series] ?? 'Other';
