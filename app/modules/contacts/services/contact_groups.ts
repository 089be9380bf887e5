import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type ContactGroup from '#modules/contacts/models/contact_group'
import { GroupStore } from '#modules/contacts/stores/group_store'
import { transaction } from '#core/database/transaction'
import type { PageOf } from '#core/contract/schemas'
import type { MembersAdded, MembersRemoved, groupSchema } from '#modules/contacts/schemas'

export interface GroupFields {
  name: string
  description?: string | null
}

/**
 * Contact groups and their members. A contact may be in many groups; deleting a group keeps its
 * contacts, deleting a contact removes its memberships (foreign keys cascade). Members are added
 * and removed many at once, one statement per call.
 */
@inject()
export class ContactGroups {
  constructor(
    private clock: Clock,
    private store: GroupStore
  ) {}

  async list(filters: PageRequest & { q?: string }): Promise<PageOf<typeof groupSchema>> {
    const page = await this.store.page(filters)
    const counts = await this.memberCounts(page.data.map((group) => group.id))
    return { data: page.data.map((group) => group.toResource(counts.get(group.id) ?? 0)), nextCursor: page.nextCursor }
  }

  async find(id: number) {
    const group = await this.#group(id)
    return group.toResource((await this.memberCounts([id])).get(id) ?? 0)
  }

  async create(fields: GroupFields) {
    const now = dateTimeOf(this.clock.now())
    await this.#assertNameFree(fields.name)
    const group = await this.store.add({ name: fields.name, description: fields.description ?? null, at: now })
    return group.toResource(0)
  }

  async update(id: number, change: Partial<GroupFields>) {
    const group = await this.#group(id)
    if (change.name !== undefined && change.name !== group.name) await this.#assertNameFree(change.name)
    await this.store.change(group, { ...change, updatedAt: dateTimeOf(this.clock.now()) })
    return this.find(id)
  }

  /** Whether a group has this id (an import names the group its contacts join). */
  async exists(id: number): Promise<boolean> {
    return this.store.exists(id)
  }

  /** The group goes; its contacts stay (only the memberships go, by cascade). */
  async delete(id: number): Promise<void> {
    await this.store.remove(await this.#group(id))
  }

  /** Adds contacts to a group; ids of contacts that do not exist are counted, not refused. A dry run counts and changes nothing. */
  async addMembers(id: number, contactIds: number[], dryRun = false): Promise<MembersAdded> {
    await this.#group(id)
    const ids = [...new Set(contactIds)]
    if (dryRun) {
      const { existing, members } = await this.store.membersAmong(id, ids)
      return { added: existing - members, alreadyMembers: members, notFound: ids.length - existing }
    }
    const at = this.clock.now().toISOString()
    const { added, members, existing } = await transaction((trx) => this.store.addMembers(trx, id, ids, at))
    return { added, alreadyMembers: members, notFound: ids.length - existing }
  }

  async removeMembers(id: number, contactIds: number[]): Promise<MembersRemoved> {
    await this.#group(id)
    return { removed: await this.store.removeMembers(id, [...new Set(contactIds)]) }
  }

  /** The groups of each contact (the contact resource's `groups`), in one statement. */
  async groupsOf(contactIds: number[]): Promise<Map<number, Array<{ id: string; name: string }>>> {
    return contactIds.length ? this.store.groupsOf(contactIds) : new Map()
  }

  /** Whether the number's contact is in one of the groups (a rule's "sender in group"). */
  async hasMemberWithPhone(groupIds: number[], phone: string): Promise<boolean> {
    return this.store.hasMemberWithPhone(groupIds, phone)
  }

  async memberCounts(groupIds: number[]): Promise<Map<number, number>> {
    return groupIds.length ? this.store.memberCounts(groupIds) : new Map()
  }

  async #group(id: number): Promise<ContactGroup> {
    const group = await this.store.find(id)
    if (!group) throw ApiError.notFound('Group')
    return group
  }

  async #assertNameFree(name: string) {
    if (await this.store.nameTaken(name)) {
      throw new ApiError('NAME_TAKEN', 'Another group has this name', [{ field: 'name', rule: 'unique', message: 'Another group has this name' }])
    }
  }
}
