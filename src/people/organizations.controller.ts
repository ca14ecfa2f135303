import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { OrganizationPatch } from './dto/organization-patch.dto.js';
import { OrganizationRequest } from './dto/organization-request.dto.js';
import type { OrganizationPageResponse, OrganizationResponse } from './dto/organization-response.dto.js';
import { organizationsApi as api } from './organizations.openapi.js';
import { OrganizationsService } from './organizations.service.js';

const COLLECTION = '/api/v2/organizations';

/** v2 only: organizations, whose members may share their tickets (scope organizations.manage); problem+json errors. */
@Controller('api/v2/organizations')
@api.controller()
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Post()
  @api.create()
  @UseGuards(JsonContentTypeGuard)
  async create(@Body() request: OrganizationRequest, @Res({ passthrough: true }) response: Response): Promise<OrganizationResponse> {
    const created = await this.organizations.create(request);
    response.setHeader('Location', `${COLLECTION}/${created.id}`);
    return created;
  }

  @Get()
  @api.list()
  async list(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<OrganizationPageResponse> {
    const page = await this.organizations.list(parseKeysetPage(request.query, 'v2', 'organizations', 'pageQuery'));
    setPageHeaders(response, COLLECTION, request.originalUrl, { ...page, total: null });
    return page;
  }

  @Get(':id')
  @api.get()
  get(@Param('id', IdPipe) id: string): Promise<OrganizationResponse> {
    return this.organizations.findOne(id);
  }

  @Patch(':id')
  @api.update()
  @UseGuards(JsonContentTypeGuard)
  update(@Param('id', IdPipe) id: string, @Body() patch: OrganizationPatch): Promise<OrganizationResponse> {
    return this.organizations.update(id, patch);
  }

  @Delete(':id')
  @api.remove()
  @HttpCode(204)
  remove(@Param('id', IdPipe) id: string): Promise<void> {
    return this.organizations.remove(id);
  }
}
