import type { PhoneReports, Taken } from '#modules/devices/public'
import type { UpFrame } from '#modules/agent/channel/agent_protocol'

/**
 * What a frame from an agent says, handed to the gateway's inlet (docs/device-protocol.md,
 * frames up). A frame of a type this gateway does not know (a newer agent) proves the phone
 * alive and changes nothing else; so does a report about an order without a readable
 * `messageId` (nothing to change, and refusing it would make the phone send it for ever).
 */
export function takeFrame(reports: PhoneReports, deviceId: number, frame: UpFrame): Promise<Taken> {
  const messageId = typeof frame.messageId === 'string' && /^\d{1,15}$/.test(frame.messageId) ? Number(frame.messageId) : null
  switch (frame.type) {
    case 'hello':
      return typeof frame.appVersion === 'string' ? reports.appVersion(deviceId, frame.appVersion) : reports.heartbeat(deviceId)
    case 'status':
      return reports.status(deviceId, statusOf(frame))
    case 'accepted':
    case 'sent':
    case 'delivered':
      return messageId ? reports[frame.type](deviceId, messageId) : reports.heartbeat(deviceId)
    case 'failed':
      return messageId ? reports.failed(deviceId, messageId, typeof frame.reason === 'string' ? frame.reason : 'GENERIC_FAILURE') : reports.heartbeat(deviceId)
    case 'inbound':
      return reports.inbound(deviceId, inboundOf(frame))
    default:
      // heartbeat, and types a newer agent knows: proof of life only.
      return reports.heartbeat(deviceId)
  }
}

function statusOf(frame: UpFrame) {
  const battery = frame.battery as { level?: unknown; charging?: unknown } | undefined
  return {
    batteryLevel: typeof battery?.level === 'number' ? battery.level : undefined,
    charging: typeof battery?.charging === 'boolean' ? battery.charging : undefined,
    signal: typeof frame.signal === 'number' ? frame.signal : undefined,
  }
}

/**
 * An SMS a phone reported, kept even when the frame lacks a field: refusing it would make the
 * phone send it again on every connection, and dropping it after an ack would lose the SMS.
 * The frame's own id stands in for a missing `ref` (a repeated frame keeps its id).
 */
function inboundOf(frame: UpFrame) {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : null)
  const reported = typeof frame.receivedAt === 'string' ? Date.parse(frame.receivedAt) : Number.NaN
  return {
    ref: text(frame.ref) ?? `frame:${frame.id}`,
    from: text(frame.from) ?? 'unknown',
    body: typeof frame.body === 'string' ? frame.body : '',
    receivedAt: Number.isNaN(reported) ? null : new Date(reported),
    simSlot: typeof frame.simSlot === 'number' ? frame.simSlot : undefined,
  }
}
