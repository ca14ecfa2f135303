import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';

type Schema = Record<string, unknown>;
export interface MediaTypeObject {
  schema?: Schema;
  examples?: Record<string, { value: unknown }>;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, { schema: Schema; required?: boolean }>;
  content?: Record<string, MediaTypeObject>;
}
export interface OperationObject {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema; style?: string; explode?: boolean }>;
  requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
}
export interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * The service's own OpenAPI document, checked by a real validator, against which real responses are
 * matched: status declared for the operation, media type declared, body valid against its schema.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ allErrors: true });
  private readonly validators = new Map<object, ValidateFunction>();

  private constructor(readonly document: Document) {
    addFormats.default(this.ajv);
    // OpenAPI's annotation keyword, and its integer formats (checked by ajv-formats as numbers).
    this.ajv.addVocabulary(['example']);
  }

  /** Validates the document (OpenAPI schema and semantics, all $refs resolvable) and dereferences it. */
  static async from(raw: unknown): Promise<OpenApiContract> {
    await SwaggerParser.validate(structuredClone(raw) as never);
    return new OpenApiContract((await SwaggerParser.dereference(structuredClone(raw) as never)) as unknown as Document);
  }

  operation(method: string, path: string): OperationObject {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
    return operation;
  }

  /** Fails unless the response's status, headers, media type and body are what the operation declares. */
  expectResponse(method: string, path: string, response: Response): void {
    const declared = this.operation(method, path).responses[String(response.status)];
    if (!declared) throw new Error(`${method} ${path} answered ${response.status}, which the document does not declare`);
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      // A header the operation sends only sometimes (Link on the last page) is checked when it is there.
      if (!header.required && response.headers[name.toLowerCase()] === undefined) continue;
      this.expectValid(header.schema, response.headers[name.toLowerCase()], `header ${name} of ${method} ${path} ${response.status}`);
    }
    if (!declared.content) {
      expect(response.text ?? '').toBe('');
      return;
    }
    const mediaType = String(response.headers['content-type']).split(';')[0];
    const content = declared.content[mediaType];
    if (!content?.schema)
      throw new Error(`${method} ${path} ${response.status} answered ${mediaType}, declared: ${Object.keys(declared.content)}`);
    this.expectValid(content.schema, response.body, `${method} ${path} ${response.status}`);
  }

  /** Fails unless `value` is valid against `schema`, no property undeclared. */
  expectValid(schema: Schema, value: unknown, what: string): void {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(closed(schema));
      this.validators.set(schema, validate);
    }
    if (!validate(value)) {
      throw new Error(`${what} does not match its schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
    }
  }
}

/** A copy of the schema in which objects admit only the properties they declare, so extra fields are caught. */
function closed(schema: unknown): Schema {
  if (Array.isArray(schema)) return schema.map(closed) as unknown as Schema;
  if (schema === null || typeof schema !== 'object') return schema as Schema;
  const copy: Schema = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === 'example' || key === 'examples' ? value : closed(value)]),
  );
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}
