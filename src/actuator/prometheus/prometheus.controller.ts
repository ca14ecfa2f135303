import { applyDecorators, Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponse } from '../../common/errors/api-error-response.decorator.js';
import { noEndpointMessage } from '../../common/errors/no-endpoint.js';
import { ActuatorEndpoint, EndpointExposureGuard } from '../endpoint-exposure.guard.js';
import { ApiActuator } from '../actuator.openapi.js';
import { MetricsRegistry, OPENMETRICS_TEXT, PROMETHEUS_TEXT } from '../../observability/metrics/metrics.registry.js';
import { prefersOpenMetrics } from '../../observability/metrics/metrics-negotiation.js';

const ApiPrometheus = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'prometheus',
      summary: 'Metrics in the Prometheus text format, or OpenMetrics when Accept asks for it',
      description: 'Served when MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE names prometheus. Names and labels as Micrometer writes them.',
    }),
    ApiResponse({
      status: 200,
      description: 'Every metric of this replica',
      content: {
        [PROMETHEUS_TEXT]: {
          schema: { type: 'string' },
          example:
            'http_server_requests_seconds_count{error="none",exception="none",method="GET",outcome="SUCCESS",status="200",uri="/api/tickets"} 3\n',
        },
        [OPENMETRICS_TEXT]: { schema: { type: 'string' } },
      },
    }),
    ApiErrorResponse(404, 'Not exposed (MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE)', {
      summary: 'Not exposed',
      path: '/actuator/prometheus',
      message: noEndpointMessage('GET', '/actuator/prometheus'),
    }),
  );

/** Spring's /actuator/prometheus: the scrape endpoint, 404 unless exposed. */
@Controller('actuator/prometheus')
@ApiActuator()
@ActuatorEndpoint('prometheus')
@UseGuards(EndpointExposureGuard)
export class PrometheusController {
  constructor(private readonly metrics: MetricsRegistry) {}

  @Get()
  @ApiPrometheus()
  async scrape(@Req() request: Request, @Res() response: Response): Promise<void> {
    // Prometheus asks for OpenMetrics first and 0.0.4 as a fallback; anyone else gets 0.0.4, as from Spring.
    const { contentType, body } = await this.metrics.scrape(prefersOpenMetrics(request.headers.accept));
    response.status(200).setHeader('Content-Type', contentType);
    response.end(body);
  }
}
