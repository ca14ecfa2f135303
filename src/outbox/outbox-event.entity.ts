import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An event waiting to be published. Written in the same transaction as the ticket change,
 * deleted once the broker has confirmed it.
 */
@Entity({ name: 'outbox' })
@Index('idx_outbox_pending', ['parkedAt', 'id'])
@Index('idx_outbox_partition_pending', ['partitionNo', 'parkedAt', 'id'])
export class OutboxEvent {
  // Auto-increment order is commit order for one ticket: its writes are serialised by the ticket's row lock.
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'event_id', type: 'char', length: 36, unique: true })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType: string;

  @Column({ name: 'ticket_id', type: 'bigint' })
  ticketId: string;

  /** `ticketId mod OUTBOX_PARTITIONS`: a ticket's events share a partition, which one relay at a time publishes. */
  @Column({ name: 'partition_no', type: 'smallint', default: 0 })
  partitionNo: number;

  /** The routing key to publish with; null: the configured RABBITMQ_ROUTING_KEY (CREATED, UPDATED). */
  @Column({ name: 'routing_key', type: 'varchar', length: 255, nullable: true })
  routingKey: string | null;

  /** The exact message body, serialised once at write time. */
  @Column({ type: 'mediumtext' })
  payload: string;

  @Column({ name: 'occurred_at', type: 'datetime', precision: 3 })
  occurredAt: Date;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  /** The W3C trace context of the request that recorded the event (NULL when tracing is off). */
  @Column({ type: 'varchar', length: 55, nullable: true })
  traceparent: string | null;

  @Column({ type: 'varchar', length: 512, nullable: true })
  tracestate: string | null;

  /** Set when the event failed too often to keep retrying; parked events are reported, not published. */
  @Column({ name: 'parked_at', type: 'datetime', precision: 3, nullable: true })
  parkedAt: Date | null;
}
