/** How many leading bytes the sniffing looks at. */
export const SNIFF_BYTES = 4096;

const SIGNATURES: ReadonlyArray<{ type: string; magic: Buffer }> = [
  { type: 'image/png', magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', magic: Buffer.from([0xff, 0xd8, 0xff]) },
  { type: 'image/gif', magic: Buffer.from('GIF87a') },
  { type: 'image/gif', magic: Buffer.from('GIF89a') },
  { type: 'application/pdf', magic: Buffer.from('%PDF-') },
  { type: 'application/zip', magic: Buffer.from([0x50, 0x4b, 0x03, 0x04]) },
  { type: 'application/zip', magic: Buffer.from([0x50, 0x4b, 0x05, 0x06]) },
];

/** Formats that are ZIP archives inside: their declared type stands when the bytes are ZIP. */
const ZIP_FAMILY =
  /^application\/(?:zip|[\w.+-]+\+zip|vnd\.openxmlformats-officedocument\.[\w.+-]+|vnd\.oasis\.opendocument\.[\w.+-]+|java-archive|vnd\.android\.package-archive)$/;

/** Declared types that say "text": they stand when the bytes are text. */
const TEXTUAL = /^(?:text\/[\w.+-]+|application\/(?:json|xml|javascript|x-yaml|yaml|x-sh|sql)|[\w.-]+\/[\w.+-]+\+(?:json|xml))$/;

const SNIFFED_TYPES = new Set(SIGNATURES.map((signature) => signature.type));

/** The media type's essence (`type/subtype`, lower case), or undefined for something that is not one. */
export function mediaTypeEssence(declared: string | undefined): string | undefined {
  const essence = declared?.split(';')[0].trim().toLowerCase();
  return essence && /^[\w.+-]+\/[\w.+-]+$/.test(essence) ? essence : undefined;
}

/** Tab, LF, FF, CR and ESC (ANSI colours in logs). */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x1b]);

/** Whether the bytes look like text: valid UTF-8 (a sequence cut at the end of `head` allowed), no NUL or other C0 controls but tab, CR, LF, FF, ESC. */
function looksLikeText(head: Buffer): boolean {
  if (head.some((byte) => byte < 0x20 && !TEXT_CONTROLS.has(byte))) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The type an attachment is recorded (and served) as, from its first bytes and the type the client declared: the
 * bytes win. PNG, JPEG, GIF and PDF are what their magic numbers say; ZIP bytes keep a declared ZIP-based format
 * (docx, odt, jar, …) and are application/zip otherwise; text keeps a declared textual type and is text/plain
 * otherwise; other binary bytes keep a declared type that claims neither a sniffed format nor text, and are
 * application/octet-stream otherwise.
 */
export function recordedContentType(head: Buffer, declared: string | undefined): string {
  const essence = mediaTypeEssence(declared);
  const signature = SIGNATURES.find(({ magic }) => head.subarray(0, magic.length).equals(magic));
  if (signature?.type === 'application/zip') return essence && ZIP_FAMILY.test(essence) ? essence : 'application/zip';
  if (signature) return signature.type;
  if (looksLikeText(head.subarray(0, SNIFF_BYTES))) return essence && TEXTUAL.test(essence) ? essence : 'text/plain';
  const claimsOther = !essence || SNIFFED_TYPES.has(essence) || ZIP_FAMILY.test(essence) || TEXTUAL.test(essence);
  return claimsOther ? 'application/octet-stream' : essence;
}

/**
 * The recorded types that the bytes confirmed: recordedContentType says PNG, JPEG, GIF and PDF only for their magic
 * numbers, and text/plain only for text. Every other recorded type may be the client's word alone (image/webp over
 * bytes of anything), which a browser would sniff and render as it sees fit.
 */
const CONFIRMED_INLINE: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'application/pdf', 'text/plain']);

/**
 * Types a browser may show in the page (`?disposition=inline`): only those the bytes confirmed, PNG, JPEG, GIF, PDF
 * and plain text; never HTML, SVG or XML, nor a declared type the sniffing cannot check (WebP, BMP, AVIF, …).
 */
export function mayBeInline(contentType: string): boolean {
  return CONFIRMED_INLINE.has(contentType);
}
