import { Controller, Get, Param } from '@nestjs/common';
import { IdPipe } from '../common/http/id.pipe.js';
import type { SlaResponse } from './dto/sla-response.dto.js';
import { slaApi } from './sla.openapi.js';
import { SlaService } from './sla.service.js';

const api = slaApi('v1');

/** v1: a ticket's SLA clocks; errors in Spring's shape. */
@Controller('api/tickets/:id/sla')
@api.controller()
export class SlaController {
  constructor(private readonly sla: SlaService) {}

  @Get()
  @api.get()
  get(@Param('id', IdPipe) id: string): Promise<SlaResponse> {
    return this.sla.view(id);
  }
}
