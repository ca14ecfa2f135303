import { ApiProperty } from '@nestjs/swagger';
import { IsEnumMember, IsId, NotNull } from '../../common/validation/spring-constraints.js';
import { LINK_TYPES } from '../../tickets/links/links.js';

const TYPES = Object.fromEntries(LINK_TYPES.map((type) => [type, type]));

/** Body of POST /api/v2/tickets/{id}/links: the type from this ticket's side, and the other ticket. */
export class LinkRequest {
  @ApiProperty({ description: 'The link as this ticket sees it', enum: LINK_TYPES, example: 'causes' })
  @NotNull('java.lang.String')
  @IsEnumMember(TYPES, 'LinkType')
  type: (typeof LINK_TYPES)[number];

  @ApiProperty({ description: 'The other ticket', example: 42, minimum: 1 })
  @NotNull('java.lang.Long')
  @IsId()
  ticketId: number;
}
