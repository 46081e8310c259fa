import type { z } from 'zod';
import { RENAMED_SETTINGS, renamedReason } from './renamed.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigProblem {
  readonly variable: string;
  readonly reason: string;
}

/** Every problem with the environment at once, so one restart fixes them all. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.variable}: ${p.reason}`);
    super(
      `Invalid environment (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n${lines.join('\n')}`,
    );
    this.problems = problems;
  }
}

/**
 * Validates the variables `schema` names. An empty or blank value counts as
 * unset: `FOO=` in a .env file or a Helm value rendered as "" means "not
 * configured", and must fall back to the default or fail as missing. The old
 * name of a setting `schema` reads is refused, naming the new one.
 */
export function loadConfig<S extends z.ZodObject<z.core.$ZodShape, z.core.$ZodObjectConfig>>(
  schema: S,
  env: Env = process.env,
): z.output<S> {
  const input: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value;
  }
  const renamed: ConfigProblem[] = [];
  for (const [variable, value] of Object.entries(env)) {
    const now = RENAMED_SETTINGS[variable];
    const reason =
      now !== undefined && now in schema.shape && value?.trim() ? renamedReason(variable, value) : undefined;
    if (reason !== undefined) renamed.push({ variable, reason });
  }
  const result = schema.safeParse(input);
  if (result.success && renamed.length === 0) return result.data;
  throw new ConfigError([...renamed, ...(result.success ? [] : problemsOf(result.error, input))]);
}

/** One problem per variable, its reasons joined. */
function problemsOf(error: z.ZodError, input: Record<string, string>): ConfigProblem[] {
  const reasons = new Map<string, string[]>();
  for (const issue of error.issues) {
    const variable = issue.path.map(String).join('.') || '(environment)';
    const missing = issue.code === 'invalid_type' && issue.path.length === 1 && !(variable in input);
    const list = reasons.get(variable) ?? [];
    list.push(missing ? 'required, not set' : issue.message);
    reasons.set(variable, list);
  }
  return [...reasons].map(([variable, list]) => ({ variable, reason: list.join('; ') }));
}
