import { ApiProperty } from '@nestjs/swagger';

/** An organization as the API shows it: its addresses and domains in canonical form (lower case), sorted. */
export class OrganizationResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 4 })
  id: number;

  @ApiProperty({ example: 'Example Corp' })
  name: string;

  @ApiProperty({ type: [String], example: ['example.com'] })
  domains: string[];

  @ApiProperty({ type: [String], example: ['ann@other.org'] })
  members: string[];

  @ApiProperty({ example: false })
  sharedTickets: boolean;

  @ApiProperty({ example: false })
  sharedComments: boolean;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-29T09:00:00.000Z' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-29T09:00:00.000Z' })
  updatedAt: Date;
}

/** One page of organizations, oldest first. */
export class OrganizationPageResponse {
  @ApiProperty({ type: [OrganizationResponse] })
  items: OrganizationResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'The cursor of the next page; null on the last', example: null })
  nextCursor: string | null;
}
