import type { ApiProblem } from '../../api/client'
import type { Contact } from '../contacts/use_contacts'

/** Numbers typed or pasted: one a line, or separated by commas or semicolons. */
export function typedNumbers(text: string): string[] {
  return text
    .split(/[\n,;]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
}

/** What the send's `to` holds, in order: the typed numbers first, then the picked contacts. */
export function recipientsOf(numbers: string[], contacts: Contact[]): string[] {
  return [...numbers, ...contacts.map((contact) => contact.phone)]
}

/** Where a refused recipient sits on the page: a typed entry, or a picked contact. */
export type Refused = { kind: 'typed'; index: number; entry: string } | { kind: 'contact'; contact: Contact }

/**
 * The recipients a refusal names. INVALID_PHONE and CONTACT_BLACKLISTED answer the positions in
 * `to` (never the numbers themselves): map them back to what the operator typed or picked.
 */
export function refusedRecipients(problem: ApiProblem | null, numbers: string[], contacts: Contact[]): Refused[] {
  if (!problem || (problem.code !== 'INVALID_PHONE' && problem.code !== 'CONTACT_BLACKLISTED')) return []
  const details = problem.details as { positions?: unknown; position?: unknown } | undefined
  const positions = Array.isArray(details?.positions) ? details.positions : [details?.position]
  return positions
    .filter((position): position is number => typeof position === 'number')
    .flatMap((position): Refused[] => {
      if (position < numbers.length) return [{ kind: 'typed', index: position, entry: numbers[position] }]
      const contact = contacts[position - numbers.length]
      return contact ? [{ kind: 'contact', contact }] : []
    })
}
