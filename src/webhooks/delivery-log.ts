// The delivery log as people read it (Settings › Webhooks, `shortlink webhook show`): a
// delivery's attempts with the exact request each sent, made again from the delivery row and the
// two values its attempt row keeps (the signature header and the time of sending) by the
// functions that composed it for sending (signing.ts), and the first 4 KiB of each answer.
import type { Db as Knex } from '../db/knex.ts';
import * as outbox from '../db/repos/webhook-delivery-log.ts';
import type { AttemptExchange } from '../db/repos/webhook-delivery-rows.ts';
import type { OutgoingRequest } from './delivery.ts';
import { rebuildRequest, SIGNATURE_HEADER } from './signing.ts';
import type { Variant } from './catalog.ts';

export interface AttemptView extends Omit<outbox.AttemptLogEntry, 'sent'> {
  /** The headers and body sent; null when nothing was sent. */
  request: { headers: Record<string, string>; body: string } | null;
}

/** What an attempt row keeps of the request the worker sent. */
export function keptRequest(variant: Variant, request: OutgoingRequest | undefined): AttemptExchange['request'] {
  return request ? { signature: request.headers[SIGNATURE_HEADER[variant]], sentAt: request.sentAt } : undefined;
}

/** A delivery's attempts, first to last, each with the request it sent; [] for no such delivery. */
export async function attemptLog(knex: Knex, deliveryId: string): Promise<AttemptView[]> {
  const delivery = await outbox.deliveryContent(knex, deliveryId);
  if (!delivery) return [];
  return (await outbox.deliveryAttempts(knex, deliveryId)).map(({ sent, ...attempt }) => {
    const request = sent ? rebuildRequest(delivery.variant, delivery.content, sent.sentAt, sent.signature) : null;
    return { ...attempt, request: request ? { headers: request.headers, body: request.body } : null };
  });
}
