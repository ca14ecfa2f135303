import { Module } from '@nestjs/common';
import { FieldDefinitionsRepository } from './field-definitions.repository.js';
import { FieldValuesRepository } from './field-values.repository.js';
import { FieldsController } from './fields.controller.js';
import { FieldsService } from './fields.service.js';

/** Custom fields (docs/api.md#custom-fields): their definitions and values; a ticket's values are written by its writes (src/tickets/). */
@Module({
  controllers: [FieldsController],
  providers: [FieldsService, FieldDefinitionsRepository, FieldValuesRepository],
  exports: [FieldsService, FieldValuesRepository],
})
export class FieldsModule {}
