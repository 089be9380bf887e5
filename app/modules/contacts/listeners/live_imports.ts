import type { Broadcastable } from '@boringnode/transmit/types'
import type { ContactImports } from '#modules/contacts/services/contact_imports'

/** The Transmit channel signed-in dashboards subscribe to for contact imports' progress. */
export const IMPORTS_CHANNEL = 'imports'

/** At most one progress broadcast per import per second; the last one always goes. */
const EVERY_MS = 1000

/**
 * Tells the dashboards how an import goes (`import.progress` with the import as the API answers
 * it: counts and status, never a contact), after committed chunks and at the end.
 */
export class LiveImports {
  #lastSent = new Map<number, number>()

  constructor(
    private transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>,
    private imports: () => Promise<ContactImports>,
    private now: () => Promise<Date>
  ) {}

  async progressed(id: number, final: boolean): Promise<void> {
    const at = (await this.now()).getTime()
    if (!final && at - (this.#lastSent.get(id) ?? 0) < EVERY_MS) return
    this.#lastSent.set(id, at)
    if (final) this.#lastSent.delete(id)
    const found = await (await this.imports()).find(id)
    // Contact values (the first rows, as each encoding reads them) never go on a live channel.
    const { sample: _sample, previews: _previews, ...counts } = found as typeof found & { previews?: unknown }
    ;(await this.transmit()).broadcast(IMPORTS_CHANNEL, { type: 'import.progress', import: counts as unknown as Broadcastable })
  }
}
