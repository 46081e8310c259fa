// The solver provider an operator configures (docs/connect.md, "Captchas"):
// the task API 2Captcha and CapSolver share, `createTask` then
// `getTaskResult` until the task is ready. Its key is a secret: it goes in
// the request body alone, never in a log line or an error.

export interface ProviderTask {
  /** The provider's task type (RecaptchaV2TaskProxyless, HCaptchaTaskProxyless, TurnstileTaskProxyless). */
  type: string;
  websiteURL: string;
  websiteKey: string;
}

export interface SolverProvider {
  /** The token the task's widget would have given; rejects with a reason the provider gave. */
  solve(task: ProviderTask, signal: AbortSignal): Promise<string>;
}

export interface ProviderOptions {
  /** The task API's base URL (https://api.2captcha.com, https://api.capsolver.com). */
  url: string;
  key: string;
  /** How often a task's result is asked for. */
  pollMs: number;
}

interface Answer {
  errorId?: number;
  errorCode?: string;
  taskId?: string | number;
  status?: string;
  solution?: { gRecaptchaResponse?: string; token?: string };
}

export class ProviderError extends Error {}

export function taskApiProvider({ url, key, pollMs }: ProviderOptions): SolverProvider {
  const base = url.replace(/\/$/, '');
  const call = async (method: string, body: object, signal: AbortSignal): Promise<Answer> => {
    let res: Response;
    try {
      res = await fetch(`${base}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientKey: key, ...body }),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ProviderError(`${method}: provider unreachable`);
    }
    const answer = (await res.json().catch(() => ({}))) as Answer;
    if (!res.ok || answer.errorId) throw new ProviderError(`${method}: ${answer.errorCode ?? `HTTP ${res.status}`}`);
    return answer;
  };
  return {
    async solve(task, signal) {
      const { taskId } = await call('createTask', { task }, signal);
      if (taskId === undefined) throw new ProviderError('createTask: no taskId');
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        signal.throwIfAborted();
        const answer = await call('getTaskResult', { taskId }, signal);
        if (answer.status !== 'ready') continue;
        const token = answer.solution?.gRecaptchaResponse ?? answer.solution?.token;
        if (!token) throw new ProviderError('getTaskResult: no token');
        return token;
      }
    },
  };
}
