import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { jsonBodyProblem } from '../common/http/json-body-limits.js';
import { REQUEST_LIMITS } from '../common/http/request-limits.js';
import type { SpringFieldError } from '../common/errors/spring-field-error.js';
import { RequestValidationPipe } from '../common/validation/request-validation.pipe.js';
import type { StoredDefinition } from '../fields/field-definitions.repository.js';
import { applyFieldValues } from '../fields/field-values.js';
import { invalidFields } from '../fields/fields.service.js';
import { canonicalCcEmails } from '../people/cc-emails.js';
import { canonicalTags, TAGS_MAX } from '../tags/tags.js';
import { TicketV2Request } from '../tickets/dto/ticket-v2-request.dto.js';
import { type ImportLine, importLine, lineProblems } from './import-line.js';

const validation = new RequestValidationPipe();
/** The object a line's 400 names its members under (`importLine.fields.category`). */
export const LINE_OBJECT = 'importLine';

/** A line of an import, checked: the line its job keeps, or why it is refused (a 400's problem) and its externalId if it has one. */
export type CheckedLine = { line: ImportLine } | { error: ValidationFailedException | Error; externalId: string | null };

/**
 * Checks one line of an import as a v2 create checks its body (the same validation of the ticket's fields, tags,
 * participants and custom field values, by `definitions`), and its own members by import-line.ts. Every problem of
 * the line is named at once.
 */
export async function checkLine(text: string, definitions: readonly StoredDefinition[], now: Date): Promise<CheckedLine> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { error: new Error(`Not JSON: ${(error as Error).message}`), externalId: null };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { error: new Error('Not a JSON object: a line is one ticket'), externalId: null };
  }
  // What a JSON body is refused for (json-body-limits.ts), refused in a line too: too deep to check, or not Unicode text.
  const unreadable = jsonBodyProblem(raw, REQUEST_LIMITS.jsonDepth);
  if (unreadable) return { error: new Error(`Not acceptable JSON: ${unreadable}`), externalId: null };
  const given = raw as Record<string, unknown>;
  const externalId = typeof given.externalId === 'string' ? given.externalId : null;
  const errors: SpringFieldError[] = [...invalidFields(LINE_OBJECT, lineProblems(given, now)).fieldErrors];
  const { title, description, status, priority, requesterEmail, assignedTo, ccEmails, tags } = given;
  let ticket: TicketV2Request | undefined;
  try {
    const body = { title, description, status, priority, requesterEmail, assignedTo, ccEmails, tags };
    ticket = (await validation.transform(body, { type: 'body', metatype: TicketV2Request })) as TicketV2Request;
  } catch (error) {
    if (!(error instanceof ValidationFailedException)) throw error;
    errors.push(...error.fieldErrors.map((fieldError) => ({ ...fieldError, objectName: LINE_OBJECT })));
  }
  const canonical = canonicalTags(tags ?? []);
  if (canonical && canonical.length > TAGS_MAX) {
    errors.push(
      ...invalidFields(LINE_OBJECT, [{ field: 'tags', message: `must have at most ${TAGS_MAX} tags`, rejected: tags }]).fieldErrors,
    );
  }
  const values = applyFieldValues(definitions, given.fields, 'import');
  if (!values.values) errors.push(...invalidFields(LINE_OBJECT, values.problems).fieldErrors);
  if (errors.length > 0 || !ticket) return { error: new ValidationFailedException(LINE_OBJECT, errors), externalId };
  return {
    line: importLine(given, {
      ...ticket,
      assignedTo: ticket.assignedTo ?? null,
      ccEmails: canonicalCcEmails(ccEmails)!,
      tags: canonical!,
    }),
  };
}
