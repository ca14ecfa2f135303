/** What a filename may take at most, in UTF-8 bytes: what file systems and most clients accept. */
export const FILENAME_MAX_BYTES = 255;

/** The name of an upload that comes without one. */
export const DEFAULT_FILENAME = 'attachment';

/*
 * C0 and C1 control characters, DEL, and the bidirectional controls that make "gpj.exe" look like "exe.jpg"
 * (U+202A-U+202E, U+2066-U+2069, U+200E-U+200F).
 */
const UNSAFE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The name an attachment keeps: the client's name with path separators turned into `_` (so it names no directory when
 * saved), control and bidirectional characters removed, NFC, trimmed, and at most 255 UTF-8 bytes (the end of the
 * stem is cut, the extension kept). Empty after that: "attachment".
 */
export function cleanFilename(given: string | undefined): string {
  const cleaned = (given ?? '').normalize('NFC').replace(UNSAFE, '').replace(/[/\\]/g, '_').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return DEFAULT_FILENAME;
  return capBytes(cleaned, FILENAME_MAX_BYTES);
}

function capBytes(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && Buffer.byteLength(name.slice(dot)) <= 16 ? name.slice(dot) : '';
  const room = max - Buffer.byteLength(extension);
  let stem = '';
  for (const char of name.slice(0, name.length - extension.length)) {
    if (Buffer.byteLength(stem + char) > room) break;
    stem += char;
  }
  return stem + extension;
}

/**
 * RFC 6266's Content-Disposition of a download: `filename="…"` as an ASCII fallback (what is not printable ASCII, and
 * `"` and `\`, become `_`) and `filename*=UTF-8''…` with the name itself. Written here rather than with the
 * content-disposition package, which ships no types and leaves filename* out for ASCII names.
 */
export function dispositionHeader(filename: string, type: 'attachment' | 'inline'): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The filename a raw upload's `Content-Disposition` names: `filename*` (RFC 5987, UTF-8 or ISO-8859-1) before
 * `filename` (quoted or a token); undefined when it names none.
 */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /;\s*filename\*\s*=\s*(utf-8|iso-8859-1)'[^']*'([^;\s]+)/i.exec(header);
  if (extended) {
    const bytes = Buffer.from(
      extended[2].replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
    return bytes.toString(extended[1].toLowerCase() === 'utf-8' ? 'utf8' : 'latin1');
  }
  const plain = /;\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (!plain) return undefined;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, '$1') : plain[2];
}
