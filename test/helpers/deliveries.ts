// Builders for delivery request bodies and small helpers for the delivery endpoints (X-SERVICE-MAPI-TOKEN).
// `buildDelivery(overrides)` gives a fresh, valid body each call, to change one thing in.
import type { Response } from 'supertest';
import type { Delivery, DeliveryDraft } from '../../src/domain/deliveries';
import type { components } from '../../src/generated/openapi';
import { draftOf } from '../../src/http/delivery-bodies';
import type { CallOptions, TestApp } from './app';

type Schemas = components['schemas'];

export type ButtonBody = Schemas['Button'];
export type PeriodBody = Schemas['Period'];
/** `message_id` is server-owned: kept on PUT when it names one of the delivery's messages, ignored otherwise. */
export type MessageBody = Schemas['MessageInput'];
/** The counts and `condition_id` are server-owned: accepted and ignored. */
export type ConditionBody = Schemas['ConditionInput'];
export type DeliveryBody = Schemas['DeliveryInput'];
/** A delivery as the API answers it. */
export type DeliveryAnswer = Schemas['Delivery'];

export function buildButton(overrides: Partial<ButtonBody> = {}): ButtonBody {
  return { id: 'open', name: 'Open the sale', url: 'https://example.com/sale', event_name: 'sale_opened', ...overrides };
}

export function buildPeriod(overrides: Partial<PeriodBody> = {}): PeriodBody {
  return { start: '2025-01-01T00:00:00Z', end: '2025-01-31T23:59:59+09:00', ...overrides };
}

/** `n` valid, consecutive one-day periods. */
export function periods(n: number): PeriodBody[] {
  const day = 24 * 60 * 60 * 1000;
  const first = Date.parse('2025-01-01T00:00:00Z');
  return Array.from({ length: n }, (_, i) => ({
    start: new Date(first + i * day).toISOString(),
    end: new Date(first + (i + 1) * day - 1000).toISOString(),
  }));
}

export function buildMessage(overrides: Partial<MessageBody> = {}): MessageBody {
  return {
    template_id: 1,
    title: 'Winter sale',
    body: 'Everything at half price this week.',
    image_url: 'https://cdn.example.com/img/sale.png',
    buttons: [buildButton()],
    ...overrides,
  };
}

export function buildCondition(overrides: Partial<ConditionBody> = {}): ConditionBody {
  return {
    trigger: { event_name: ['app_open'], period: [buildPeriod()] },
    target: { segmentation_id: 7 },
    max_delivery_count: 1000,
    max_total_count: 3,
    max_total_count_per_day: 1,
    category: 'campaign',
    is_active: true,
    ...overrides,
  };
}

export function buildDelivery(overrides: Partial<DeliveryBody> = {}): DeliveryBody {
  return { name: 'Winter sale banner', priority: 10, condition: buildCondition(), message: [buildMessage()], ...overrides };
}

/** The draft a request with buildDelivery(overrides) as its body gives the store: for store and domain tests. */
export const buildDraft = (overrides: Partial<DeliveryBody> = {}): DeliveryDraft => draftOf(buildDelivery(overrides));

/** A valid https URL of exactly `length` characters. */
export function urlOfLength(length: number): string {
  const prefix = 'https://cdn.example.com/img/';
  if (length < prefix.length + 1) throw new Error(`a URL needs at least ${prefix.length + 1} characters`);
  return prefix + 'a'.repeat(length - prefix.length);
}

/** What the client controls in a delivery (a stored one or a request body): server-owned fields removed. */
export function clientPart(delivery: DeliveryBody | DeliveryAnswer): DeliveryBody {
  const { delivery_id: _d, ...rest } = delivery;
  const { iphone_delivery_count: _i, android_delivery_count: _a, delivery_count: _c, condition_id: _k, ...condition } = rest.condition;
  return { ...rest, condition, message: rest.message.map(({ message_id: _m, ...m }) => m) };
}

/** What the client controls in a stored delivery or a draft (the domain's records): the store's ids and counts removed. */
export function draftPart(d: Delivery | DeliveryDraft): DeliveryDraft {
  const { trigger, target, maxDeliveryCount, maxTotalCount, maxTotalCountPerDay, category, isActive } = d.condition;
  return {
    name: d.name,
    priority: d.priority,
    condition: { trigger, target, maxDeliveryCount, maxTotalCount, maxTotalCountPerDay, category, isActive },
    message: d.message.map(({ messageId: _m, ...m }) => m),
  };
}

/** Call options sending `token` as X-SERVICE-MAPI-TOKEN (and a body when given). */
export function asMapi(token: string, body?: unknown): CallOptions {
  return { headers: { 'X-SERVICE-MAPI-TOKEN': token }, ...(body === undefined ? {} : { body }) };
}

/** Creates a delivery through the API; fails the test setup unless the answer is 201. */
export async function postDelivery(app: TestApp, mapiToken: string, body: DeliveryBody = buildDelivery()): Promise<DeliveryAnswer> {
  const res = await app.call('POST', '/v1/delivery', asMapi(mapiToken, body));
  if (res.status !== 201) throw new Error(`delivery setup failed: ${res.status} ${res.text}`);
  return res.body as DeliveryAnswer;
}

/** One page of the list as the customer of `mapiToken` sees it: items, X-Total-Count and link header. */
export async function listPage(
  app: TestApp,
  mapiToken: string,
  query = '',
): Promise<{ res: Response; items: DeliveryAnswer[]; total: number; link: string | undefined }> {
  const res = await app.call('GET', `/v1/delivery${query}`, asMapi(mapiToken));
  if (res.status !== 200) throw new Error(`delivery list failed: ${res.status} ${res.text}`);
  return {
    res,
    items: res.body as DeliveryAnswer[],
    total: Number(res.headers['x-total-count']),
    link: res.headers.link,
  };
}
