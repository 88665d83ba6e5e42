// A delivery and an impression's answer as both stores keep them: JSON with the interface's snake_case names,
// the format every database written so far holds. The domain's records are camelCase; these map the two.
import type { Delivery, ImpressionAnswer } from '../domain/deliveries';
import { parseStored } from './stored-json';

interface ButtonDocument {
  id: string;
  name: string;
  url: string;
  event_name: string;
}

interface DeliveryDocument {
  name: string;
  priority: number;
  delivery_id: number;
  condition: {
    trigger: { event_name: string[]; period: Array<{ start: string; end: string }> };
    target: { segmentation_id: number };
    iphone_delivery_count: number;
    android_delivery_count: number;
    delivery_count: number;
    max_delivery_count: number;
    max_total_count: number;
    max_total_count_per_day: number;
    category: string;
    condition_id: number;
    is_active: boolean;
  };
  message: Array<{ template_id: number; title: string; body: string; image_url: string; buttons: ButtonDocument[]; message_id: number }>;
}

interface ImpressionAnswerDocument {
  delivery_id: number;
  delivery_count: number;
  person_total: number;
  person_today: number;
}

/** The document's JSON; its counts are those it is written with (the stores keep the live ones beside it). */
export function deliveryDocument(d: Delivery): string {
  const c = d.condition;
  const document: DeliveryDocument = {
    name: d.name,
    priority: d.priority,
    delivery_id: d.deliveryId,
    condition: {
      trigger: { event_name: c.trigger.eventName, period: c.trigger.period.map((p) => ({ start: p.start, end: p.end })) },
      target: { segmentation_id: c.target.segmentationId },
      iphone_delivery_count: c.iphoneDeliveryCount,
      android_delivery_count: c.androidDeliveryCount,
      delivery_count: c.deliveryCount,
      max_delivery_count: c.maxDeliveryCount,
      max_total_count: c.maxTotalCount,
      max_total_count_per_day: c.maxTotalCountPerDay,
      category: c.category,
      condition_id: c.conditionId,
      is_active: c.isActive,
    },
    message: d.message.map((m) => ({
      template_id: m.templateId,
      title: m.title,
      body: m.body,
      image_url: m.imageUrl,
      buttons: m.buttons.map((b) => ({ id: b.id, name: b.name, url: b.url, event_name: b.eventName })),
      message_id: m.messageId,
    })),
  };
  return JSON.stringify(document);
}

export function parseDeliveryDocument(json: string): Delivery {
  const d = parseStored<DeliveryDocument>(json);
  const c = d.condition;
  return {
    name: d.name,
    priority: d.priority,
    deliveryId: d.delivery_id,
    condition: {
      trigger: { eventName: c.trigger.event_name, period: c.trigger.period },
      target: { segmentationId: c.target.segmentation_id },
      iphoneDeliveryCount: c.iphone_delivery_count,
      androidDeliveryCount: c.android_delivery_count,
      deliveryCount: c.delivery_count,
      maxDeliveryCount: c.max_delivery_count,
      maxTotalCount: c.max_total_count,
      maxTotalCountPerDay: c.max_total_count_per_day,
      category: c.category,
      conditionId: c.condition_id,
      isActive: c.is_active,
    },
    message: d.message.map((m) => ({
      templateId: m.template_id,
      title: m.title,
      body: m.body,
      imageUrl: m.image_url,
      buttons: m.buttons.map((b) => ({ id: b.id, name: b.name, url: b.url, eventName: b.event_name })),
      messageId: m.message_id,
    })),
  };
}

export function impressionAnswerDocument(a: ImpressionAnswer): string {
  const document: ImpressionAnswerDocument = {
    delivery_id: a.deliveryId,
    delivery_count: a.deliveryCount,
    person_total: a.personTotal,
    person_today: a.personToday,
  };
  return JSON.stringify(document);
}

export function parseImpressionAnswer(json: string): ImpressionAnswer {
  const a = parseStored<ImpressionAnswerDocument>(json);
  return { deliveryId: a.delivery_id, deliveryCount: a.delivery_count, personTotal: a.person_total, personToday: a.person_today };
}
