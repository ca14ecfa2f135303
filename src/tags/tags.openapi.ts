import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { PAGE_LIMIT } from '../common/paging/page-limit.js';
import { versionedOperationId } from '../docs/operation-ids.js';
import { TagListResponse } from './dto/tag-count-response.dto.js';

const PATH = '/api/v2/tags';

/** The OpenAPI description of GET /api/v2/tags (a ticket's tags are set through the tickets API). */
export const tagsApi = {
  controller: () => ApiTags('tags v2'),
  list: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'listTags'),
        summary: 'Tags in use, the most used first (for autocomplete)',
        description: 'Each tag that at least one ticket carries, with how many do; `prefix` keeps those starting with it.',
      }),
      ApiProduces('application/json'),
      ApiQuery({ name: 'prefix', required: false, description: 'Only tags starting with this (any case)', schema: { type: 'string' } }),
      ApiQuery({
        name: 'limit',
        required: false,
        description: `At most this many tags (${PAGE_LIMIT.min}-${PAGE_LIMIT.max}); default ${PAGE_LIMIT.v2Default}`,
        schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max },
      }),
      ApiOkResponse({ description: 'The tags and their counts', type: TagListResponse }),
      ApiProblemResponse(400, 'A parameter is malformed or unknown', {
        summary: 'limit out of range',
        path: `${PATH}?limit=0`,
        message: "Validation failed for object='tagQuery'. Error count: 1",
        errors: [
          springFieldError(
            'tagQuery',
            'limit',
            'Range',
            'java.lang.Integer',
            [PAGE_LIMIT.max, PAGE_LIMIT.min],
            'must be between 1 and 1000',
            '0',
          ),
        ],
      }),
      ApiProblemResponse(503, 'The database cannot be reached right now; retry later'),
    ),
};
