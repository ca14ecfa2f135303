import { Controller, Get, Param } from '@nestjs/common';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { SlaResponse } from '../dto/sla-response.dto.js';
import { slaApi } from '../sla.openapi.js';
import { SlaService } from '../sla.service.js';

const api = slaApi('v2');

/** v2: the same clocks as v1; errors as problem+json. */
@Controller('api/v2/tickets/:id/sla')
@api.controller()
export class SlaV2Controller {
  constructor(private readonly sla: SlaService) {}

  @Get()
  @api.get()
  get(@Param('id', IdPipe) id: string): Promise<SlaResponse> {
    return this.sla.view(id);
  }
}
