import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { mapError } from './error-mapping.js';
import { problemDetails } from './problem-details.js';
import { ProblemTypeException } from './problem-type.exception.js';
import { springErrorBody } from './spring-error-body.js';
import { ValidationFailedException } from './validation-failed.exception.js';

describe('mapError', () => {
  it('keeps the status and message of a Nest HTTP exception', () => {
    expect(mapError(new NotFoundException('Ticket not found with id: 7'))).toEqual({ status: 404, message: 'Ticket not found with id: 7' });
  });

  it('carries the field errors of a validation failure', () => {
    const mapped = mapError(new ValidationFailedException('ticketRequest', []));
    expect(mapped).toEqual({ status: 400, message: "Validation failed for object='ticketRequest'. Error count: 0", errors: [] });
  });

  it('names malformed JSON and oversized bodies, from the body parser error Nest wraps', () => {
    const parse = Object.assign(new SyntaxError('Unexpected end of JSON input'), { type: 'entity.parse.failed' });
    expect(mapError(new BadRequestException(parse.message, { cause: parse }))).toEqual({
      status: 400,
      message: 'JSON parse error: Unexpected end of JSON input',
    });
    const tooLarge = Object.assign(new Error('request entity too large'), { type: 'entity.too.large' });
    expect(mapError(new PayloadTooLargeException(tooLarge.message, { cause: tooLarge })).status).toBe(413);
  });

  it.each([
    ['request.aborted', 'Request aborted', 400, 'Request aborted'],
    ['request.size.invalid', 'request size did not match content length', 400, 'Request size did not match Content-Length'],
    ['charset.unsupported', 'unsupported charset "KOI8-R"', 415, 'unsupported charset "KOI8-R"'],
    ['encoding.unsupported', 'unsupported content encoding "compress"', 415, 'unsupported content encoding "compress"'],
  ])('maps the body parser error %s to a client error', (type, message, status, answered) => {
    const error = Object.assign(new Error(message), { type });
    expect(mapError(new BadRequestException(message, { cause: error }))).toEqual({ status, message: answered });
  });

  it('carries the problem type of an error that has one', () => {
    const problem = { type: 'urn:example/conflict', title: 'Conflict of its own', members: { from: 'A' } };
    expect(mapError(new ProblemTypeException(409, 'A clashes', problem))).toEqual({ status: 409, message: 'A clashes', problem });
  });

  it('answers 503 when the database cannot be reached', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(mapError(refused)).toMatchObject({ status: 503, unexpected: true });
    expect(mapError(new QueryFailedError('SELECT 1', [], refused))).toMatchObject({ status: 503 });
  });

  it('answers 500 without a message for anything unexpected, so no internals leak', () => {
    expect(mapError(new Error('secret internals'))).toEqual({ status: 500, unexpected: true });
  });
});

describe('springErrorBody', () => {
  it('writes Spring keys in order, a +00:00 timestamp, and omits an absent message', () => {
    const body = springErrorBody(404, '/x', undefined, undefined, new Date('2026-01-02T03:04:05.006Z'));
    expect(JSON.stringify(body)).toBe('{"timestamp":"2026-01-02T03:04:05.006+00:00","status":404,"error":"Not Found","path":"/x"}');
  });
});

describe('problemDetails', () => {
  it("renders a problem type of its own: its type and title, then RFC 9457's members, then its own", () => {
    const body = problemDetails(409, '/api/v2/x', 'A clashes', undefined, {
      type: 'urn:example/conflict',
      title: 'Clash',
      members: { from: 'A', allowed: [] },
    });
    expect(JSON.stringify(body)).toBe(
      '{"type":"urn:example/conflict","title":"Clash","status":409,"detail":"A clashes","instance":"/api/v2/x","from":"A","allowed":[]}',
    );
  });
});
