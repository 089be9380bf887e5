import { AsyncLocalStorage } from 'node:async_hooks'
import type { Caller } from '#core/http/access'

/**
 * Who the work in progress is done for: the caller of the API request it came from, so an
 * Activity entry names them without every service passing them along. Background work (jobs,
 * phone reports, start-up) runs outside any request: the gateway itself.
 */
const storage = new AsyncLocalStorage<Caller>()

export const actingCaller = {
  run<T>(caller: Caller, work: () => T): T {
    return storage.run(caller, work)
  },
  current(): Caller | undefined {
    return storage.getStore()
  },
}

/** How an Activity entry names a caller: `account:3`, `api_key:5`. */
export function actorOf(caller: Caller): string {
  return `${caller.type === 'session' ? 'account' : 'api_key'}:${caller.id}`
}
