import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'
import type { EventName } from './use_webhooks'

export type Delivery = components['schemas']['WebhookDelivery']
export type DeliveryStatus = Delivery['status']

/** The filters of GET /webhooks/deliveries: what the API offers, nothing more. */
export interface DeliveryFilters {
  status?: DeliveryStatus
  event?: EventName
  webhookId?: string
}

/** Spec, Delivery status: success is shown Delivered. */
export const statusLabels: Record<DeliveryStatus, string> = { pending: 'Pending', success: 'Delivered', failed: 'Failed' }

export function useDeliveryLog(filters: () => DeliveryFilters) {
  return useCursorList((cursor) => answer(api.GET('/api/v1/webhooks/deliveries', { params: { query: { ...filters(), cursor, limit: 50 } } })))
}

export async function replayDelivery(id: string) {
  return answer(api.POST('/api/v1/webhooks/deliveries/{id}/replay', { params: { path: { id } } }))
}
