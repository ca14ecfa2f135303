import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Patch,
  type PipeTransform,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { FIELD_KEY } from './field-definition.js';
import type { Request, Response } from 'express';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { QueryParameters } from '../common/paging/query-parameters.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { writeContext } from '../common/context/write-context.js';
import type { FieldDefinitionListResponse, FieldDefinitionResponse } from './dto/field-definition.dto.js';
import { fieldsApi } from './fields.openapi.js';
import { definitionResponse, FieldsService } from './fields.service.js';

/** A key in the path that no field can have is a 404 before any statement. */
class FieldKeyPipe implements PipeTransform<string, string> {
  transform(key: string): string {
    if (!FIELD_KEY.test(key)) throw new NotFoundException(`No custom field has the key ${key}`);
    return key;
  }
}

@Controller('api/v2/fields')
@fieldsApi.controller()
export class FieldsController {
  constructor(private readonly fields: FieldsService) {}

  @Post()
  @fieldsApi.create()
  @UseGuards(JsonContentTypeGuard)
  async create(@Body() body: Record<string, unknown>, @Res({ passthrough: true }) response: Response): Promise<FieldDefinitionResponse> {
    const definition = await this.fields.create(body);
    response.setHeader('Location', `/api/v2/fields/${definition.key}`);
    return definitionResponse(definition);
  }

  @Get()
  @fieldsApi.list()
  async list(@Req() request: Request): Promise<FieldDefinitionListResponse> {
    const params = new QueryParameters(request.query, 'v2', [], 'fieldQuery');
    if (params.problems.length > 0) throw new ValidationFailedException('fieldQuery', params.fieldErrors());
    return { items: (await this.fields.definitions()).map(definitionResponse) };
  }

  @Get(':key')
  @fieldsApi.get()
  async get(@Param('key', FieldKeyPipe) key: string): Promise<FieldDefinitionResponse> {
    return definitionResponse(await this.fields.get(key));
  }

  @Patch(':key')
  @fieldsApi.change()
  @UseGuards(JsonContentTypeGuard)
  async change(@Param('key', FieldKeyPipe) key: string, @Body() body: Record<string, unknown>): Promise<FieldDefinitionResponse> {
    return definitionResponse(await this.fields.change(key, body));
  }

  @Delete(':key')
  @fieldsApi.remove()
  @HttpCode(204)
  remove(@Param('key', FieldKeyPipe) key: string, @Req() request: Request): Promise<void> {
    return this.fields.remove(key, writeContext(request).actor);
  }
}
