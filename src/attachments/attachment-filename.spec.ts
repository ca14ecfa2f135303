import { cleanFilename, dispositionHeader, filenameFromDisposition } from './attachment-filename.js';

describe('cleanFilename', () => {
  it('keeps an ordinary name as given', () => {
    expect(cleanFilename('Bildschirmfoto 2026-11-25 um 10.00.png')).toBe('Bildschirmfoto 2026-11-25 um 10.00.png');
  });

  it('turns path separators into underscores, so the name names no directory', () => {
    expect(cleanFilename('../../etc/passwd')).toBe('.._.._etc_passwd');
    expect(cleanFilename('C:\\Users\\me\\log.txt')).toBe('C:_Users_me_log.txt');
  });

  it('removes control and bidirectional characters', () => {
    expect(cleanFilename('evil\r\nSet-Cookie: x.txt')).toBe('evilSet-Cookie: x.txt');
    expect(cleanFilename('invoice\u202egpj.exe')).toBe('invoicegpj.exe');
  });

  it('caps the name at 255 UTF-8 bytes, keeping the extension and whole characters', () => {
    const cleaned = cleanFilename(`${'ü'.repeat(300)}.log`);
    expect(Buffer.byteLength(cleaned)).toBeLessThanOrEqual(255);
    expect(cleaned.endsWith('ü.log')).toBe(true);
  });

  it('names an upload without a usable name "attachment"', () => {
    expect(cleanFilename(undefined)).toBe('attachment');
    expect(cleanFilename(' \u0000 ')).toBe('attachment');
    expect(cleanFilename('..')).toBe('attachment');
  });
});

describe('dispositionHeader', () => {
  it('gives an ASCII fallback and the UTF-8 name (RFC 6266)', () => {
    expect(dispositionHeader('Grüße "final".txt', 'attachment')).toBe(
      `attachment; filename="Gr__e _final_.txt"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22final%22.txt`,
    );
    expect(dispositionHeader("it's (1).png", 'inline')).toBe(`inline; filename="it's (1).png"; filename*=UTF-8''it%27s%20%281%29.png`);
  });
});

describe('filenameFromDisposition', () => {
  it('prefers filename* (UTF-8 or ISO-8859-1) over filename', () => {
    expect(filenameFromDisposition(`attachment; filename="fallback.txt"; filename*=UTF-8''Gr%C3%BC%C3%9Fe.txt`)).toBe('Grüße.txt');
    expect(filenameFromDisposition(`attachment; filename*=iso-8859-1'de'Gr%FC%DFe.txt`)).toBe('Grüße.txt');
  });

  it('reads a quoted or plain filename, and nothing from a header without one', () => {
    expect(filenameFromDisposition('attachment; filename="a \\"b\\".txt"')).toBe('a "b".txt');
    expect(filenameFromDisposition('attachment; filename=log.txt')).toBe('log.txt');
    expect(filenameFromDisposition('attachment')).toBeUndefined();
    expect(filenameFromDisposition(undefined)).toBeUndefined();
  });
});
