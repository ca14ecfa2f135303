import { Body, Controller, Get, Param, ParseIntPipe, Post, Put, Query } from '@nestjs/common';
import { TicketDto } from './ticket.dto.js';
import { Ticket, TicketStatus } from './ticket.entity.js';
import { TicketsService } from './tickets.service.js';

@Controller('api/tickets')
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @Post()
  create(@Body() dto: TicketDto): Promise<Ticket> {
    return this.tickets.create(dto);
  }

  @Get()
  findAll(@Query('status') status?: TicketStatus, @Query('requesterEmail') requesterEmail?: string): Promise<Ticket[]> {
    return this.tickets.findAll(status, requesterEmail);
  }

  @Get(':id')
  findOne(@Param('id', ParseIntPipe) id: number): Promise<Ticket> {
    return this.tickets.findOne(id);
  }

  @Put(':id')
  update(@Param('id', ParseIntPipe) id: number, @Body() dto: TicketDto): Promise<Ticket> {
    return this.tickets.update(id, dto);
  }
}
