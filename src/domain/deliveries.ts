// In-app message deliveries. A delivery has the fields the interface's tables describe, camelCased here; the HTTP
// layer (src/http/delivery-bodies.ts) and the stores' documents (src/store/delivery-document.ts) keep the wire
// names. The service owns its ids and its count fields.
import { DomainError, type FieldProblem } from './errors';
import type { Delivery, DeliveryCounts, DeliveryDraft, DeliveryPage, DeliveryStore } from './ports/deliveries';
import type { PersonCounts } from './ports/showing';
import type { DeletedDeliverySweep } from './retention';

// The records live with their ports; they are named here too, where the deliveries are.
export type { Button, Condition, Delivery, DeliveryCounts, DeliveryDraft, DeliveryPage, Message, Period } from './ports/deliveries';
export type {
  EligibilityState,
  ImpressionAnswer,
  ImpressionOutcome,
  ImpressionRequest,
  ImpressionState,
  PersonCounts,
  PersonRequest,
  Platform,
} from './ports/showing';

export const ZERO_COUNTS: DeliveryCounts = { iphoneDeliveryCount: 0, androidDeliveryCount: 0, deliveryCount: 0 };

/** A stored document with the live counts its store keeps beside it (the counts in the document are those it was written with). */
export const withCounts = (delivery: Delivery, counts: DeliveryCounts): Delivery => ({ ...delivery, condition: { ...delivery.condition, ...counts } });

/** Builds the stored document from a draft and the ids and counts the service owns. */
export function assembleDelivery(
  draft: DeliveryDraft,
  owned: { deliveryId: number; conditionId: number; messageIds: number[]; counts: DeliveryCounts },
): Delivery {
  const c = draft.condition;
  return {
    name: draft.name,
    priority: draft.priority,
    deliveryId: owned.deliveryId,
    condition: {
      trigger: { eventName: [...c.trigger.eventName], period: c.trigger.period.map((p) => ({ start: p.start, end: p.end })) },
      target: { segmentationId: c.target.segmentationId },
      ...owned.counts,
      maxDeliveryCount: c.maxDeliveryCount,
      maxTotalCount: c.maxTotalCount,
      maxTotalCountPerDay: c.maxTotalCountPerDay,
      category: c.category,
      conditionId: owned.conditionId,
      isActive: c.isActive,
    },
    message: draft.message.map((m, i) => ({
      templateId: m.templateId,
      title: m.title,
      body: m.body,
      imageUrl: m.imageUrl,
      buttons: m.buttons.map((b) => ({ id: b.id, name: b.name, url: b.url, eventName: b.eventName })),
      messageId: owned.messageIds[i] as number,
    })),
  };
}

/** Message ids a replacement keeps: those the client sends back that belong to this delivery, once each. */
export function keptMessageIds(existing: Delivery, draft: DeliveryDraft): Array<number | undefined> {
  const available = new Set(existing.message.map((m) => m.messageId));
  return draft.message.map((m) => {
    if (m.messageId !== undefined && available.has(m.messageId)) {
      available.delete(m.messageId);
      return m.messageId;
    }
    return undefined;
  });
}

export class DeliveryService {
  constructor(
    private readonly store: DeliveryStore,
    /** Deletes what a deleted delivery left, in the background (src/domain/retention.ts). */
    private readonly deletedDeliveries: Pick<DeletedDeliverySweep, 'sweep'>,
  ) {}

  list(customerId: string, page: number, count: number): Promise<DeliveryPage> {
    return this.store.listDeliveries(customerId, (page - 1) * count, count);
  }

  async get(customerId: string, deliveryId: number): Promise<Delivery> {
    const delivery = await this.store.getDelivery(customerId, deliveryId);
    if (!delivery) throw deliveryNotFound(deliveryId);
    return delivery;
  }

  create(customerId: string, draft: DeliveryDraft): Promise<Delivery> {
    checkPeriods(draft);
    return this.store.createDelivery(customerId, draft);
  }

  async replace(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery> {
    checkPeriods(draft);
    const replaced = await this.store.replaceDelivery(customerId, deliveryId, draft);
    if (!replaced) throw deliveryNotFound(deliveryId);
    return replaced;
  }

  /** The delivery at once; its impressions and idempotency keys in the background, in batches. */
  async delete(customerId: string, deliveryId: number): Promise<void> {
    if (!(await this.store.deleteDelivery(customerId, deliveryId))) throw deliveryNotFound(deliveryId);
    void this.deletedDeliveries.sweep();
  }
}

/** The 404 of every delivery endpoint. */
export const deliveryNotFound = (deliveryId: number): DomainError => new DomainError('delivery_not_found', `No delivery ${deliveryId} for this customer.`);

const LEAP_SECOND = 'is a leap second (:60), which cannot be compared with other times here; use :59';

function checkPeriods(draft: DeliveryDraft): void {
  const problems: FieldProblem[] = [];
  draft.condition.trigger.period.forEach((p, i) => {
    const at = `/body/condition/trigger/period/${i}`;
    const start = Date.parse(p.start);
    const end = Date.parse(p.end);
    // The date-time format (RFC 3339) admits a leap second, which a JavaScript Date cannot hold (NaN): say so,
    // rather than that the period is the wrong way round.
    if (Number.isNaN(start)) problems.push({ path: `${at}/start`, message: LEAP_SECOND });
    if (Number.isNaN(end)) problems.push({ path: `${at}/end`, message: LEAP_SECOND });
    if (!Number.isNaN(start) && !Number.isNaN(end) && !(start < end)) problems.push({ path: `${at}/start`, message: 'must be before end' });
  });
  if (problems.length > 0) {
    throw new DomainError('validation_failed', 'A display period must start before it ends, at times this service can compare.', problems);
  }
}

// ---- showing messages (docs/deliveries.md)

export const NO_IMPRESSIONS: PersonCounts = { total: 0, today: 0 };

/** Every delivery is showable: what ShowingStore.eligibility assumes without a `showable`. */
export const EVERY_DELIVERY = (_delivery: Delivery): boolean => true;
