// Just enough of Postgres' lexical rules to cut a migration script into its
// statements and to read the head of a function statement: where strings,
// quoted names, comments and dollar-quoted bodies begin and end, so that a
// semicolon or a `CREATE FUNCTION` inside one of them is not taken for SQL.

/** One statement of a script: its text from the first keyword to the semicolon (included, if any). */
export interface ScriptStatement {
  text: string;
  /** Offset of the statement's first keyword in the script. */
  at: number;
}

const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/y;

/** Where the comment, string, quoted name or dollar-quoted body starting at i ends; i itself when none starts there. */
function skipQuoted(sql: string, i: number): number {
  const ch = sql[i];
  const close = (s: string, from: number) => {
    const end = sql.indexOf(s, from);
    if (end < 0) throw new Error(`unterminated ${s === '\n' ? 'comment' : s} at offset ${i}`);
    return end + s.length;
  };
  if (ch === '-' && sql[i + 1] === '-') return sql.includes('\n', i) ? close('\n', i) : sql.length;
  if (ch === '/' && sql[i + 1] === '*') {
    // Postgres nests block comments.
    let depth = 0;
    let j = i;
    do {
      if (j >= sql.length) throw new Error(`unterminated /* comment at offset ${i}`);
      const step = sql.startsWith('/*', j) ? 1 : sql.startsWith('*/', j) ? -1 : 0;
      depth += step;
      j += step === 0 ? 1 : 2;
    } while (depth > 0);
    return j;
  }
  if (ch === "'") {
    // E'...' strings take backslash escapes; a doubled quote is two strings back to back either way.
    const escapes = /[Ee]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? '');
    let j = i + 1;
    while (j < sql.length && sql[j] !== "'") j += escapes && sql[j] === '\\' ? 2 : 1;
    if (j >= sql.length) throw new Error(`unterminated string at offset ${i}`);
    return j + 1;
  }
  if (ch === '"') return close('"', i + 1);
  if (ch === '$' && !/[\w$]/.test(sql[i - 1] ?? '')) {
    DOLLAR_TAG.lastIndex = i;
    const tag = DOLLAR_TAG.exec(sql)?.[0];
    if (tag) return close(tag, i + tag.length);
  }
  return i;
}

/** The statements of a script in order; comments and blank text between them are not part of any. */
export function splitStatements(sql: string): ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  let start = -1;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    const isComment = (ch === '-' && sql[i + 1] === '-') || (ch === '/' && sql[i + 1] === '*');
    if (start < 0 && !isComment && !/\s/.test(ch) && ch !== ';') start = i;
    if (ch === ';') {
      if (start >= 0) statements.push({ text: sql.slice(start, i + 1), at: start });
      start = -1;
      i++;
      continue;
    }
    const end = skipQuoted(sql, i);
    i = end > i ? end : i + 1;
  }
  if (start >= 0) statements.push({ text: sql.slice(start).trimEnd(), at: start });
  return statements;
}

/**
 * A statement as the database keeps it: strings, quoted names and dollar-quoted
 * bodies exactly as written (a function's body is stored verbatim), the layout
 * between them (whitespace, comments) reduced to single spaces.
 */
export function withoutLayout(statement: string): string {
  let out = '';
  let space = false;
  let i = 0;
  while (i < statement.length) {
    const end = skipQuoted(statement, i);
    const comment = statement.startsWith('--', i) || statement.startsWith('/*', i);
    if (comment || (end === i && /\s/.test(statement[i] as string))) space = out !== '';
    else {
      out += (space ? ' ' : '') + statement.slice(i, Math.max(end, i + 1));
      space = false;
    }
    i = Math.max(end, i + 1);
  }
  return out;
}

/** Where the parenthesis opened at `open` closes (strings and comments inside skipped). */
function matchingParen(sql: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    const end = skipQuoted(sql, i);
    if (end > i) {
      i = end;
      continue;
    }
    if (sql[i] === '(') depth++;
    if (sql[i] === ')' && --depth === 0) return i;
    i++;
  }
  throw new Error(`unbalanced parenthesis at offset ${open}`);
}

