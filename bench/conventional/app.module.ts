import { Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Ticket } from './ticket.entity.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsService } from './tickets.service.js';

const env = process.env;

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'mysql',
      host: env.DB_HOST ?? '127.0.0.1',
      port: Number(env.DB_PORT ?? 3306),
      username: env.DB_USERNAME ?? 'root',
      password: env.DB_PASSWORD ?? '',
      database: env.DB_DATABASE,
      entities: [Ticket],
      synchronize: false,
    }),
    TypeOrmModule.forFeature([Ticket]),
    ClientsModule.register([
      {
        name: 'TICKET_EVENTS',
        transport: Transport.RMQ,
        options: {
          urls: [env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672'],
          queue: env.RABBITMQ_QUEUE,
          queueOptions: { durable: true },
        },
      },
    ]),
  ],
  controllers: [TicketsController],
  providers: [TicketsService],
})
export class AppModule {}
