import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { requestExceptionOf } from '../../common/http/response-error.js';
import { methodOf, outcomeOf, springTemplate, uriOf } from './http-server-requests.js';
import type { MicrometerTimer, TimerSeries } from './micrometer-timer.js';

const STARTED = Symbol('http.server.requests.started');

type TimedRequest = IncomingMessage & { [STARTED]?: number; route?: { path?: unknown } };

/**
 * Records Micrometer's http.server.requests for every request the server receives, at the edge: the listener runs
 * before Express, so requests refused by the body parser or the limits are timed too. The labels are read when the
 * response has been sent, from the route Express matched. The hot path allocates nothing once a series exists:
 * series are found through nested maps keyed by method, uri, status and exception, and the listeners are shared.
 */
export class HttpServerRequestsRecorder {
  private readonly series = new Map<string, Map<string, Map<number, Map<string, TimerSeries>>>>();
  private readonly templates = new Map<string, string | undefined>();
  /** The server's 'request' listener. */
  readonly onRequest: (req: IncomingMessage, res: ServerResponse) => void;
  private readonly onFinish: (this: ServerResponse) => void;

  constructor(private readonly timer: MicrometerTimer) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const recorder = this;
    this.onFinish = function (this: ServerResponse) {
      recorder.finished(this);
    };
    this.onRequest = (req, res) => {
      (req as TimedRequest)[STARTED] = performance.now();
      res.on('finish', this.onFinish);
    };
  }

  private finished(res: ServerResponse): void {
    const req = res.req as TimedRequest;
    const started = req[STARTED];
    if (started === undefined) return;
    const now = performance.now();
    const status = res.statusCode;
    const routePath = req.route?.path;
    const uri = uriOf(typeof routePath === 'string' ? this.template(routePath) : undefined, status);
    this.seriesFor(methodOf(req.method), uri, status, requestExceptionOf(res) ?? 'none').record((now - started) / 1000, now);
  }

  private template(routePath: string): string | undefined {
    if (this.templates.has(routePath)) return this.templates.get(routePath);
    const template = springTemplate(routePath);
    this.templates.set(routePath, template);
    return template;
  }

  private seriesFor(method: string, uri: string, status: number, exception: string): TimerSeries {
    let byUri = this.series.get(method);
    if (!byUri) this.series.set(method, (byUri = new Map()));
    let byStatus = byUri.get(uri);
    if (!byStatus) byUri.set(uri, (byStatus = new Map()));
    let byException = byStatus.get(status);
    if (!byException) byStatus.set(status, (byException = new Map()));
    let series = byException.get(exception);
    if (!series) {
      // Spring Boot 3's tags: `error` (from the observation) and `exception` name the same class, or "none".
      series = this.timer.create({ error: exception, exception, method, outcome: outcomeOf(status), status: String(status), uri });
      byException.set(exception, series);
    }
    return series;
  }
}
