/** A LIKE pattern for the values starting with `text`, its `%`, `_` and `\` taken literally. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, '\\$&')}%`;
}
