import { ApiProperty } from '@nestjs/swagger';
import { CommentResponse } from './comment-response.dto.js';

/** v2's comment list body: one page of comments, oldest first, and where the next page starts. */
export class CommentPageResponse {
  @ApiProperty({ description: 'The comments of this page, oldest first', type: [CommentResponse] })
  items: CommentResponse[];

  @ApiProperty({
    description: 'Pass as `cursor` for the next page; null on the last page',
    type: String,
    nullable: true,
    example: 'eyJxIjoi…',
  })
  nextCursor: string | null;
}
