import type { Emitter } from '@adonisjs/core/events'
import { isPublicEventName, type PublicEvent } from '#core/events/public_events'
import type { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'

/**
 * Every public event, from any module, becomes deliveries for the webhooks subscribed to it at
 * that moment. The emitter awaits the listener, so the event's deliveries are stored by the time
 * its emitter carries on.
 */
export function recordPublicEvents(emitter: Emitter<any>, recorder: () => Promise<DeliveryRecorder>) {
  emitter.onAny(async (name, payload) => {
    if (typeof name !== 'string' || !isPublicEventName(name)) return
    await (await recorder()).recordEvent(name, payload as PublicEvent)
  })
}
