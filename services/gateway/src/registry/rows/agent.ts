// Browser agent runs (docs/agent.md): a task in natural language becomes a
// run that a replica of the agent service drives in a recorded browser. The
// submit bills (pages, agent minutes, browser minutes as the run uses them);
// every other row here is free: reads, cancel, control, answer, files.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { z } from 'zod';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { base64Length, capability, type FileUpload, type HandlerContext } from '../types.js';
import { fileObject, runObject, runStatus, runSummaryObject, toRunJson, toRunSummaryJson } from './agent-object.js';
import { pageUrl } from './scrape.js';

/** The largest file a run takes (the agent service's own limit), and the most a submit carries. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_SUBMIT_FILES = 20;

/** A submit's files: 10 MB in all (one request, one message to the agent service); more by the files route. */
const submitFiles: FileUpload = {
  field: 'files',
  most: MAX_SUBMIT_FILES,
  fileBytes: MAX_FILE_BYTES,
  totalBytes: MAX_FILE_BYTES,
};
const oneFile: FileUpload = { field: 'file', most: 1, fileBytes: MAX_FILE_BYTES, totalBytes: MAX_FILE_BYTES };

const fileInput = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    .describe(
      'The file name the page sees, e.g. `resume.pdf`: one plain line, not `.` or `..`, without `/` or `\\`, control or invisible format characters (such as bidi overrides); another is 400 `bad_request` naming it.',
    ),
  mimeType: z.string().max(255).optional().describe('Its media type (default application/octet-stream).'),
  data: z.base64().max(base64Length(MAX_FILE_BYTES)).describe('Its bytes, base64; 10 MB (10,485,760 bytes) at most.'),
});

const body = z.strictObject({
  task: z.string().min(1).max(20_000).describe('What to do, in natural language.'),
  url: pageUrl('Where the run starts (http or https); without it, the model navigates first.').optional(),
  profile: z
    .uuid()
    .optional()
    .describe('A profile (POST /v1/profiles) whose cookies and exit the run uses: a login kept across runs.'),
  outputSchema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'A JSON Schema the answer must satisfy; the run cannot finish with an answer that does not. It must be one a model can write an answer in: no `$ref` to a schema it is part of (recursion), nothing inside more than 10 objects or arrays, 200 properties at most in all; another is 400 `bad_request` naming `outputSchema`.',
    ),
  model: z
    .string()
    .max(64)
    .optional()
    .describe(
      'A model of this deployment: `embedded` (runs on the service, no account needed) or a configured endpoint.',
    ),
  maxCredits: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('The spend cap, credits (default 100): the run stops before another step would pass it.'),
  maxSteps: z.number().int().min(1).max(1_000).optional().describe('The step cap (default 50).'),
  stepProfile: z
    .string()
    .max(64)
    .optional()
    .describe(
      'How the run\'s steps are put to its model (docs/models.md, "Step profiles"): `full` (evaluation, memory, plan, up to three actions) or `compact` (one action over what the page allows); default: the model\'s own. Or a lab arm, an experimental profile (`compact-plan`), which only a workspace the deployment enrolled in it may ask for: another is 403 `lab_arm_forbidden`.',
    ),
  files: z
    .array(fileInput)
    .max(MAX_SUBMIT_FILES)
    .optional()
    .describe(
      'Files handed over with the task: 20 at most, 10 MB each and 10 MB in all (more can follow, one at a time: POST /v1/agent/{id}/files). Or send the request as multipart/form-data: each file a part named `files`, the other fields as JSON in a part named `body`.',
    ),
  secrets: z
    .array(z.string().min(1).max(64))
    .max(100)
    .optional()
    .describe(
      'Handles of secrets (POST /v1/secrets) the run may fill, on their domains only; 10 at most by default (run_secrets_limit). The model sees handles, never values.',
    ),
  integrations: z
    .array(z.string().min(1).max(100))
    .max(20)
    .optional()
    .describe('Ids of integrations (POST /v1/integrations) whose tools the run may call; no other is reachable.'),
  purchases: z
    .strictObject({
      spendCap: z
        .number()
        .int()
        .min(0)
        .max(2_147_483_647)
        .optional()
        .describe('The most the run may spend in all, minor units (cents); required with a card (spend_cap_required).'),
      perPurchaseLimit: z
        .number()
        .int()
        .min(0)
        .max(2_147_483_647)
        .optional()
        .describe('The most one purchase may cost, minor units.'),
      currency: z
        .string()
        .length(3)
        .describe('An ISO 4217 code of money in use, upper case, e.g. EUR (`ZZZ`, `XXX` or `XAU` are refused).'),
      merchants: z
        .array(z.string().min(1).max(253))
        .max(50)
        .optional()
        .describe('Hosts the run may buy from (each covering its subdomains); without it, any.'),
    })
    .optional()
    .describe('Limits on what the run buys with a card: a run that names a card secret needs `spendCap`.'),
});

