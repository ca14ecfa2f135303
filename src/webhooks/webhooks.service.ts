import { randomUUID } from 'node:crypto';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { AddressRefused, checkUrlText, dnsResolver, resolveChecked, type Resolver } from './address-policy.js';
import type { DeliveryResponse, TestDeliveryResponse } from './dto/delivery-response.dto.js';
import type { WebhookPatch } from './dto/webhook-patch.dto.js';
import { WEBHOOK_URL_MAX_LENGTH, type WebhookRequest } from './dto/webhook-request.dto.js';
import type { WebhookResponse, WebhookSecretResponse } from './dto/webhook-response.dto.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { newSecret, webhookBody, webhookHeaders } from './webhook-message.js';
import { WebhookSender } from './webhook-sender.js';
import { type WebhookRecord, WebhooksRepository } from './webhooks.repository.js';

/** After a rotation, the previous secret signs too for this long (Standard Webhooks' advice: a day). */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Webhook endpoints and their deliveries: the rules; the SQL is the repositories'. */
@Injectable()
export class WebhooksService {
  private readonly allowPrivateNetworks: boolean;
  private readonly timeoutMs: number;
  private readonly resolver: Resolver;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: WebhookDispatcher,
    config: ConfigService<AppConfig, true>,
  ) {
    this.allowPrivateNetworks = config.get('webhooks.allowPrivateNetworks', { infer: true });
    this.timeoutMs = config.get('webhooks.timeoutMs', { infer: true });
    this.resolver = dnsResolver(config.get('webhooks.dnsServers', { infer: true }));
  }

  /**
   * The URL is checked, its host resolved, before the request's first statement starts its database deadline (and
   * bounded by WEBHOOKS_TIMEOUT_MS instead): a slow DNS answer is the URL's problem, a 400, never a database timeout.
   */
  async create(request: WebhookRequest): Promise<WebhookSecretResponse> {
    const url = await this.checkUrl('webhookRequest', request.url);
    const secret = newSecret();
    const fields = { url, description: request.description ?? null, eventTypes: unique(request.eventTypes), enabled: true };
    const id = await this.webhooks.insert(fields, secret, new Date());
    this.dispatcher.endpointEnabled();
    return { ...toResponse(await this.find(String(id))), secret };
  }

  async list(page: KeysetPageRequest): Promise<KeysetPage<WebhookResponse>> {
    return keysetPage((await this.webhooks.page(page)).map(toResponse), page);
  }

  async findOne(id: string): Promise<WebhookResponse> {
    return toResponse(await this.find(id));
  }

  /** A new URL is checked before the database deadline starts, as on create. */
  async update(id: string, patch: WebhookPatch): Promise<WebhookResponse> {
    const url = patch.url === undefined ? undefined : await this.checkUrl('webhookPatch', patch.url);
    const fields = {
      ...(url !== undefined && { url }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.eventTypes !== undefined && { eventTypes: unique(patch.eventTypes) }),
      ...(patch.enabled !== undefined && { enabled: patch.enabled }),
    };
    if (!(await this.webhooks.update(id, fields, new Date()))) throw notFound(id);
    if (patch.enabled === false) await this.deliveries.pause(id);
    if (patch.enabled === true) {
      this.dispatcher.endpointEnabled();
      await this.deliveries.resume(id);
      // Resumed deliveries go out now rather than at the next poll.
      this.dispatcher.kick();
    }
    return toResponse(await this.find(id));
  }

  async remove(id: string): Promise<void> {
    if (!(await this.webhooks.delete(id))) throw notFound(id);
  }

  async rotateSecret(id: string): Promise<WebhookSecretResponse> {
    const secret = newSecret();
    if (!(await this.webhooks.rotate(id, secret, ROTATION_OVERLAP_MS, new Date()))) {
      await this.find(id);
      throw new ConflictException('The previous secret still signs for up to 24 hours after the last rotation; rotate again after that');
    }
    return { ...toResponse(await this.find(id)), secret };
  }

  async deliveryPage(id: string, page: KeysetPageRequest): Promise<KeysetPage<DeliveryResponse>> {
    const rows = await this.deliveries.page(id, page);
    if (rows.length === 0) await this.find(id);
    return keysetPage(rows, page);
  }

  async redeliver(id: string, deliveryId: string): Promise<DeliveryResponse> {
    await this.find(id);
    const created = await this.deliveries.redeliver(id, deliveryId);
    if (created === undefined) throw new NotFoundException(`Delivery not found with id: ${deliveryId}`);
    this.dispatcher.kick();
    return (await this.deliveries.findOne(id, String(created)))!;
  }

  async replay(id: string, since: Date, until: Date): Promise<number> {
    const endpoint = await this.find(id);
    const replayed = await this.deliveries.replay(id, since, until, endpoint.eventTypes);
    this.dispatcher.kick();
    return replayed;
  }

  /**
   * Sends one signed `webhook.test` request now, with the same checks and signatures as a delivery, and answers
   * its outcome: status, time and the service's own error line (never the receiver's body). Nothing is recorded.
   */
  async test(id: string): Promise<TestDeliveryResponse> {
    const endpoint = await this.find(id);
    const now = new Date();
    const eventId = randomUUID();
    const body = webhookBody('webhook.test', now, JSON.stringify({ eventId, eventType: 'WEBHOOK_TEST', occurredAt: now, ticketId: 0 }));
    const secrets = [endpoint.secret, ...(endpoint.previousSecret && endpoint.previousSecretUntil! > now ? [endpoint.previousSecret] : [])];
    const sender = new WebhookSender(this.timeoutMs, this.allowPrivateNetworks, this.resolver);
    try {
      const result = await sender.send(endpoint.url, webhookHeaders(secrets, eventId, now, body), body);
      const success = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      return { eventId, success, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs };
    } finally {
      sender.close();
    }
  }

  private async find(id: string): Promise<WebhookRecord> {
    const endpoint = await this.webhooks.findOne(id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  /**
   * The URL's text and every address its host resolves to now, within WEBHOOKS_TIMEOUT_MS; refused: a 400 naming
   * the reason. Answers the URL as the WHATWG parser serialises it: what is stored, shown and called.
   */
  private async checkUrl(objectName: string, url: string): Promise<string> {
    try {
      const target = checkUrlText(url, this.allowPrivateNetworks);
      if (target.url.href.length > WEBHOOK_URL_MAX_LENGTH) {
        throw new AddressRefused(`is longer than ${WEBHOOK_URL_MAX_LENGTH} characters once normalised (${target.url.href.length})`);
      }
      await resolveChecked(target, this.allowPrivateNetworks, this.resolver, this.timeoutMs);
      return target.url.href;
    } catch (error) {
      if (!(error instanceof AddressRefused)) throw error;
      throw new ValidationFailedException(objectName, [
        springFieldError(objectName, 'url', 'UnsafeUrl', 'java.lang.String', [], `The URL ${error.message}`, url),
      ]);
    }
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`Webhook not found with id: ${id}`);
}

function unique(eventTypes: string[] | null | undefined): string[] {
  return [...new Set(eventTypes ?? [])];
}

function toResponse(endpoint: WebhookRecord): WebhookResponse {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}
