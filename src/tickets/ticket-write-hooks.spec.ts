import type { DiscoveryService } from '@nestjs/core';
import type { Transaction } from '../database/transaction.js';
import { type TicketWriteHook, TicketWriteHooks } from './ticket-write-hooks.js';

/** TicketWriteHooks over these providers' instances, as DiscoveryService would find them. */
function hooksOf(...instances: TicketWriteHook[]): TicketWriteHooks {
  const discovery = { getProviders: () => instances.map((instance) => ({ instance })) } as unknown as DiscoveryService;
  const hooks = new TicketWriteHooks(discovery);
  hooks.onModuleInit();
  return hooks;
}

const transaction = {} as Transaction;

describe('TicketWriteHooks', () => {
  it("runs every hook's step in the order the hooks were found, skipping hooks without that step", async () => {
    const ran: string[] = [];
    const clocks: TicketWriteHook = { ticketDeleted: async (_, id) => void ran.push(`clocks ${id}`) };
    const files: TicketWriteHook = { commentAdded: async () => void ran.push('files commented') };
    const rows: TicketWriteHook = { ticketDeleted: async (_, id) => void ran.push(`rows ${id}`) };
    await hooksOf(clocks, files, rows).ticketDeleted(transaction, '7');
    expect(ran).toEqual(['clocks 7', 'rows 7']);
  });

  it('runs the steps of a provider found twice (listed by two modules) once', async () => {
    let runs = 0;
    const hook: TicketWriteHook = { ticketDeleted: async () => void runs++ };
    await hooksOf(hook, hook).ticketDeleted(transaction, '7');
    expect(runs).toBe(1);
  });

  it('runs nothing when no provider hooks in', async () => {
    await expect(hooksOf().ticketDeleted(transaction, '7')).resolves.toBeUndefined();
  });
});
