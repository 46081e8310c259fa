// What cannot import the services' list follows it: the Makefile, tsconfig.json's references,
// services/ itself, the Helm chart, and each service's config.ts. A failure names the file
// and what it lacks or has too many of; libs/config/src/services.ts is the one to believe.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BACKENDS, packageDir, SERVICE_TABLE, SERVICES, type ServiceName } from '@wap/config';
import { ROOT } from './fleet.js';
import { serviceSchemas, settings } from './settings.js';

const CHART = path.join(ROOT, 'charts/web-access');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Names in `found` the list lacks, and names of the list `found` lacks, said in `where`'s words. */
function sameNames(where: string, found: Iterable<string>, expected: Iterable<string> = SERVICES): void {
  const have = new Set(found);
  const want = new Set(expected);
  const problems = [
    ...[...want].filter((n) => !have.has(n)).map((n) => `${where} lacks ${n}`),
    ...[...have].filter((n) => !want.has(n)).map((n) => `${where} has ${n}, which the list does not`),
  ];
  assert.deepEqual(problems, [], problems.join('; '));
}

/** A service's key in the chart's values: billing-ledger -> billingLedger (web-access.valuesKey). */
const valuesKey = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

describe('the services list (libs/config/src/services.ts)', () => {
  it("names each service's address variable as the chart builds it", () => {
    for (const s of SERVICE_TABLE) {
      const address = `${s.name.toUpperCase().replaceAll('-', '_')}_ADDR`;
      assert.equal(s.address, address, `${s.name}: the chart gives its address as <NAME>_ADDR`);
    }
  });

  it('names every package under services/', () => {
    const dirs = readdirSync(path.join(ROOT, 'services')).filter((d) =>
      existsSync(path.join(ROOT, 'services', d, 'package.json')),
    );
    sameNames('services/', dirs);
  });

  it("is the Makefile's SERVICES", () => {
    const line = /^SERVICES := (.*)$/m.exec(read('Makefile'))?.[1];
    assert.ok(line, 'the Makefile sets SERVICES');
    sameNames("the Makefile's SERVICES", line.trim().split(/\s+/));
  });

  it("is tsconfig.json's references to services/", () => {
    const { references } = JSON.parse(read('tsconfig.json')) as { references: { path: string }[] };
    const services = references.map((r) => r.path).filter((p) => p.startsWith('services/'));
    sameNames(
      "tsconfig.json's references",
      services.map((p) => p.slice('services/'.length)),
    );
  });

  it("gives each service its config.ts's default gRPC port, and make up's", () => {
    const grpc = settings().find((s) => s.variable === 'GRPC_PORT');
    for (const s of SERVICE_TABLE)
      assert.equal(
        grpc?.defaults.get(s.name),
        String(s.grpcPort),
        `${packageDir(s.name)}/src/config.ts: its GRPC_PORT default`,
      );
  });

  it('makes the backends the services whose addresses the gateway reads', () => {
    const gateway = serviceSchemas().get('gateway')?.shape ?? {};
    const reached = SERVICE_TABLE.filter((s) => s.address in gateway).map((s) => s.name);
    assert.deepEqual(
      reached,
      BACKENDS.map((b) => b.name),
      "services/gateway/src/config.ts's *_ADDR variables",
    );
  });
});

describe('the Helm chart follows the services list', () => {
  it('has a template per service, each rendering that service', () => {
    const rendered = readdirSync(path.join(CHART, 'templates'))
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => {
        const text = readFileSync(path.join(CHART, 'templates', f), 'utf8');
        const name = /include "web-access\.service" \(dict "root" \. "name" "([a-z-]+)"\)/.exec(text)?.[1];
        if (name) assert.equal(f, `${name}.yaml`, `templates/${f} renders ${name}`);
        return name ? [name] : [];
      });
    sameNames('charts/web-access/templates/', rendered);
  });

  it('has a values block per service, and a schema for each', () => {
    const blocks = [...read('charts/web-access/values.yaml').matchAll(/^([A-Za-z]+):/gm)].map((m) => m[1] as string);
    const keys = SERVICES.map(valuesKey);
    sameNames(
      'charts/web-access/values.yaml',
      blocks.filter((b) => keys.includes(b)),
      keys,
    );
    const schema = JSON.parse(read('charts/web-access/values.schema.json')) as {
      properties: Record<string, { $ref?: string }>;
    };
    const services = Object.entries(schema.properties).filter(([, p]) => p.$ref === '#/$defs/service');
    sameNames(
      'charts/web-access/values.schema.json',
      services.map(([key]) => key),
      keys,
    );
  });

  it("gives each service the addresses its config.ts reads, the gateway its backends'", () => {
    const helpers = read('charts/web-access/templates/_helpers.tpl');
    const define = /{{- define "web-access\.upstreams" -}}([\s\S]*?){{- end }}/.exec(helpers)?.[1];
    assert.ok(define, '_helpers.tpl defines web-access.upstreams');
    const dials = new Map([...define.matchAll(/"([a-z-]+)" "([a-z -]+)"/g)].map((m) => [m[1], m[2]?.split(' ')]));
    const unknown = [...dials.keys(), ...[...dials.values()].flat()].filter(
      (n) => !SERVICES.includes(n as ServiceName),
    );
    assert.deepEqual(unknown, [], `web-access.upstreams (_helpers.tpl) names services the list does not`);
    assert.deepEqual(
      dials.get('gateway'),
      BACKENDS.map((b) => b.name),
      "the gateway's, in the list's order",
    );
    const schemas = serviceSchemas();
    for (const s of SERVICE_TABLE) {
      const shape = schemas.get(s.name)?.shape ?? {};
      const given = dials.get(s.name) ?? [];
      const wanted = SERVICE_TABLE.filter((t) => t.address in shape).map((t) => t.name);
      assert.deepEqual(
        [...given].sort(),
        wanted.sort(),
        `web-access.upstreams of ${s.name}: the addresses ${packageDir(s.name)}/src/config.ts reads`,
      );
    }
  });
});
