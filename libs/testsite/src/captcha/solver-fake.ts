// A captcha solver provider on loopback, speaking the task API 2Captcha and
// CapSolver share: POST /createTask {clientKey, task} -> {errorId, taskId},
// POST /getTaskResult {clientKey, taskId} -> {errorId, status: processing |
// ready, solution: {gRecaptchaResponse, token}}; a wrong key answers
// errorId 1, ERROR_KEY_DOES_NOT_EXIST, as theirs do.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSolver {
  readonly url: string;
  readonly key: string;
  /** Tasks as created, with when each was made ready. */
  readonly tasks: { id: string; task: Record<string, unknown>; token: string; createdAt: number; readyAt: number }[];
  /** How long a task takes to become ready. */
  solveMs: number;
  /** When set, every task fails with this error code. */
  failWith: string | null;
  close(): Promise<void>;
}

export async function startFakeSolver({ solveMs = 300 }: { solveMs?: number } = {}): Promise<FakeSolver> {
  const key = randomUUID().replaceAll('-', '');
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const answer = (value: object) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    let message: { clientKey?: string; task?: Record<string, unknown>; taskId?: string };
    try {
      message = JSON.parse(body);
    } catch {
      return answer({ errorId: 1, errorCode: 'ERROR_BAD_PARAMETERS' });
    }
    if (message.clientKey !== key) return answer({ errorId: 1, errorCode: 'ERROR_KEY_DOES_NOT_EXIST' });
    if (req.url === '/createTask' && message.task) {
      if (fake.failWith) return answer({ errorId: 1, errorCode: fake.failWith });
      const id = String(fake.tasks.length + 1);
      const now = Date.now();
      const token = `solver-token-${id}-${randomUUID()}`;
      fake.tasks.push({ id, task: message.task, token, createdAt: now, readyAt: now + fake.solveMs });
      return answer({ errorId: 0, taskId: id });
    }
    if (req.url === '/getTaskResult') {
      const task = fake.tasks.find((t) => t.id === String(message.taskId));
      if (!task) return answer({ errorId: 1, errorCode: 'ERROR_NO_SUCH_CAPCHA_ID' });
      if (Date.now() < task.readyAt) return answer({ errorId: 0, status: 'processing' });
      return answer({ errorId: 0, status: 'ready', solution: { gRecaptchaResponse: task.token, token: task.token } });
    }
    answer({ errorId: 1, errorCode: 'ERROR_METHOD_CALL' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const fake: FakeSolver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    tasks: [],
    solveMs,
    failWith: null,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
