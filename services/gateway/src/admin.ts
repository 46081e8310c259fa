#!/usr/bin/env node
// The operator's command: workspaces, plans, grants, the first accounts and
// keys (people then manage keys and members in the console, docs/console.md).
// It reads the gateway's own environment (DATABASE_URL, BILLING_LEDGER_ADDR, SERVICE_TOKEN).
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { GRANT_KIND_NAMES, grantKinds, isPlanName, type PlanName, plans } from '@wap/plans';
import { ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { isSurface, parseCredential, SURFACES, type Surface, secretMatches } from './domain/credentials.js';
import { IdentityStore } from './oauth/identity.js';
import { verifyPassword } from './oauth/passwords.js';
import { openGatewayDatabase } from './store/database.js';

const USAGE = `usage: admin.js <command>
  workspace create <name> [--plan free|builder|pro|scale] [--allowance CREDITS]
  workspace plan <workspace> <plan>
  credits grant <workspace> <credits> [--kind promotional|student|purchased] [--lapses ISO-DATE] [--note TEXT]
  key create <workspace> [--name NAME] [--surfaces rest,mcp]
                                           prints the key once; only its hash is kept;
                                           valid on the surfaces named (default: all)
  key revoke <keyId>
  key list <workspace>
  slots list <workspace>                   who holds the workspace's concurrent-browser slots now
  user create <email> [--password-file FILE]
                                           a local account for the sign-in page (docs/oauth.md); the
                                           password (read from FILE, or stdin when FILE is -) is kept as argon2id
  user password <email> --password-file FILE
  user sign-out <email>                    revokes every OAuth token the user holds, on the next request
  member add <workspace> <email> [--role owner|member]
  member remove <workspace> <email>        the user's tokens for the workspace stop on the next request
  seed --key-file FILE [--login-file FILE] [--workspace NAME] [--plan PLAN]
                                           a workspace and a working key, reused when FILE still holds one;
                                           with --login-file, an owner account for the console whose email
                                           and password are kept there (0600), reused while they still sign in`;

const OPTIONS = {
  plan: { type: 'string' },
  allowance: { type: 'string' },
  kind: { type: 'string', default: 'promotional' },
  lapses: { type: 'string' },
  note: { type: 'string', default: '' },
  name: { type: 'string', default: 'admin' },
  surfaces: { type: 'string', default: SURFACES.join(',') },
  'key-file': { type: 'string' },
  'login-file': { type: 'string' },
  'password-file': { type: 'string' },
  role: { type: 'string', default: 'member' },
  workspace: { type: 'string', default: 'local' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

const parse = (args: string[]) => parseArgs({ args, options: OPTIONS, allowPositionals: true });

function planOption(plan: string | undefined, fallback: PlanName = 'free'): PlanName {
  const name = plan ?? fallback;
  if (!isPlanName(name)) throw new Error(`unknown plan ${name}`);
  return name;
}

function ledgerClient() {
  const address = process.env.BILLING_LEDGER_ADDR;
  const token = process.env.SERVICE_TOKEN;
  return address ? createClient(ledger.LedgerService, address, { defaultTimeoutMs: 10_000, token }) : undefined;
}

const millicredits = (credits: string) => {
  const value = Number(credits);
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a credit amount: ${credits}`);
  return BigInt(Math.round(value * 1000));
};

/** The ledger must know the workspace's plan before anything is billed. */
async function openAccount(workspaceId: string, plan: PlanName, allowance?: string) {
  const client = ledgerClient();
  if (!client) return;
  try {
    await client.ensureAccount({
      workspaceId,
      plan: plans.toEnum(plan),
      ...(allowance !== undefined ? { monthlyAllowanceMillicredits: millicredits(allowance) } : {}),
    });
  } finally {
    client.close();
  }
}

async function main(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    // An unknown or valueless option: say which, then how the command reads.
    console.error(`admin: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { values: opts, positionals } = parsed;
  if (opts.help) {
    console.log(USAGE);
    return;
  }
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const db = openGatewayDatabase(url, 3);
  const identity = new IdentityStore(db);
  const workspaceOf = async (ref: string | undefined) => {
    const ws = ref ? await identity.findWorkspace(ref) : null;
    if (!ws) throw new Error(`no workspace ${ref ?? ''}`);
    return ws;
  };
  try {
    const [noun, verb, arg, value] = positionals;
    if (noun === 'workspace' && verb === 'create' && arg) {
      const plan = planOption(opts.plan);
      const ws = await identity.createWorkspace(arg, plan);
      await openAccount(ws.id, plan, opts.allowance);
      console.log(JSON.stringify({ workspaceId: ws.id, name: ws.name, plan }));
    } else if (noun === 'workspace' && verb === 'plan' && arg && isPlanName(value)) {
      const ws = await identity.setPlan((await workspaceOf(arg)).id, value);
      await openAccount(ws.id, value);
      console.log(JSON.stringify({ workspaceId: ws.id, plan: ws.plan }));
    } else if (noun === 'credits' && verb === 'grant' && arg && value) {
      const ws = await workspaceOf(arg);
      const kind = grantKinds.toEnum(opts.kind);
      if (!kind) throw new Error(`--kind is one of ${GRANT_KIND_NAMES.join(', ')}`);
      const lapses = new Date(opts.lapses ?? Date.now() + 365 * 86_400_000);
      if (Number.isNaN(lapses.getTime())) throw new Error('--lapses is an ISO date');
      const client = ledgerClient();
      if (!client) throw new Error('BILLING_LEDGER_ADDR is not set');
      try {
        const grant = await client.grant({
          workspaceId: ws.id,
          idempotencyKey: `admin:${randomUUID()}`,
          kind,
          millicredits: millicredits(value),
          lapsesAt: timestampFromDate(lapses),
          note: opts.note,
        });
        console.log(JSON.stringify({ workspaceId: ws.id, grantId: grant.grantId, credits: Number(value) }));
      } finally {
        client.close();
      }
    } else if (noun === 'key' && verb === 'create' && arg) {
      const ws = await workspaceOf(arg);
      const surfaces = opts.surfaces.split(',').map((s) => s.trim());
      const unknown = surfaces.filter((s) => !isSurface(s));
      if (unknown.length > 0 || surfaces.length === 0) throw new Error(`surfaces are ${SURFACES.join(', ')}`);
      const key = await identity.createApiKey(ws.id, opts.name, surfaces as Surface[]);
      console.log(JSON.stringify({ workspaceId: ws.id, keyId: key.keyId, apiKey: key.credential, surfaces }));
    } else if (noun === 'key' && verb === 'revoke' && arg) {
      const { revoked, gateways, acknowledged } = await identity.revokeApiKey(arg);
      if (!revoked) throw new Error(`no live key ${arg}`);
      console.log(JSON.stringify({ keyId: arg, revoked: true, gateways, acknowledged }));
      if (acknowledged < gateways) {
        // Revoked in the database, but a gateway may still accept the key from memory (for at most a minute).
        console.error(`warning: ${gateways - acknowledged} of ${gateways} gateways did not confirm within 2 s`);
        process.exitCode = 3;
      }
    } else if (noun === 'user' && (verb === 'create' || verb === 'password') && arg) {
      const file = opts['password-file'];
      const password = file ? readFileSync(file === '-' ? 0 : file, 'utf8').replace(/\r?\n$/, '') : undefined;
      if (password !== undefined && password.length < 8) throw new Error('a password has 8 characters at least');
      if (verb === 'password' && !password) throw new Error('user password needs --password-file');
      const user =
        verb === 'create'
          ? await identity.createUser(arg, password)
          : await identity.setPassword(arg, password as string);
      console.log(JSON.stringify({ userId: user.id, email: user.email, password: user.passwordHash !== null }));
    } else if (noun === 'user' && verb === 'sign-out' && arg) {
      console.log(JSON.stringify({ email: arg, tokensRevoked: await identity.signOut(arg) }));
    } else if (noun === 'member' && verb === 'add' && arg && value) {
      if (opts.role !== 'owner' && opts.role !== 'member') throw new Error('--role is owner or member');
      const ws = await workspaceOf(arg);
      const m = await identity.addMember(ws.id, value, opts.role);
      console.log(JSON.stringify({ workspaceId: ws.id, userId: m.userId, role: m.role }));
    } else if (noun === 'member' && verb === 'remove' && arg && value) {
      const ws = await workspaceOf(arg);
      const out = await identity.removeMember(ws.id, value);
      if (!out.removed) throw new Error(`${value} is not a member of ${arg}`);
      console.log(JSON.stringify({ workspaceId: ws.id, email: value, ...out }));
    } else if (noun === 'key' && verb === 'list' && arg) {
      console.log(JSON.stringify(await identity.listApiKeys((await workspaceOf(arg)).id)));
    } else if (noun === 'slots' && verb === 'list' && arg) {
      const ws = await workspaceOf(arg);
      const client = ledgerClient();
      if (!client) throw new Error('BILLING_LEDGER_ADDR is not set');
      try {
        const { limit, holders } = await client.listSlots({ workspaceId: ws.id });
        const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : undefined);
        const listed = holders.map((h) => ({
          holder: h.holder,
          leaseId: h.leaseId,
          acquiredAt: iso(h.acquiredAt),
          expiresAt: iso(h.expiresAt),
        }));
        console.log(JSON.stringify({ workspaceId: ws.id, limit, holders: listed }));
      } finally {
        client.close();
      }
    } else if (noun === 'seed') {
      const keyFile = opts['key-file'];
      if (!keyFile) throw new Error('seed needs --key-file');
      const name = opts.workspace;
      const plan = planOption(opts.plan, 'free');
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
      const login = opts['login-file'] ? await seedLogin(identity, ws.id, opts['login-file']) : undefined;
      console.log(JSON.stringify({ workspaceId: ws.id, workspace: ws.name, plan: ws.plan, apiKey, login }));
    } else {
      console.error(USAGE);
      process.exitCode = 2;
    }
  } finally {
    await db.$disconnect();
  }
}

/** The console's first owner: `owner@localhost` with a random password, kept in `file` and reused while it signs in. */
async function seedLogin(identity: IdentityStore, workspaceId: string, file: string) {
  const [savedEmail, savedPassword] = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const email = savedEmail?.trim() || 'owner@localhost';
  const user = await identity.oauth.userByEmail(email);
  let password = savedPassword?.trim() ?? '';
  if (!user || !password || !(await verifyPassword(password, user.passwordHash))) {
    password = randomBytes(15).toString('base64url');
    if (user) await identity.setPassword(email, password);
    else await identity.createUser(email, password);
    writeFileSync(file, `${email}\n${password}\n`, { mode: 0o600 });
  }
  await identity.addMember(workspaceId, email, 'owner');
  return { email, password };
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`admin: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
