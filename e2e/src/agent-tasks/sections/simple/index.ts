// Simple tasks, generated: the ground a small local model is measured on.
// One task of each kind per seed, each drawn from the seed (kit.ts), half of
// them a single act (a click, a focus) and half a short sequence ended by a
// button, so a report can tell the two apart (AgentTask.acts). The site
// serves every seed; the suite holds the tasks of SIMPLE_SEEDS, and the
// bench asks for others (AGENT_BENCH_SEEDS).
import type { AgentTask, Section, Solution } from '../../task.js';
import type { SimpleKind } from './kit.js';
import { multiKinds } from './multi.js';
import { singleKinds } from './single.js';
import { stepKinds } from './steps.js';

const KINDS: SimpleKind[] = [...singleKinds, ...multiKinds, ...stepKinds];

/** The seeds the suite's own list of tasks is generated from. */
export const SIMPLE_SEEDS = [1, 2, 3];

/** The tasks of `seeds`, seed by seed, each kind once; with their solutions and mistakes, by task id. */
export function simpleTasks(seeds: number[]): Pick<Section, 'tasks' | 'solutions'> & {
  mistakes: Record<string, Record<string, Solution>>;
} {
  const tasks: AgentTask[] = [];
  const solutions: Record<string, Solution> = {};
  const mistakes: Record<string, Record<string, Solution>> = {};
  for (const seed of seeds)
    for (const kind of KINDS) {
      const made = kind.generate(seed);
      tasks.push(made.task);
      solutions[made.task.id] = made.solution;
      mistakes[made.task.id] = made.mistakes;
    }
  return { tasks, solutions, mistakes };
}

export const simple: Section = { routes: KINDS.flatMap((k) => k.routes), ...simpleTasks(SIMPLE_SEEDS) };
