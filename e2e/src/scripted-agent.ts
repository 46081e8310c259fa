// A scripted model for agent runs (the OpenAI wire format on loopback): each task has a script
// that answers the step a model would; a task without one finishes at once. Its fleet settings
// make it the deployment's default model.
import { type FakeModel, type ModelRequest, modelReply, startFakeOpenAi } from '@wap/testsite';

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
  /** The answers of a scraped page's model formats, by the page's URL: `format` is `extract` (json) or `summary`. */
  pages: Map<string, (format: string, prompt: string) => unknown>;
  /** The fleet settings that make it the default model. */
  env: Record<string, string>;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, (prompt: string) => unknown>();
  const pages = new Map<string, (format: string, prompt: string) => unknown>();
  const model = await startFakeOpenAi({
    reply: (request) => {
      const prompt = promptOf(request);
      const format = request.body?.response_format?.json_schema?.name;
      if (format === 'extract' || format === 'summary') {
        const url = /^URL: (.*)$/m.exec(prompt)?.[1] ?? '';
        return (pages.get(url) ?? (() => modelReply.fail(500)))(format, prompt);
      }
      // A step says its task first; an answer check asked alone asks it as its question.
      const task = /^(?:Task|Question): (.*)$/m.exec(prompt)?.[1] ?? '';
      return (scripts.get(task) ?? (() => step([{ action: 'finish', success: true, answer: 'done' }])))(prompt);
    },
  });
  const env = {
    AGENT_MODELS: JSON.stringify([{ name: 'scripted', kind: 'openai', baseUrl: model.url, model: 'scripted-1' }]),
    AGENT_DEFAULT_MODEL: 'scripted',
    AGENT_POLL: '200ms',
    // A scrape's model formats give up on a stalled model soon (model-formats.suite.ts).
    EXTRACT_TIMEOUT: '4s',
  };
  return { model, scripts, pages, env };
}
