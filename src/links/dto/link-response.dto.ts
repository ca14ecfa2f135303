import { ApiProperty } from '@nestjs/swagger';
import { LINK_TYPES, type LinkType } from '../../tickets/links/links.js';

/** A link as the ticket it is read from sees it. */
export class LinkResponse {
  @ApiProperty({ example: 7 })
  id: number;

  @ApiProperty({ enum: LINK_TYPES, description: "The link's type from this ticket's side", example: 'causes' })
  type: LinkType;

  @ApiProperty({ description: 'The other ticket', example: 42 })
  ticketId: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-30T09:00:00.000Z' })
  createdAt: Date;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The subject of the token that linked them; null when anonymous',
    example: null,
  })
  createdBy: string | null;
}

export class LinkListResponse {
  @ApiProperty({ type: [LinkResponse], description: 'Oldest first' })
  items: LinkResponse[];
}
