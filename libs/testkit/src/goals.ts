// A bench's goals: each figure it measures beside the budget it is held to.
// A bench prints its goals as lines a person reads and puts them in its last
// JSON line under `goals`; scripts/bench.sh gathers every bench's into one
// table at the end of `make bench` (docs/benchmarks.md).

export interface Goal {
  /** What is measured, as the table of figures names it. */
  figure: string;
  measured: number;
  /** `>=`: at least the target is good (a throughput); `<=`: at most (a latency, a ratio of costs). */
  op: '>=' | '<=';
  target: number;
  /** How the figure reads: `ms`, `MB`, `×`, `rps`, `%`. */
  unit: string;
  met: boolean;
}

export function goal(figure: string, measured: number, op: Goal['op'], target: number, unit: string): Goal {
  const met = Number.isFinite(measured) && (op === '>=' ? measured >= target : measured <= target);
  return { figure, measured: Number(measured.toFixed(3)), op, target, unit, met };
}

/** A figure as people read it: four significant digits and its unit (`×` joined on). */
export const shown = (value: number, unit: string) =>
  `${Number.isFinite(value) ? Number(value.toPrecision(4)) : 'not measured'}${unit === '×' ? '×' : ` ${unit}`}`;

/** The comparison as printed. */
export const opSign = (op: Goal['op']) => (op === '>=' ? '≥' : '≤');

/** One line per goal: the figure, what was measured, the goal, met or NOT met. */
export function goalLines(goals: Goal[]): string[] {
  return goals.map(
    (g) =>
      `goal: ${g.figure}: ${shown(g.measured, g.unit)} (goal ${opSign(g.op)} ${shown(g.target, g.unit)}): ${g.met ? 'met' : 'NOT met'}`,
  );
}

export function printGoals(goals: Goal[]): void {
  for (const line of goalLines(goals)) console.log(line);
}
