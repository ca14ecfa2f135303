import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const PROBES_ON = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' };

/** GETs `path` until it answers `status`; a signal takes a moment to reach the process. */
async function untilStatus(service: ServiceProcess, path: string, status: number, timeoutMs = 1_500): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${service.url}${path}`);
    if (response.status === status || Date.now() > deadline) return response;
    await sleep(20);
  }
}

describe('Graceful shutdown', () => {
  describe('with the database behind a slow link', () => {
    let proxy: TcpProxy;

    beforeAll(async () => {
      proxy = await TcpProxy.start(3306);
    });

    afterEach(() => {
      proxy.delayMs = 0;
    });

    afterAll(async () => {
      await proxy.stop();
    });

    /** A service whose database answers only after `delayMs` each way, with warm pooled connections. */
    async function slowService(delayMs: number, env: Record<string, string> = {}): Promise<ServiceProcess> {
      // A generous request deadline: here the slowness is the point, not a failure to report.
      const service = await ServiceProcess.start({ DB_PORT: String(proxy.port), DB_QUERY_TIMEOUT_MS: '20000', ...env });
      await Promise.all([1, 2, 3].map(() => fetch(`${service.url}/api/tickets`).then((response) => response.arrayBuffer())));
      proxy.delayMs = delayMs;
      return service;
    }

    it('answers a request in flight at SIGTERM, stops accepting new ones and exits 0', async () => {
      const service = await slowService(1_000);
      try {
        // In flight: its SELECT is on its way to the (slow) database when the signal comes.
        const reachedDatabase = proxy.untilClientSends('FROM tickets');
        const inFlight = fetch(`${service.url}/api/tickets`);
        await reachedDatabase;
        service.kill('SIGTERM');

        const response = await inFlight;
        proxy.delayMs = 0;
        expect(response.status).toBe(200);
        expect(Array.isArray(await response.json())).toBe(true);
        await expect(fetch(`${service.url}/api/tickets`)).rejects.toThrow();

        expect(await service.exited).toBe(0);
        expect(service.output).toContain('1 request(s) in flight were answered');
      } finally {
        await service.stop();
      }
    });

    it('cuts off what is still running after SERVER_SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
      const service = await slowService(3_000, { SERVER_SHUTDOWN_TIMEOUT_MS: '300' });
      try {
        const reachedDatabase = proxy.untilClientSends('FROM tickets');
        const inFlight = fetch(`${service.url}/api/tickets`);
        await reachedDatabase;
        service.kill('SIGTERM');

        await expect(inFlight).rejects.toThrow();
        proxy.delayMs = 0;
        expect(await service.exited).toBe(0);
        expect(service.output).toContain('requests still running after 300 ms were cut off');
      } finally {
        await service.stop();
      }
    });
  });

  it('turns readiness OUT_OF_SERVICE first, keeps liveness UP and serves until SERVER_SHUTDOWN_DELAY_MS has passed', async () => {
    const service = await ServiceProcess.start({ ...PROBES_ON, SERVER_SHUTDOWN_DELAY_MS: '2000' });
    try {
      expect((await fetch(`${service.url}/actuator/health/readiness`)).status).toBe(200);
      service.kill('SIGTERM');

      const readiness = await untilStatus(service, '/actuator/health/readiness', 503);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toEqual({ status: 'OUT_OF_SERVICE' });

      const liveness = await fetch(`${service.url}/actuator/health/liveness`);
      expect([liveness.status, await liveness.json()]).toEqual([200, { status: 'UP' }]);

      const health = await fetch(`${service.url}/actuator/health`);
      const body = (await health.json()) as { status: string; components: Record<string, unknown> };
      expect([health.status, body.status, body.components.readinessState]).toEqual([503, 'OUT_OF_SERVICE', { status: 'OUT_OF_SERVICE' }]);
      expect((await fetch(`${service.url}/api/tickets`)).status).toBe(200);

      expect(await service.exited).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('exits 0 on SIGINT too', async () => {
    const service = await ServiceProcess.start();
    try {
      service.kill('SIGINT');
      expect(await service.exited).toBe(0);
      expect(service.output).toContain('Shutting down on SIGINT');
    } finally {
      await service.stop();
    }
  });
});
