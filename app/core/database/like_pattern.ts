/**
 * A LIKE pattern matching `text` anywhere, its `%`, `_` and `\` taken literally: use it with
 * `LIKE ? ESCAPE '\'`.
 */
export function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`
}
