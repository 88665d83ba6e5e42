// The port of the in-app message deliveries, per customer, ordered by delivery_id, and their records. The store
// assigns delivery_id, condition_id and message ids (never reused) and keeps the count fields.

export interface Period {
  start: string;
  end: string;
}

export interface Button {
  id: string;
  name: string;
  url: string;
  eventName: string;
}

export interface Message {
  templateId: number;
  title: string;
  body: string;
  imageUrl: string;
  buttons: Button[];
  messageId: number;
}

export interface Condition {
  trigger: { eventName: string[]; period: Period[] };
  target: { segmentationId: number };
  iphoneDeliveryCount: number;
  androidDeliveryCount: number;
  deliveryCount: number;
  maxDeliveryCount: number;
  maxTotalCount: number;
  maxTotalCountPerDay: number;
  category: string;
  conditionId: number;
  isActive: boolean;
}

export interface Delivery {
  name: string;
  priority: number;
  deliveryId: number;
  condition: Condition;
  message: Message[];
}

/** What a client controls: the ids and counts the service owns are not part of it, but a message's id may be. */
export interface DeliveryDraft {
  name: string;
  priority: number;
  condition: Omit<Condition, 'conditionId' | 'iphoneDeliveryCount' | 'androidDeliveryCount' | 'deliveryCount'>;
  message: Array<Omit<Message, 'messageId'> & { messageId?: number }>;
}

export type DeliveryCounts = Pick<Condition, 'iphoneDeliveryCount' | 'androidDeliveryCount' | 'deliveryCount'>;

export interface DeliveryPage {
  items: Delivery[];
  total: number;
}

export interface DeliveryStore {
  listDeliveries(customerId: string, offset: number, limit: number): Promise<DeliveryPage>;
  getDelivery(customerId: string, deliveryId: number): Promise<Delivery | undefined>;
  createDelivery(customerId: string, draft: DeliveryDraft): Promise<Delivery>;
  /** undefined when the customer has no such delivery. Keeps ids, counts and the message ids sent back. */
  replaceDelivery(customerId: string, deliveryId: number, draft: DeliveryDraft): Promise<Delivery | undefined>;
  /**
   * false when the customer has no such delivery. Its impressions and idempotency keys stay stored, unread, until
   * sweepDeletedDeliveries deletes them: nothing reads them, since every read starts from a delivery and a
   * customer's delivery ids are never given out twice.
   */
  deleteDelivery(customerId: string, deliveryId: number): Promise<boolean>;
  /**
   * Deletes up to `limit` of what deleted deliveries left (of any customer), in one transaction: each one's
   * impression counts, then its idempotency keys, then the mark that it has some left. Answers how many it deleted;
   * fewer than `limit` when nothing is left.
   */
  sweepDeletedDeliveries(limit: number): Promise<number>;
}
