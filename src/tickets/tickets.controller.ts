import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { DatabaseDeadlineInterceptor } from '../database/database-deadline.interceptor.js';
import { TicketRequest } from './dto/ticket-request.dto.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';
import { RequesterEmailFilterPipe } from './requester-email-filter.pipe.js';
import { TicketEtagInterceptor } from './ticket-etag.interceptor.js';
import { TicketIdPipe } from './ticket-id.pipe.js';
import type { TicketStatus } from './ticket-status.enum.js';
import { TicketStatusFilterPipe } from './ticket-status-filter.pipe.js';
import { TicketsService } from './tickets.service.js';
import { ApiCreateTicket, ApiDeleteTicket, ApiGetTicket, ApiListTickets, ApiReplaceTicket, ApiTickets } from './tickets.openapi.js';

@Controller('api/tickets')
@ApiTickets()
@UseInterceptors(DatabaseDeadlineInterceptor)
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @Post()
  @ApiCreateTicket()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(TicketEtagInterceptor)
  create(@Body() request: TicketRequest): Promise<TicketResponse> {
    return this.tickets.create(request);
  }

  @Get()
  @ApiListTickets()
  findAll(
    @Query('status', TicketStatusFilterPipe) status?: TicketStatus,
    @Query('requesterEmail', RequesterEmailFilterPipe) requesterEmail?: string,
  ): Promise<TicketResponse[]> {
    return this.tickets.findAll({ status, requesterEmail });
  }

  @Get(':id')
  @ApiGetTicket()
  @UseInterceptors(TicketEtagInterceptor)
  findOne(@Param('id', TicketIdPipe) id: string): Promise<TicketResponse> {
    return this.tickets.findOne(id);
  }

  @Put(':id')
  @ApiReplaceTicket()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(TicketEtagInterceptor)
  replace(
    @Param('id', TicketIdPipe) id: string,
    @Body() request: TicketRequest,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketResponse> {
    return this.tickets.replace(id, request, ifMatch);
  }

  @Delete(':id')
  @ApiDeleteTicket()
  @HttpCode(204)
  remove(@Param('id', TicketIdPipe) id: string, @Headers('if-match') ifMatch?: string): Promise<void> {
    return this.tickets.remove(id, ifMatch);
  }
}
