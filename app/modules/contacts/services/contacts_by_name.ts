import { inject } from '@adonisjs/core'
import { NumbersByName } from '#modules/messages/public'
import { ContactNameStore } from '#modules/contacts/stores/contact_names'

/** Written like a number: no name to look for (the contacts' list search says the same). */
const LOOKS_LIKE_A_NUMBER = /^[+\d\s().-]*\d[\d\s().-]*$/

/**
 * Contacts found by their names for a search of messages and conversations (bound as the
 * messages module's `NumbersByName`): a word is a run of letters and digits, as the messages'
 * search cuts them, and every word must be in the first or the last name.
 */
@inject()
export class ContactsByName extends NumbersByName {
  constructor(private store: ContactNameStore) {
    super()
  }

  async phonesMatching(q: string): Promise<string[]> {
    if (LOOKS_LIKE_A_NUMBER.test(q)) return []
    return this.store.phonesNamed(q.normalize('NFKC').split(/[^\p{L}\p{N}]+/u).filter(Boolean).slice(0, 8))
  }
}
