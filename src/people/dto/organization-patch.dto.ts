import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsJsonBoolean, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { IsStringList, ORGANIZATION_LIST_MAX } from './organization-request.dto.js';

const present = (field: keyof OrganizationPatch) => ValidateIf((patch: OrganizationPatch) => patch[field] !== undefined);

/** Body of PATCH: the fields given replace (a list replaces the whole list), the others stay (RFC 7396). */
export class OrganizationPatch {
  @ApiPropertyOptional({ maxLength: 255, example: 'Example Corporation' })
  @present('name')
  @IsJsonString()
  @NotBlank('name is required')
  @Size(255)
  name?: string;

  @ApiPropertyOptional({ type: [String], nullable: true, maxItems: ORGANIZATION_LIST_MAX, example: ['example.com'] })
  @IsStringList()
  domains?: string[] | null;

  @ApiPropertyOptional({ type: [String], nullable: true, maxItems: ORGANIZATION_LIST_MAX, example: ['ann@other.org'] })
  @IsStringList()
  members?: string[] | null;

  @ApiPropertyOptional({ example: true })
  @present('sharedTickets')
  @IsJsonBoolean()
  @NotNull('java.lang.Boolean')
  sharedTickets?: boolean;

  @ApiPropertyOptional({ example: false })
  @present('sharedComments')
  @IsJsonBoolean()
  @NotNull('java.lang.Boolean')
  sharedComments?: boolean;
}
