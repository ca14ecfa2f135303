import { Injectable } from '@nestjs/common';
import { Gauge } from './prom-client.js';
import { DatabasePool, type PoolUsage } from '../../database/database-pool.js';
import { RabbitMqClient } from '../../messaging/rabbitmq.client.js';
import { MetricsRegistry } from './metrics.registry.js';

/**
 * The database pool under Spring Boot's DataSourcePoolMetrics names (jdbc_connections_*, name="dataSource"), with
 * the requests waiting for a connection as jdbc_connections_pending, and the broker connection as Micrometer's
 * RabbitMQ binder counts it (rabbitmq_connections: 1 while connected, 0 otherwise).
 */
@Injectable()
export class ConnectionsMetrics {
  constructor(pool: DatabasePool, client: RabbitMqClient, metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const gauge = (name: string, help: string, read: (usage: PoolUsage) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['name'],
        registers,
        collect() {
          this.set({ name: 'dataSource' }, read(pool.usage()));
        },
      });
    gauge('jdbc_connections_active', 'Connections in use', (usage) => usage.active);
    gauge('jdbc_connections_idle', 'Open connections not in use', (usage) => usage.idle);
    gauge('jdbc_connections_max', 'The most connections the pool opens', (usage) => usage.max);
    gauge('jdbc_connections_pending', 'Requests waiting for a connection', (usage) => usage.pending);
    new Gauge({
      name: 'rabbitmq_connections',
      help: 'Open connections to RabbitMQ (1 while connected with the topology declared, 0 otherwise)',
      labelNames: ['name'],
      registers,
      collect() {
        this.set({ name: 'rabbitConnectionFactory' }, client.canPublish() ? 1 : 0);
      },
    });
  }
}
