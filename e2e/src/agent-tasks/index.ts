// The browser-agent task suite: every section's pages on one loopback site,
// and the tasks to run on it. The bench (e2e/src/bench/agent.bench.ts) runs
// them through POST /v1/agent; tasks.test.ts proves each check can fail and
// can pass without any agent. The simple section's tasks are generated from
// seeds (sections/simple): `tasks` holds those of SIMPLE_SEEDS.
import { autocomplete } from './sections/autocomplete.js';
import { choices } from './sections/choices.js';
import { consent } from './sections/consent.js';
import { dates } from './sections/dates.js';
import { dropdowns } from './sections/dropdowns.js';
import { embedded } from './sections/embedded.js';
import { forms } from './sections/forms.js';
import { logins } from './sections/logins.js';
import { navigation } from './sections/navigation.js';
import { search } from './sections/search.js';
import { SIMPLE_SEEDS, simple, simpleTasks } from './sections/simple/index.js';
import { slow } from './sections/slow.js';
import { tables } from './sections/tables.js';
import { widgets } from './sections/widgets.js';
import { type Attempt, serveTaskSite, type TaskSite } from './site.js';
import type { AgentTask, Section, Solution } from './task.js';

export type { Attempt, SiteRecord, TaskSite } from './site.js';
export type { AgentTask, CheckContext, TaskKind, Verdict } from './task.js';

const SECTIONS: Section[] = [
  forms,
  logins,
  dates,
  dropdowns,
  autocomplete,
  widgets,
  search,
  navigation,
  tables,
  embedded,
  choices,
  consent,
  slow,
  simple,
];

export { SIMPLE_SEEDS };

export const tasks: AgentTask[] = SECTIONS.flatMap((s) => s.tasks);

/** Every task, the generated simple ones drawn from `seeds` (the bench's AGENT_BENCH_SEEDS) rather than SIMPLE_SEEDS. */
export function tasksOfSeeds(seeds: number[]): AgentTask[] {
  return [...SECTIONS.filter((s) => s !== simple).flatMap((s) => s.tasks), ...simpleTasks(seeds).tasks];
}

/** The scripted solution of each task, by id (the self-check's; an agent never sees them). */
export const solutions: Record<string, Solution> = Object.assign({}, ...SECTIONS.map((s) => s.solutions));

/** Wrong ways to do some tasks, by task id then by what goes wrong: each must leave the check failing. */
export const mistakes: Record<string, Record<string, Solution>> = Object.assign(
  {},
  ...SECTIONS.map((s) => s.mistakes ?? {}),
);

/** Starts the site on 127.0.0.1 at a free port; `slowMs` sets how long its slow parts take (3 s by default). */
export function startTaskSite(options: { slowMs?: number } = {}): Promise<TaskSite> {
  return serveTaskSite(
    SECTIONS.flatMap((s) => s.routes),
    options,
  );
}

/** The URL a run of `task` starts at, in `attempt`'s URL space. */
export function startUrl(attempt: Attempt, task: AgentTask): string {
  return attempt.url(task.path);
}
