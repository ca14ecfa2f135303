import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CommentVisibility } from '../comment-visibility.enum.js';

/** The wire representation of a comment (also what a COMMENT_ADDED event carries). */
export class CommentResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 7 })
  id: number;

  @ApiProperty({ type: 'integer', format: 'int64', example: 42 })
  ticketId: number;

  @ApiProperty({ example: 'Replaced the toner; please try again.' })
  body: string;

  @ApiProperty({ type: String, nullable: true, example: 'desk-2' })
  author: string | null;

  @ApiProperty({ enum: CommentVisibility, enumName: 'CommentVisibility', example: CommentVisibility.PUBLIC })
  visibility: CommentVisibility;

  @ApiProperty({ description: 'UTC, with milliseconds', type: String, format: 'date-time', example: '2026-11-22T20:37:14.123Z' })
  createdAt: Date;

  @ApiPropertyOptional({
    description: 'The attachments the comment names; absent when it names none',
    type: 'array',
    items: { type: 'integer', format: 'int64' },
    example: [5],
  })
  attachmentIds?: number[];
}
