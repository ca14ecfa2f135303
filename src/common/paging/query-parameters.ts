import type { FieldErrorCode } from '../errors/field-error-codes.js';
import { springFieldError, type SpringFieldError } from '../errors/spring-field-error.js';

export type QueryDialect = 'v1' | 'v2';

/** What one query parameter got wrong, with the Spring code and Java type its field error carries. */
interface QueryProblem {
  field: string;
  code: FieldErrorCode;
  javaType: string;
  attributes?: unknown[];
  message: string;
  rejectedValue: unknown;
}

/**
 * Reads the raw query object (Express's parser: a string, or an array for a repeated parameter) the way each
 * version binds it, and collects every problem, so that one 400 names them all.
 * - v1 binds like Spring's single-valued @RequestParam: a repeated parameter uses its first value.
 * - v2 is strict: only `status`, `priority` and `sort` take several values (repeated or comma-separated);
 *   any other parameter given twice is a problem, and so is a parameter v2 does not know.
 * In both, an empty value counts as absent (decision 13).
 */
export class QueryParameters {
  readonly problems: QueryProblem[] = [];

  constructor(
    readonly raw: Record<string, unknown>,
    readonly dialect: QueryDialect,
    known: readonly string[],
    /** The object the field errors name (Spring's objectName). */
    private readonly objectName = 'ticketQuery',
  ) {
    if (dialect === 'v2') {
      for (const name of Object.keys(raw)) {
        if (!known.includes(name)) {
          this.problem(name, 'UnknownParameter', 'java.lang.String', `Unknown query parameter; accepted: ${known.join(', ')}`, raw[name]);
        }
      }
    }
  }

  /** A single-valued parameter, or undefined when absent or empty. */
  single(name: string): string | undefined {
    const values = this.all(name);
    if (this.dialect === 'v2' && values.length > 1) {
      this.problem(name, 'Repeated', 'java.lang.String', `Given ${values.length} times; this parameter takes one value`, values);
      return undefined;
    }
    return values[0] === '' ? undefined : values[0];
  }

  /** A list parameter's non-empty items: v2 splits every value at commas; v1 takes one value. */
  list(name: string): string[] {
    if (this.dialect === 'v1') {
      const value = this.single(name);
      return value === undefined ? [] : [value];
    }
    return this.all(name)
      .flatMap((value) => value.split(','))
      .filter((item) => item !== '');
  }

  /** A comma-separated list in both versions (v1 takes the first of a repeated parameter, as for any other). */
  commaList(name: string): string[] {
    const values = this.dialect === 'v1' ? [this.single(name)].filter((value) => value !== undefined) : this.all(name);
    return values.flatMap((value) => value.split(',')).filter((item) => item !== '');
  }

  problem(
    field: string,
    code: QueryProblem['code'],
    javaType: string,
    message: string,
    rejectedValue: unknown,
    attributes: unknown[] = [],
  ): void {
    this.problems.push({ field, code, javaType, attributes, message, rejectedValue });
  }

  /** The problems as Spring field errors of the object (`ticketQuery` by default), the one form both error shapes render. */
  fieldErrors(): SpringFieldError[] {
    return this.problems.map((p) =>
      springFieldError(this.objectName, p.field, p.code, p.javaType, p.attributes ?? [], p.message, p.rejectedValue),
    );
  }

  private all(name: string): string[] {
    const value = this.raw[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).map(String);
  }
}
