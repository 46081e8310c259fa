// What the CLI writes: answers on stdout (JSON with --json, else for people), and notes,
// progress and errors on stderr. Progress shows only on a terminal unless --progress.

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as indented `key: value` lines, for people. */
export function render(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    return value
      .map((v) =>
        isObject(v) || Array.isArray(v) ? `${indent}-\n${render(v, `${indent}  `)}` : `${indent}- ${scalar(v)}`,
      )
      .join('\n');
  }
  if (!isObject(value)) return `${indent}${scalar(value)}`;
  return Object.entries(value)
    .filter(([k]) => k !== 'success')
    .map(([k, v]) => {
      if ((isObject(v) && Object.keys(v).length) || (Array.isArray(v) && v.length))
        return `${indent}${k}:\n${render(v, `${indent}  `)}`;
      return `${indent}${k}: ${Array.isArray(v) ? '[]' : isObject(v) ? '{}' : scalar(v)}`;
    })
    .join('\n');
}

const scalar = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v));

/** One line for an item of a list or a stream. */
export function summary(item: unknown): string {
  if (!isObject(item)) return scalar(item);
  const meta = isObject(item.metadata) ? item.metadata : {};
  const parts = [
    item.id ?? item.seq ?? item.handle,
    item.status ?? item.kind ?? item.type,
    item.url ?? meta.url ?? meta.sourceURL ?? item.label ?? item.task,
    item.title ?? meta.title ?? item.message,
  ].filter((p) => p !== undefined && p !== null && p !== '');
  return parts.length ? parts.map(scalar).join('  ') : JSON.stringify(item);
}

/**
 * The main content of a scraped document, for people: its `json` (indented) when it has one, else
 * the first text format it has; a model format not answered is said after it.
 */
export function documentText(doc: unknown): string | undefined {
  if (!isObject(doc)) return undefined;
  const failed = isObject(doc.errors)
    ? Object.entries(doc.errors).map(([format, e]) => {
        const error = isObject(e) ? e : {};
        const reason =
          isObject(error.details) && typeof error.details.reason === 'string' ? ` (${error.details.reason})` : '';
        return `${format}: ${scalar(error.code)}${reason}`;
      })
    : [];
  const main = isObject(doc.json)
    ? JSON.stringify(doc.json, null, 2)
    : ['markdown', 'text', 'html', 'rawHtml', 'summary'].map((f) => doc[f]).find((v) => typeof v === 'string');
  if (main === undefined && failed.length === 0) return undefined;
  return [...(typeof main === 'string' ? [main] : []), ...failed].join('\n');
}

export class Output {
  readonly json: boolean;
  readonly progress: boolean;

  constructor(
    readonly io: Io,
    flags: Record<string, unknown>,
  ) {
    this.json = flags.json === true;
    this.progress = flags.progress === false ? false : flags.progress === true || io.stderr.isTTY === true;
  }

  /** An answer: JSON, or as `human` renders it (default: key: value lines). */
  result(value: unknown, human?: (v: unknown) => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human ? human(value) : render(value)}\n`);
  }

  /** An item of a list or a stream: a JSON line, or one line for people. */
  item(value: unknown): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${summary(value)}\n`);
  }

  /** A note for people, on stderr (never an answer). */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /** A line of progress on stderr when progress shows; on a terminal it replaces the last one. */
  status(text: string): void {
    if (!this.progress) return;
    if (this.io.stderr.isTTY) {
      const width = Math.max(20, (this.io.stderr.columns ?? 80) - 1);
      this.io.stderr.write(`\r\x1b[2K${text.slice(0, width)}`);
    } else this.io.stderr.write(`${text}\n`);
  }

  /** A line of progress on stderr when progress shows, kept as a log is (a run's events, one after another). */
  line(text: string): void {
    if (this.progress) this.io.stderr.write(`${text}\n`);
  }

  /** Ends a run of status lines (the terminal's cursor back at the start of a line). */
  endStatus(): void {
    if (this.progress && this.io.stderr.isTTY) this.io.stderr.write('\n');
  }

  /** A bar: `[#######.............]  12/40 pages`. */
  bar(done: number, total: number, label: string): void {
    const width = 24;
    const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
    this.status(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total || '?'} ${label}`);
  }
}
