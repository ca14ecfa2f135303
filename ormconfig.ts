import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { parseConfig } from './src/config/app-config.js';
import { typeOrmOptions } from './src/database/typeorm-options.js';

/** The DataSource of the TypeORM CLI (npm run migration:run), built from the same options as the application. */
export default new DataSource(typeOrmOptions(parseConfig(process.env).db));
