import { ApiProperty } from '@nestjs/swagger';

export class TagCountResponse {
  @ApiProperty({ example: 'network' })
  tag: string;

  @ApiProperty({ description: 'How many tickets carry it', example: 42 })
  tickets: number;
}

/** GET /api/v2/tags: the tags in use, the most used first. */
export class TagListResponse {
  @ApiProperty({ type: [TagCountResponse] })
  items: TagCountResponse[];
}
