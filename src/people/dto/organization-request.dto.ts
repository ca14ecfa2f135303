import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { IsJsonBoolean, IsJsonString, NotBlank, Size } from '../../common/validation/spring-constraints.js';

/** The most domains, and the most members, one organization lists. */
export const ORGANIZATION_LIST_MAX = 1_000;

/** A JSON array of strings of at most ORGANIZATION_LIST_MAX (or absent/null: none); each is checked by the service. */
export const IsStringList = () =>
  ValidateBy(
    {
      name: 'typeMismatch',
      validator: {
        validate: (value: unknown) =>
          value === undefined ||
          value === null ||
          (Array.isArray(value) && value.length <= ORGANIZATION_LIST_MAX && value.every((item) => typeof item === 'string')),
      },
    },
    {
      message: `Failed to convert value to required type: a list of at most ${ORGANIZATION_LIST_MAX} strings`,
      context: { javaType: 'java.util.List', attributes: [] },
    },
  );

/** Body of a new organization. */
export class OrganizationRequest {
  @ApiProperty({ example: 'Example Corp', maxLength: 255 })
  @IsJsonString()
  @NotBlank('name is required')
  @Size(255)
  name: string;

  @ApiPropertyOptional({
    description:
      'Every address at these domains is a member (exactly the domain, not its subdomains), unless another organization lists it',
    type: [String],
    example: ['example.com'],
    maxItems: ORGANIZATION_LIST_MAX,
  })
  @IsStringList()
  domains?: string[] | null;

  @ApiPropertyOptional({
    description: 'Addresses that are members whatever their domain',
    type: [String],
    example: ['ann@other.org'],
    maxItems: ORGANIZATION_LIST_MAX,
  })
  @IsStringList()
  members?: string[] | null;

  @ApiPropertyOptional({ description: "Members read each other's tickets", default: false })
  @IsJsonBoolean()
  sharedTickets?: boolean | null;

  @ApiPropertyOptional({ description: "Members also comment on each other's tickets (with sharedTickets)", default: false })
  @IsJsonBoolean()
  sharedComments?: boolean | null;
}
