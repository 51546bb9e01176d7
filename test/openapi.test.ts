import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/harness.ts';

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { $ref?: string; content?: unknown }>;
  parameters?: unknown[];
  requestBody?: unknown;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, unknown> };
}

let t: TestApp;
let document: Document;
beforeAll(async () => {
  t = await createTestApp();
  document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );

describe('the OpenAPI document', () => {
  it('gives every operation a unique camelCase operationId and explicit security', () => {
    const ids = operations().map(({ name, operation }) => {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(Array.isArray(operation.security), name).toBe(true);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/payments/checkout/{payment_id}']?.get?.security).toEqual([]);
    expect(document.paths['/auth/signup']?.post?.security).toEqual([]);
    expect(document.paths['/payments']?.post?.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(document.paths['/payments/checkout/{payment_id}/select']?.post?.security).toEqual([]);
  });

  it('lists the 4xx answers of every operation with the error schema', () => {
    for (const { name, operation } of operations()) {
      expect(operation.responses['429'], name).toEqual({ $ref: '#/components/responses/RateLimited' });
      if (operation.security?.length) expect(operation.responses['401'], name).toBeDefined();
      if (operation.requestBody) expect(operation.responses['400'], name).toBeDefined();
      if (name.includes('{')) expect(operation.responses['404'], name).toBeDefined();
    }
    expect(document.components.responses.BadRequest).toEqual({
      description: expect.any(String),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(document.components.schemas.Error).toMatchObject({ required: ['error'] });
  });

  it('bounds expires_in and keeps no unused schema', () => {
    const create = document.paths['/payments']?.post?.requestBody as {
      content: { 'application/json': { schema: { properties: Record<string, Record<string, unknown>> } } };
    };
    expect(create.content['application/json'].schema.properties.expires_in).toMatchObject({
      minimum: 60,
      maximum: 604_800,
    });
    expect(Object.keys(document.components.schemas).filter((name) => name.endsWith('Input'))).toEqual([]);
  });

  it('passes Redocly lint without a warning', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['node_modules/@redocly/cli/bin/cli.js', 'lint', '--config', 'redocly.yaml', '--format=json', file],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
      );
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: Array<{ ruleId: string; message: string }>;
      };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
