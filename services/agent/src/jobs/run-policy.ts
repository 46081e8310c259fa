// What a run may do beyond its task, read once at its start (docs/secrets.md,
// docs/rules.md): the secrets its submit named (by handle, kind and domains,
// never shown to the model as values), the integrations' tools, its purchase
// limits, and the workspace's rules: enforced ones as gates every action
// passes before it runs, guidance as words for the model. It also keeps the
// values of the run's secrets in this process only, to take them out of
// anything the run sends to the model or emits.
import type { ApiError } from '@wap/errors';
import { type ActionContext, checkAction, gatesOf, type RuleGate, type Verdict } from '../domain/rules/check.js';
import type { CompiledRule } from '../domain/rules/compile.js';
import { rulesPrompt } from '../domain/rules/guidance.js';
import { hostAllowed, reveals, type SecretValue } from '../domain/secrets.js';
import type { SecretPart, StepGrants } from '../domain/step.js';
import type { Integrations } from '../integrations/integrations.js';
import type { GrantStore, RunGrants } from '../store/grants.js';
import type { IntegrationTool } from '../store/integrations.js';
import type { SecretIntents } from '../store/intents.js';
import type { RuleStore } from '../store/rules.js';
import type { SecretStore } from '../store/secrets.js';

export interface PolicyDeps {
  secrets: SecretStore;
  intents: SecretIntents;
  grants: GrantStore;
  integrations: Integrations;
  rules: RuleStore;
}

/** The parts each kind of secret has (a card's CVC is never stored: a purchase's approval brings it). */
export const PARTS: Record<SecretValue['kind'], readonly SecretPart[]> = {
  login: ['username', 'password'],
  card: ['number', 'expiry', 'exp_month', 'exp_year', 'holder', 'cvc'],
  env: ['value'],
};

/** A granted integration's tool as the model names it: `<server>.<tool>`. */
export interface RunTool {
  integrationId: string;
  name: string;
  tool: IntegrationTool;
}

/** What a step's text says of the grants at most: tools beyond it are listed by name only. */
const MAX_TOOL_CHARS = 4_000;

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40) || 'server';

/** The text of one part of a value; undefined when the kind has no such part (a CVC is never here). */
export function partOf(value: SecretValue, part: SecretPart): string | undefined {
  switch (value.kind) {
    case 'login':
      return part === 'username' ? value.username : part === 'password' ? value.password : undefined;
    case 'env':
      return part === 'value' ? value.value : undefined;
    case 'card': {
      const month = String(value.expMonth).padStart(2, '0');
      switch (part) {
        case 'number':
          return value.number;
        case 'expiry':
          return `${month}/${String(value.expYear % 100).padStart(2, '0')}`;
        case 'exp_month':
          return month;
        case 'exp_year':
          return String(value.expYear);
        case 'holder':
          return value.holder;
        default:
          return undefined;
      }
    }
  }
}

export class RunPolicy {
  private constructor(
    readonly grants: RunGrants,
    readonly rules: CompiledRule[],
    private readonly gates: RuleGate[],
    /** The domains each granted secret may be filled on. */
    private readonly domains: Map<string, string[]>,
    /** Values to keep out of prompts and emissions, by handle: this process only. */
    private readonly values: Map<string, SecretValue>,
    readonly tools: RunTool[],
    /** What the run is told at its start: an integration changed or gone. */
    readonly notes: { code: string; message: string; details: unknown }[],
  ) {}

  /** A run with nothing granted and no rules: every action passes, nothing is filtered. */
  static none(): RunPolicy {
    return new RunPolicy({ secrets: [], integrations: [], purchases: undefined }, [], [], new Map(), new Map(), [], []);
  }

  static async load(deps: PolicyDeps, run: { id: string; workspaceId: string }): Promise<RunPolicy> {
    const [grants, ruleSet] = await Promise.all([deps.grants.forRun(run.id), deps.rules.get(run.workspaceId)]);
    const rules = ruleSet?.rules ?? [];
    const domains = new Map<string, string[]>();
    const values = new Map<string, SecretValue>();
    for (const s of grants.secrets) {
      if (s.deleted) continue;
      const opened = await deps.secrets.open(run.workspaceId, s.handle);
      if (!opened) continue;
      domains.set(s.handle, opened.view.domains);
      values.set(s.handle, opened.value);
    }
    const tools: RunTool[] = [];
    const notes: RunPolicy['notes'] = [];
    if (grants.integrations.length > 0) {
      const taken = new Set<string>();
      for (const found of await deps.integrations.checkForRun(run.workspaceId, run.id)) {
        if ('error' in found) {
          notes.push(noteOf(found.error));
          continue;
        }
        let server = slug(found.serverName);
        for (let n = 2; taken.has(server); n++) server = `${slug(found.serverName)}_${n}`;
        taken.add(server);
        for (const tool of found.tools) tools.push({ integrationId: found.id, name: `${server}.${tool.name}`, tool });
      }
    }
    return new RunPolicy(grants, rules, gatesOf(rules), domains, values, tools, notes);
  }

