import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsId, IsIdList, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { MERGE_SOURCES_MAX } from '../../tickets/merges/merges.js';

/** The longest reason a merge's note carries (the note names the sources before it). */
export const MERGE_COMMENT_MAX_LENGTH = 4_000;

/** Body of POST /api/v2/tickets/{id}/merge: the tickets merged into this one, and why. */
export class MergeRequest {
  @ApiProperty({
    description: `The tickets merged into this one: 1 to ${MERGE_SOURCES_MAX} distinct ids, none of them this ticket or a merged ticket`,
    type: [Number],
    example: [12, 13],
  })
  @NotNull('java.util.List')
  @IsIdList(MERGE_SOURCES_MAX)
  sources: number[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "Why: added after the sources' numbers to the target's internal note",
    maxLength: MERGE_COMMENT_MAX_LENGTH,
    example: 'Same outage',
  })
  @IsJsonString()
  @ValidateIf((request: MergeRequest) => request.comment !== undefined && request.comment !== null)
  @NotBlank()
  @Size(MERGE_COMMENT_MAX_LENGTH)
  comment?: string | null;
}

/** Body of POST /api/v2/tickets/{id}/unmerge: the source taken out of this ticket again. */
export class UnmergeRequest {
  @ApiProperty({ description: 'A ticket merged into this one', example: 12, minimum: 1 })
  @NotNull('java.lang.Long')
  @IsId()
  source: number;
}
