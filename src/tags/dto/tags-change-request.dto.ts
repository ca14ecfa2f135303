import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsTags } from '../tags.js';

/** Body of POST /api/v2/tickets/{id}/tags: tags to add and to remove (a tag in both is removed). */
export class TagsChangeRequest {
  @ApiPropertyOptional({ description: 'Tags to add (in any case; stored trimmed and lower-cased)', type: [String], example: ['vpn'] })
  @IsTags()
  add?: string[] | null;

  @ApiPropertyOptional({ description: 'Tags to remove; one the ticket does not have is no error', type: [String], example: ['network'] })
  @IsTags()
  remove?: string[] | null;
}
