/**
 * What the contacts module offers other modules (docs/modules.md, module boundaries). Anything
 * not exported here is the module's own business and may change without notice.
 */
/** Who a campaign or a rule names: contacts of groups, of imports and single contacts, with their fields; opted-out numbers. */
export { ContactAudience, AUDIENCE_PAGE, type AudienceMember, type AudienceSelection } from '#modules/contacts/stores/contact_audience'
/** Contact groups: membership reads and changes for rules and campaigns. */
export { ContactGroups } from '#modules/contacts/services/contact_groups'
/** A number's contact read and changed by the number: profile, opt-out, groups, tags (automation rules). */
export { ContactsByPhone, type ContactProfile } from '#modules/contacts/services/contacts_by_phone'
/** Numbers opted out and back in per bucket (the statistics endpoints). */
export { OptOutCounters, OPT_OUT_SLOT_SECONDS, type OptChangeRow } from '#modules/contacts/stores/opt_out_counters'
/** The rows of the contacts export. */
export { contactExportColumns, contactExportRows, type ContactExportRow } from '#modules/contacts/services/contact_export_rows'
/** Contacts written from a CSV import, a chunk at a time in the import's transaction. */
export { ImportedContacts, type ImportedChunk, type ImportedContact, type ImportedValues } from '#modules/contacts/services/imported_contacts'
/** What a contact's custom fields may be: the key's form, names taken by built-in variables, how many, how long. */
export { CUSTOM_FIELD_KEY, RESERVED_FIELD_KEYS, MAX_FIELDS, MAX_FIELD_VALUE } from '#modules/contacts/validators/contact_validators'
/** Who may read and change contacts: contact imports are contact data and share them. */
export { contactPermissions } from '#modules/contacts/permissions'
/** Contacts' numbers found by their names (a search of messages and conversations; bound as the messages module's `NumbersByName`). */
export { ContactsByName } from '#modules/contacts/services/contacts_by_name'
