// Input checks the handlers share; each answers bad_request with the field named.
import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { isUuid, resourceId } from '@wap/rpc';
import { z } from 'zod';
import { isCurrency } from '../domain/currencies.js';
import { fileNameProblem, MAX_FILE_NAME } from '../domain/files.js';
import { outputSchemaProblem } from '../domain/output-schema.js';
import { HANDLE, normaliseHost } from '../domain/secrets.js';
import { isLabArm, LAB_ARMS, type LabArm, type RunProfile, STEP_PROFILES } from '../model/types.js';
import type { PurchaseLimits } from '../store/grants.js';
import { RUN_STATUSES, type RunStatus } from '../store/runs.js';

/** The largest file a run may be handed (Browser Use Cloud's limit too). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Files one run may hold. */
export const MAX_FILES = 20;
/**
 * The bytes of all the files one submit carries: its request is one gRPC message (16 MiB at
 * most); more files go one at a time to AddFile.
 */
export const MAX_SUBMIT_FILE_BYTES = MAX_FILE_BYTES;
export const MAX_TASK_CHARS = 20_000;
export const MAX_ANSWER_CHARS = 4_000;
export const MAX_SCHEMA_CHARS = 32_768;

export function invalid(path: string, message: string): never {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
}

/** A run a request names: its workspace and an id that can exist (anything else is not_found). */
export function runRef(req: { workspaceId: string; runId: string }) {
  return { workspaceId: req.workspaceId, runId: resourceId(req.runId) };
}

/** A listing's status filter: one of the run's statuses, or none (every run). */
export function parseRunStatus(status: string): RunStatus | undefined {
  if (!status) return undefined;
  const known = RUN_STATUSES.find((s) => s === status);
  return known ?? invalid('status', `one of ${RUN_STATUSES.join(', ')}`);
}

export interface ParsedFile {
  name: string;
  mimeType: string;
  data: Uint8Array;
}

/** A file's name is shown to the model and set on the page's File: one plain line, no path (fileNameProblem). */
export function parseFile(
  f: { name: string; mimeType: string; data: Uint8Array } | undefined,
  path: string,
): ParsedFile {
  if (!f) invalid(path, 'required');
  const name = f.name.trim();
  const problem = fileNameProblem(name);
  if (problem) invalid(`${path}.name`, `not a file name of 1 to ${MAX_FILE_NAME} characters: ${problem}`);
  const mimeType = f.mimeType || 'application/octet-stream';
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i.test(mimeType))
    invalid(`${path}.mimeType`, 'a media type such as text/csv');
  if (f.data.length === 0) invalid(`${path}.data`, 'empty');
  if (f.data.length > MAX_FILE_BYTES) invalid(`${path}.data`, `larger than ${MAX_FILE_BYTES} bytes`);
  return { name, mimeType, data: f.data };
}

/**
 * The answer's JSON Schema: an object schema zod can turn into a validator
 * (the same validator checks the answer at `finish`).
 */
export function parseOutputSchema(text: string, field = 'outputSchema'): Record<string, unknown> | undefined {
  if (!text) return undefined;
  if (text.length > MAX_SCHEMA_CHARS) invalid(field, `longer than ${MAX_SCHEMA_CHARS} characters`);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    invalid(field, 'not JSON');
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) invalid(field, 'a JSON Schema object');
  // Before zod reads it: a schema that refers to itself would have it recurse.
  const problem = outputSchemaProblem(schema as Record<string, unknown>);
  if (problem) invalid(field, `not a schema a model can answer in: ${problem}`);
  try {
    z.fromJSONSchema(schema as never);
  } catch (err) {
    invalid(field, `not a JSON Schema this service can check: ${(err as Error).message.slice(0, 200)}`);
  }
  return schema as Record<string, unknown>;
}

/** Integrations one run may be granted. */
export const MAX_RUN_INTEGRATIONS = 20;
/** Merchants one run's allow-list may name. */
export const MAX_MERCHANTS = 50;

/** The secret handles a submit names (`secrets`), each once, in order. */
export function parseHandles(handles: string[]): string[] {
  handles.forEach((h, i) => {
    if (!HANDLE.test(h)) invalid(`secrets.${i}`, 'a secret handle (POST /v1/secrets)');
  });
  return [...new Set(handles)];
}

/** The integration ids a submit names (`integrations`), each once, in order. */
export function parseIntegrationIds(ids: string[]): string[] {
  const parsed = ids.map((id, i) =>
    isUuid(id) ? id.toLowerCase() : invalid(`integrations.${i}`, 'an integration id'),
  );
  if (new Set(parsed).size > MAX_RUN_INTEGRATIONS) invalid('integrations', `at most ${MAX_RUN_INTEGRATIONS}`);
  return [...new Set(parsed)];
}

/**
 * A submit's purchase limits: given at all, they need `spendCap`
 * (spend_cap_required) and a currency; amounts are minor units.
 */
export function parsePurchases(p: agent.PurchaseLimits | undefined): PurchaseLimits | undefined {
  if (!p) return undefined;
  if (p.spendCap < 0) invalid('purchases.spendCap', 'minor units of the currency, 1 or more');
  if (p.spendCap === 0) throw new ApiError('spend_cap_required', { field: 'purchases.spendCap' });
  if (p.perPurchaseLimit < 0) invalid('purchases.perPurchaseLimit', 'minor units of the currency');
  if (p.perPurchaseLimit > p.spendCap) invalid('purchases.perPurchaseLimit', 'larger than the spend cap');
  if (!isCurrency(p.currency)) invalid('purchases.currency', 'an ISO 4217 currency code such as EUR');
  if (p.merchants.length > MAX_MERCHANTS) invalid('purchases.merchants', `at most ${MAX_MERCHANTS}`);
  const merchants = p.merchants.map(
    (m, i) => normaliseHost(m) ?? invalid(`purchases.merchants.${i}`, 'a host name such as shop.example.com'),
  );
  return {
    spendCap: p.spendCap,
    perPurchaseLimit: p.perPurchaseLimit || null,
    currency: p.currency,
    merchants: [...new Set(merchants)],
  };
}

/**
 * The step profile a submit asks for (docs/agent.md, "Step profiles and lab arms"): a profile, or a lab
 * arm the workspace is enrolled in (`lab_arm_forbidden` for another); undefined when it asks none.
 */
export function parseStepProfile(
  asked: string,
  workspaceId: string,
  enrolled: Partial<Record<LabArm, readonly string[]>>,
): RunProfile | undefined {
  if (!asked) return undefined;
  if ((STEP_PROFILES as readonly string[]).includes(asked)) return asked as RunProfile;
  if (!isLabArm(asked)) invalid('stepProfile', `one of ${[...STEP_PROFILES, ...Object.keys(LAB_ARMS)].join(', ')}`);
  const who = enrolled[asked] ?? [];
  if (!who.includes('*') && !who.includes(workspaceId)) throw new ApiError('lab_arm_forbidden', { arm: asked });
  return asked;
}
