/**
 * The first words of a text, at most `length` characters: cut at the last space that fits
 * (mid-word only for a single longer word), "…" when cut; lines joined. `start` may hold one
 * character more than `length`, which says whether the text goes on.
 */
export function firstWords(start: string | undefined, length: number): string | null {
  if (start === undefined) return null
  const text = start.replace(/\s+/g, ' ').trim()
  if (text.length <= length && start.length <= length) return text
  const room = text.slice(0, length)
  // A word ending right at the limit is kept whole.
  const space = text[length] === ' ' ? length : room.lastIndexOf(' ')
  return `${(space > 0 ? room.slice(0, space) : room.slice(0, length - 1)).trimEnd()}…`
}
