import { ApiProperty } from '@nestjs/swagger';
import { AttachmentResponse } from './attachment-response.dto.js';

/** v2's attachment list body: one page, oldest first, and where the next page starts. */
export class AttachmentPageResponse {
  @ApiProperty({ description: 'The attachments of this page, oldest first', type: [AttachmentResponse] })
  items: AttachmentResponse[];

  @ApiProperty({
    description: 'Pass as `cursor` for the next page; null on the last page',
    type: String,
    nullable: true,
    example: 'eyJxIjoi…',
  })
  nextCursor: string | null;
}
