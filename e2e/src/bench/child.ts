import { fork } from 'node:child_process';

/**
 * Runs a bench file again as a child process (so what it measures does not
 * share an event loop with the loopback site or the poller) and resolves to
 * the one message it sends back; `input`, if any, is sent to it first.
 */
export function runInChild<T>(file: string, args: string[], env: NodeJS.ProcessEnv, input?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(file, args, {
      env: { ...process.env, ...env },
      execArgv: ['--enable-source-maps', '--disable-warning=ExperimentalWarning'],
    });
    let result: T | undefined;
    child.on('message', (m) => {
      result = m as T;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 && result !== undefined
        ? resolve(result)
        : reject(new Error(`${args[0] ?? 'child'} exited ${code} without a result`)),
    );
    if (input !== undefined) child.send(input as never);
  });
}

/** In the child: sends the result of `work` to the parent and exits (1, with the error, when it fails). */
export function answerParent(work: Promise<unknown>): void {
  work
    .then((result) => process.send?.(result as never, () => process.exit(0)))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
