// What an agent run carries from one step to the next (the run row's
// `memory`): what the model noted, what the last acts did, and what the loop
// and the compact profile remember of the pages (parts done, boxes typed
// into, a purchase or an approval asked). Read back strictly from the row.

/** A dated entry of a list: its day, the date as written, and its title. */
export interface DatedEntry {
  iso: string;
  written: string;
  title: string;
}

/** What the loop carries from one step to the next. */
export interface Memory {
  memory: string;
  /** What the last step's actions did, one line each. */
  results: string[];
  /** Extracted text from the last step, bounded. */
  extracted?: string;
  /** A note for the model: a loop seen, an answer that did not fit the schema, output it could not read. */
  nudge?: string;
  /** The reply to the run's question, once, for the next step. */
  reply?: { question: string; answer: string };
  /** Recent (state, action) pairs for loop detection. */
  recent: string[];
  /** Steps in a row that achieved nothing (all actions failed, or output unusable). */
  failures: number;
  /** What the run is waiting for, once said (a browser slot), so a wait is told once, not at every try. */
  waiting?: string;
  /** The purchase declared last: waiting for a person (`asked`), or approved (its card may be filled). Minor units. */
  purchase?: {
    merchant: string;
    host: string;
    amount: number;
    currency: string;
    item: string;
    state: 'asked' | 'approved';
    askedAt: number;
  };
  /** What the purchases approved so far add up to, minor units. */
  spent?: number;
  /** An action a rule lets run only once a person approves it: asked, or approved (it passes once). */
  approval?: { key: string; rule: string; state: 'asked' | 'approved'; askedAt: number };
  /** Actions the compact profile refused to run again on the page they changed nothing on (its fingerprint). */
  refused?: { fingerprint: string; actions: string[] };
  /**
   * A send was refused as incomplete (by the browser: a required field empty; by the page): the step
   * lists every value the task gives that nothing holds, not only the next part's (compact).
   */
  incomplete?: boolean;
  /** The boxes the run typed into, by name, and what it typed (compact: to repeat or refill), the last 20. */
  typedInto?: Array<[name: string, text: string]>;
  /** The page's lines that refused the run's last refused send ("The two passwords differ."), bounded. */
  pageRefused?: string[];
  /** The oldest (or newest) dated entry the run's pages showed, for a task that asks for it (compact). */
  dated?: DatedEntry;
  /** The combobox the last act typed into, by element key (compact): the next step chooses one of its options. */
  choosing?: string;
  /** A finish refused because a part was not done (compact): the next finish is taken. */
  earlyFinish?: boolean;
  /** Refusals in a row; past the limit the run ends as a loop. */
  refusals?: number;
  /** The compact profile's acts so far, as its message tells them (the last few). */
  done?: string[];
  /** Model calls in a row that found no capacity (the run waited for each, uncounted). */
  capacityWaits?: number;
  /** The task's parts (compact: its clauses) an act has done, by their place. */
  partsDone?: number[];
  /** What the run set itself (compact: boxes ticked, fields typed into, selects chosen in), by element key. */
  ticked?: string[];
  /** The texts the run typed, the options it chose, the names of what it clicked (compact: a part's values entered). */
  typed?: string[];
  /**
   * The text box the last act clicked, by element key (compact): a click chooses a box, it types
   * nothing, so the next step only asks what to write into it.
   */
  writing?: string;
  /**
   * The text box the run typed into last, by element key, while no act has sent it since (compact):
   * a button clicked, Enter that loaded a document, another page. Text typed and never sent did
   * nothing.
   */
  unsent?: string;
}

export const emptyMemory = (): Memory => ({ memory: '', results: [], recent: [], failures: 0 });

/** The approval the run waits for, a purchase's or a gated action's, and when it was asked; undefined when none. */
export function openApproval(memory: Memory): { askedAt: number } | undefined {
  if (memory.purchase?.state === 'asked') return { askedAt: memory.purchase.askedAt };
  if (memory.approval?.state === 'asked') return { askedAt: memory.approval.askedAt };
  return undefined;
}

/** Reads the memory a row carries; anything else starts afresh. */
export function readMemory(value: unknown): Memory {
  const m = value as Partial<Memory> | null;
  if (!m || typeof m !== 'object') return emptyMemory();
  return {
    memory: typeof m.memory === 'string' ? m.memory : '',
    results: Array.isArray(m.results) ? m.results.map(String).slice(0, 10) : [],
    ...(typeof m.extracted === 'string' && { extracted: m.extracted }),
    ...(typeof m.nudge === 'string' && { nudge: m.nudge }),
    ...(m.reply && typeof m.reply === 'object' && { reply: m.reply }),
    recent: Array.isArray(m.recent) ? m.recent.map(String).slice(-20) : [],
    failures: typeof m.failures === 'number' ? m.failures : 0,
    ...(typeof m.waiting === 'string' && { waiting: m.waiting }),
    ...(m.purchase && typeof m.purchase === 'object' && { purchase: m.purchase }),
    ...(typeof m.spent === 'number' && { spent: m.spent }),
    ...(m.approval && typeof m.approval === 'object' && { approval: m.approval }),
    ...(m.refused &&
      typeof m.refused === 'object' &&
      typeof m.refused.fingerprint === 'string' &&
      Array.isArray(m.refused.actions) && {
        refused: { fingerprint: m.refused.fingerprint, actions: m.refused.actions.map(String).slice(-20) },
      }),
    ...(typeof m.refusals === 'number' && { refusals: m.refusals }),
    ...(Array.isArray(m.done) && { done: m.done.map(String).slice(-20) }),
    ...(typeof m.capacityWaits === 'number' && { capacityWaits: m.capacityWaits }),
    ...(Array.isArray(m.ticked) && { ticked: m.ticked.map(String).slice(-50) }),
    ...(Array.isArray(m.typed) && { typed: m.typed.map((t) => String(t).slice(0, 300)).slice(-50) }),
    ...(Array.isArray(m.partsDone) && {
      partsDone: m.partsDone.filter((n): n is number => Number.isInteger(n) && n >= 0 && n < 50),
    }),
  };
}
