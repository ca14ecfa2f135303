import { type INestApplication, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type ComponentsObject, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Express } from 'express';
import { noEndpointMessage } from '../common/errors/no-endpoint.js';
import type { AppConfig } from '../config/app-config.js';
import { readPackageFacts } from '../common/package-facts.js';
import { ASYNCAPI_PATHS } from './asyncapi.setup.js';
import { withSecurity } from './openapi-security.js';

/** Where springdoc serves them, so clients and bookmarks of the original service keep working. */
export const OPENAPI_PATHS = {
  json: '/v3/api-docs',
  yaml: '/v3/api-docs.yaml',
  ui: '/swagger-ui',
  uiIndex: '/swagger-ui/index.html',
  uiLegacy: '/swagger-ui.html',
  /** One document per API version, springdoc's address for a group. */
  group: '/v3/api-docs/:group',
} as const;

/**
 * The groups Swagger UI offers, as springdoc's GroupedOpenApi would: v1 is everything but v2 (the original
 * API and the actuator), v2 the paths under /api/v2. /v3/api-docs itself keeps every path.
 */
const GROUPS: Record<string, { title: string; holds: (path: string) => boolean }> = {
  v1: { title: 'v1: /api/tickets and /actuator', holds: (path) => !path.startsWith('/api/v2/') },
  v2: { title: 'v2: /api/v2/tickets', holds: (path) => path.startsWith('/api/v2/') },
};

/**
 * A link from the document to another root path, relative to where it is read: Swagger UI's page (/swagger-ui/)
 * and the document (/v3/api-docs) both sit one level down, so it keeps working behind a proxy that adds a prefix.
 */
function relative(rootPath: string): string {
  return `..${rootPath}`;
}

/** The OpenAPI document, generated from the controllers and DTOs (and their Swagger decorators). */
function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    // 3.1: schemas are plain JSON Schema (nullable fields are `type: [..., "null"]`).
    .setOpenAPIVersion('3.1.0')
    .setTitle('Ticket service')
    .setDescription(
      "IT support tickets over HTTP/JSON. Errors of /api/tickets and /actuator have Spring Boot's error body, errors under " +
        '/api/v2 are RFC 9457 problems (application/problem+json). After each create, update, delete and comment an ' +
        `event is published to RabbitMQ: see the AsyncAPI document [${ASYNCAPI_PATHS.yaml.slice(1)}](${relative(ASYNCAPI_PATHS.yaml)}) ` +
        `(also as [JSON](${relative(ASYNCAPI_PATHS.json)})) for that contract.`,
    )
    .setVersion(readPackageFacts().version)
    // Relative: the service that serves the document (OpenAPI's default, which some tools want written out).
    .addServer('/', 'This service')
    .build();
  config.tags = TAGS.map(([name, description]) => ({ name, description }));
  // Every operation names its own operationId (versionedOperationId for those both versions have); this is the
  // fallback for one that does not: the method's name, with V2 in a v2 controller.
  const operationIdFactory = (controller: string, method: string) => (controller.endsWith('V2Controller') ? `${method}V2` : method);
  // No tag made up from a controller's name: each controller names its tag (a made-up one showed an operation twice).
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory, autoTagControllers: false });
  const security = app.get(ConfigService<AppConfig, true>).get('security', { infer: true });
  return withUsedTags(withSecurity(document, security));
}

/**
 * The groups of operations, in the order Swagger UI shows them: each controller tags its operations with one of
 * these names (a version's own controllers with `… v2`).
 */
const TAGS: Array<[name: string, description: string]> = [
  ['tickets', 'Create, list, read, replace and delete tickets'],
  ['tickets v2', 'Version 2: paged lists whose filters all AND, RFC 9457 problem+json errors'],
  ['sla', "A ticket's SLA clocks (SLA_ENABLED=true)"],
  ['sla v2', "Version 2: a ticket's SLA clocks (SLA_ENABLED=true), problem+json errors"],
  ['comments', "A ticket's conversation"],
  ['comments v2', "Version 2: a ticket's conversation, one page at a time, problem+json errors"],
  ['history', "A ticket's audit trail: who changed what and when"],
  ['history v2', "Version 2: a ticket's audit trail, one page at a time, problem+json errors"],
  ['attachments', "A ticket's files, streamed in and out"],
  ['attachments v2', "Version 2: a ticket's files, streamed in and out, problem+json errors"],
  ['changes v2', 'Every committed change of every ticket, in order, from a cursor: pages, long-poll or Server-Sent Events'],
  ['webhooks v2', 'Signed webhook endpoints (Standard Webhooks 1.0), their deliveries and replays'],
  ['fields v2', "Custom fields: their definitions (a ticket's values are set through tickets v2)"],
  ['tags v2', "The tags in use, for autocomplete (a ticket's tags are set through tickets v2)"],
  ['links v2', "Links between tickets (relates-to, duplicate-of, parent-of, causes), and a problem's incidents resolved together"],
  ['merge v2', 'Duplicates merged into one ticket, and a merge undone'],
  ['jobs v2', 'Many tickets changed at once, as a job worked in the background'],
  ['organizations v2', "Organizations: their domains and members, and whether members share each other's tickets (requester tokens)"],
  ['email v2', 'Mail handed in by an MTA or an inbound hook, and the notifications mailed about a ticket'],
  ['actuator', "Spring Boot's actuator: links, health and probes, info, Prometheus metrics"],
];

