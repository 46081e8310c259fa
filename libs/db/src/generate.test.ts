import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createPrismaAdapter, pingDatabase } from './database';
import { generateClient } from './generate';
import { applyMigrations } from './migrations';
import { FIXTURE_DIR, LIB_DIR, tempDir, withDatabase } from './test-support';

/** A copy of the fixture service in a temp dir, so generated code never lands in the repo. */
async function fixtureCopy(tag: string) {
  const tmp = await tempDir(tag);
  await cp(path.join(FIXTURE_DIR, 'prisma'), path.join(tmp.dir, 'prisma'), { recursive: true });
  // The generated client imports @prisma/client; resolve it from this package.
  await symlink(path.join(LIB_DIR, 'node_modules'), path.join(tmp.dir, 'node_modules'), 'dir');
  // Generation must not load a service's config (this one would throw).
  const badConfig = `export default { datasource: { url: (() => { throw new Error('config loaded') })() } };\n`;
  await writeFile(path.join(tmp.dir, 'prisma.config.ts'), badConfig);
  await writeFile(path.join(tmp.dir, 'prisma', 'prisma.config.ts'), badConfig);
  return {
    ...tmp,
    schemaPath: path.join(tmp.dir, 'prisma', 'schema.prisma'),
    outDir: path.join(tmp.dir, 'src', 'generated', 'prisma'),
  };
}

async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const rel of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const full = path.join(rel.parentPath, rel.name);
    out.set(path.relative(dir, full), await readFile(full));
  }
  return out;
}

/** Compiles the generated TypeScript the way a service build would (the repo's base tsconfig). */
async function compile(root: string): Promise<string> {
  const tsconfig = {
    extends: path.resolve(LIB_DIR, '..', '..', 'tsconfig.base.json'),
    compilerOptions: { rootDir: 'src', outDir: 'out', composite: false, incremental: false, types: [] },
    include: ['src'],
  };
  await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
  await promisify(execFile)(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', root], { cwd: root });
  return path.join(root, 'out', 'generated', 'prisma', 'client.js');
}

interface DemoClient {
  account: {
    create(args: {
      data: { email: string; credits?: number };
    }): Promise<{ id: string; email: string; credits: number; createdAt: Date }>;
    findUnique(args: { where: { email: string } }): Promise<{ id: string; credits: number } | null>;
  };
  $queryRawUnsafe(sql: string): Promise<unknown>;
  $disconnect(): Promise<void>;
}

describe('generateClient', () => {
  test('is deterministic: two generations, in different directories, are byte-identical', async () => {
    const a = await fixtureCopy('gen-a');
    const b = await fixtureCopy('gen-b');
    try {
      await generateClient(a.schemaPath);
      await generateClient(a.schemaPath); // regenerating in place changes nothing either
      await generateClient(b.schemaPath);
      const fa = await files(a.outDir);
      const fb = await files(b.outDir);
      assert.ok(fa.has('client.ts'), `client.ts among ${[...fa.keys()].join(', ')}`);
      assert.deepEqual([...fa.keys()].sort(), [...fb.keys()].sort());
      for (const [name, content] of fa) {
        assert.ok(content.equals(fb.get(name) ?? Buffer.alloc(0)), `${name} differs between generations`);
        const text = content.toString('utf8');
        for (const leak of [a.dir, b.dir, LIB_DIR]) assert.ok(!text.includes(leak), `${name} embeds the path ${leak}`);
      }
      assert.equal(existsSync(path.join(FIXTURE_DIR, 'src')), false, 'nothing generated inside the repo fixture');
    } finally {
      await a.cleanup();
      await b.cleanup();
    }
  });

  test('the generated client connects through the adapter to a migrated database', async () => {
    const svc = await fixtureCopy('gen-run');
    try {
      await generateClient(svc.schemaPath);
      const { PrismaClient } = require(await compile(svc.dir)) as {
        PrismaClient: new (opts: { adapter: unknown }) => DemoClient;
      };
      await withDatabase('gen', async (url) => {
        await applyMigrations({ migrationsDir: path.join(svc.dir, 'prisma', 'migrations'), databaseUrl: url });
        const client = new PrismaClient({ adapter: createPrismaAdapter(url, { max: 2 }) });
        try {
          await pingDatabase(client);
          const created = await client.account.create({ data: { email: 'ada@example.com', credits: 5 } });
          assert.match(created.id, /^[0-9a-f-]{36}$/);
          assert.ok(created.createdAt instanceof Date);
          assert.deepEqual(await client.account.findUnique({ where: { email: 'ada@example.com' } }), { ...created });
          assert.equal(await client.account.findUnique({ where: { email: 'nobody@example.com' } }), null);
        } finally {
          await client.$disconnect();
        }
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('fails with the CLI error for an invalid schema', async () => {
    const svc = await fixtureCopy('gen-bad');
    try {
      await writeFile(
        svc.schemaPath,
        `${await readFile(svc.schemaPath, 'utf8')}\nmodel Broken {\n  id Int @id\n  x Nope\n}\n`,
      );
      await assert.rejects(generateClient(svc.schemaPath), /prisma generate failed.*Nope/s);
      await assert.rejects(generateClient(path.join(svc.dir, 'missing.prisma')), /schema not found/);
    } finally {
      await svc.cleanup();
    }
  });
});
