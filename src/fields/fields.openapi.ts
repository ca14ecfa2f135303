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
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../docs/operation-ids.js';
import { FieldDefinitionListResponse, FieldDefinitionRequest, FieldDefinitionResponse } from './dto/field-definition.dto.js';
import { readDefinition } from './field-definition.js';
import { invalidFields } from './fields.service.js';

const PATH = '/api/v2/fields';
const keyParam = ApiParam({
  name: 'key',
  description: "The field's key",
  schema: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
  example: 'category',
});
const invalid = invalidFields(
  'fieldDefinitionRequest',
  readDefinition({ key: 'Category', label: 'Category', type: 'enum', options: [] }).problems,
);
const badBody = ApiProblemResponse(400, 'A member of the definition does not fit (each named), or the body is not a JSON object', {
  summary: 'Bad definition',
  path: PATH,
  message: invalid.message,
  errors: invalid.fieldErrors,
});
const notFound = ApiProblemResponse(404, 'No custom field has this key', {
  summary: 'Unknown key',
  path: `${PATH}/nope`,
  message: 'No custom field has the key nope',
});
const id = (name: string) => versionedOperationId('v2', name);

/** The OpenAPI description of /api/v2/fields. */
export const fieldsApi = {
  controller: () => applyDecorators(ApiTags('fields v2'), ApiProduces('application/json')),
  create: () =>
    applyDecorators(
      ApiOperation({
        operationId: id('createField'),
        summary: 'Define a custom field',
        description: 'Scope fields.manage. No schema changes: tickets carry its values at once (`fields.<key>` in v2 bodies).',
      }),
      ApiConsumes('application/json'),
      ApiBody({ type: FieldDefinitionRequest }),
      ApiCreatedResponse({ description: 'The definition', type: FieldDefinitionResponse }),
      badBody,
      ApiProblemResponse(409, 'A field with this key exists already', {
        summary: 'Key taken',
        path: PATH,
        message: 'A custom field with the key category exists already',
      }),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({
        operationId: id('listFields'),
        summary: 'Every custom field, oldest first',
        description: 'Scope fields.manage, tickets.read or tickets.write.',
      }),
      ApiOkResponse({ description: 'The definitions', type: FieldDefinitionListResponse }),
      ApiProblemResponse(400, 'A query parameter was given: this list takes none'),
      ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({ operationId: id('getField'), summary: 'One custom field' }),
      keyParam,
      ApiOkResponse({ description: 'The definition', type: FieldDefinitionResponse }),
      notFound,
    ),
  change: () =>
    applyDecorators(
      ApiOperation({
        operationId: id('changeField'),
        summary: 'Change a custom field (JSON merge patch)',
        description:
          'Members given replace, null removes (key and type are fixed). Stored values are never rewritten: narrowing the options, ' +
          'the bounds or the pattern is refused with 409, naming how many tickets hold values outside it.',
      }),
      keyParam,
      ApiConsumes('application/json', 'application/merge-patch+json'),
      ApiBody({ type: FieldDefinitionRequest }),
      ApiOkResponse({ description: 'The definition after the change', type: FieldDefinitionResponse }),
      badBody,
      notFound,
      ApiProblemResponse(409, 'Tickets hold values the changed definition would refuse; nothing changed', {
        summary: 'Values outside',
        path: `${PATH}/category`,
        message: '3 ticket(s) hold values of category outside the new definition; change or remove those values first',
      }),
    ),
  remove: () =>
    applyDecorators(
      ApiOperation({
        operationId: id('deleteField'),
        summary: 'Delete a custom field and its values',
        description: 'Each ticket that held a value gets a history entry naming `fields.<key>` going to null.',
      }),
      keyParam,
      ApiNoContentResponse({ description: 'Deleted' }),
      notFound,
    ),
};
