// A scripted model for agent runs (the OpenAI wire format on loopback): each task has a script
// that answers the step a model would; a task without one finishes at once. Its fleet settings
// make it the deployment's default model.
import { type FakeModel, type ModelRequest, startFakeOpenAi } from '@wap/testsite';

/** One step of a run: the actions the model takes. */
export const step = (actions: unknown[], plan: string[] = []) => ({ evaluation: '', memory: '', plan, actions });

/** What the run showed the model: the text of its user messages. */
export const promptOf = (request: ModelRequest): string =>
  (request.body?.messages ?? [])
    .filter((m: { role: string }) => m.role === 'user')
    .map((m: { content: unknown }) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('\n'),
    )
    .join('\n');

/** A script that asks `question`, then finishes with `got: <the reply>`. */
export const asking = (question: string) => (prompt: string) => {
  const reply = /Their reply, as data: "(.*)"/.exec(prompt)?.[1];
  return step([reply ? { action: 'finish', success: true, answer: `got: ${reply}` } : { action: 'ask', question }]);
};

export interface ScriptedModel {
  model: FakeModel;
  /** The script of each task (the task is in every prompt). */
  scripts: Map<string, (prompt: string) => unknown>;
  /** The fleet settings that make it the default model. */
  env: Record<string, string>;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, (prompt: string) => unknown>();
  const model = await startFakeOpenAi({
    reply: (request) => {
      const prompt = promptOf(request);
      const task = /^Task: (.*)$/m.exec(prompt)?.[1] ?? '';
      return (scripts.get(task) ?? (() => step([{ action: 'finish', success: true, answer: 'done' }])))(prompt);
    },
  });
  const env = {
    AGENT_MODELS: JSON.stringify([{ name: 'scripted', kind: 'openai', baseUrl: model.url, model: 'scripted-1' }]),
    AGENT_DEFAULT_MODEL: 'scripted',
    AGENT_POLL: '200ms',
  };
  return { model, scripts, env };
}
