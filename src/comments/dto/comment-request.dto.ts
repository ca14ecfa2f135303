import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnumMember, IsIdList, IsJsonString, NotBlank, Size } from '../../common/validation/spring-constraints.js';
import { CommentVisibility } from '../comment-visibility.enum.js';

export const COMMENT_BODY_MAX_LENGTH = 10_000;

/** How many attachments one comment may name. */
export const COMMENT_ATTACHMENTS_MAX = 20;

/** Body of a new comment; validated with the same constraints, codes and error shapes as a ticket. */
export class CommentRequest {
  @ApiProperty({
    description: 'The text; not blank',
    example: 'Replaced the toner; please try again.',
    maxLength: COMMENT_BODY_MAX_LENGTH,
    pattern: '\\S',
  })
  @IsJsonString()
  @NotBlank('Body is required')
  @Size(COMMENT_BODY_MAX_LENGTH)
  body: string;

  @ApiPropertyOptional({
    description: 'Who wrote it; null when absent (once authentication exists, it comes from the token)',
    example: 'desk-2',
    type: String,
    maxLength: 255,
    nullable: true,
  })
  @IsJsonString()
  @Size(255)
  author?: string | null;

  @ApiPropertyOptional({
    description: 'Exact case; PUBLIC when absent',
    enum: CommentVisibility,
    enumName: 'CommentVisibility',
    default: CommentVisibility.PUBLIC,
  })
  @IsEnumMember(CommentVisibility, 'CommentVisibility')
  visibility?: CommentVisibility | null;

  @ApiPropertyOptional({
    description: 'Attachments of the same ticket the comment names (their ids); an unknown id or one of another ticket is a 400',
    type: [Number],
    maxItems: COMMENT_ATTACHMENTS_MAX,
    uniqueItems: true,
    nullable: true,
    example: [5],
  })
  @IsIdList(COMMENT_ATTACHMENTS_MAX)
  attachmentIds?: number[] | null;
}
