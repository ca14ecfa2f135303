import { type ArgumentsHost, Catch, type ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { noteRequestException, recordResponseError } from '../http/response-error.js';
import { allowedMethods } from './allowed-methods.js';
import { mapError } from './error-mapping.js';
import { noEndpointMessage } from './no-endpoint.js';
import { errorPayload, LISTED_ERRORS_MAX } from './error-response.js';

/**
 * Renders every error, from any layer, as Spring Boot's JSON error body, or under /api/v2 as an RFC 9457
 * problem with the same status and message (see errorPayload). Never a stack trace.
 */
@Catch()
export class SpringErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const path = request.originalUrl.split('?')[0];
    noteRequestException(response, exception);
    const { errors, problem, unexpected, ...mapped } = mapError(exception);
    let { status, message } = mapped;

    if (exception instanceof NotFoundException && message?.startsWith('Cannot ')) {
      const allowed = allowedMethods(this.adapterHost.httpAdapter.getInstance(), request.path);
      if (allowed.length > 0) {
        status = 405;
        message = `Request method '${request.method}' is not supported`;
        response.setHeader('Allow', allowed.join(', '));
      } else {
        message = noEndpointMessage(request.method, path);
      }
    }
    if (unexpected) {
      // The error itself, not just its stack, so the log line carries its type, code and chain of causes.
      this.logger.error({ message: `${request.method} ${JSON.stringify(path)} failed`, err: exception });
    }
    recordResponseError(response, {
      message: message ?? (exception instanceof Error ? exception.message : undefined),
      fieldErrors: errors?.slice(0, LISTED_ERRORS_MAX).map((error) => `${error.field}: ${error.defaultMessage}`),
    });
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const { contentType, body } = errorPayload(path, status, message, errors, problem);
    response.status(status).type(contentType).send(JSON.stringify(body));
  }
}
