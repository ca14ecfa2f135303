import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { parseConfig } from './src/config/app-config.js';
import { typeOrmOptions } from './src/database/typeorm-options.js';
import { OutboxEvent } from './src/outbox/outbox-event.entity.js';
import { Ticket } from './src/tickets/ticket.entity.js';

/**
 * The DataSource of the TypeORM CLI (npm run migration:run), built from the same options as the application, with the
 * entities the feature modules register in the application (TypeOrmModule.forFeature).
 */
export default new DataSource({ ...typeOrmOptions(parseConfig(process.env).db), entities: [Ticket, OutboxEvent] });