  /** The actions the step's schema offers beyond the page's. */
  stepGrants(files: boolean): StepGrants {
    return {
      files,
      secrets: this.domains.size > 0,
      purchases: this.grants.purchases !== undefined,
      tools: this.tools.length > 0,
    };
  }

  /** The grants and the rules as the step's message states them; empty when there are none. */
  describe(): string {
    const lines: string[] = [];
    const secrets = this.grants.secrets.filter((s) => this.domains.has(s.handle));
    if (secrets.length > 0) {
      lines.push(
        'Secrets you may fill (fill_secret {index, handle, part}; you never see their values):',
        ...secrets.map((s) => {
          const kind = s.kind as SecretValue['kind'];
          const parts = (PARTS[kind] ?? []).filter((p) => p !== 'cvc');
          const card =
            kind === 'card' ? ` ending ${s.last4}; declare the purchase first, its approval brings the cvc` : '';
          return `- ${s.handle} (${kind}${card}): parts ${parts.join(', ')}${kind === 'card' ? ', cvc' : ''}; only on ${(this.domains.get(s.handle) ?? []).join(', ')}`;
        }),
      );
    }
    const p = this.grants.purchases;
    if (p) {
      const limit = p.perPurchaseLimit === null ? '' : `, at most ${major(p.perPurchaseLimit, p.currency)} each`;
      const where = p.merchants.length > 0 ? ` from ${p.merchants.join(', ')} only` : '';
      lines.push(
        `Purchases: declare each with purchase {merchant, amount, currency, item} before filling a card; a person approves it. In all at most ${major(p.spendCap, p.currency)}${limit}${where}.`,
      );
    }
    if (this.tools.length > 0) {
      lines.push('Tools (call_tool {tool, arguments}; arguments a JSON object as text):');
      let used = 0;
      for (const t of this.tools) {
        const line = `- ${t.name}: ${t.tool.description.replace(/\s+/g, ' ').slice(0, 200)} ${JSON.stringify(t.tool.inputSchema).slice(0, 400)}`;
        used += line.length;
        lines.push(used > MAX_TOOL_CHARS ? `- ${t.name}` : line);
      }
    }
    const rules = rulesPrompt(this.rules);
    if (rules) lines.push(rules);
    return this.scrub(lines.join('\n'));
  }

  /** Whether the workspace's gates let the action run. */
  check(action: ActionContext): Verdict {
    if (this.gates.length === 0) return { allowed: true };
    return checkAction(this.gates, action);
  }

  /** Whether any gate looks at form submissions (then the loop asks the page whether a click submits one). */
  get gatesSubmits(): boolean {
    return this.gates.some((g) => 'actions' in g.gate && g.gate.actions.includes('submit'));
  }

  secretDomains(handle: string): string[] | undefined {
    return this.domains.get(handle);
  }

  /**
   * The first frame below the page (hosts innermost first, the page's own last, as the driver's
   * frameHosts answers them) that is not on `handle`'s domains: what a fill there would reach.
   */
  foreignFrame(handle: string, frames: string[]): string | undefined {
    const domains = this.secretDomains(handle) ?? [];
    return frames.slice(0, -1).find((host) => !hostAllowed(host, domains));
  }

  kindOf(handle: string): SecretValue['kind'] | undefined {
    return this.values.get(handle)?.kind;
  }

  tool(name: string): RunTool | undefined {
    return this.tools.find((t) => t.name === name);
  }

  /** The handle of a granted secret whose value `text` shows (secret_in_answer), if any. */
  revealed(text: string): string | undefined {
    for (const [handle, value] of this.values) if (reveals(value, text)) return handle;
    return undefined;
  }

  /** `text` with every secret value (its secret parts, 4 characters or more) replaced by its handle. */
  scrub(text: string): string {
    let out = text;
    for (const [handle, value] of this.values) {
      for (const secret of secretParts(value)) {
        if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(`[secret ${handle}]`);
      }
      if (value.kind === 'card') {
        // A card number however its digits are grouped.
        const spaced = new RegExp(value.number.split('').join('[\\s-]?'), 'g');
        out = out.replace(spaced, `[secret ${handle}]`);
      }
    }
    return out;
  }
}

/** The parts of a value that are secret (a user name and a card holder are not). */
function secretParts(value: SecretValue): string[] {
  switch (value.kind) {
    case 'login':
      return [value.password];
    case 'env':
      return [value.value];
    case 'card':
      return [value.number];
  }
}

function noteOf(err: ApiError): { code: string; message: string; details: unknown } {
  return { code: err.code, message: err.message, details: err.details ?? null };
}

/** Minor units as the currency writes them (1250 EUR → "12.50 EUR"). */
export function major(minor: number, currency: string): string {
  return `${(minor / 10 ** fractionDigits(currency)).toFixed(fractionDigits(currency))} ${currency}`;
}

/** How many minor units a currency has (2 for EUR, 0 for JPY); 2 for a code Intl does not know. */
export function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}
