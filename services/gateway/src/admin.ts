#!/usr/bin/env node
// Until the console exists, this mints and revokes API keys and manages workspaces.
// It reads the gateway's own environment (DATABASE_URL, BILLING_LEDGER_ADDR).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrismaAdapter } from '@wap/db';
import { isPlanName, type PlanName } from '@wap/plans';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { PrismaClient } from './generated/prisma/client.js';
import { parseCredential, secretMatches } from './identity/credentials.js';
import { IdentityStore } from './identity/store.js';

const USAGE = `usage: admin.js <command>
  workspace create <name> [--plan free|builder|pro|scale]
  workspace plan <workspace> <plan>
  key create <workspace> [--name NAME]     prints the key once; only its hash is kept
  key revoke <keyId>
  key list <workspace>
  seed --key-file FILE [--workspace NAME] [--plan PLAN]
                                           a workspace and a working key, reused when FILE still holds one`;

const PLAN_ENUM: Record<PlanName, ledger.Plan> = {
  free: ledger.Plan.FREE,
  builder: ledger.Plan.BUILDER,
  pro: ledger.Plan.PRO,
  scale: ledger.Plan.SCALE,
};

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

function planOption(args: string[], fallback: PlanName = 'free'): PlanName {
  const plan = option(args, 'plan') ?? fallback;
  if (!isPlanName(plan)) throw new Error(`unknown plan ${plan}`);
  return plan;
}

/** The ledger must know the workspace's plan before anything is billed. */
async function openAccount(workspaceId: string, plan: PlanName) {
  const address = process.env.BILLING_LEDGER_ADDR;
  if (!address) return;
  const client = createClient(ledger.LedgerService, address, { defaultTimeoutMs: 10_000 });
  try {
    await client.ensureAccount({ workspaceId, plan: PLAN_ENUM[plan] });
  } finally {
    client.close();
  }
}

async function main(args: string[]): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const db = new PrismaClient({ adapter: createPrismaAdapter(url, { max: 2 }) });
  const identity = new IdentityStore(db);
  const workspaceOf = async (ref: string | undefined) => {
    const ws = ref ? await identity.findWorkspace(ref) : null;
    if (!ws) throw new Error(`no workspace ${ref ?? ''}`);
    return ws;
  };
  try {
    const [noun, verb, arg] = args;
    if (noun === 'workspace' && verb === 'create' && arg) {
      const plan = planOption(args);
      const ws = await identity.createWorkspace(arg, plan);
      await openAccount(ws.id, plan);
      console.log(JSON.stringify({ workspaceId: ws.id, name: ws.name, plan }));
    } else if (noun === 'workspace' && verb === 'plan' && arg && isPlanName(args[3])) {
      const ws = await identity.setPlan((await workspaceOf(arg)).id, args[3]);
      await openAccount(ws.id, args[3]);
      console.log(JSON.stringify({ workspaceId: ws.id, plan: ws.plan }));
    } else if (noun === 'key' && verb === 'create' && arg) {
      const ws = await workspaceOf(arg);
      const key = await identity.createApiKey(ws.id, option(args, 'name') ?? 'admin');
      console.log(JSON.stringify({ workspaceId: ws.id, keyId: key.keyId, apiKey: key.credential }));
    } else if (noun === 'key' && verb === 'revoke' && arg) {
      if (!(await identity.revokeApiKey(arg))) throw new Error(`no live key ${arg}`);
      console.log(JSON.stringify({ keyId: arg, revoked: true }));
    } else if (noun === 'key' && verb === 'list' && arg) {
      console.log(JSON.stringify(await identity.listApiKeys((await workspaceOf(arg)).id)));
    } else if (noun === 'seed') {
      const keyFile = option(args, 'key-file');
      if (!keyFile) throw new Error('seed needs --key-file');
      const name = option(args, 'workspace') ?? 'local';
      const plan = planOption(args, 'free');
      const ws = (await identity.findWorkspace(name)) ?? (await identity.createWorkspace(name, plan));
      await openAccount(ws.id, ws.plan);
      const saved = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
      const parsed = parseCredential(saved);
      const row = parsed?.kind === 'api_key' ? await identity.apiKey(parsed.keyId) : undefined;
      let apiKey = saved;
      if (
        !row ||
        row.revoked ||
        row.workspaceId !== ws.id ||
        parsed?.kind !== 'api_key' ||
        !secretMatches(parsed.secret, row.secretHash)
      ) {
        apiKey = (await identity.createApiKey(ws.id, 'make up')).credential;
        writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
      }
      console.log(JSON.stringify({ workspaceId: ws.id, workspace: ws.name, plan: ws.plan, apiKey }));
    } else {
      console.error(USAGE);
      process.exitCode = 2;
    }
  } finally {
    await db.$disconnect();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`admin: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
