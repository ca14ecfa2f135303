import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { readLimit } from '../common/paging/page-limit.js';
import { QueryParameters } from '../common/paging/query-parameters.js';
import type { TagListResponse } from './dto/tag-count-response.dto.js';
import { tagsApi } from './tags.openapi.js';
import { TagsRepository } from './tags.repository.js';
import { canonicalTag } from './tags.js';

/** Autocomplete for tags: what tags are in use, how often. */
@Controller('api/v2/tags')
@tagsApi.controller()
export class TagsController {
  constructor(private readonly tags: TagsRepository) {}

  @Get()
  @tagsApi.list()
  async list(@Req() request: Request): Promise<TagListResponse> {
    const params = new QueryParameters(request.query, 'v2', ['prefix', 'limit'], 'tagQuery');
    const prefixText = params.single('prefix');
    const prefix = prefixText === undefined ? '' : canonicalTag(prefixText);
    if (prefix === undefined) {
      params.problem('prefix', 'typeMismatch', 'java.lang.String', "A tag's beginning: letters, digits, '-', '_', '.' or ':'", prefixText);
    }
    const limit = readLimit(params, params.single('limit'));
    if (params.problems.length > 0) throw new ValidationFailedException('tagQuery', params.fieldErrors());
    return { items: await this.tags.inUse(prefix ?? '', limit!) };
  }
}
