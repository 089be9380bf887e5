/**
 * A time as it appears in the names of files the gateway writes (backups, archives, exports,
 * the pre-restore copy): `20261121-093000`, UTC, sorting in time order.
 */
export function fileStamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')
}
