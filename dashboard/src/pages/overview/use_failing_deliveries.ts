import { api, answer } from '../../api/client'
import { useLoaded } from '../../components/use_loaded'
import { useDeliveryChanges } from '../webhooks/live_webhooks'

/** How many webhook deliveries are failing now (GET /webhooks/deliveries/failing), live from `webhooks`. */
export function useFailingDeliveries() {
  const loaded = useLoaded(() => answer(api.GET('/api/v1/webhooks/deliveries/failing')))
  useDeliveryChanges(loaded.reload)
  return loaded
}
