/**
 * The numbers whose contact's name matches a search (`q` of the messages and conversations
 * lists). Contacts are the contacts module's, which builds on this one: it binds this in its
 * provider (`ContactsByName`), so this module names no contacts module.
 */
export abstract class NumbersByName {
  /** The numbers (E.164) of the contacts whose name holds every word of `q`. */
  abstract phonesMatching(q: string): Promise<string[]>
}
