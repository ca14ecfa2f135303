import { applyDecorators } from '@nestjs/common';
import {
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
import { PAGE_LIMIT } from '../common/paging/page-limit.js';
import { OrganizationPatch } from './dto/organization-patch.dto.js';
import { OrganizationRequest } from './dto/organization-request.dto.js';
import { OrganizationPageResponse, OrganizationResponse } from './dto/organization-response.dto.js';

const PATH = '/api/v2/organizations';

const common = () =>
  applyDecorators(
    ApiProduces('application/json'),
    ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
    ApiProblemResponse(500, 'An unexpected failure (logged with its cause)'),
  );

const organizationId = () =>
  applyDecorators(
    ApiParam({ name: 'id', description: 'The organization id', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 4 }),
    ApiProblemResponse(400, 'The id is not a positive 64-bit integer, or the request failed validation'),
    ApiProblemResponse(404, 'No organization has this id', {
      summary: 'Unknown organization',
      path: `${PATH}/4`,
      message: 'Organization not found with id: 4',
    }),
  );

const jsonBody = (type: typeof OrganizationRequest | typeof OrganizationPatch) =>
  applyDecorators(
    ApiConsumes('application/json'),
    ApiBody({ type }),
    ApiProblemResponse(415, 'The body is not declared as JSON'),
    ApiProblemResponse(409, 'Another organization already lists one of its domains or members (each is named)'),
  );

/** The OpenAPI description of /api/v2/organizations (docs/security.md, "Requesters and organizations"). */
export const organizationsApi = {
  controller: () => ApiTags('organizations v2'),
  create: () =>
    applyDecorators(
      ApiOperation({ operationId: 'createOrganization', summary: 'Create an organization: its domains, its members and what they share' }),
      common(),
      jsonBody(OrganizationRequest),
      ApiProblemResponse(400, 'The body failed validation (a domain or an address that is none is named)'),
      ApiCreatedResponse({
        type: OrganizationResponse,
        headers: { Location: { required: true, schema: { type: 'string', example: `${PATH}/4` } } },
      }),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({ operationId: 'listOrganizations', summary: 'List organizations, oldest first, a page at a time' }),
      common(),
      ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max } }),
      ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } }),
      ApiProblemResponse(400, 'A bad limit or cursor, or an unknown parameter'),
      ApiOkResponse({ type: OrganizationPageResponse }),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({ operationId: 'getOrganization', summary: 'Read an organization' }),
      common(),
      organizationId(),
      ApiOkResponse({ type: OrganizationResponse }),
    ),
  update: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'updateOrganization',
        summary: 'Change an organization: the fields given replace (a list replaces the whole list)',
      }),
      common(),
      organizationId(),
      jsonBody(OrganizationPatch),
      ApiOkResponse({ type: OrganizationResponse }),
    ),
  remove: () =>
    applyDecorators(
      ApiOperation({ operationId: 'deleteOrganization', summary: 'Delete an organization' }),
      common(),
      organizationId(),
      ApiNoContentResponse({ description: 'Deleted' }),
    ),
};