const params = z.strictObject({ id: z.string().min(1).max(100).describe('The run id.') });

const ref = (ctx: HandlerContext, id: string) => ({ workspaceId: ctx.principal.workspaceId, runId: id });

export const agentRow = capability({
  name: 'agent',
  method: 'post',
  path: '/v1/agent',
  tag: 'Agent',
  summary: 'Start a browser agent run',
  description:
    "Queues a natural-language browser task and answers 202 with the run at once; a replica drives it in a recorded browser, for as long as it takes (hours if need be). Poll GET /v1/agent/{id}, read its events and records. Bills 1 credit per page, 5 per minute of agent time and 1 per minute of browser time, paused time excluded; `maxCredits` caps it. Its browser counts against the plan's concurrent browsers: while all are in use the run waits queued (a `waiting` event says so), and a submit is refused 429 `concurrency_limit` only when the workspace already has AGENT_MAX_QUEUED_RUNS runs waiting to start.",
  openWorld: true,
  backend: 'agent',
  bills: ['page_load', 'agent_seconds', 'context_seconds', 'proxy_bytes'],
  mcpTool: 'service_agent_start',
  request: { body },
  files: submitFiles,
  example: {
    task: 'Find the price of the cheapest plan and return it',
    url: 'https://example.com/pricing',
    outputSchema: { type: 'object', properties: { price: { type: 'string' } }, required: ['price'] },
    maxCredits: 50,
  },
  answer: { kind: 'json', status: 202 },
  response: z.object({ success: z.literal(true), id: z.string(), run: runObject }),
  errors: [
    'page_unreachable',
    'concurrency_limit',
    'capability_unavailable',
    'profile_not_found',
    'card_number_in_task',
    'run_secrets_limit',
    'spend_cap_required',
    'lab_arm_forbidden',
  ],
  handler: async (ctx, { body: b }) => {
    const out = await ctx.upstreams.agent.submitRun(
      {
        workspaceId: ctx.principal.workspaceId,
        requestId: ctx.operationId,
        task: b.task,
        startUrl: b.url ?? '',
        profileId: b.profile ?? '',
        outputSchemaJson: b.outputSchema ? JSON.stringify(b.outputSchema) : '',
        model: b.model ?? '',
        maxCredits: b.maxCredits ?? 0,
        maxSteps: b.maxSteps ?? 0,
        stepProfile: b.stepProfile ?? '',
        files: (b.files ?? []).map((f) => ({
          name: f.name,
          mimeType: f.mimeType ?? '',
          data: Buffer.from(f.data, 'base64'),
        })),
        secretHandles: b.secrets ?? [],
        integrationIds: b.integrations ?? [],
        purchases: b.purchases && {
          spendCap: b.purchases.spendCap ?? 0,
          perPurchaseLimit: b.purchases.perPurchaseLimit ?? 0,
          currency: b.purchases.currency,
          merchants: b.purchases.merchants ?? [],
        },
      },
      { signal: ctx.signal },
    );
    return { success: true as const, id: out.run?.id ?? '', run: toRunJson(out.run) };
  },
});

