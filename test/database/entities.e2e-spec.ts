import { DataSource } from 'typeorm';
import { useTestApp } from '../support/test-app.js';

/**
 * The schema is the migrations' (docs/architecture.md); a TypeORM entity the application registers is only a
 * description of it. Each must name exactly the columns its table has, so that no entity describes a table the
 * migrations have since changed.
 */
describe('TypeORM entities', () => {
  const testApp = useTestApp();

  it('every registered entity names exactly the columns of its migrated table', async () => {
    const dataSource = testApp.app.get(DataSource);
    const columnsOf = async (table: string): Promise<string[]> =>
      (
        (await dataSource.query(
          'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY column_name',
          [table],
        )) as Array<{ name: string }>
      )
        .map(({ name }) => name)
        .sort();
    for (const metadata of dataSource.entityMetadatas) {
      const described = metadata.columns.map((column) => column.databaseName).sort();
      expect([metadata.tableName, described]).toEqual([metadata.tableName, await columnsOf(metadata.tableName)]);
    }
  });
});