/** The pieces of `list` between its top-level commas. */
function topLevelItems(list: string): string[] {
  const items: string[] = [];
  let from = 0;
  let i = 0;
  while (i < list.length) {
    const end = skipQuoted(list, i);
    if (end > i) i = end;
    else if (list[i] === '(') i = matchingParen(list, i) + 1;
    else if (list[i] === ',') {
      items.push(list.slice(from, i));
      from = ++i;
    } else i++;
  }
  items.push(list.slice(from));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*)`;
const NAME = new RegExp(String.raw`(${IDENT})(?:\s*\.\s*(${IDENT}))?\s*`, 'y');

/** A function's name as Postgres keys it: unquoted names fold to lower case; the public schema goes unsaid. */
function readName(sql: string, at: number): { name: string; end: number } | null {
  NAME.lastIndex = at;
  const m = NAME.exec(sql);
  if (!m) return null;
  const part = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s.toLowerCase());
  const schema = m[2] === undefined ? undefined : part(m[1] as string);
  const name = part((m[2] ?? m[1]) as string);
  return { name: schema === undefined || schema === 'public' ? name : `${schema}.${name}`, end: NAME.lastIndex };
}

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A `CREATE [OR REPLACE] FUNCTION` statement, read as far as its signature. */
export interface FunctionDefinition {
  kind: 'create';
  name: string;
  text: string;
  /** The parameter list as written, without its parentheses. */
  parameters: string;
  /** What it returns, as written (`RETURNS ...` up to the next clause), whitespace collapsed. */
  returns: string;
}

export interface FunctionDrop {
  kind: 'drop';
  /** Every function the statement drops. */
  names: string[];
  text: string;
}

/** `ALTER FUNCTION ... RENAME TO` or `SET SCHEMA`: the same function under another name. */
export interface FunctionRename {
  kind: 'rename';
  from: string;
  to: string;
  text: string;
}

const CREATE_HEAD = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+/i;
const DROP_HEAD = /^DROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?/i;
const ALTER_HEAD = /^ALTER\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?/i;
// The clauses that may follow RETURNS <type> (CREATE FUNCTION's synopsis).
const AFTER_RETURNS =
  /\s(?:LANGUAGE|AS|TRANSFORM|WINDOW|IMMUTABLE|STABLE|VOLATILE|NOT|LEAKPROOF|CALLED|RETURNS\s+NULL|STRICT|EXTERNAL|SECURITY|PARALLEL|COST|ROWS|SUPPORT|SET|RETURN|BEGIN)\b/i;

/** What a statement does to functions, if anything. */
export function functionStatement(statement: string): FunctionDefinition | FunctionDrop | FunctionRename | null {
  const create = CREATE_HEAD.exec(statement);
  if (create) {
    const head = readName(statement, create[0].length);
    if (!head || statement[head.end] !== '(') throw new Error(`cannot read the name of ${statement.slice(0, 80)}`);
    const close = matchingParen(statement, head.end);
    let returns = '';
    const rest = statement.slice(close + 1);
    const r = /^\s*RETURNS\s+/i.exec(rest);
    if (r) {
      const table = /^TABLE\s*\(/i.exec(rest.slice(r[0].length));
      if (table) {
        const open = close + 1 + r[0].length + table[0].length - 1;
        returns = statement.slice(close + 1, matchingParen(statement, open) + 1);
      } else {
        const end = AFTER_RETURNS.exec(rest.slice(r[0].length));
        returns = rest.slice(0, end ? r[0].length + end.index : rest.length);
      }
    }
    return {
      kind: 'create',
      name: head.name,
      text: statement,
      parameters: statement.slice(head.end + 1, close),
      returns: normalise(returns),
    };
  }
  const drop = DROP_HEAD.exec(statement);
  if (drop) {
    const names: string[] = [];
    let at = drop[0].length;
    for (;;) {
      const next = readName(statement, at);
      if (!next) break;
      names.push(next.name);
      at = statement[next.end] === '(' ? matchingParen(statement, next.end) + 1 : next.end;
      const comma = /^\s*,\s*/.exec(statement.slice(at));
      if (!comma) break;
      at += comma[0].length;
    }
    return { kind: 'drop', names, text: statement };
  }
  const alter = ALTER_HEAD.exec(statement);
  const from = alter && readName(statement, alter[0].length);
  if (from) {
    const at = statement[from.end] === '(' ? matchingParen(statement, from.end) + 1 : from.end;
    const clause = /^\s*(RENAME\s+TO|SET\s+SCHEMA)\s+/i.exec(statement.slice(at));
    const target = clause && readName(statement, at + clause[0].length);
    if (!clause || !target) return null; // OWNER TO, SET search_path ...: the function stays as defined
    const base = from.name.split('.').at(-1) as string;
    const schema = from.name.includes('.') ? from.name.slice(0, from.name.lastIndexOf('.')) : null;
    const to = /^RENAME/i.test(clause[1] as string)
      ? schema
        ? `${schema}.${target.name}`
        : target.name
      : target.name === 'public'
        ? base
        : `${target.name}.${base}`;
    return { kind: 'rename', from: from.name, to, text: statement };
  }
  return null;
}

/** A name as it is written in SQL: quoted unless it would read back the same. */
export const quoteName = (name: string) =>
  name
    .split('.')
    .map((part) => (/^[a-z_][a-z0-9_$]*$/.test(part) ? part : `"${part.replace(/"/g, '""')}"`))
    .join('.');

/** The same definition under another name, as `ALTER FUNCTION ... RENAME TO` leaves it. */
export function renamed(definition: FunctionDefinition, name: string): FunctionDefinition {
  const head = CREATE_HEAD.exec(definition.text)?.[0].length ?? 0;
  const old = readName(definition.text, head);
  const gap = old ? (/\s*$/.exec(definition.text.slice(head, old.end))?.[0] ?? '') : '';
  const text = `${definition.text.slice(0, head)}${quoteName(name)}${gap}${definition.text.slice(old?.end ?? head)}`;
  return { ...definition, name, text };
}

/** A parameter list fit for `DROP FUNCTION name(...)`: defaults removed. */
export function dropParameters(parameters: string): string {
  return topLevelItems(parameters)
    .map((p) => normalise(p.split(/\s+DEFAULT\s+|\s*=\s*/i)[0] as string))
    .join(', ');
}

/** Two signatures are the same when they differ only in whitespace. */
export function sameSignature(a: FunctionDefinition, b: FunctionDefinition): boolean {
  return normalise(a.parameters) === normalise(b.parameters) && a.returns === b.returns;
}