export const agentGetRow = capability({
  name: 'agent.get',
  method: 'get',
  path: '/v1/agent/{id}',
  tag: 'Agent',
  summary: 'Status of an agent run',
  description:
    'Status, stated plan, spend, the answer when present, the question while paused, the reason of an ending and the browser session. A plain read: safe to poll, never billed.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_status',
  request: { params },
  response: z.object({ success: z.literal(true), run: runObject }),
  errors: ['not_found'],
  handler: async (ctx, { params: p }) => {
    const out = await ctx.upstreams.agent.getRun(ref(ctx, p.id), { signal: ctx.signal });
    return { success: true as const, run: toRunJson(out.run) };
  },
});

export const agentListRow = capability({
  name: 'agent.list',
  method: 'get',
  path: '/v1/agent',
  tag: 'Agent',
  summary: 'The workspace’s agent runs',
  description:
    "The workspace's agent runs, newest first, a page at a time; `status` keeps the runs in one status. Each is a summary (where it stands, its task's first 200 characters, its spend and times): GET /v1/agent/{id} reads the whole run. A `cursor` this route did not give is 400 `bad_request` naming `query.cursor`. Never billed.",
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_list',
  request: {
    query: z.strictObject({
      status: runStatus.optional().describe('Only runs in this status.'),
      ...pageQuery('Runs', 20),
    }),
  },
  response: z.object({
    success: z.literal(true),
    runs: z.array(runSummaryObject).describe('Newest first.'),
    nextCursor,
  }),
  errors: [],
  handler: async (ctx, { query: q }) => {
    const out = await ctx.upstreams.agent
      .listRuns(
        { workspaceId: ctx.principal.workspaceId, status: q.status ?? '', limit: q.limit, cursor: q.cursor ?? '' },
        { signal: ctx.signal },
      )
      .catch(asQueryIssues);
    return { success: true as const, runs: out.runs.map(toRunSummaryJson), nextCursor: out.nextCursor || null };
  },
});

const eventObject = z.object({
  seq: z.number().int().describe('Per run, from 1, without gaps at the `debug` level.'),
  at: z.string(),
  level: z.enum(['summary', 'step', 'debug']),
  kind: z
    .string()
    .describe(
      '`status`, `plan`, `question`, `answer`, `cancel`, `waiting` (summary); `step`, `finding`, `dead_end`, `record`, `file`, `resumed` (step); `action`, `page`, `timing` (debug).',
    ),
  message: z.string(),
  data: z.unknown().nullable(),
});

export const agentEventsRow = capability({
  name: 'agent.events',
  method: 'get',
  path: '/v1/agent/{id}/events',
  tag: 'Agent',
  summary: 'What an agent run did',
  description:
    'Everything the run did, oldest first: status changes, plan changes, questions, steps, findings and dead ends. `level` sets verbosity (`summary` < `step` < `debug`, each including the ones before); `after` is the last `seq` seen; `wait` holds the answer up to that many seconds until an event comes (a long poll for live readers). Never billed.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_events',
  request: {
    params,
    query: z.strictObject({
      level: z.enum(['summary', 'step', 'debug']).default('step'),
      after: z.coerce.number().int().min(0).default(0).describe('The last sequence seen; reading resumes after it.'),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      wait: z.coerce
        .number()
        .int()
        .min(0)
        .max(30)
        .default(0)
        .describe('Seconds to wait for a first new event when there is none yet (0: answer at once).'),
    }),
  },
  response: z.object({
    success: z.literal(true),
    status: runStatus,
    events: z.array(eventObject),
    next: z.number().int().describe('Pass as `after` to read on.'),
  }),
  errors: ['not_found'],
  handler: async (ctx, { params: p, query: q }) => {
    const out = await ctx.upstreams.agent.listEvents(
      { ...ref(ctx, p.id), level: q.level, after: BigInt(q.after), limit: q.limit, waitMs: q.wait * 1000 },
      { signal: ctx.signal, timeoutMs: (q.wait + 10) * 1000 },
    );
    return {
      success: true as const,
      status: (out.status || 'queued') as z.infer<typeof runStatus>,
      events: out.events.map((e) => ({
        seq: Number(e.seq),
        at: e.at ? timestampDate(e.at).toISOString() : new Date(0).toISOString(),
        level: e.level as 'summary' | 'step' | 'debug',
        kind: e.kind,
        message: e.message,
        data: e.dataJson ? JSON.parse(e.dataJson) : null,
      })),
      next: Number(out.next),
    };
  },
});

