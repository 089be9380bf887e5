/** What a template may show about a recipient: the contact's own fields and its custom ones. */
export interface TemplateRecipient {
  phone: string
  firstName?: string | null
  lastName?: string | null
  company?: string | null
  email?: string | null
  fields?: Record<string, string>
}

/** `{{ key }}` or `{{ key | fallback }}`: a key is a letter then letters, digits or _. */
const VARIABLE = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\|([^{}]*))?\}\}/g

/**
 * How a template's text is filled in for a recipient: one module shared by the gateway
 * (campaigns, rules, the preview) and the dashboard's editor (its live count), so both count
 * the same text.
 */

/** The variables every recipient has (a contact's custom fields may not take these names). */
export const BUILT_IN_VARIABLES: readonly string[] = ['name', 'firstName', 'lastName', 'phone', 'company', 'email']

/** The value of one variable for a recipient, or '' when it has none. */
function valueOf(key: string, recipient: TemplateRecipient): string {
  switch (key) {
    case 'name':
      // The name as a person writes it: first and last, whichever are known.
      return [recipient.firstName, recipient.lastName].filter((part) => part && part.trim()).join(' ')
    case 'firstName':
      return recipient.firstName ?? ''
    case 'lastName':
      return recipient.lastName ?? ''
    case 'phone':
      return recipient.phone
    case 'company':
      return recipient.company ?? ''
    case 'email':
      return recipient.email ?? ''
    default:
      return recipient.fields?.[key] ?? ''
  }
}

/**
 * The text one recipient receives: each variable replaced by the recipient's value, or by its
 * fallback (`{{name|there}}`) when the value is empty, or by nothing. Text that only looks like
 * a variable (`{{ }}`, `{{1}}`) is left as written.
 */
export function renderTemplate(text: string, recipient: TemplateRecipient): string {
  return text.replace(VARIABLE, (_match, key: string, fallback: string | undefined) => {
    const value = valueOf(key, recipient).trim()
    return value || (fallback ?? '').trim()
  })
}

/** The text as someone with no data at all receives it: every variable its fallback, or nothing. */
export function withFallbacksOnly(text: string): string {
  return renderTemplate(text, { phone: '' })
}

/** The variables a text uses, each once, in order of first use, with whether each has a fallback. */
export function templateVariables(text: string): Array<{ key: string; fallback: string | null }> {
  const seen = new Map<string, string | null>()
  for (const match of text.matchAll(VARIABLE)) {
    const fallback = match[2] === undefined ? null : match[2].trim()
    if (!seen.has(match[1]) || (seen.get(match[1]) === null && fallback !== null)) seen.set(match[1], fallback)
  }
  return [...seen].map(([key, fallback]) => ({ key, fallback }))
}
