import { readFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { waitUntil } from '../support/waits.js';
import { type Family, parseScrape, seriesKeys, seriesOf, valueOf } from '../support/prometheus-scrape.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const EXPOSED = {
  MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,info,prometheus',
  MANAGEMENT_METRICS_TAGS_APPLICATION: 'ticket-service-test',
};

async function scrape(http: ReturnType<typeof request>): Promise<Map<string, Family>> {
  const response = await http.get('/actuator/prometheus').expect(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseScrape(response.text);
}

const requests = (labels: Record<string, string>) => ({ application: 'ticket-service-test', error: 'none', exception: 'none', ...labels });

describe('/actuator/prometheus', () => {
  describe('exposed', () => {
    const handle = useTestApp({ env: EXPOSED });

    it("counts each request once under its route template, with Spring Boot 3's labels", async () => {
      const before = await scrape(handle.http);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await handle.http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body.id);
      for (const id of ids.slice(0, 2)) await handle.http.get(`/api/tickets/${id}`).expect(200);
      await handle.http.get('/api/tickets/999999999').expect(404);
      await handle.http
        .post('/api/tickets')
        .send(buildTicketRequest({ title: '' }))
        .expect(400);
      const after = await scrape(handle.http);

      const delta = (labels: Record<string, string>) =>
        valueOf(after, 'http_server_requests_seconds', requests(labels)) -
        valueOf(before, 'http_server_requests_seconds', requests(labels));
      expect(delta({ method: 'POST', uri: '/api/tickets', status: '201', outcome: 'SUCCESS' })).toBe(3);
      expect(delta({ method: 'GET', uri: '/api/tickets/{id}', status: '200', outcome: 'SUCCESS' })).toBe(2);
      const notFound = { method: 'GET', uri: '/api/tickets/{id}', status: '404', outcome: 'CLIENT_ERROR' };
      expect(delta({ ...notFound, error: 'NotFoundException', exception: 'NotFoundException' })).toBe(1);
      const invalid = { method: 'POST', uri: '/api/tickets', status: '400', outcome: 'CLIENT_ERROR' };
      expect(delta({ ...invalid, error: 'ValidationFailedException', exception: 'ValidationFailedException' })).toBe(1);

      const [created] = seriesOf(after, 'http_server_requests_seconds', requests({ method: 'POST', status: '201' }));
      expect(Number(created.sum)).toBeGreaterThan(0);
      expect(after.get('http_server_requests_seconds')?.type).toBe('SUMMARY');
      const [max] = seriesOf(after, 'http_server_requests_seconds_max', requests({ method: 'POST', status: '201' }));
      expect(Number(max.value)).toBeGreaterThan(0);
      expect(Number(max.value)).toBeLessThanOrEqual(Number(created.sum));
    });

    it('adds no series for 1,000 distinct unknown paths: they all count as uri="NOT_FOUND"', async () => {
      await handle.http.get('/no/such/path').expect(404);
      const before = await scrape(handle.http);
      for (let batch = 0; batch < 20; batch++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => handle.http.get(`/unknown-${batch}-${i}/x${i}`).expect(404)));
      }
      const after = await scrape(handle.http);

      const unknown = requests({
        method: 'GET',
        uri: 'NOT_FOUND',
        status: '404',
        outcome: 'CLIENT_ERROR',
        error: 'NotFoundException',
        exception: 'NotFoundException',
      });
      expect(valueOf(after, 'http_server_requests_seconds', unknown) - valueOf(before, 'http_server_requests_seconds', unknown)).toBe(1000);
      // Only the request metrics: the runtime's (a GC of a new kind) and the relay's (an earlier test's events
      // published meanwhile) may add series of their own at any time.
      const requestSeries = (families: Map<string, Family>) =>
        [...seriesKeys(families)].filter((key) => key.startsWith('http_server_requests'));
      const added = requestSeries(after).filter((key) => !requestSeries(before).includes(key));
      // The previous scrape's own request is the only newcomer allowed, and only on the first scrape after boot.
      expect(added.filter((key) => !key.includes('"/actuator/prometheus"'))).toEqual([]);
      expect([...seriesKeys(after)].some((key) => key.includes('unknown-'))).toBe(false);
    });

    it('puts the application label on every series, the process and runtime metrics among them', async () => {
      const families = await scrape(handle.http);
      for (const name of [
        'process_cpu_usage',
        'process_cpu_seconds_total',
        'process_start_time_seconds',
        'process_uptime_seconds',
        'process_resident_memory_bytes',
        'process_files_open_files',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
        'system_cpu_count',
      ]) {
        expect([name, seriesOf(families, name).length]).toEqual([name, expect.any(Number)]);
        expect(seriesOf(families, name).length).toBeGreaterThan(0);
      }
      for (const family of families.values()) {
        for (const metric of family.metrics)
          expect([family.name, metric.labels?.application]).toEqual([family.name, 'ticket-service-test']);
      }
    });

    it('shows the database pool, the broker connection and the relay', async () => {
      // The relay claims its partitions in the background after start-up, and only once the leases of an earlier
      // test's service (in the same database) are released or have expired: wait for the claim, do not race it.
      const held = async () => valueOf(await scrape(handle.http), 'outbox_relay_partitions_held') > 0;
      await waitUntil(held, 20_000, 'the relay holds a partition');
      const families = await scrape(handle.http);
      expect(valueOf(families, 'jdbc_connections_max', { name: 'dataSource' })).toBe(20);
      expect(valueOf(families, 'jdbc_connections_active', { name: 'dataSource' })).toBeGreaterThanOrEqual(0);
      expect(valueOf(families, 'jdbc_connections_idle', { name: 'dataSource' })).toBeGreaterThanOrEqual(0);
      expect(valueOf(families, 'jdbc_connections_pending', { name: 'dataSource' })).toBe(0);
      expect(valueOf(families, 'rabbitmq_connections', { name: 'rabbitConnectionFactory' })).toBe(1);
      expect(valueOf(families, 'outbox_relay_partitions_held')).toBeGreaterThan(0);
      expect(valueOf(families, 'outbox_events_parked')).toBe(0);
    });

    it('answers OpenMetrics when Accept asks for it, with counters suffixed _total and # EOF', async () => {
      const response = await handle.http
        .get('/actuator/prometheus')
        .set(
          'Accept',
          'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
        )
        .expect(200);
      expect(response.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
      expect(response.text).toMatch(/^# TYPE outbox_events_published counter$/m);
      expect(response.text.endsWith('# EOF\n')).toBe(true);
      // The 0.0.4 answer afterwards still names the counter with its suffix.
      expect((await scrape(handle.http)).has('outbox_events_published_total')).toBe(true);
    });

    it.each([
      ['Prometheus 2.x with a charset', 'application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
      [
        'Prometheus 3.x with escaping',
        'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,' +
          'text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
        'openmetrics',
      ],
      ['0.0.4 preferred', 'text/plain;version=0.0.4,application/openmetrics-text;version=1.0.0;q=0.5', 'prometheus'],
      ['an OpenMetrics version not served', 'application/openmetrics-text;version=2.0.0', 'prometheus'],
      ['anything', '*/*', 'prometheus'],
    ])('negotiates by the version parameter alone (%s)', async (_, accept, format) => {
      const response = await handle.http.get('/actuator/prometheus').set('Accept', accept).expect(200);
      const expected =
        format === 'openmetrics'
          ? 'application/openmetrics-text; version=1.0.0; charset=utf-8'
          : 'text/plain; version=0.0.4; charset=utf-8';
      expect(response.headers['content-type']).toBe(expected);
    });

    it("names every metric as promtool's checks want (help; _total for counters only; _count, _sum, _bucket for summaries and histograms only; base units), but Micrometer's system_cpu_count", async () => {
      const { text } = await handle.http.get('/actuator/prometheus').expect(200);
      const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]));
      const helps = new Map([...text.matchAll(/^# HELP (\S+) (.*)$/gm)].map(([, name, help]) => [name, help]));
      const KEPT_FOR_MICROMETER = ['system_cpu_count'];
      const problems = [...types].flatMap(([name, type]) => [
        ...(helps.get(name) ? [] : [`${name}: no help`]),
        ...(type === 'counter' && !name.endsWith('_total') ? [`${name}: counter without _total`] : []),
        ...(type !== 'counter' && name.endsWith('_total') ? [`${name}: ${type} named _total`] : []),
        ...(!['summary', 'histogram'].includes(type) && /_(count|sum|bucket)$/.test(name) && !KEPT_FOR_MICROMETER.includes(name)
          ? [`${name}: ${type} named like a summary`]
          : []),
        ...(/(milli|micro|nano)seconds|minutes|hours|days|(kilo|mega|giga)bytes/.test(name) ? [`${name}: not a base unit`] : []),
      ]);
      expect(problems).toEqual([]);
      expect(types.get('nodejs_active_handles')).toBe('gauge');
    });

    it('is listed in the /actuator links', async () => {
      const response = await handle.http.get('/actuator').expect(200);
      expect(response.body._links.prometheus).toEqual({ href: expect.stringMatching(/\/actuator\/prometheus$/), templated: false });
    });
  });

  describe('with percentiles-histogram on for http.server.requests', () => {
    const handle = useTestApp({ env: { ...EXPOSED, MANAGEMENT_METRICS_DISTRIBUTION_PERCENTILESHISTOGRAM_HTTP_SERVER_REQUESTS: 'true' } });

    it("adds Micrometer's le buckets from 1 ms to 30 s and +Inf, cumulative up to the count", async () => {
      await handle.http.get('/api/tickets').expect(200);
      const families = await scrape(handle.http);
      const labels = requests({ method: 'GET', uri: '/api/tickets', status: '200' });
      const buckets = seriesOf(families, 'http_server_requests_seconds_bucket', labels);
      const les = buckets.map((bucket) => bucket.labels!.le);
      expect(les.slice(0, 3)).toEqual(['0.001', '0.001048576', '0.001398101']);
      expect(les.slice(-2)).toEqual(['30.0', '+Inf']);
      const counts = buckets.map((bucket) => Number(bucket.value));
      expect(counts.every((count, i) => i === 0 || count >= counts[i - 1])).toBe(true);
      expect(counts.at(-1)).toBe(valueOf(families, 'http_server_requests_seconds_count', labels));
    });

    it('serves every metric the Grafana dashboard in docs/ queries', async () => {
      const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
      const queried = new Set([...dashboard.matchAll(/([a-z_][a-z0-9_]*)\{/g)].map(([, name]) => name));
      const families = await scrape(handle.http);
      const served = (name: string) => families.has(name) || families.has(name.replace(/_(count|sum)$/, ''));
      expect(queried.size).toBeGreaterThan(10);
      expect([...queried].filter((name) => !served(name))).toEqual([]);
    });
  });

  describe('not exposed (the default)', () => {
    const handle = useTestApp();

    it('answers 404 in the Spring error shape and is not linked', async () => {
      const response = await handle.http.get('/actuator/prometheus').expect(404);
      expect(response.body).toMatchObject({ status: 404, error: 'Not Found', path: '/actuator/prometheus' });
      expect((await handle.http.get('/actuator').expect(200)).body._links.prometheus).toBeUndefined();
    });
  });

  describe('outbox gauges across a broker outage', () => {
    let proxy: TcpProxy;
    let app: INestApplication;
    let http: ReturnType<typeof request>;

    beforeAll(async () => {
      proxy = await TcpProxy.start(5672);
      app = await createTestApp({ env: { ...EXPOSED, RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}` } });
      http = request(app.getHttpServer());
    });

    afterAll(async () => {
      proxy.restore();
      await app?.close();
      await proxy.stop();
    });

    it('shows the backlog rising while the broker is cut, then draining to 0 once it is back', async () => {
      await waitUntil(async () => valueOf(await scrape(http), 'outbox_events_pending') === 0, 20_000);
      const before = await scrape(http);
      proxy.cut();
      await waitUntil(async () => valueOf(await scrape(http), 'rabbitmq_connections', { name: 'rabbitConnectionFactory' }) === 0, 20_000);
      for (let i = 0; i < 20; i++) await http.post('/api/tickets').send(buildTicketRequest()).expect(201);

      const during = await scrape(http);
      expect(valueOf(during, 'outbox_events_pending')).toBeGreaterThanOrEqual(20);
      expect(valueOf(during, 'outbox_oldest_pending_age_seconds')).toBeGreaterThan(0);
      const pendingInDatabase = await app.get(DataSource).query("SELECT COUNT(*) AS n FROM change_log WHERE relay_status = 'pending'");
      expect(valueOf(during, 'outbox_events_pending')).toBe(Number(pendingInDatabase[0].n));

      proxy.restore();
      await waitUntil(async () => valueOf(await scrape(http), 'outbox_events_pending') === 0, 30_000);
      const after = await scrape(http);
      expect(valueOf(after, 'outbox_oldest_pending_age_seconds')).toBe(0);
      expect(valueOf(after, 'rabbitmq_connections', { name: 'rabbitConnectionFactory' })).toBe(1);
      const published = (families: Map<string, Family>) => valueOf(families, 'outbox_events_published_total', { type: 'CREATED' });
      expect(published(after) - published(before)).toBeGreaterThanOrEqual(20);
      const lag = (families: Map<string, Family>) => valueOf(families, 'outbox_publish_lag_seconds_count');
      expect(lag(after) - lag(before)).toBeGreaterThanOrEqual(20);
    });
  });
});
