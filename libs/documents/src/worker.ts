// The body of a document thread (pool.ts): reads one document at a time and
// answers its formats, or why it has none.
import { parentPort } from 'node:worker_threads';
import { DocumentRefusal, readDocument } from './read.js';
import type { ParseRequest } from './types.js';

export interface ThreadTask {
  id: number;
  bytes: Uint8Array;
  request: ParseRequest;
}

export type ThreadAnswer =
  | { id: number; result: Awaited<ReturnType<typeof readDocument>> }
  | { id: number; refusal: { reason: DocumentRefusal['reason']; message: string } };

const port = parentPort;
if (port)
  port.on('message', async (task: ThreadTask) => {
    try {
      port.postMessage({ id: task.id, result: await readDocument(task.bytes, task.request) } satisfies ThreadAnswer);
    } catch (err) {
      const refusal =
        err instanceof DocumentRefusal
          ? { reason: err.reason, message: err.message }
          : { reason: 'malformed' as const, message: (err as Error)?.message ?? String(err) };
      port.postMessage({ id: task.id, refusal } satisfies ThreadAnswer);
    }
  });
