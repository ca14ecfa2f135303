import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_TYPES, type FieldType, OPTIONS_MAX, PATTERN_MAX_LENGTH } from '../field-definition.js';

/** Body of POST /api/v2/fields (and, every member optional but key and type fixed, of PATCH as a merge patch). */
export class FieldDefinitionRequest {
  @ApiProperty({ description: 'The key values are set by (`fields.<key>`): [a-z][a-z0-9_]{0,63}, unique, fixed', example: 'category' })
  key: string;

  @ApiProperty({ description: 'What a person reads, 1 to 255 characters', example: 'Category' })
  label: string;

  @ApiProperty({ enum: FIELD_TYPES, enumName: 'FieldType', description: 'Fixed once the field exists', example: 'enum' })
  type: FieldType;

  @ApiPropertyOptional({ description: 'A v2 create or replace must give a value (default false)', example: false })
  required?: boolean;

  @ApiPropertyOptional({
    description: `enum and multi_enum: their values, 1 to ${OPTIONS_MAX}, each once`,
    type: [String],
    example: ['network', 'hardware', 'access'],
    nullable: true,
  })
  options?: string[] | null;

  @ApiPropertyOptional({ description: 'number: the least value allowed', type: Number, nullable: true, example: 0 })
  min?: number | null;

  @ApiPropertyOptional({ description: 'number: the greatest value allowed', type: Number, nullable: true, example: 1000 })
  max?: number | null;

  @ApiPropertyOptional({
    description: `text: a JavaScript regular expression (u flag) the whole value must match, at most ${PATTERN_MAX_LENGTH} characters, without nested repetition`,
    type: String,
    nullable: true,
    example: 'PC-\\d{4}',
  })
  pattern?: string | null;

  @ApiPropertyOptional({ description: 'At most 1000 characters', type: String, nullable: true })
  description?: string | null;
}

export class FieldDefinitionResponse {
  @ApiProperty({ example: 'category' })
  key: string;

  @ApiProperty({ example: 'Category' })
  label: string;

  @ApiProperty({ enum: FIELD_TYPES, enumName: 'FieldType', example: 'enum' })
  type: FieldType;

  @ApiProperty({ example: false })
  required: boolean;

  @ApiProperty({ type: [String], nullable: true, example: ['network', 'hardware', 'access'] })
  options: string[] | null;

  @ApiProperty({ type: Number, nullable: true, example: null })
  min: number | null;

  @ApiProperty({ type: Number, nullable: true, example: null })
  max: number | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  pattern: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  description: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-29T10:00:00.000Z' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-29T10:00:00.000Z' })
  updatedAt: Date;
}

export class FieldDefinitionListResponse {
  @ApiProperty({ type: [FieldDefinitionResponse] })
  items: FieldDefinitionResponse[];
}
