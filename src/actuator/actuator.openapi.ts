import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse } from '../common/errors/api-error-response.decorator.js';
import { ACTUATOR_V3_JSON } from './actuator-response.js';
import { noEndpointMessage } from '../common/errors/no-endpoint.js';

/*
 * The OpenAPI description of the actuator controllers. Their bodies are Spring Boot's, built by plain functions
 * rather than DTO classes, so their schemas are written here; the e2e contract test checks real answers against them.
 */

type Schema = Record<string, unknown>;

const status: Schema = {
  type: 'string',
  enum: ['UP', 'DOWN', 'OUT_OF_SERVICE', 'UNKNOWN'],
  description: 'UP answers 200; DOWN and OUT_OF_SERVICE answer 503',
};

const component: Schema = {
  type: 'object',
  required: ['status'],
  properties: {
    status,
    details: { type: 'object', additionalProperties: true, description: "The indicator's facts, e.g. db: database, validationQuery" },
  },
};

const systemHealth: Schema = {
  type: 'object',
  required: ['status', 'components'],
  properties: {
    status: { ...status, description: 'The worst status of the components' },
    components: { type: 'object', additionalProperties: component, description: 'Every health indicator, by name, sorted' },
    groups: { type: 'array', items: { type: 'string' }, description: 'With probes enabled: liveness and readiness' },
  },
};

const link: Schema = {
  type: 'object',
  required: ['href', 'templated'],
  properties: { href: { type: 'string', description: 'A URL, or a URI template when templated' }, templated: { type: 'boolean' } },
};

const links: Schema = {
  type: 'object',
  required: ['_links'],
  properties: { _links: { type: 'object', additionalProperties: link, description: 'self, and one link per exposed endpoint' } },
};

const named = (...names: string[]): Schema => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
});

const info: Schema = {
  type: 'object',
  required: ['app', 'build', 'node'],
  properties: { app: named('name', 'description', 'version'), build: named('artifact', 'name', 'version'), node: named('version') },
};

const down = { status: 'DOWN', details: { error: 'QueryFailedError: connect ECONNREFUSED 127.0.0.1:3306' } };

/** Spring answers in its actuator media type, and in plain JSON to a client that asks for that. */
function actuatorResponse(code: number, description: string, schema: Schema, example: unknown) {
  const media = { schema, example };
  return ApiResponse({ status: code, description, content: { [ACTUATOR_V3_JSON]: media, 'application/json': media } });
}

const notExposed = (path: string) =>
  ApiErrorResponse(404, 'Not exposed (MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE)', {
    summary: 'Not exposed',
    path,
    message: noEndpointMessage('GET', path),
  });

export const ApiActuator = () => ApiTags('actuator');

export const ApiActuatorLinks = () =>
  applyDecorators(
    ApiOperation({ operationId: 'actuatorLinks', summary: 'Links to the exposed actuator endpoints' }),
    actuatorResponse(200, 'The links, built from the request host', links, {
      _links: {
        self: { href: 'http://localhost:8080/actuator', templated: false },
        health: { href: 'http://localhost:8080/actuator/health', templated: false },
      },
    }),
  );

export const ApiHealth = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'health',
      summary: 'Health of the service and of what it depends on',
      description: 'Components: db, diskSpace, outbox, ping, rabbit (and livenessState, readinessState with probes enabled).',
    }),
    actuatorResponse(200, 'Every component is UP', systemHealth, {
      status: 'UP',
      components: { db: { status: 'UP', details: { database: 'MySQL', validationQuery: 'isValid()' } }, ping: { status: 'UP' } },
    }),
    actuatorResponse(503, 'A component is DOWN or OUT_OF_SERVICE', systemHealth, {
      status: 'DOWN',
      components: { db: down, ping: { status: 'UP' } },
    }),
    notExposed('/actuator/health'),
  );

export const ApiHealthComponent = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'healthComponent',
      summary: 'One health component, or a probe group',
      description: 'With MANAGEMENT_HEALTH_PROBES_ENABLED=true, `liveness` and `readiness` are the Kubernetes probes.',
    }),
    ApiParam({
      name: 'name',
      description: 'A component (db, diskSpace, outbox, ping, rabbit) or a group (liveness, readiness)',
      example: 'db',
    }),
    actuatorResponse(200, 'The component or group is UP', component, {
      status: 'UP',
      details: { database: 'MySQL', validationQuery: 'isValid()' },
    }),
    actuatorResponse(503, 'The component or group is DOWN or OUT_OF_SERVICE', component, down),
    ApiErrorResponse(404, 'No component or group has this name, or health is not exposed', {
      summary: 'Unknown name',
      path: '/actuator/health/nope',
      message: 'No health component or group named "nope"',
    }),
  );

export const ApiInfo = () =>
  applyDecorators(
    ApiOperation({ operationId: 'info', summary: "The application's name, description and version, and its runtime" }),
    actuatorResponse(200, 'Application information', info, {
      app: { name: 'ticket-service', description: 'IT support ticket service', version: '1.0.0' },
      build: { artifact: 'ticket-service', name: 'ticket-service', version: '1.0.0' },
      node: { version: '22.12.0' },
    }),
    notExposed('/actuator/info'),
  );
