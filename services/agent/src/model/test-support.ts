// What the model clients' tests share: a step's schema and request, and a
// way to catch the ModelError a call ends with.
import assert from 'node:assert/strict';
import { ModelError, type StepRequest } from './types.js';

/** A step's shape as OpenAI's strict mode wants it: closed objects, every property required. */
export const STEP_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'element', 'note'],
  properties: {
    action: { type: 'string', enum: ['click', 'type', 'done'] },
    element: { type: 'integer' },
    note: { type: 'string' },
  },
};

export const STEP = { action: 'click', element: 3, note: 'the Go button' };

/** A 1×1 PNG, base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const stepRequest = (over: Partial<StepRequest> = {}): StepRequest => ({
  system: 'You drive a browser. Answer one step.',
  messages: [
    { role: 'user', text: 'Task: press Go.\n[3]<button>Go</button>', images: [PNG] },
    { role: 'assistant', text: '{"action":"click","element":9,"note":"wrong"}' },
    { role: 'user', text: 'The page did not change.', images: [PNG] },
  ],
  schema: STEP_SCHEMA,
  schemaName: 'step',
  ...over,
});

/** The ModelError `call` rejects with; fails the test when it resolves or throws something else. */
export async function modelFailure(call: Promise<unknown>): Promise<ModelError> {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof ModelError, `expected a ModelError, got ${e}`);
    return e;
  }
  return assert.fail('expected the call to fail');
}

/** What `run` resolved with, and the milliseconds it took. */
export async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}
