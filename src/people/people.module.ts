import { Module } from '@nestjs/common';
import { OrganizationsController } from './organizations.controller.js';
import { OrganizationsRepository } from './organizations.repository.js';
import { OrganizationsService } from './organizations.service.js';
import { TicketAccessRepository } from './ticket-access.repository.js';
import { ParticipantsRepository } from './participants.repository.js';

/** The people around a ticket: requesters, the organizations they belong to, and the rule of what they see (visibility.ts). */
@Module({
  controllers: [OrganizationsController],
  providers: [OrganizationsService, OrganizationsRepository, TicketAccessRepository, ParticipantsRepository],
  exports: [TicketAccessRepository, ParticipantsRepository],
})
export class PeopleModule {}
