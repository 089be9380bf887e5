import { inject } from '@adonisjs/core'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { ConversationBook } from '#modules/conversations/public'
import { ContactStore, type ImportedValues } from '#modules/contacts/stores/contact_store'
import { GroupStore } from '#modules/contacts/stores/group_store'

export type { ImportedValues }

/** A number's contact as an import merges a row into it; `seen`: this import wrote it already. */
export type ImportedContact = ImportedValues & { id: number; seen: boolean }

/** What one chunk of an import writes to the contact book. */
export interface ImportedChunk {
  importId: number
  /** New contacts, never opted out. */
  added: ImportedValues[]
  /** Existing contacts with their merged values; their opt-out is never changed. */
  changed: Array<{ id: number; values: ImportedValues }>
  /** The group every contact written joins. */
  groupId: number | null
}

/**
 * Contacts written many at once from a file, in the writer's transaction, so that a chunk of an
 * import commits with its own progress or not at all. The contacts module keeps which contacts
 * each import wrote (`contact_import_contacts`): the audiences campaigns name read it in the same
 * statement as groups and contacts.
 */
@inject()
export class ImportedContacts {
  constructor(
    private contacts: ContactStore,
    private groups: GroupStore,
    private conversations: ConversationBook
  ) {}

  /** The contacts of these numbers, by number. */
  async existing(trx: TransactionClientContract, importId: number, phones: string[]): Promise<Map<string, ImportedContact>> {
    return this.contacts.forImport(trx, importId, phones)
  }

  /**
   * Adds and changes the chunk's contacts, links a new contact to its number's conversation (a
   * number that already wrote or received a message), records them as the import's and puts them
   * in its group.
   */
  async write(trx: TransactionClientContract, chunk: ImportedChunk, now: string): Promise<void> {
    const created = await this.contacts.addImported(trx, chunk.added, now)
    await this.contacts.changeImported(trx, chunk.changed, now)
    const ids = [...created.map((contact) => contact.id), ...chunk.changed.map(({ id }) => id)]
    await this.conversations.linkContacts(trx, created)
    if (!ids.length) return
    await this.contacts.markImported(trx, chunk.importId, ids)
    if (chunk.groupId) await this.groups.addImported(trx, chunk.groupId, ids, now)
  }
}
