/** A date-time of the API in the operator's own locale and time zone. */
export function localTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—'
}
