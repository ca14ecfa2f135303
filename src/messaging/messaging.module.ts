import { Global, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { RabbitMqClient } from './rabbitmq.client.js';

@Global()
@Module({
  providers: [
    {
      provide: RabbitMqClient,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => {
        const client = new RabbitMqClient(config.get('rabbitmq', { infer: true }));
        client.connect();
        return client;
      },
    },
  ],
  exports: [RabbitMqClient],
})
export class MessagingModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly client: RabbitMqClient) {}

  /**
   * A broker that cannot be reached does not hold start-up back (events wait in the outbox), but one that has the
   * queue with other arguments ends it: no event could be routed as configured. Waits at most for the first
   * connection attempt (its connect timeout).
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.client.firstTopologyDeclaration();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
