// What a child process of a test printed, kept as it arrives.
import type { ChildProcess } from 'node:child_process';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The child's output so far (`err()`), and all of it with its exit code once it closes (`result`). */
export function collectOutput(child: ChildProcess): { result: Promise<Ran>; err: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const result = new Promise<Ran>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { result, err: () => stderr };
}
