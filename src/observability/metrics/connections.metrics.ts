import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from './prom-client.js';
import type { DataSource } from 'typeorm';
import { RabbitMqClient } from '../../messaging/rabbitmq.client.js';
import { MetricsRegistry } from './metrics.registry.js';

/** What mysql2's pool keeps (its own fields: the pool has no public statistics). */
interface Mysql2Pool {
  config?: { connectionLimit?: number };
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/**
 * The database pool under Spring Boot's DataSourcePoolMetrics names (jdbc_connections_*, name="dataSource"), with
 * the requests waiting for a connection as jdbc_connections_pending, and the broker connection as Micrometer's
 * RabbitMQ binder counts it (rabbitmq_connections: 1 while connected, 0 otherwise).
 */
@Injectable()
export class ConnectionsMetrics {
  constructor(@InjectDataSource() dataSource: DataSource, client: RabbitMqClient, metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const pool = (): Mysql2Pool | undefined => (dataSource.driver as unknown as { pool?: Mysql2Pool }).pool;
    const gauge = (name: string, help: string, read: (pool: Mysql2Pool) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['name'],
        registers,
        collect() {
          const current = pool();
          this.set({ name: 'dataSource' }, (current && read(current)) ?? NaN);
        },
      });
    gauge('jdbc_connections_active', 'Connections in use', (p) => (p._allConnections?.length ?? NaN) - (p._freeConnections?.length ?? NaN));
    gauge('jdbc_connections_idle', 'Open connections not in use', (p) => p._freeConnections?.length);
    gauge('jdbc_connections_max', 'The most connections the pool opens', (p) => p.config?.connectionLimit);
    gauge('jdbc_connections_pending', 'Requests waiting for a connection', (p) => p._connectionQueue?.length);
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
