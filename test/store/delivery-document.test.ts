// Both stores keep a delivery, and an impression's answer, as JSON with the interface's snake_case names: the
// documents databases already hold. The domain's camelCase records are read from them and written back unchanged.
import type { Delivery } from '../../src/domain/deliveries';
import { deliveryDocument, impressionAnswerDocument, parseDeliveryDocument, parseImpressionAnswer } from '../../src/store/delivery-document';

/** A document exactly as earlier versions wrote it (JSON.stringify of the wire-shaped delivery). */
const EARLIER =
  '{"name":"Welcome","priority":1,"delivery_id":7,"condition":{"trigger":{"event_name":["app_open"],"period":[{"start":"2026-01-01T00:00:00Z","end":"2027-01-01T00:00:00+09:00"}]},' +
  '"target":{"segmentation_id":3},"iphone_delivery_count":2,"android_delivery_count":1,"delivery_count":4,"max_delivery_count":5,"max_total_count":10,' +
  '"max_total_count_per_day":2,"category":"onboarding","condition_id":70,"is_active":true},"message":[{"template_id":1,"title":"Hi","body":"Welcome",' +
  '"image_url":"https://example.com/a.png","buttons":[{"id":"ok","name":"OK","url":"myapp://ok","event_name":"tap_ok"}],"message_id":700}]}';

const READ: Delivery = {
  name: 'Welcome',
  priority: 1,
  deliveryId: 7,
  condition: {
    trigger: { eventName: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00+09:00' }] },
    target: { segmentationId: 3 },
    iphoneDeliveryCount: 2,
    androidDeliveryCount: 1,
    deliveryCount: 4,
    maxDeliveryCount: 5,
    maxTotalCount: 10,
    maxTotalCountPerDay: 2,
    category: 'onboarding',
    conditionId: 70,
    isActive: true,
  },
  message: [
    {
      templateId: 1,
      title: 'Hi',
      body: 'Welcome',
      imageUrl: 'https://example.com/a.png',
      buttons: [{ id: 'ok', name: 'OK', url: 'myapp://ok', eventName: 'tap_ok' }],
      messageId: 700,
    },
  ],
};

test('when a document an earlier version wrote is read, then every field arrives in the domain record', () => {
  expect(parseDeliveryDocument(EARLIER)).toEqual(READ);
});

test('when a delivery is written, then its document is the one earlier versions wrote, byte for byte', () => {
  expect(deliveryDocument(READ)).toBe(EARLIER);
});

test('when an impression answer is kept with its key, then it is stored with the wire names and read back', () => {
  const stored = '{"delivery_id":7,"delivery_count":4,"person_total":3,"person_today":2}';
  const answer = { deliveryId: 7, deliveryCount: 4, personTotal: 3, personToday: 2 };
  expect(impressionAnswerDocument(answer)).toBe(stored);
  expect(parseImpressionAnswer(stored)).toEqual(answer);
});
