// A change as people read it: the words added and removed between two
// normalised texts (`diff`'s word diff), kept with the snapshot and sent in
// the notification, cut to a target's limits. Pure.
import { diffWords } from 'diff';

export interface TextDiff {
  /** Runs of added words, in order. */
  added: string[];
  /** Runs of removed words, in order. */
  removed: string[];
}

export function wordDiff(before: string, after: string): TextDiff {
  const added: string[] = [];
  const removed: string[] = [];
  for (const part of diffWords(before, after)) {
    const value = part.value.trim();
    if (!value) continue;
    if (part.added) added.push(value);
    else if (part.removed) removed.push(value);
  }
  return { added, removed };
}

/** The diff as lines (`+ …`, `- …`) within `max` characters, saying what was left out. */
export function diffLines(diff: TextDiff, max: number): string {
  const lines = [...diff.removed.map((r) => `- ${r}`), ...diff.added.map((a) => `+ ${a}`)];
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const more = `\n… ${lines.length - i} more`;
    if (out.length + line.length + 1 > max - more.length) {
      const room = max - more.length - out.length - 2;
      if (room > 20) out += `${out ? '\n' : ''}${line.slice(0, room)}…`;
      return `${out}${more}`;
    }
    out += `${out ? '\n' : ''}${line}`;
  }
  return out;
}

/** A snapshot's stored diff (JSON, null for the first snapshot) as a TextDiff. */
export function storedDiff(value: unknown): TextDiff {
  const d = value as Partial<TextDiff> | null;
  return { added: d?.added ?? [], removed: d?.removed ?? [] };
}
