/**
 * The first words of a message's text, at most `length` characters: cut at the last space that
 * fits (mid-word only for one longer word), "…" when cut, lines joined. The gateway cuts a
 * conversation's preview (`lastMessagePreview`) the same way.
 */
export function firstWords(text: string, length = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat.length <= length) return flat
  const room = flat.slice(0, length)
  // A word ending right at the limit is kept whole.
  const space = flat[length] === ' ' ? length : room.lastIndexOf(' ')
  return `${(space > 0 ? room.slice(0, space) : room.slice(0, length - 1)).trimEnd()}…`
}
