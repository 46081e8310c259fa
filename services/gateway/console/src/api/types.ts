// The shapes the console reads, as the gateway answers them (docs/api.md and the console contract).

export interface Usage {
  credits: number;
  meters: Record<string, number>;
}

export interface Session {
  user: { id: string; email: string };
  workspace: { id: string; name: string; plan: string };
  role: 'owner' | 'member';
  workspaces: { id: string; name: string; role: 'owner' | 'member' }[];
  csrfToken: string;
  expiresAt: string;
}

export interface Grant {
  id: string;
  kind: string;
  granted: number;
  spent: number;
  remaining: number;
  lapsesAt: string | null;
  createdAt: string | null;
}

export interface Credits {
  granted: number;
  spent: number;
  remaining: number;
  grants: Grant[];
  held: number;
  available: number;
  allowance: { plan: string; credits: number; spent: number; resetsAt: string | null };
}

export interface UsageReport {
  from: string;
  to: string;
  total: Usage;
  byCapability: (Usage & { capability: string })[];
  byDay: (Usage & { day: string; creditsByMeter: Record<string, number> })[];
}

export interface Call {
  id: string;
  at: string;
  capability: string;
  reference: string;
  usage: Usage;
}

export interface ApiKey {
  id: string;
  name: string;
  surfaces: ('rest' | 'mcp')[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface BrowserSession {
  id: string;
  status: 'live' | 'ended';
  outcome: string | null;
  task: { kind: 'connect' | 'agent' | 'scrape'; run?: string; request?: string };
  startedAt: string;
  endedAt: string | null;
  ageSeconds: number;
  durationSeconds: number;
  pageCount: number;
  usage: Usage;
  replayUrl: string | null;
  recording: { chunks: number; bytes: number; head: string } | null;
}

export interface NetworkRequest {
  id: string;
  tab: number;
  url: string;
  method: string;
  type: string;
  status: number;
  startedAt: string;
  durationMs: number;
  remoteAddress: string;
  responseBytes: number;
  mimeType: string;
  error: string | null;
  protocol: string;
}

export type RunStatus = 'queued' | 'running' | 'paused' | 'settled';

/** A run as GET /v1/agent lists it (its task cut at 200 characters). */
export interface RunSummary {
  id: string;
  status: RunStatus;
  outcome: 'completed' | 'failed' | 'cancelled' | null;
  pausedFor: 'question' | 'approval' | 'control' | null;
  reason: { code: string; message: string } | null;
  task: string;
  sessionId: string | null;
  steps: number;
  model: string;
  usage: Usage;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface Run extends RunSummary {
  question: string | null;
  answer: unknown;
  url: string | null;
  plan: string[];
  maxSteps: number;
  maxCredits: number;
}

export interface RunEvent {
  seq: number;
  at: string;
  level: 'summary' | 'step' | 'debug';
  kind: string;
  message: string;
  /** What the event carries besides its message; a step's holds its profile and the model's tokens. */
  data: Record<string, unknown> | null;
}

export interface RunRecord {
  seq: number;
  at: string;
  record: unknown;
}

export interface Monitor {
  id: string;
  url: string;
  schedule: { every: string } | { cron: string; timezone: string };
  notify: { kind: 'discord' | 'slack' | 'webhook'; url: string };
  createdAt: string;
  nextCheckAt: string;
  lastCheck: {
    at: string;
    status: 'ok' | 'changed' | 'failed' | 'skipped';
    changed: boolean;
    errorCode: string | null;
  } | null;
  skippedReason: 'credits' | 'plan' | null;
  deliveries: {
    at: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
  }[];
}

export interface Profile {
  id: string;
  label: string;
  exit: { id: string; kind: string; region: string | null };
  createdAt: string;
  lastUsedAt: string | null;
  storageBytes: number;
  inUse: boolean;
}

export interface Member {
  userId: string;
  email: string;
  role: 'owner' | 'member';
  addedAt: string;
}
