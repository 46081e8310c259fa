// The browser-agent task suite: every section's pages on one loopback site,
// and the tasks to run on it. The bench (e2e/src/bench/agent.bench.ts) runs
// them through POST /v1/agent; tasks.test.ts proves each check can fail and
// can pass without any agent.
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
];

export const tasks: AgentTask[] = SECTIONS.flatMap((s) => s.tasks);

/** The scripted solution of each task, by id (the self-check's; an agent never sees them). */
export const solutions: Record<string, Solution> = Object.assign({}, ...SECTIONS.map((s) => s.solutions));

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
