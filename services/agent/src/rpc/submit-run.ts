import { randomUUID } from 'node:crypto';
import { ApiError } from '@wap/errors';
import { checkUrl } from '@wap/netguard';
import type { agent } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import { containsCardNumber } from '../domain/cards.js';
import { newFileHandle, sealFile } from '../domain/files.js';
import { grantsNothing, type NewGrants } from '../store/grants.js';
import { toRun } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import {
  invalid,
  MAX_FILES,
  MAX_SUBMIT_FILE_BYTES,
  MAX_TASK_CHARS,
  parseFile,
  parseHandles,
  parseIntegrationIds,
  parseOutputSchema,
  parsePurchases,
  parseStepProfile,
} from './parse.js';

/**
 * agent.SubmitRun: checks the request, writes the run and its files queued,
 * and wakes a replica. Waits for no browser, no ledger and no model: the
 * replica that claims the run takes its browser slot, and a run the plan has
 * no browser for yet waits queued (docs/agent.md, "The run"). 429
 * concurrency_limit (kind `queued_runs`) only when the workspace already has
 * AGENT_MAX_QUEUED_RUNS runs waiting.
 */
export function submitRun(deps: AgentRpcDeps) {
  return async (req: agent.SubmitRunRequest): Promise<agent.SubmitRunResponse> => {
    if (!req.workspaceId || !req.requestId) invalid('requestId', 'required');
    const task = req.task.trim();
    if (!task) invalid('task', 'required');
    if (task.length > MAX_TASK_CHARS) invalid('task', `longer than ${MAX_TASK_CHARS} characters`);
    const startUrl = req.startUrl ? checkUrl(req.startUrl, { allow: deps.allow, field: 'url' }).href : undefined;
    const outputSchema = parseOutputSchema(req.outputSchemaJson);
    const model = req.model || deps.config.AGENT_DEFAULT_MODEL;
    if (!deps.models().includes(model))
      invalid('model', `not a model of this deployment (${deps.models().join(', ') || 'none configured'})`);
    const stepProfile = parseStepProfile(req.stepProfile, req.workspaceId, deps.config.AGENT_LAB_ARMS);
    if (req.maxCredits < 0) invalid('maxCredits', 'must be positive');
    if (req.maxSteps < 0) invalid('maxSteps', 'must be positive');
    if (req.files.length > MAX_FILES) invalid('files', `at most ${MAX_FILES}`);
    const files = req.files.map((f, i) => parseFile(f, `files.${i}`));
    if (files.reduce((bytes, f) => bytes + f.data.length, 0) > MAX_SUBMIT_FILE_BYTES)
      invalid('files', `more than ${MAX_SUBMIT_FILE_BYTES} bytes in all: hand more with POST /v1/agent/{id}/files`);
    const key = deps.config.AGENT_FILES_KEY;
    if (files.length > 0 && !key) throw new ApiError('capability_unavailable', { capability: 'agent.files' });

    const profileId = req.profileId ? resourceId(req.profileId, 'profile_not_found') : undefined;
    const grants = await checkGrants(deps, req, task);
    const id = randomUUID();
    const [retried, queued] = await Promise.all([
      deps.store.byRequest(req.workspaceId, req.requestId),
      deps.store.queuedCount(req.workspaceId),
    ]);
    // A retried submit answers its run whatever the queue holds now.
    if (retried)
      return { $typeName: 'wap.agent.v1.SubmitRunResponse', run: toRun(retried, await deps.store.files(retried.id)) };
    const limit = deps.config.AGENT_MAX_QUEUED_RUNS;
    if (queued >= limit) throw new ApiError('concurrency_limit', { kind: 'queued_runs', limit, active: queued });
    const sealed = files.map((f) => ({
      handle: newFileHandle(),
      name: f.name,
      mimeType: f.mimeType,
      size: f.data.length,
      sealed: sealFile(key as string, id, f.data),
    }));
    const row = await deps.store.submit(
      id,
      {
        workspaceId: req.workspaceId,
        requestId: req.requestId,
        task,
        startUrl,
        profileId,
        outputSchema,
        model,
        stepProfile,
        maxCredits: req.maxCredits || deps.config.AGENT_DEFAULT_MAX_CREDITS,
        maxSteps: req.maxSteps || deps.config.AGENT_DEFAULT_MAX_STEPS,
      },
      sealed,
      // Only a submit that grants something takes the transaction; the common one stays one statement.
      grantsNothing(grants) ? undefined : (tx) => deps.grants.write(tx, id, grants),
    );
    deps.wake(row.id);
    return { $typeName: 'wap.agent.v1.SubmitRunResponse', run: toRun(row, sealed) };
  };
}

/**
 * What a submit checks of the secrets, integrations and purchases it grants
 * (docs/secrets.md), before the run is written: a card number in the task,
 * handles past the per-run limit, names that do not exist in the workspace,
 * and a card without a spend cap. Answers the grants to write with the run.
 */
async function checkGrants(
  deps: Pick<AgentRpcDeps, 'config' | 'secrets' | 'integrationStore'>,
  req: agent.SubmitRunRequest,
  task: string,
): Promise<NewGrants> {
  // Nothing about the task is echoed: not where the number sits, not its digits.
  if (containsCardNumber(task)) throw new ApiError('card_number_in_task');
  const handles = parseHandles(req.secretHandles);
  const limit = deps.config.AGENT_RUN_SECRETS_LIMIT;
  if (handles.length > limit) throw new ApiError('run_secrets_limit', { limit, requested: handles.length });
  const integrationIds = parseIntegrationIds(req.integrationIds);
  const purchases = parsePurchases(req.purchases);

  const found = new Map((await deps.secrets.byHandles(req.workspaceId, handles)).map((s) => [s.handle, s]));
  const secrets = handles.map((handle) => {
    const s = found.get(handle);
    if (!s) invalid(`secrets.${req.secretHandles.indexOf(handle)}`, 'no secret of this workspace has this handle');
    return s;
  });
  if (secrets.some((s) => s.kind === 'card') && !purchases)
    throw new ApiError('spend_cap_required', { field: 'purchases.spendCap' });

  const rows = new Map((await deps.integrationStore.byIds(req.workspaceId, integrationIds)).map((r) => [r.id, r]));
  const integrations = integrationIds.map((id) => {
    const row = rows.get(id);
    if (!row)
      invalid(
        `integrations.${req.integrationIds.findIndex((i) => i.toLowerCase() === id)}`,
        'no integration of this workspace has this id',
      );
    return { id, toolsHash: row.toolsHash };
  });
  return { secrets: secrets.map((s) => ({ handle: s.handle, id: s.id })), integrations, purchases };
}