/** The document with only the tags its operations use: a tag without operations is an empty group in Swagger UI. */
function withUsedTags(document: OpenAPIObject): OpenAPIObject {
  const used = new Set(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { tags?: string[] }>).flatMap((operation) => operation?.tags ?? []),
    ),
  );
  return { ...document, tags: (document.tags ?? []).filter(({ name }) => used.has(name)) };
}

function groupDocument(document: OpenAPIObject, group: string): OpenAPIObject {
  const { holds, title } = GROUPS[group];
  const paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => holds(path)));
  const components = usedComponents(paths, document.components ?? {});
  return withUsedTags({ ...document, info: { ...document.info, title: `${document.info.title} (${title})` }, paths, components });
}

/**
 * The components that the paths refer to, directly or through other components (a group's document carries only
 * its own schemas, so a client generated from it has no types of the other version). Security schemes are named by
 * security requirements, not by $ref, and are all kept.
 */
function usedComponents(paths: OpenAPIObject['paths'], components: ComponentsObject): ComponentsObject {
  const used = new Set<string>();
  const pending: unknown[] = [paths];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node !== null && typeof node === 'object') {
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref === 'string' && ref.startsWith('#/components/') && !used.has(ref)) {
        used.add(ref);
        const [, , type, name] = ref.split('/');
        pending.push((components as Record<string, Record<string, unknown> | undefined>)[type]?.[name]);
      }
      pending.push(...Object.values(node));
    }
  }
  const kept = Object.entries(components).map(([type, entries]: [string, Record<string, unknown>]) => {
    if (type === 'securitySchemes') return [type, entries];
    return [type, Object.fromEntries(Object.entries(entries).filter(([name]) => used.has(`#/components/${type}/${name}`)))];
  });
  return Object.fromEntries(kept.filter(([, entries]) => Object.keys(entries).length > 0));
}

/** Serves the document as JSON and YAML and Swagger UI on it; the document is built on first request. */
export function setupOpenApi(app: NestExpressApplication): void {
  const http: Express = app.getHttpAdapter().getInstance();
  // Nest's page links its assets relative to /swagger-ui/, so springdoc's addresses lead there (relative
  // redirects, which keep working behind a proxy that adds a path prefix).
  http.get(OPENAPI_PATHS.uiLegacy, (_req, res) => res.redirect(302, `${OPENAPI_PATHS.ui.slice(1)}/`));
  http.get(OPENAPI_PATHS.uiIndex, (_req, res) => res.redirect(302, './'));
  let document: OpenAPIObject | undefined;
  const fullDocument = () => (document ??= buildOpenApiDocument(app));
  http.get(OPENAPI_PATHS.group, (req, res, next) => {
    if (Object.hasOwn(GROUPS, req.params.group)) res.json(groupDocument(fullDocument(), req.params.group));
    else next(new NotFoundException(noEndpointMessage(req.method, req.path)));
  });
  SwaggerModule.setup(OPENAPI_PATHS.ui.slice(1), app, fullDocument, {
    jsonDocumentUrl: OPENAPI_PATHS.json.slice(1),
    yamlDocumentUrl: OPENAPI_PATHS.yaml.slice(1),
    customSiteTitle: 'Ticket service API',
    explorer: true,
    // Relative to the page (/swagger-ui/), so the groups load behind a proxy that adds a path prefix too.
    // The token given to Authorize survives a reload of the page (it is kept in the browser's local storage).
    swaggerOptions: {
      persistAuthorization: true,
      urls: Object.entries(GROUPS).map(([name, { title }]) => ({ name: title, url: `..${OPENAPI_PATHS.group.replace(':group', name)}` })),
    },
  });
}
