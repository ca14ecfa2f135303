import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Express } from 'express';
import { readPackageFacts } from '../health/app-info.js';
import { ASYNCAPI_PATHS } from './asyncapi.setup.js';

/** Where springdoc serves them, so clients and bookmarks of the original service keep working. */
export const OPENAPI_PATHS = {
  json: '/v3/api-docs',
  yaml: '/v3/api-docs.yaml',
  ui: '/swagger-ui',
  uiIndex: '/swagger-ui/index.html',
  uiLegacy: '/swagger-ui.html',
} as const;

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
      'IT support tickets over HTTP/JSON. Every error has Spring Boot\'s error body. After each create and update an ' +
        `event is published to RabbitMQ: see the AsyncAPI document [${ASYNCAPI_PATHS.yaml.slice(1)}](${relative(ASYNCAPI_PATHS.yaml)}) ` +
        `(also as [JSON](${relative(ASYNCAPI_PATHS.json)})) for that contract.`,
    )
    .setVersion(readPackageFacts().version)
    .addTag('tickets', 'Create, list, read, replace and delete tickets')
    .build();
  return SwaggerModule.createDocument(app, config, { operationIdFactory: (_controller, method) => method });
}

/** Serves the document as JSON and YAML and Swagger UI on it; the document is built on first request. */
export function setupOpenApi(app: NestExpressApplication): void {
  const http: Express = app.getHttpAdapter().getInstance();
  // Nest's page links its assets relative to /swagger-ui/, so springdoc's addresses lead there (relative
  // redirects, which keep working behind a proxy that adds a path prefix).
  http.get(OPENAPI_PATHS.uiLegacy, (_req, res) => res.redirect(302, `${OPENAPI_PATHS.ui.slice(1)}/`));
  http.get(OPENAPI_PATHS.uiIndex, (_req, res) => res.redirect(302, './'));
  SwaggerModule.setup(OPENAPI_PATHS.ui.slice(1), app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_PATHS.json.slice(1),
    yamlDocumentUrl: OPENAPI_PATHS.yaml.slice(1),
    customSiteTitle: 'Ticket service API',
  });
}
