// Deliveries between the wire (openapi.yaml's snake_case bodies, typed by src/generated/openapi.ts) and the
// domain's camelCase records.
import type { Delivery, DeliveryDraft, ImpressionAnswer } from '../domain/deliveries';
import type { Eligibility } from '../domain/showing';
import type { components } from '../generated/openapi';

type Schemas = components['schemas'];

/** What the client controls; the ids and counts the service owns are ignored when sent, but a message's id is kept. */
export function draftOf(body: Schemas['DeliveryInput']): DeliveryDraft {
  const c = body.condition;
  return {
    name: body.name,
    priority: body.priority,
    condition: {
      trigger: { eventName: c.trigger.event_name, period: c.trigger.period },
      target: { segmentationId: c.target.segmentation_id },
      maxDeliveryCount: c.max_delivery_count,
      maxTotalCount: c.max_total_count,
      maxTotalCountPerDay: c.max_total_count_per_day,
      category: c.category,
      isActive: c.is_active,
    },
    message: body.message.map((m) => ({
      templateId: m.template_id,
      title: m.title,
      body: m.body,
      imageUrl: m.image_url,
      buttons: m.buttons.map((b) => ({ id: b.id, name: b.name, url: b.url, eventName: b.event_name })),
      ...(m.message_id !== undefined ? { messageId: m.message_id } : {}),
    })),
  };
}

export function deliveryBody(d: Delivery): Schemas['Delivery'] {
  const c = d.condition;
  return {
    name: d.name,
    priority: d.priority,
    delivery_id: d.deliveryId,
    condition: {
      trigger: { event_name: c.trigger.eventName, period: c.trigger.period },
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
}

export const eligibilityBody = (e: Eligibility): Schemas['EligibleResponse'] => ({
  deliveries: e.deliveries.map(deliveryBody),
  ...(e.excluded !== undefined ? { excluded: e.excluded.map((x) => ({ delivery_id: x.deliveryId, reason: x.reason })) } : {}),
});

export const impressionBody = (a: ImpressionAnswer): Schemas['ImpressionResult'] => ({
  delivery_id: a.deliveryId,
  delivery_count: a.deliveryCount,
  person_total: a.personTotal,
  person_today: a.personToday,
});
