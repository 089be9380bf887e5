/**
 * The modem driver's time: every wait (an answer, a prompt, a registration retry, the parts of a
 * long SMS) is armed here, so tests move time instead of sleeping. The shape is the gateway's
 * Clock's (nowMs, setTimer), which tests pass as it is; the agent imports nothing from app/.
 */
export interface ModemTimer {
  cancel(): void
}

export interface ModemClock {
  nowMs(): number
  setTimer(delayMs: number, callback: () => void): ModemTimer
}

export const systemClock: ModemClock = {
  nowMs: () => Date.now(),
  setTimer(delayMs, callback) {
    const handle = setTimeout(callback, Math.max(0, delayMs))
    // The socket and the serial port keep the agent alive; a pending wait must not.
    handle.unref()
    return { cancel: () => clearTimeout(handle) }
  },
}

/** Resolves after `ms` on `clock`. */
export function pause(clock: ModemClock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve))
}
