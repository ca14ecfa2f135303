import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { TicketDto } from './ticket.dto.js';
import { Ticket, TicketStatus } from './ticket.entity.js';

@Injectable()
export class TicketsService {
  constructor(
    @InjectRepository(Ticket) private readonly tickets: Repository<Ticket>,
    @Inject('TICKET_EVENTS') private readonly events: ClientProxy,
  ) {}

  async create(dto: TicketDto): Promise<Ticket> {
    const ticket = await this.tickets.save(this.tickets.create({ ...dto, assignedTo: dto.assignedTo ?? null }));
    this.events.emit('ticket.created', { eventType: 'CREATED', ticket });
    return ticket;
  }

  findAll(status?: TicketStatus, requesterEmail?: string): Promise<Ticket[]> {
    const where = status ? { status } : requesterEmail ? { requesterEmail } : {};
    return this.tickets.find({ where, order: { id: 'ASC' } });
  }

  async findOne(id: number): Promise<Ticket> {
    const ticket = await this.tickets.findOneBy({ id });
    if (!ticket) throw new NotFoundException(`Ticket not found with id: ${id}`);
    return ticket;
  }

  async update(id: number, dto: TicketDto): Promise<Ticket> {
    const ticket = await this.findOne(id);
    Object.assign(ticket, { ...dto, assignedTo: dto.assignedTo ?? null });
    if ((dto.status === TicketStatus.RESOLVED || dto.status === TicketStatus.CLOSED) && !ticket.resolvedAt) ticket.resolvedAt = new Date();
    const saved = await this.tickets.save(ticket);
    this.events.emit('ticket.updated', { eventType: 'UPDATED', ticket: saved });
    return saved;
  }
}
