import { readFileSync } from 'node:fs';
import { TicketPriority } from '../../src/tickets/ticket-priority.enum.js';
import { TicketStatus } from '../../src/tickets/ticket-status.enum.js';
import { useTestApp } from '../support/test-app.js';

/** The API guide, where the table of a ticket's fields lives. */
const API_DOC = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

interface FieldRow {
  field: string;
  type: string;
  inRequest: string;
  limits: string;
}

/** The rows of the field table in docs/api.md (the one headed `| field | type | in a request body | ...`). */
function fieldTable(): FieldRow[] {
  const lines = API_DOC.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| field | type | in a request body |'));
  expect(start).toBeGreaterThan(-1);
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [field, type, inRequest, limits] = line.split(' | ').map((cell) => cell.replace(/^\|\s*|\s*\|$/g, ''));
    rows.push({ field: field.replace(/`/g, ''), type, inRequest, limits });
  }
  return rows;
}

type Schema = Record<string, any>;

describe("docs/api.md: the table of a ticket's fields", () => {
  const testApp = useTestApp();
  let schemas: Record<string, Schema>;

  beforeAll(async () => {
    schemas = (await testApp.http.get('/v3/api-docs').expect(200)).body.components.schemas;
  });

  /** An enum property's values, whether the schema states them inline or through a reference. */
  const enumOf = (property: Schema): string[] | undefined => {
    const ref: string | undefined = property.$ref ?? property.allOf?.[0]?.$ref;
    return ref ? schemas[ref.split('/').at(-1)!].enum : (property.allOf?.[0]?.enum ?? property.enum);
  };

  it('lists every field of a ticket, request fields first, as the OpenAPI document has them', () => {
    const request = Object.keys(schemas.TicketRequest.properties);
    const response = Object.keys(schemas.TicketResponse.properties);
    expect(fieldTable().map((row) => row.field)).toEqual([...request, ...response.filter((field) => !request.includes(field))]);
  });

  it('states for each request field whether it is required, its length limit and its values, as validation does', () => {
    const { properties, required } = schemas.TicketRequest as { properties: Record<string, Schema>; required: string[] };
    for (const row of fieldTable().filter(({ field }) => field in properties)) {
      const property = properties[row.field];
      const stated = {
        field: row.field,
        required: row.inRequest.startsWith('required'),
        maxLength: Number(/at most (\d+) characters/.exec(row.limits)?.[1]) || undefined,
        values: row.type.includes('enum') ? [...row.limits.matchAll(/`([A-Z_]+)`/g)].map(([, value]) => value) : undefined,
        nullable: row.type.endsWith('or null'),
      };
      expect(stated).toEqual({
        field: row.field,
        required: required.includes(row.field),
        maxLength: property.maxLength,
        values: enumOf(property),
        nullable: Array.isArray(property.type) && property.type.includes('null'),
      });
    }
  });

  it('marks the other fields as server-owned, with their types', () => {
    const request = Object.keys(schemas.TicketRequest.properties);
    const { properties } = schemas.TicketResponse as { properties: Record<string, Schema> };
    for (const row of fieldTable().filter(({ field }) => !request.includes(field))) {
      const property = properties[row.field];
      expect([row.field, row.inRequest]).toEqual([row.field, 'server-owned, ignored']);
      const format = property.format ? ` (${property.format})` : '';
      const nullable = Array.isArray(property.type) && property.type.includes('null') ? ' or null' : '';
      const type = Array.isArray(property.type) ? property.type.find((t: string) => t !== 'null') : property.type;
      expect([row.field, row.type]).toEqual([row.field, `${type}${format}${nullable}`]);
    }
  });
});

describe("README.md: the values of a ticket's enums, for the first POST", () => {
  /** The values the README's row for `field` lists (`| \`status\` | \`OPEN\`, … |`), in its order. */
  const listed = (field: string): string[] => {
    const row = README.split('\n').find((line) => line.startsWith(`| \`${field}\` |`));
    expect(row).toBeDefined();
    return [...row!.split(' | ')[1].matchAll(/`([A-Z_]+)`/g)].map(([, value]) => value);
  };

  it('lists every status and every priority the service accepts, in the order it sorts them', () => {
    expect(listed('status')).toEqual(Object.values(TicketStatus));
    expect(listed('priority')).toEqual(Object.values(TicketPriority));
  });
});
