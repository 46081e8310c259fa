// The meters as the console draws them. The rates are the price list's (libs/billing/src/prices.ts,
// spec part 8) in credits per unit: /v1/usage reports a day's credits and its meter quantities, not
// each meter's credits, so the chart splits a day's credits in proportion to what each meter is worth.
// The shares are drawn; the day's total is the ledger's own figure.

export interface MeterInfo {
  label: string;
  creditsPerUnit: number;
}

export const METERS: Readonly<Record<string, MeterInfo>> = {
  context_seconds: { label: 'Browser time', creditsPerUnit: 1 / 60 },
  page_load: { label: 'Pages', creditsPerUnit: 1 },
  search_result: { label: 'Search results', creditsPerUnit: 5 / 10 },
  agent_seconds: { label: 'Agent time', creditsPerUnit: 5 / 60 },
  monitor_change: { label: 'Monitor changes', creditsPerUnit: 1 },
  proxy_bytes: { label: 'Proxy traffic', creditsPerUnit: 2000 / 1e9 },
};

/** The meters in the contract's order, then a bucket for credits no known meter explains. */
export const CHART_SERIES = [...Object.keys(METERS), 'other'] as const;

export const seriesLabel = (series: string): string => METERS[series]?.label ?? 'Other';
