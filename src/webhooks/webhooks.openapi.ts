import { applyDecorators } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { PAGE_LIMIT } from '../common/paging/page-limit.js';
import { DeliveryPageResponse, DeliveryResponse, ReplayResponse, TestDeliveryResponse } from './dto/delivery-response.dto.js';
import { WebhookPatch } from './dto/webhook-patch.dto.js';
import { WebhookRequest } from './dto/webhook-request.dto.js';
import { WebhookPageResponse, WebhookResponse, WebhookSecretResponse } from './dto/webhook-response.dto.js';

const PATH = '/api/v2/webhooks';

const unsafeUrl = {
  summary: 'URL refused',
  path: PATH,
  message: "Validation failed for object='webhookRequest'. Error count: 1",
  errors: [
    springFieldError(
      'webhookRequest',
      'url',
      'UnsafeUrl',
      'java.lang.String',
      [],
      'The URL resolves to 169.254.169.254, which is link-local',
      'https://metadata.example.com/',
    ),
  ],
};

const common = (...more: Array<() => MethodDecorator & ClassDecorator>) =>
  applyDecorators(
    ApiProduces('application/json'),
    ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
    ApiProblemResponse(500, 'An unexpected failure (logged with its cause)'),
    ...more.map((decorator) => decorator()),
  );

const webhookId = () =>
  applyDecorators(
    ApiParam({ name: 'id', description: 'The webhook id', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 3 }),
    ApiProblemResponse(400, 'The id is not a positive 64-bit integer, or the request failed validation'),
    ApiProblemResponse(404, 'No webhook has this id', {
      summary: 'Unknown webhook',
      path: `${PATH}/3`,
      message: 'Webhook not found with id: 3',
    }),
  );

const paging = () =>
  applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: `At most this many items per page (${PAGE_LIMIT.min}-${PAGE_LIMIT.max}); default ${PAGE_LIMIT.v2Default}`,
      schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max },
    }),
    ApiQuery({ name: 'cursor', required: false, description: 'The `nextCursor` of the previous page', schema: { type: 'string' } }),
  );

const jsonBody = (type: typeof WebhookRequest | typeof WebhookPatch) =>
  applyDecorators(
    ApiConsumes('application/json'),
    ApiBody({ type }),
    ApiProblemResponse(415, 'The body is not declared as JSON'),
    ApiProblemResponse(413, 'The body is larger than 1 MiB'),
  );

/** The OpenAPI description of /api/v2/webhooks (see docs/webhooks.md for the wire format of the deliveries). */
export const webhooksApi = {
  controller: () => ApiTags('webhooks v2'),
  create: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint',
        description:
          'Events are POSTed to the URL as Standard Webhooks 1.0 (signed with the secret in this answer, shown only here), ' +
          'in order per ticket, retried on failure. The URL is checked: https:// to a public address, no credentials.',
      }),
      common(),
      jsonBody(WebhookRequest),
      ApiProblemResponse(400, 'The body failed validation, or the URL is refused (the reason is named)', unsafeUrl),
      ApiCreatedResponse({
        description: 'The endpoint and its secret',
        type: WebhookSecretResponse,
        headers: {
          Location: { description: 'Where the new endpoint is', required: true, schema: { type: 'string', example: `${PATH}/3` } },
        },
      }),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({ operationId: 'listWebhooks', summary: 'The webhook endpoints, oldest first, one page at a time' }),
      common(paging),
      ApiProblemResponse(400, 'A bad limit or cursor, or an unknown parameter'),
      ApiOkResponse({ description: 'One page of endpoints', type: WebhookPageResponse }),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({ operationId: 'getWebhook', summary: 'Read one webhook endpoint (never its secret)' }),
      common(webhookId),
      ApiOkResponse({ type: WebhookResponse }),
    ),
  update: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint',
        description: 'A merge patch: `url`, `eventTypes`, `enabled`, `description`. Enabling resumes the deliveries that wait.',
      }),
      common(webhookId),
      jsonBody(WebhookPatch),
      ApiOkResponse({ type: WebhookResponse }),
    ),
  remove: () =>
    applyDecorators(
      ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries' }),
      common(webhookId),
      ApiNoContentResponse({ description: 'Deleted' }),
    ),
  rotate: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret',
        description: 'For 24 hours deliveries carry two signatures, by the new and by the previous secret.',
      }),
      common(webhookId),
      ApiOkResponse({ description: 'The endpoint and its new secret, shown only here', type: WebhookSecretResponse }),
      ApiProblemResponse(409, 'The previous rotation still signs with the secret before it (24 hours); retry after that'),
    ),
  test: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'testWebhook',
        summary: 'Send a test request now',
        description:
          "One signed request of type `webhook.test` (data: `eventId`, `eventType` WEBHOOK_TEST, `occurredAt`, `ticketId` 0), with the checks and signatures of a delivery; its outcome is answered and not recorded. The receiver's body is never echoed.",
      }),
      common(webhookId),
      ApiOkResponse({ type: TestDeliveryResponse }),
    ),
  deliveries: () =>
    applyDecorators(
      ApiOperation({ operationId: 'listWebhookDeliveries', summary: "An endpoint's deliveries, newest first, one page at a time" }),
      common(webhookId, paging),
      ApiOkResponse({ type: DeliveryPageResponse }),
    ),
  redeliver: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again',
        description: "A new pending delivery of the same event, behind the ticket's other pending deliveries to this endpoint.",
      }),
      common(webhookId),
      ApiParam({ name: 'deliveryId', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 981 }),
      ApiAcceptedResponse({ description: 'The new delivery', type: DeliveryResponse }),
    ),
  replay: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'replayWebhookEvents',
        summary: 'Send the events of a time window again',
        description:
          "Queues again, in the order they happened, the events of [since, until) that this endpoint had deliveries of and still subscribes to. It replays from the endpoint's own delivery records, so only what was recorded for it (and not yet deleted after WEBHOOKS_RETENTION_DAYS) can be replayed.",
      }),
      common(webhookId),
      ApiQuery({
        name: 'since',
        required: true,
        description: 'ISO-8601 instant with a zone; not later than until (a 400 otherwise)',
        schema: { type: 'string', format: 'date-time' },
      }),
      ApiQuery({
        name: 'until',
        required: false,
        description: 'ISO-8601 instant with a zone; default now',
        schema: { type: 'string', format: 'date-time' },
      }),
      ApiAcceptedResponse({ type: ReplayResponse }),
    ),
};
