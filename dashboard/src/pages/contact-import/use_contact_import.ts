import { api, answer, ApiProblem, withXsrfHeader } from '../../api/client'
import { useLiveChannel, type LivePayload } from '../../live/live'
import type { components } from '../../api/schema'
import { choicesOf, importColumnUseLabels, importEncodingLabels } from '../../components/labels'

export type ContactImport = components['schemas']['ContactImport']
export type ImportMapping = NonNullable<ContactImport['mapping']>
export type ImportEncoding = ContactImport['encoding']
/** The header, first rows and suggested mapping as one encoding reads the file. */
export type ImportPreview = NonNullable<ContactImport['previews']>[ImportEncoding]

/** The encodings offered in the mapping step. */
export const importEncodings = choicesOf(importEncodingLabels)

/** What the page shows for `encoding`: its preview while one is offered, else the import as read. */
export function previewOf(entry: ContactImport, encoding: ImportEncoding): ImportPreview {
  return entry.previews?.[encoding] ?? { columns: entry.columns, sample: entry.sample, suggestedMapping: entry.suggestedMapping }
}

/** What a column is turned into: a contact field, a custom field (`field:key`), or nothing. */
export type ColumnUse = keyof typeof importColumnUseLabels
export const columnUses = choicesOf(importColumnUseLabels)

/** Uploads the file as multipart/form-data (the typed client speaks JSON only). */
export async function uploadFile(file: File): Promise<ContactImport> {
  const form = new FormData()
  form.append('file', file, file.name)
  let response: Response
  try {
    response = await fetch(withXsrfHeader(new Request('/api/v1/contacts/imports', { method: 'POST', body: form, credentials: 'same-origin' })))
  } catch {
    throw new ApiProblem(0, 'NETWORK', 'The gateway did not answer; check that it is running')
  }
  // why: an answer that is not JSON (a proxy's page) still becomes an ApiProblem below, from its status.
  const body = await response.json().catch(() => undefined)
  if (!response.ok) throw ApiProblem.from(response.status, body)
  return body as ContactImport
}

export async function startImport(id: string, mapping: ImportMapping, groupId: string | null, encoding: ImportEncoding) {
  return answer(api.POST('/api/v1/contacts/imports/{id}/start', { params: { path: { id } }, body: { mapping, encoding, ...(groupId ? { groupId } : {}) } }))
}
export async function getImport(id: string) {
  return answer(api.GET('/api/v1/contacts/imports/{id}', { params: { path: { id } } }))
}
export async function listImportErrors(id: string, cursor?: string) {
  return answer(api.GET('/api/v1/contacts/imports/{id}/errors', { params: { path: { id }, query: { ...(cursor ? { cursor } : {}) } } }))
}

/** The uses offered at first for each column, from the gateway's suggested mapping. */
export function usesFromMapping(columns: string[], mapping: ImportMapping): Array<{ use: ColumnUse; key: string }> {
  return columns.map((column) => {
    for (const use of ['phone', 'firstName', 'lastName', 'company', 'email', 'tags'] as const) if (mapping[use] === column) return { use, key: '' }
    const key = Object.entries(mapping.fields ?? {}).find(([, named]) => named === column)?.[0]
    return key ? { use: 'field', key } : { use: 'ignore', key: '' }
  })
}

/** The mapping the uses make, as the API takes it. */
export function mappingFromUses(columns: string[], uses: Array<{ use: ColumnUse; key: string }>): ImportMapping {
  const mapping: ImportMapping = { phone: '' }
  const fields: Record<string, string> = {}
  uses.forEach(({ use, key }, index) => {
    if (use === 'ignore') return
    if (use === 'field') fields[key.trim()] = columns[index]
    else mapping[use] = columns[index]
  })
  return { ...mapping, ...(Object.keys(fields).length ? { fields } : {}) }
}

/** An import as `imports` broadcasts it: as the API answers it, without `sample` and `previews`. */
export type ImportProgress = LivePayload<'imports'>['import']

export function useImportProgress(handler: (entry: ImportProgress) => void) {
  useLiveChannel('imports', (message) => {
    if (message?.type === 'import.progress') handler(message.import)
  })
}
