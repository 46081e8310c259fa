// The tools of a run's granted integrations (docs/secrets.md, "Integrations"):
// a call_tool named as the model knows it (`<server>.<tool>`), its arguments a
// JSON object that shows no secret value, the call made through the guarded
// MCP client, and its answer bounded and scrubbed for the model to read; a
// server gone since the submit is told as such.
import { isApiError } from '@wap/errors';
import { describeAction, type StepAction } from '../../domain/step.js';
import type { Integrations } from '../../integrations/integrations.js';
import type { RunContext } from './context.js';

/** Characters of a tool's answer the model reads. */
const MAX_TOOL_RESULT_CHARS = 8_000;

/** A tool's answer as text: its text parts, and a word for each other part. */
function toolText(out: { content?: unknown; structuredContent?: unknown }): string {
  const parts = Array.isArray(out.content) ? (out.content as { type?: string; text?: string }[]) : [];
  const text = parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : `(${p.type ?? 'part'})`));
  if (text.length === 0 && out.structuredContent !== undefined) return JSON.stringify(out.structuredContent);
  return text.join('\n');
}

export class ToolSystem {
  constructor(
    private readonly run: RunContext,
    /** The integrations' client; none, no tool is called. */
    private readonly integrations: Integrations | undefined,
  ) {}

  /** Calls a tool of a granted integration; its result, bounded and without secret values, is the model's to read. */
  async call(action: Extract<StepAction, { action: 'call_tool' }>, results: string[]): Promise<'ok' | 'failed'> {
    const { policy } = this.run;
    const key = describeAction(action);
    const tool = policy.tool(action.tool);
    if (!tool) {
      results.push(`${key}: no such tool; the tools are ${policy.tools.map((t) => t.name).join(', ') || 'none'}`);
      return 'failed';
    }
    let args: unknown;
    try {
      args = JSON.parse(action.arguments || '{}');
    } catch {
      args = undefined;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      results.push(`${key}: arguments must be a JSON object`);
      return 'failed';
    }
    if (await this.run.reveals(action.arguments, 'call_tool', results)) return 'failed';
    if (!this.integrations) return 'failed';
    const { row } = this.run;
    try {
      const out = await this.integrations.callTool(
        row.workspaceId,
        row.id,
        tool.integrationId,
        tool.tool.name,
        args as Record<string, unknown>,
      );
      const text = policy.scrub(toolText(out)).slice(0, MAX_TOOL_RESULT_CHARS);
      this.run.memory.extracted = `${tool.name} answered${out.isError ? ' an error' : ''}:\n${text}`;
      results.push(`${key}: ${out.isError ? 'the tool answered an error' : 'answered'}`);
      await this.run.event('step', 'tool', `${tool.name} called`, { tool: tool.name, error: out.isError === true });
      return out.isError ? 'failed' : 'ok';
    } catch (err) {
      if (!isApiError(err)) {
        results.push(`${key}: the server did not answer`);
        await this.run.event('step', 'dead_end', `${tool.name} failed: the server did not answer`, { tool: tool.name });
        return 'failed';
      }
      const gone = err.code === 'integration_changed';
      results.push(`${key}: ${gone ? 'the integration is gone: it was disconnected' : err.message}`.slice(0, 500));
      await this.run.event(gone ? 'summary' : 'step', gone ? 'integration' : 'dead_end', `${tool.name}: ${err.code}`, {
        code: err.code,
        details: err.details ?? null,
      });
      return 'failed';
    }
  }
}
