import type { Emitter } from '@adonisjs/core/events'
import { publicEventCatalogue, type PublicEvent } from '#core/events/public_events'
import type { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'

/**
 * Every public event, from any module, becomes deliveries for the webhooks subscribed to it at
 * that moment. The emitter awaits the listener, so the event's deliveries are stored by the time
 * its emitter carries on. Called from a provider's start(), when every module has registered
 * its events.
 *
 * One listener per public event, not `onAny`: a catch-all listener makes the framework emit
 * `http:request_completed` for every request and time every query for `db:query` (both ask the
 * emitter whether anyone listens), a measurable share of an API call.
 */
export function recordPublicEvents(emitter: Emitter<any>, recorder: () => Promise<DeliveryRecorder>) {
  for (const name of publicEventCatalogue.names()) {
    emitter.on(name, async (payload: unknown) => {
      await (await recorder()).recordEvent(name, payload as PublicEvent)
    })
  }
}
