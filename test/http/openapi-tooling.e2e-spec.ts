import type { INestApplication } from '@nestjs/common';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { createTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';

type Operation = { operationId?: string; tags?: string[] };
interface ServedDocument {
  address: string;
  source: string;
  document: { paths: Record<string, Record<string, Operation>>; tags?: Array<{ name: string }> };
}

/**
 * Redocly's recommended rules, as `redocly lint --extends=recommended` applies them, with the exceptions the
 * service has a reason for: a rule switched off here is off for every operation, an ignored problem for one place.
 */
const RULES_OFF = {
  // The service is not published under a license (package.json: UNLICENSED): there is none to name.
  'info-license': 'off',
} as const;
const IGNORED: Record<string, string[]> = {
  // GET /actuator lists the exposed endpoints and has no 4xx: Spring's links endpoint answers 200 to any request.
  'operation-4xx-response': ['#/paths/~1actuator/get/responses'],
};

/** The documents the service serves: the whole one, as JSON and as YAML, and each group Swagger UI offers. */
async function servedDocuments(http: ReturnType<typeof request>): Promise<ServedDocument[]> {
  const init = (await http.get('/swagger-ui/swagger-ui-init.js').expect(200)).text;
  const urls: Array<{ url: string }> = JSON.parse(/"urls": (\[[^\]]*\])/.exec(init)![1]);
  const groups = urls.map(({ url }) => new URL(url, 'http://host/swagger-ui/').pathname);
  expect(groups).toEqual(['/v3/api-docs/v1', '/v3/api-docs/v2']);
  return Promise.all(
    ['/v3/api-docs', '/v3/api-docs.yaml', ...groups].map(async (address) => {
      const source = (await http.get(address).buffer(true).expect(200)).text;
      return { address, source, document: address.endsWith('.yaml') ? parseYaml(source) : JSON.parse(source) };
    }),
  );
}

async function lint({ address, source }: ServedDocument): Promise<string[]> {
  const absoluteRef = `http://service${address}`;
  const ignore = { [absoluteRef]: Object.fromEntries(Object.entries(IGNORED).map(([rule, pointers]) => [rule, new Set(pointers)])) };
  const config = await createConfig({ extends: ['recommended'], rules: RULES_OFF }, { ignore });
  const problems = await lintFromString({ source, absoluteRef, config });
  const where = (problem: NormalizedProblem) => problem.location.map(({ pointer }) => pointer).join(', ');
  return problems
    .filter((problem) => !problem.ignored)
    .map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${where(problem)}`);
}

/**
 * A TypeScript client of each document, as `openapi-typescript` generates it, with a reference to each operation by
 * its id; compiled together with `strict` and nothing else: the diagnostics, formatted.
 */
async function compileClients(served: ServedDocument[]): Promise<string[]> {
  const files = new Map<string, string>();
  for (const [index, { document }] of served.entries()) {
    const client = astToString(await openapiTS(structuredClone(document) as never, { silent: true }));
    const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item).map(({ operationId }) => operationId));
    const uses = operationIds.map((id, n) => `export type Operation${n} = operations[${JSON.stringify(id)}];`);
    files.set(`/clients/client${index}.ts`, `${client}\n${uses.join('\n')}\n`);
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const file = diagnostic.file ? served[Number(/client(\d+)/.exec(diagnostic.file.fileName)?.[1])]?.address : '';
    return `${file ?? diagnostic.file?.fileName}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

function operationsOf({ document }: ServedDocument): Array<[string, Operation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/** The checks that every served document passes, whatever the service's settings. */
function describeServedDocuments(env: () => Record<string, string>): void {
  let app: INestApplication;
  let served: ServedDocument[];

  beforeAll(async () => {
    app = await createTestApp({ env: env() });
    served = await servedDocuments(request(app.getHttpServer()));
  });

  afterAll(async () => {
    await app?.close();
  });

  it("passes Redocly's recommended rules", async () => {
    for (const document of served) expect([document.address, await lint(document)]).toEqual([document.address, []]);
  });

  it('gives each operation an operationId of its own', () => {
    for (const document of served) {
      const byId = new Map<string, string[]>();
      for (const [operation, { operationId }] of operationsOf(document))
        byId.set(operationId!, [...(byId.get(operationId!) ?? []), operation]);
      expect([document.address, [...byId].filter(([, operations]) => operations.length > 1)]).toEqual([document.address, []]);
      expect([document.address, [...byId.keys()].filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))]).toEqual([document.address, []]);
    }
  });

  it("lists the tags its operations use and no other (Swagger UI's groups), and files each operation under one", () => {
    for (const document of served) {
      const listed = (document.document.tags ?? []).map(({ name }) => name);
      const used = new Set(operationsOf(document).flatMap(([, { tags }]) => tags ?? []));
      expect([document.address, [...listed].sort()]).toEqual([document.address, [...used].sort()]);
      const notOnce = operationsOf(document).filter(([, { tags }]) => tags?.length !== 1);
      expect([document.address, notOnce]).toEqual([document.address, []]);
    }
  });

  it('generates, with openapi-typescript, a client that compiles under strict without a diagnostic', async () => {
    expect(await compileClients(served)).toEqual([]);
  }, 120_000);
}

describe('The served OpenAPI documents, as API tooling reads them', () => {
  describe('with bearer tokens off', () => {
    describeServedDocuments(() => ({}));
  });

  describe('with bearer tokens and a rate limit on', () => {
    let issuer: TestIssuer;
    beforeAll(async () => {
      issuer = await TestIssuer.start();
    });
    afterAll(async () => {
      await issuer?.stop();
    });
    describeServedDocuments(() => ({
      SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI: issuer.url,
      RATE_LIMIT_REQUESTS: '1000',
      RATE_LIMIT_KEY_PREFIX: `openapi-tooling-${Date.now()}:`,
    }));
  });
});
