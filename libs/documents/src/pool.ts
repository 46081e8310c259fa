// Documents are read on threads of their own, never on the event loop, and a
// document is hostile input: a thread reads one document at a time, within a
// time and a memory budget. Past either, the thread is terminated (V8 stops
// it even inside a loop) and replaced; its document is refused. V8's heap
// limit alone would not do: a PDF's streams and a zip's entries unpack into
// ArrayBuffers outside the heap, so the pool also watches each thread's
// external memory. A pool of our own rather than Piscina's: the watchdog must
// know which thread reads which document.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ApiError } from '@wap/errors';
import { samplePdf } from './sample.js';
import type { ParsedDocument, ParseRequest } from './types.js';
import type { ThreadAnswer, ThreadTask } from './worker.js';

export interface PoolSettings {
  /** Documents read at once. */
  threads: number;
  /** Heap and unpacked buffers one thread may hold while it reads a document. */
  memoryBytes: number;
  /** A thread idle this long ends (a new one is started, and warmed, for the next document). */
  idleMs?: number;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** The document's time budget; past it the answer is `deadline_exceeded`. */
  timeoutMs: number;
}

interface Job {
  bytes: Uint8Array;
  request: ParseRequest;
  options: ReadOptions;
  resolve: (doc: ParsedDocument) => void;
  reject: (err: unknown) => void;
}

interface Thread {
  worker: Worker;
  job?: Job;
  /** Answers to ids: the job's, and the warm-up's. */
  waiting: Map<number, (answer: ThreadAnswer) => void>;
  idle?: NodeJS.Timeout;
  dead: boolean;
}

/** How often a busy thread's memory is read: often enough that a bomb is stopped within a few hundred MB. */
const WATCH_MS = 10;

export class DocumentPool {
  private readonly threads = new Set<Thread>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly settings: PoolSettings) {}

  /** Reads one document on a document thread; refusals are `document_unrepresentable` with the reason. */
  read(bytes: Uint8Array, request: ParseRequest, options: ReadOptions): Promise<ParsedDocument> {
    if (this.closed) return Promise.reject(new ApiError('capability_unavailable', { capability: 'documents' }));
    options.signal?.throwIfAborted();
    return new Promise<ParsedDocument>((resolve, reject) => {
      // A copy the thread owns: the fetched bytes may share their memory with other buffers.
      this.queue.push({ bytes: new Uint8Array(bytes), request, options, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts a thread and reads the sample on it, so the first document meets a warm one. */
  async warm(): Promise<void> {
    const request: ParseRequest = { kind: 'pdf', url: 'https://example.com/sample.pdf', contentType: '', formats: [] };
    await this.read(samplePdf(), request, { timeoutMs: 60_000 }).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      job.reject(new ApiError('capability_unavailable', { capability: 'documents' }));
    await Promise.all([...this.threads].map((t) => this.end(t)));
  }

  private spawn(): Thread {
    const worker = new Worker(path.join(__dirname, 'worker.js'), {
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(64, Math.floor(this.settings.memoryBytes / 2 ** 20)),
        maxYoungGenerationSizeMb: 32,
      },
    });
    const thread: Thread = { worker, waiting: new Map(), dead: false };
    worker.on('message', (answer: ThreadAnswer) => {
      const waiter = thread.waiting.get(answer.id);
      thread.waiting.delete(answer.id);
      waiter?.(answer);
    });
    // A thread that dies (its heap limit, a crash) fails what it was reading; another takes its place.
    const died = (err?: Error) => {
      if (thread.dead) return;
      thread.dead = true;
      this.threads.delete(thread);
      const job = thread.job;
      thread.job = undefined;
      if (job) job.reject(refused(job.request, 'too_large', err?.message ?? 'the document thread died'));
      this.dispatch();
    };
    worker.on('error', died);
    worker.on('exit', () => died());
    worker.unref();
    this.threads.add(thread);
    return thread;
  }

  private async end(thread: Thread): Promise<void> {
    thread.dead = true;
    this.threads.delete(thread);
    clearTimeout(thread.idle);
    await thread.worker.terminate().catch(() => undefined);
  }

  private ask(thread: Thread, bytes: Uint8Array, request: ParseRequest): Promise<ThreadAnswer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      thread.waiting.set(id, resolve);
      thread.worker.postMessage({ id, bytes, request } satisfies ThreadTask, [bytes.buffer as ArrayBuffer]);
    });
  }

  private dispatch(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      let thread = [...this.threads].find((t) => !t.job && !t.dead);
      if (!thread && this.threads.size < Math.max(1, this.settings.threads)) thread = this.spawn();
      if (!thread) return;
      const job = this.queue.shift() as Job;
      if (job.options.signal?.aborted) {
        job.reject(job.options.signal.reason);
        continue;
      }
      this.run(thread, job);
    }
  }

  private run(thread: Thread, job: Job): void {
    clearTimeout(thread.idle);
    thread.job = job;
    let settled = false;
    const finish = (outcome: () => void, kill: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      clearTimeout(timer);
      job.options.signal?.removeEventListener('abort', onAbort);
      thread.job = undefined;
      if (kill) void this.end(thread);
      else if (this.settings.idleMs)
        thread.idle = setTimeout(() => void this.end(thread), this.settings.idleMs).unref();
      outcome();
      this.dispatch();
    };
    const onAbort = () => finish(() => job.reject(job.options.signal?.reason), true);
    job.options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => finish(() => job.reject(new ApiError('deadline_exceeded', { timeoutMs: job.options.timeoutMs })), true),
      job.options.timeoutMs,
    );
    let reading = false;
    const watch = setInterval(() => {
      if (reading || settled) return;
      reading = true;
      thread.worker
        .getHeapStatistics()
        .then((s) => {
          const used = s.used_heap_size + (s as { external_memory?: number }).external_memory!;
          if (used > this.settings.memoryBytes)
            finish(
              () => job.reject(refused(job.request, 'too_large', `needs more than ${this.settings.memoryBytes} bytes`)),
              true,
            );
        })
        .catch(() => undefined)
        .finally(() => {
          reading = false;
        });
    }, WATCH_MS);
    this.ask(thread, job.bytes, job.request).then((answer) =>
      finish(
        () =>
          'result' in answer
            ? job.resolve(answer.result)
            : job.reject(refused(job.request, answer.refusal.reason, answer.refusal.message)),
        false,
      ),
    );
  }
}

function refused(request: ParseRequest, reason: string, message: string): ApiError {
  return new ApiError(
    'document_unrepresentable',
    { formats: request.formats, ...(request.contentType && { contentType: request.contentType }), reason },
    { cause: new Error(message) },
  );
}
