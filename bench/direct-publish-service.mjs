// The service as the original behaves: each event is published straight after its write commits, with no
// outbox row (so a broker outage or a crash at the wrong moment loses it). The outbox benchmark runs this
// beside the real service to put a number on what the outbox costs. Same build, same HTTP stack; only the
// OutboxWriter (now writing nothing in the transaction) and the OutboxRelay (now publishing from memory) differ.
import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { AppModule } from '../dist/app.module.js';
import { setupApp } from '../dist/app.setup.js';
import { ServiceExpressAdapter } from '../dist/common/http/express-adapter.js';
import { parseConfig } from '../dist/config/app-config.js';
import { OutboxRelay } from '../dist/outbox/outbox.relay.js';
import { OutboxWriter } from '../dist/outbox/outbox.writer.js';

/**
 * Events of writes whose transaction is running or has just committed; each commit publishes them (its after-commit
 * hook). Shared by all requests, so the hook of one commit also sends events of transactions still running: under
 * load this variant publishes a little earlier than a strict publish-after-commit would, which flatters its lag (not
 * its throughput, which is what the comparison is about).
 */
const committed = [];
let relay;

class PublishAfterCommit extends OutboxRelay {
  onApplicationBootstrap() {}

  publishCommitted() {
    for (const [event, routingKey] of committed.splice(0)) {
      const message = { messageId: event.eventId, type: event.eventType, timestamp: event.occurredAt, body: JSON.stringify(event) };
      this.client.publishInOrder([{ ...message, routingKey: routingKey ?? this.routingKey }]).catch(() => undefined);
    }
  }
}

const publishCommitted = () => relay.publishCommitted();

const config = parseConfig(process.env);
const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
  .overrideProvider(ConfigService)
  .useValue(new ConfigService(config))
  .overrideProvider(OutboxWriter)
  .useValue({
    record: async (writes, event, routingKey) => {
      committed.push([event, routingKey]);
      writes.afterCommit(publishCommitted);
    },
  })
  .overrideProvider(OutboxRelay)
  .useClass(PublishAfterCommit)
  .compile();
const app = setupApp(moduleRef.createNestApplication(new ServiceExpressAdapter(), { bodyParser: false }));
relay = app.get(OutboxRelay);
await app.listen(config.server.port);
