import { ApiProperty } from '@nestjs/swagger';

/** A merge as it was made. */
export class MergeResponse {
  @ApiProperty({ description: 'The ticket the sources were merged into', example: 7 })
  targetId: number;

  @ApiProperty({
    description: 'The tickets merged, in id order: each is CLOSED and answers `mergedInto`',
    type: [Number],
    example: [12, 13],
  })
  sourceIds: number[];

  @ApiProperty({ description: "The target's internal comment naming what was merged", example: 981 })
  commentId: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-30T09:00:00.000Z' })
  mergedAt: Date;
}

/** A merge undone. */
export class UnmergeResponse {
  @ApiProperty({ example: 7 })
  targetId: number;

  @ApiProperty({ description: 'The ticket taken out, back in the status it had before the merge', example: 12 })
  sourceId: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-30T10:00:00.000Z' })
  unmergedAt: Date;
}
