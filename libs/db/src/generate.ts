// Runs `prisma generate` from node_modules, offline and isolated from any
// prisma.config.ts lying around.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type LogFn, summariseError } from './engine';

/**
 * An empty config shipped with this package. Without --config, Prisma 7 loads
 * the prisma.config.ts of the working directory, which often reads
 * DATABASE_URL through env() and then fails where it is unset (CI, image builds);
 * generation needs no config at all.
 */
export const GENERATE_CONFIG = path.join(__dirname, '..', 'prisma.generate.config.mjs');

export interface GenerateOptions {
  log?: LogFn;
  /** Kill the CLI after this long (default 2 min). */
  timeoutMs?: number;
}

/** Generates the clients of the schema's generators (output paths are relative to the schema). */
export async function generateClient(schemaPath: string, opts: GenerateOptions = {}): Promise<void> {
  const schema = path.resolve(schemaPath);
  if (!existsSync(schema)) throw new Error(`schema not found: ${schema}`);
  const cli = require.resolve('prisma/build/index.js');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Every CLI command first checks for the native engine and would try to
    // download it; generate never runs it, so any existing file will do.
    PRISMA_SCHEMA_ENGINE_BINARY:
      existingFile(process.env.PRISMA_SCHEMA_ENGINE_BINARY) ?? require.resolve('prisma/package.json'),
    // No version check or telemetry calls home.
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    NO_COLOR: '1',
  };
  const args = [cli, 'generate', '--schema', schema, '--config', GENERATE_CONFIG, '--no-hints'];
  opts.log?.('prisma generate', { schema });
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: path.dirname(schema), env, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (!err) {
          opts.log?.('prisma generate done', { output: `${stdout}${stderr}`.trim().split('\n').at(-1) });
          return resolve();
        }
        const out = `${stderr}\n${stdout}`.trim();
        reject(
          new Error(`prisma generate failed for ${schema}: ${out ? summariseError(out) : err.message}`, { cause: err }),
        );
      },
    );
  });
}

function existingFile(p: string | undefined): string | undefined {
  return p && existsSync(p) ? p : undefined;
}
