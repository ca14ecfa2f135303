import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Transaction, TransactionWrites } from '../database/transaction.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';

/** A comment as its hooks see it: a public one by someone other than the requester answers the ticket. */
export interface AddedComment {
  author: string | null;
  visibility: string;
  /** Written with a requester token (the requester, a participant, an organization member): never the desk's answer. */
  byRequester?: boolean;
}

/**
 * What another concern does in a ticket's write transaction (SLA clocks, attachments), each step optional. A step
 * that runs after COMMIT, such as removing files, registers itself with `transaction.afterCommit`.
 */
export interface TicketWriteHook {
  /** In the create's transaction, which may hold other creates too. */
  ticketCreated?(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void>;
  /** A ticket created or updated by an import (docs/import.md), which is no activity here: no clock starts for it. */
  ticketImported?(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void>;
  /** While the update holds the ticket's row lock. */
  ticketUpdated?(transaction: Transaction, before: TicketResponse, after: TicketResponse, now: Date): Promise<void>;
  /** A ticket merged into another, or unmerged (`ticket` as the unmerge restored it), while the merge holds its row lock. */
  ticketMerged?(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void>;
  ticketUnmerged?(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void>;
  /** While the comment's write holds the ticket's row lock. */
  commentAdded?(transaction: Transaction, ticketId: string, comment: AddedComment, now: Date): Promise<void>;
  /** Once the ticket's row is deleted in the transaction (its rows with a foreign key to it go with it). */
  ticketDeleted?(transaction: Transaction, ticketId: string): Promise<void>;
}

/** Marks a provider of another module as a TicketWriteHook; TicketWriteHooks finds every provider so marked. */
export const TicketWriteHook = DiscoveryService.createDecorator();

/**
 * The hooks of every module, run in the order Nest registered their modules. Tickets and comments call these, and so
 * never depend on the concerns that hook in; the dependency points from those to tickets/.
 */
@Injectable()
export class TicketWriteHooks implements OnModuleInit {
  private hooks: TicketWriteHook[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    // A provider listed by two modules is found twice but is one instance, whose hook runs once.
    const instances = this.discovery.getProviders({ metadataKey: TicketWriteHook.KEY }).map((wrapper) => wrapper.instance);
    this.hooks = [...new Set(instances)] as TicketWriteHook[];
  }

  async ticketCreated(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.ticketCreated?.(writes, ticket, now);
  }

  async ticketImported(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.ticketImported?.(writes, ticket, now);
  }

  async ticketUpdated(transaction: Transaction, before: TicketResponse, after: TicketResponse, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.ticketUpdated?.(transaction, before, after, now);
  }

  async ticketMerged(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.ticketMerged?.(transaction, ticket, now);
  }

  async ticketUnmerged(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.ticketUnmerged?.(transaction, ticket, now);
  }

  async commentAdded(transaction: Transaction, ticketId: string, comment: AddedComment, now: Date): Promise<void> {
    for (const hook of this.hooks) await hook.commentAdded?.(transaction, ticketId, comment, now);
  }

  async ticketDeleted(transaction: Transaction, ticketId: string): Promise<void> {
    for (const hook of this.hooks) await hook.ticketDeleted?.(transaction, ticketId);
  }
}
