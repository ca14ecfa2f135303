import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnumMember, IsJsonString, NotBlank, Size } from '../../common/validation/spring-constraints.js';
import { CommentVisibility } from '../comment-visibility.enum.js';

export const COMMENT_BODY_MAX_LENGTH = 10_000;

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
}