export const agentResultsRow = capability({
  name: 'agent.results',
  method: 'get',
  path: '/v1/agent/{id}/results',
  tag: 'Agent',
  summary: 'Records an agent run appended',
  description:
    'The records the run appended (its `record` action), oldest first, a page at a time; resume with `cursor`. Answers during the run and after any ending. `nextCursor` is null once the run is settled and every record has been read. Never billed.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_results',
  request: {
    params,
    query: z.strictObject({
      cursor: z.string().max(200).optional().describe('From the previous answer’s `nextCursor`.'),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  response: z.object({
    success: z.literal(true),
    status: runStatus,
    data: z.array(z.object({ seq: z.number().int(), at: z.string(), record: z.unknown() })),
    nextCursor: z.string().nullable(),
  }),
  errors: ['not_found'],
  handler: async (ctx, { params: p, query: q }) => {
    const out = await ctx.upstreams.agent.listRecords(
      { ...ref(ctx, p.id), cursor: q.cursor ?? '', pageSize: q.limit },
      { signal: ctx.signal },
    );
    return {
      success: true as const,
      status: (out.status || 'queued') as z.infer<typeof runStatus>,
      data: out.records.map((r) => ({
        seq: Number(r.seq),
        at: r.at ? timestampDate(r.at).toISOString() : new Date(0).toISOString(),
        record: JSON.parse(r.dataJson),
      })),
      nextCursor: out.nextCursor || null,
    };
  },
});

export const agentCancelRow = capability({
  name: 'agent.cancel',
  method: 'post',
  path: '/v1/agent/{id}/cancel',
  tag: 'Agent',
  summary: 'Cancel an agent run',
  description:
    'Stops the run: it is settled as `cancelled`, keeping its records and what it reached; work already done stays billed; its files are destroyed and its browser closed. Cancelling a settled run changes nothing. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_cancel',
  request: { params },
  response: z.object({ success: z.literal(true), run: runObject }),
  errors: ['not_found'],
  handler: async (ctx, { params: p }) => {
    const out = await ctx.upstreams.agent.cancelRun(ref(ctx, p.id), { signal: ctx.signal });
    return { success: true as const, run: toRunJson(out.run) };
  },
});

export const agentAnswerRow = capability({
  name: 'agent.answer',
  method: 'post',
  path: '/v1/agent/{id}/answer',
  tag: 'Agent',
  summary: 'Answer a paused run’s question, or approve what it asks',
  description:
    'Answers the question of a run paused with one (`answer`), or decides what a run paused for approval asks (`approve`: a purchase it declared, or an action a workspace rule lets run only once approved); it resumes where it stopped. The answer is handed to the model as the reply to its question, as data: it cannot carry new instructions, and no route sends any. A denied purchase ends the run (`approval_denied`); a run left waiting past its time ends with `approval_timed_out`; an answer to a run no longer waiting for one is `answer_lost` (409). Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_answer',
  request: {
    params,
    body: z
      .strictObject({
        answer: z.string().min(1).max(4_000).optional().describe('The reply to the run’s question.'),
        approve: z.boolean().optional().describe('For a run paused for approval: true approves, false denies.'),
        cvc: z
          .string()
          .regex(/^\d{3,4}$/)
          .optional()
          .describe(
            'With an approved card purchase: the card’s CVC, for this purchase alone (a CVC is never stored with the card).',
          ),
      })
      .refine((b) => (b.answer === undefined) !== (b.approve === undefined), {
        message: 'give either answer or approve',
      })
      .refine((b) => b.cvc === undefined || b.approve === true, { message: 'cvc goes with approve: true' }),
  },
  example: { answer: 'Use the billing address on file.' },
  response: z.object({ success: z.literal(true), run: runObject }),
  errors: ['not_found', 'no_open_purchase', 'answer_lost'],
  handler: async (ctx, { params: p, body: b }) => {
    const out = await ctx.upstreams.agent.answerRun(
      {
        ...ref(ctx, p.id),
        answer: b.answer ?? '',
        ...(b.approve !== undefined && { approve: b.approve }),
        cvc: b.cvc ?? '',
      },
      { signal: ctx.signal },
    );
    return { success: true as const, run: toRunJson(out.run) };
  },
});

export const agentFilesRow = capability({
  name: 'agent.files',
  method: 'post',
  path: '/v1/agent/{id}/files',
  tag: 'Agent',
  summary: 'Hand a file to a run',
  description:
    'Hands a file to a run that has not ended (right after submit, before its first step, or mid-run) and answers its handle, which the run uses with its `attach_file` action: 10 MB at most, 20 files a run. As JSON (the bytes base64) or as multipart/form-data (the bytes in a part named `file`, its filename the name, its Content-Type the media type). The bytes are sent once, stored encrypted, usable by that run only, and destroyed when it ends, however it ends. Files a page offers for download are never fetchable. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_files',
  request: { params, body: fileInput },
  files: oneFile,
  example: { name: 'notes.txt', mimeType: 'text/plain', data: 'aGVsbG8=' },
  answer: { kind: 'json', status: 201 },
  response: z.object({ success: z.literal(true), file: fileObject }),
  errors: ['not_found', 'capability_unavailable'],
  handler: async (ctx, { params: p, body: f }) => {
    const out = await ctx.upstreams.agent.addFile(
      {
        ...ref(ctx, p.id),
        file: { name: f.name, mimeType: f.mimeType ?? '', data: Buffer.from(f.data, 'base64') },
      },
      { signal: ctx.signal },
    );
    const file = out.file;
    return {
      success: true as const,
      file: {
        handle: file?.handle ?? '',
        name: file?.name ?? '',
        mimeType: file?.mimeType ?? '',
        size: Number(file?.size ?? 0n),
      },
    };
  },
});

export const agentControlRow = capability({
  name: 'agent.control',
  method: 'post',
  path: '/v1/agent/{id}/control',
  tag: 'Agent',
  summary: 'Take or hand back the wheel of a run',
  description:
    '`take` pauses a live run (its browser stays open, its time unbilled) and answers `controlUrl`, a signed link where a person sees the browser and drives it with mouse and keyboard, on the site the run was on. `release` hands it back: the run resumes on the page the person left. A run without a browser yet, or settled, is 403 `replay_control_denied`. Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_agent_control',
  request: {
    params,
    body: z.strictObject({
      action: z.enum(['take', 'release']).describe('`take` the wheel, or `release` it to the run.'),
    }),
  },
  example: { action: 'take' },
  response: z.object({
    success: z.literal(true),
    run: runObject,
    controlUrl: z.string().nullable().describe('Where a person drives the browser (for `take`); null after `release`.'),
    controlExpiresAt: z.string().nullable(),
  }),
  errors: ['not_found', 'replay_control_denied', 'capability_unavailable'],
  handler: async (ctx, { params: p, body: b }) => {
    if (b.action === 'take' && !ctx.replays)
      throw new ApiError('capability_unavailable', { capability: 'agent.control' });
    const out = await ctx.upstreams.agent.controlRun(
      { ...ref(ctx, p.id), take: b.action === 'take' },
      { signal: ctx.signal },
    );
    const run = toRunJson(out.run);
    const link =
      b.action === 'take' && ctx.replays && run.sessionId
        ? ctx.replays.controlLink({ workspaceId: ctx.principal.workspaceId, sessionId: run.sessionId, site: out.site })
        : undefined;
    return {
      success: true as const,
      run,
      controlUrl: link?.url ?? null,
      controlExpiresAt: link?.expiresAt.toISOString() ?? null,
    };
  },
});
